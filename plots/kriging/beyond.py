"""Beyond the paper: experiments 7 (A inverted once, two cuBLAS GEMMs) and 8 (the dual form)
against experiment 6, and the well-count sweep."""

from plots.figures import figure_section, legend, mark_not_measured, panel_grid, panel_title
from plots.kriging.cells import does_not_run_cell, number_cell, seconds_counter
from plots.kriging.curves import GRID_AXIS, LEGEND_INSIDE, counter, curve, draw, time_s
from plots.kriging.data import (BEYOND, BEYOND_DENSE, COLORS, EXPERIMENTS, PAPER, by_scale,
                                by_wells, grid_count, label, sweep_scales, x_memory_bound)
from plots.text import count_label, format_seconds, markdown_table


def exp7_section(devices, figures_dir):
    """Experiments 7 (A inverted once, two cuBLAS GEMMs) and 8 (the dual form) against
    experiment 6."""
    fig, axes = panel_grid(len(devices), 3, width=4.8, height=5.2)
    for row, device in enumerate(devices):
        time_ax, err_ax, bound_ax = axes[row]
        time_ax.set_title(panel_title("computing time (dashed: exps. 7, 8 device only)", device, devices))
        points = {n: by_scale(device, sel) for n, sel in BEYOND.items()}
        draw(time_ax, [curve(n, p, time_s, COLORS[n]) for n, p in points.items()] + [
            curve(f"{n}, device only", points[n], counter("device_s", seconds=True), COLORS[n],
                  dashed=True, errors=False) for n in BEYOND_DENSE],
            GRID_AXIS, "computing time")
        err_ax.set_title(panel_title("max |estimate − double CPU| (m)", device, devices))
        errors = {label(5): by_scale(device, EXPERIMENTS[5]), **points}
        draw(err_ax, [curve(n, p, counter("max_abs_err"), COLORS[n])
                       for n, p in errors.items()], GRID_AXIS, "max abs error (m)")
        bound_ax.set_title(panel_title("exps. 7, 8 device time / memory bound", device, devices))
        if draw(bound_ax, [curve(n, points[n], x_memory_bound, COLORS[n])
                            for n in BEYOND_DENSE],
                 GRID_AXIS, "device_s / memory_bound_s (×)"):
            bound_ax.axhline(1, color="0.4", linestyle=":", linewidth=1.2,
                             label="memory bound (output bytes / copy bandwidth)")
            bound_ax.set_ylim(bottom=min(0.5, bound_ax.get_ylim()[0]))
            legend(bound_ax, LEGEND_INSIDE)
    body = ("Experiment 7 inverts A once; the weights of all grid points are one GEMM "
            "Λ = A⁻¹·B and all surfaces a second, Z = S·Λ. Experiment 8 solves α = A⁻¹[z; 0] "
            "once for all surfaces (on the host in runs before issue 25; since then on the device, "
            "Cholesky of C with the Lagrange row eliminated, where it was faster: its "
            "`solve_on_device` counter says which) and writes every estimate Σᵢ C(x, xᵢ) αᵢ + α₀ in one "
            "fused kernel (no kriging variance). Dashed: their time without host↔device "
            "transfers (`device_s`). Right: x_memory_bound = device_s / memory_bound_s, where "
            "memory_bound_s = output bytes / the device copy bandwidth measured at start (1 = "
            "as fast as writing the output can be).\n\n" + exp7_table(devices))
    return figure_section(fig, figures_dir, "kriging_exp7",
                          f"{PAPER}, beyond the paper: experiments 7 (A⁻¹ once, two cuBLAS GEMMs) "
                          "and 8 (dual form) vs experiment 6, 10 wells",
                          "Beyond the paper — experiments 7 (cuBLAS) and 8 (dual form) vs "
                          "experiment 6", body, devices)


def exp7_table(devices):
    rows = []
    for device in devices:
        exp6 = by_scale(device, EXPERIMENTS[6])
        for name, selector in BEYOND_DENSE.items():
            for scale, b in by_scale(device, selector).items():
                if b.error:
                    rows.append([device.label, name, scale, does_not_run_cell(b)] + [""] * 4)
                    continue
                other = exp6.get(scale)
                ratio = (f"{b.time_s / other.time_s:.2f}" if other and other.time_s
                         else "not measured")
                rows.append([device.label, name, scale, format_seconds(b.time_s),
                             seconds_counter(b, "device_s"), seconds_counter(b, "memory_bound_s"),
                             number_cell(x_memory_bound(b), "{:.3g}×"), ratio])
    header = ["GPU", "experiment", "scale", "time", "device_s", "memory_bound_s",
              "x_memory_bound", "time / exp. 6 time"]
    return markdown_table(header, rows) if rows else "Experiments 7 and 8: not measured."


def wells_section(devices, figures_dir):
    """Time vs well count (10, 100, 1000) at the sweep's scales: where per-thread Gaussian
    elimination (exp. 6) stops and the GEMM pair (exp. 7) goes on."""
    scales = sweep_scales(devices) or [None]
    fig, axes = panel_grid(len(devices), len(scales), width=max(5.2, 9 / len(scales)),
                           height=4.2)  # one panel still fits the title
    for row, device in enumerate(devices):
        for ax, scale in zip(axes[row], scales):
            if scale is None:
                ax.set_title(panel_title("well-count sweep", device, devices))
                mark_not_measured(ax, "no run with other than 10 wells")
                continue
            ax.set_title(panel_title(f"scale {scale} ({count_label(grid_count(scale))} estimates)",
                                device, devices))
            draw(ax, [curve(n, by_wells(device, sel, scale), time_s, COLORS[n])
                       for n, sel in BEYOND.items()], "wells (n)", "computing time",
                  x_of=int, tick_label=str)
    body = ("Experiment 6 solves an (n+1)×(n+1) system per thread with A in __constant__ "
            "memory; experiment 7 inverts A once and uses two GEMMs. A case an experiment cannot "
            "run is an errored benchmark, drawn as × \"does not run\" with its reason.\n\n"
            + wells_table(devices))
    return figure_section(fig, figures_dir, "kriging_wells",
                          f"{PAPER}, beyond the paper: computing time vs number of wells "
                          "(× = does not run)", "Beyond the paper — more wells", body, devices)


def wells_table(devices):
    rows = []
    for device in devices:
        for scale in sweep_scales([device]):
            for name, selector in BEYOND.items():
                for wells, b in by_wells(device, selector, scale).items():
                    rows.append([device.label, name, scale, wells,
                                 does_not_run_cell(b) if b.error else format_seconds(b.time_s),
                                 number_cell(b.counters.get("kappa"), "{:.3g}"),
                                 number_cell(b.counters.get("max_abs_err"), "{:.2g}")])
    header = ["GPU", "experiment", "scale", "wells", "time", "κ(A)", "max_abs_err (m)"]
    return markdown_table(header, rows) if rows else "Well-count sweep: not measured."



"""Mei & Tian 2016 (IDW) figures: Fig. 7, Fig. 8, Fig. 2, builtin vs AoaS, % of compute limit.

Every figure has one row of panels per device, so several results folders (GPUs) sit side by
side; a panel without data says "not measured" rather than disappearing.
"""

from plots.figures import (Section, format_seconds, mark_not_measured, panel_grid,
                           save_figure, size_axis, size_label)
from plots.select import by_size, matches, timed_by_size

PAPER = "Mei & Tian 2016"
INTRO = (
    "G. Mei, H. Tian, *Impact of data layouts on the efficiency of GPU-accelerated IDW "
    "interpolation*, SpringerPlus 5:104 (2016), and G. Mei, Sci. World J. (2014). "
    "The original programs ran on a GeForce GT640 (Kepler) with CUDA 5.5, so absolute "
    "speedups are not expected to carry over; layout ratios and orderings are the claims "
    "that can hold across GPUs."
)
BASELINE = {"version": "cpu-serial", "layout": "aos"}  # the paper's single-thread CPU
PREFER = {"block": 256}  # the paper's default block size when a run sweeps blocks
LAYOUT_FIGURE_P = 2
FIGURE_VERSIONS = ("naive", "tiled", "cdp-improved")
CDP_VERSIONS = ("cdp-original", "cdp-improved")
FLOAT_LAYOUTS = ("soa", "aos", "aoas")
DOUBLE_LAYOUTS = ("soa", "aos", "aoas", "soaos", "hybrid")
LIMIT_LAYOUTS = ("soa", "aos", "aoas", "builtin")
LAYOUT_NAMES = {"soa": "SoA", "aos": "AoS", "aoas": "AoaS", "builtin": "Builtin",
                "soaos": "SoAoS", "hybrid": "Hybrid"}
LAYOUT_COLORS = {layout: f"C{i}" for i, layout in enumerate(LAYOUT_NAMES)}


def render(devices, figures_dir):
    """All IDW figures and tables for these devices, as report sections."""
    sections = [
        speedup_section(devices, figures_dir, "Fig. 7", "float", FLOAT_LAYOUTS),
        speedup_section(devices, figures_dir, "Fig. 8", "double", DOUBLE_LAYOUTS),
        cdp_section(devices, figures_dir),
        builtin_section(devices, figures_dir),
    ]
    if any("pct_of_limit" in b.counters for d in devices for b in d.benchmarks):
        sections.append(limit_section(devices, figures_dir))
    return sections


def speedup_section(devices, figures_dir, figure, precision, layouts):
    """Fig. 7 / Fig. 8: speedup over the single-thread CPU per layout, one panel per version."""
    versions = [v for v in FIGURE_VERSIONS if _has(devices, version=v, precision=precision)]
    fig, axes = panel_grid(len(devices), max(len(versions), 1))
    for row, device in enumerate(devices):
        point = {"precision": precision, "p": LAYOUT_FIGURE_P}
        baseline = timed_by_size(device.benchmarks, {**BASELINE, **point}, PREFER)
        if not versions:
            axes[row][0].set_title(_panel_title("GPU versions", device, devices))
            mark_not_measured(axes[row][0], f"no naive/tiled/CDP {precision} benchmarks")
        for ax, version in zip(axes[row], versions):
            ax.set_title(_panel_title(version, device, devices))
            curves = {}
            for layout in layouts:
                gpu = timed_by_size(device.benchmarks,
                                    {"version": version, "layout": layout, **point}, PREFER)
                sizes = sorted(set(gpu) & set(baseline))
                if sizes:
                    curves[layout] = (sizes, [baseline[s] / gpu[s] for s in sizes])
            if not curves:
                mark_not_measured(ax, f"no {BASELINE['version']} baseline" if not baseline
                                  else f"no {version} {precision} p = {LAYOUT_FIGURE_P} times")
                continue
            _plot_layouts(ax, curves)
            ax.set_ylabel("speedup over single-thread CPU (×)")
    fig.suptitle(f"{PAPER}, {figure}: {precision} speedup over the CPU per layout, "
                 f"p = {LAYOUT_FIGURE_P}\n{_devices_text(devices)}")
    stem = figure.lower().replace(". ", "").replace(" ", "")
    return Section(f"{figure} — {precision} precision, speedup per layout", _baseline_note(),
                   (save_figure(fig, figures_dir, f"idw_{stem}"),))


def cdp_section(devices, figures_dir):
    """Fig. 2: original vs improved CDP, time vs size, p = 2 and p = 3."""
    fig, axes = panel_grid(len(devices), 2)
    for row, device in enumerate(devices):
        for ax, p in zip(axes[row], (2, 3)):
            ax.set_title(_panel_title(f"CDP, float, p = {p}", device, devices))
            drawn = []
            for version in CDP_VERSIONS:
                for layout in FLOAT_LAYOUTS:
                    times = timed_by_size(device.benchmarks, {"version": version, "layout": layout,
                                          "precision": "float", "p": p}, PREFER)
                    if times:
                        sizes = sorted(times)
                        ax.plot(sizes, [times[s] for s in sizes], marker="o",
                                color=LAYOUT_COLORS[layout],
                                linestyle="-" if version == "cdp-improved" else "--",
                                label=f"{version} {LAYOUT_NAMES[layout]}")
                        drawn += sizes
            if not drawn:
                mark_not_measured(ax, "no cdp-original / cdp-improved benchmarks")
                continue
            size_axis(ax, sorted(set(drawn)))
            ax.set_yscale("log")
            ax.set_ylabel("time (s)")
            ax.legend(fontsize=7)
    fig.suptitle(f"{PAPER}, Fig. 2: original vs improved CDP (solid = improved)\n"
                 f"{_devices_text(devices)}")
    return Section("Fig. 2 — original vs improved CDP", "",
                   (save_figure(fig, figures_dir, "idw_fig2"),))


def builtin_rows(device):
    """(version, precision, size, aoas s, builtin s) wherever either layout was timed."""
    rows = []
    for version in FIGURE_VERSIONS:
        for precision in ("float", "double"):
            point = {"version": version, "precision": precision, "p": LAYOUT_FIGURE_P}
            aoas = timed_by_size(device.benchmarks, {**point, "layout": "aoas"}, PREFER)
            builtin = timed_by_size(device.benchmarks, {**point, "layout": "builtin"}, PREFER)
            rows += [(version, precision, size, aoas.get(size), builtin.get(size))
                     for size in sorted(set(aoas) | set(builtin))]
    return rows


def builtin_section(devices, figures_dir):
    """Builtin float4/double4 vs AoaS: table of times and a bar chart of builtin/AoaS."""
    lines = ["| GPU | version | precision | size | AoaS | builtin | builtin / AoaS |",
             "|---|---|---|---|---|---|---|"]
    fig, axes = panel_grid(len(devices), 1, width=7.5)
    for device, (ax,) in zip(devices, axes):
        rows = builtin_rows(device)
        for version, precision, size, aoas, builtin in rows:
            ratio = f"{builtin / aoas:.3f}" if aoas and builtin else "not measured"
            lines.append(f"| {device.label} | {version} | {precision} | {size_label(size)} | "
                         f"{_time_cell(aoas)} | {_time_cell(builtin)} | {ratio} |")
        ax.set_title(_panel_title("builtin / AoaS time", device, devices))
        _plot_ratio_bars(ax, [r for r in rows if r[3] and r[4]])
    if len(lines) == 2:
        lines.append("| — | — | — | — | not measured | not measured | not measured |")
    fig.suptitle(f"{PAPER}: builtin float4/double4 vs AoaS, p = {LAYOUT_FIGURE_P} "
                 f"(paper: no remarkable gain)\n{_devices_text(devices)}")
    body = ("Time ratio builtin / AoaS per version, precision and size (below 1: builtin "
            "faster).\n\n" + "\n".join(lines))
    return Section("Builtin vs AoaS", body,
                   (save_figure(fig, figures_dir, "idw_builtin_vs_aoas"),))


def limit_section(devices, figures_dir):
    """Each variant's time against the device's compute bound (`pct_of_limit` counter)."""
    versions = ("naive", "tiled")
    fig, axes = panel_grid(len(devices), len(versions))
    for row, device in enumerate(devices):
        for ax, version in zip(axes[row], versions):
            ax.set_title(_panel_title(f"{version}, float, p = 2", device, devices))
            curves = {}
            for layout in LIMIT_LAYOUTS:
                chosen, _ = by_size(device.benchmarks, {"version": version, "layout": layout,
                                    "precision": "float", "p": 2}, PREFER)
                points = {s: b.counters["pct_of_limit"] for s, b in chosen.items()
                          if b.error is None and "pct_of_limit" in b.counters}
                if points:
                    curves[layout] = (sorted(points), [points[s] for s in sorted(points)])
            if not curves:
                mark_not_measured(ax, "no pct_of_limit counter")
                continue
            _plot_layouts(ax, curves)
            ax.set_ylabel("% of device compute limit")
            ax.set_ylim(bottom=0)
    fig.suptitle(f"{PAPER}: time vs the measured compute bound (100 % = at the limit)\n"
                 f"{_devices_text(devices)}")
    body = ("`pct_of_limit` = 100 · limit_s / time, where limit_s is the FP32 FMA + reciprocal "
            "bound from the ceilings measured at process start.")
    return Section("% of device compute limit", body,
                   (save_figure(fig, figures_dir, "idw_pct_of_limit"),))


def _plot_layouts(ax, curves):
    for layout, (sizes, values) in curves.items():
        ax.plot(sizes, values, marker="o", color=LAYOUT_COLORS[layout],
                label=LAYOUT_NAMES[layout])
    size_axis(ax, sorted({s for sizes, _ in curves.values() for s in sizes}))
    ax.legend(fontsize=8)


def _plot_ratio_bars(ax, rows):
    if not rows:
        mark_not_measured(ax, "no AoaS/builtin pair")
        return
    groups = list(dict.fromkeys((v, p) for v, p, *_ in rows))
    sizes = sorted({size for _, _, size, _, _ in rows})
    width = 0.8 / len(sizes)
    for k, size in enumerate(sizes):
        xs, ys = [], []
        for g, group in enumerate(groups):
            for version, precision, s, aoas, builtin in rows:
                if (version, precision) == group and s == size:
                    xs.append(g + (k - (len(sizes) - 1) / 2) * width)
                    ys.append(builtin / aoas)
        ax.bar(xs, ys, width=width, label=size_label(size))
    ax.axhline(1.0, color="0.3", linewidth=0.8)
    ratios = [builtin / aoas for _, _, _, aoas, builtin in rows]
    ax.set_ylim(min(0.9, min(ratios) - 0.02), max(1.1, max(ratios) + 0.02))  # zoom on ±10 %
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([f"{v}\n{p}" for v, p in groups])
    ax.set_ylabel("builtin / AoaS time")
    ax.legend(title="size", fontsize=7)


def _has(devices, **selector):
    return any(matches(b, selector) for d in devices for b in d.benchmarks)


def _panel_title(what, device, devices):
    return what if len(devices) == 1 else f"{what} — {device.label}"


def _devices_text(devices):
    return "; ".join(f"{d.label} (preset {d.preset})" for d in devices)


def _time_cell(seconds):
    return format_seconds(seconds) if seconds else "not measured"


def _baseline_note():
    preferred = ", ".join(f"{k} {v}" for k, v in PREFER.items())
    return (f"Speedup = time of the single-thread CPU baseline (`{BASELINE['version']}`, same "
            f"precision, p and size) / GPU time; {preferred} where several were run.")

"""The paper's timing figures: Fig. 2 (computing time of experiments 1–6 and their CPU
programs) with its table, Fig. 3 (speedup over the CPU programs)."""

from plots.baselines import flag_note
from plots.figures import SMALL, figure_section, panel_grid, panel_title
from plots.kriging.cells import time_cell
from plots.kriging.curves import GRID_AXIS, curve, draw, ratio_curve, time_s
from plots.kriging.data import (COLORS, CPU_PROGRAMS, EXPERIMENTS, MAPPING_NOTE, PAPER,
                                PAPER_SPEEDUP_LEVEL, PAPER_SPEEDUP_PEAK, SWEEP, by_scale,
                                flagged_scales, grid_count, label, program_label, programs,
                                speedup_estimates)
from plots.text import count_label, markdown_table


def fig2_section(devices, figures_dir):
    """Fig. 2: computing time vs grid count, (a) the CPU programs, (b) CUDA experiments 1-6."""
    fig, axes = panel_grid(len(devices), 2, width=5.4, height=5.0)
    shown_flags = {}
    for row, device in enumerate(devices):
        cpu_ax, gpu_ax = axes[row]
        cpu_ax.set_title(panel_title("(a) CPU programs (one core)", device, devices))
        cpu = []
        for name, (program, exps) in programs().items():
            points = by_scale(device, program)
            sampled = frozenset(s for s, b in points.items() if b.counters.get("sampled"))
            flagged = flagged_scales(device, program)
            shown_flags.update({f.name: f for f in flagged.values()})
            cpu.append(curve(f"{name} (exp. {', '.join(map(str, exps))})", points, time_s,
                             f"C{exps[0] - 1}", hollow=sampled, flagged=frozenset(flagged)))
        draw(cpu_ax, cpu, GRID_AXIS, "computing time")
        gpu_ax.set_title(panel_title("(b) CUDA programs", device, devices))
        draw(gpu_ax, [curve(label(e), by_scale(device, sel), time_s, COLORS[label(e)])
                       for e, sel in EXPERIMENTS.items()], GRID_AXIS, "computing time")
    body = (f"{MAPPING_NOTE} Computing time includes the host↔device transfers each design "
            "needs. Hollow CPU markers: timed on a sample of grid points and scaled linearly "
            "(`sampled` counter)." + flag_note(shown_flags) + "\n\n" + time_table(devices))
    return figure_section(fig, figures_dir, "kriging_fig2",
                          f"{PAPER}, Fig. 2: computing time of experiments 1–6, 10 wells "
                          "(hollow: CPU time from a sample of grid points)",
                          "Fig. 2 — computing time of experiments 1–6", body, devices)


def time_table(devices):
    """Times per program and scale (Fig. 2's numbers); * = CPU time from a sample."""
    scales = sorted({b.params[SWEEP] for d in devices for b in d.benchmarks
                     if isinstance(b.params.get(SWEEP), int)})
    rows = []
    for device in devices:
        named = [(f"CPU {name} (exp. {', '.join(map(str, exps))})", program)
                 for name, (program, exps) in programs().items()]
        named += [(f"CUDA {label(e)}", sel) for e, sel in EXPERIMENTS.items()]
        for name, selector in named:
            points = by_scale(device, selector)
            rows.append([device.label, name] + [time_cell(points.get(s)) for s in scales])
    header = ["GPU", "program"] + [f"s = {s} ({count_label(grid_count(s))})" for s in scales]
    return markdown_table(header, rows)


def fig3_section(devices, figures_dir):
    """Fig. 3: speedup of experiment 6 over its CPU program; every experiment over its own."""
    fig, axes = panel_grid(len(devices), 2, width=5.4, height=5.0)
    exp6_program = program_label(CPU_PROGRAMS[6])
    shown_flags = {}
    for row, device in enumerate(devices):
        flagged = {e: flagged_scales(device, CPU_PROGRAMS[e]) for e in EXPERIMENTS}
        shown_flags.update({f.name: f for scales in flagged.values() for f in scales.values()})
        exp6_ax, all_ax = axes[row]
        exp6_ax.set_title(panel_title(f"(a) exp. 6 (float) over CPU {exp6_program}", device,
                                 devices))
        exp6 = ratio_curve(label(6), speedup_estimates(device, 6), COLORS[label(6)], flagged[6])
        if draw(exp6_ax, [exp6], GRID_AXIS, "speedup (×)", log=False):
            for value, words in ((PAPER_SPEEDUP_PEAK, "paper: peak above"),
                                 (PAPER_SPEEDUP_LEVEL, "paper: levels near")):
                exp6_ax.axhline(value, color="0.5", linestyle=":", linewidth=1.2)
                exp6_ax.annotate(f"{words} {value}×", (0.01, value), fontsize=SMALL, color="0.4",
                                 xycoords=("axes fraction", "data"), va="bottom")
            exp6_ax.set_ylim(bottom=0)
        all_ax.set_title(panel_title("(b) each experiment over its own CPU program", device,
                                devices))
        draw(all_ax, [ratio_curve(f"{label(e)} / {program_label(CPU_PROGRAMS[e])}",
                                  speedup_estimates(device, e), COLORS[label(e)], flagged[e])
                      for e in EXPERIMENTS], GRID_AXIS, "speedup (×)")
    body = ("Speedup = CPU program time / CUDA program time at the same scale; whiskers: its "
            "interval from both programs' repetitions (the fastest over the slowest and the "
            "slowest over the fastest, as the claims'). " + MAPPING_NOTE
            + f" Dotted lines in (a): the paper's peak (above {PAPER_SPEEDUP_PEAK}×) and level "
            f"(near {PAPER_SPEEDUP_LEVEL}×), measured on a GTX 460 against an Intel E5500."
            + flag_note(shown_flags))
    return figure_section(fig, figures_dir, "kriging_fig3",
                          f"{PAPER}, Fig. 3: speedup of the CUDA programs over their CPU "
                          "programs, 10 wells", "Fig. 3 — speedup over the CPU programs", body,
                          devices)



"""Mei & Tian 2016 (IDW) figures: Fig. 7, Fig. 8, Fig. 2, builtin vs AoaS, % of compute limit.

Every figure has one row of panels per device, so several results folders (GPUs) sit side by
side; a panel without data says "not measured" rather than disappearing. The `roofline`
version is beyond the paper (a kernel written for today's throughput, layout AoaS only): it
is drawn as one black dashed reference line, never as a paper series.
"""

from plots.baselines import flag_note, flags_of, mark_flagged
from plots.estimates import ratio_estimate, time_bounds
from plots.figures import (figure_legend, figure_section, mark_not_measured, panel_grid,
                           panel_title, plain_log_axis, ratio_axis, ratio_errorbar, size_axis,
                           time_axis, time_errorbar)
from plots.select import by_size, matches, timed_by_size
from plots.text import format_seconds, size_label, time_cell, times_text

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
ROOFLINE = {"version": "roofline", "layout": "aoas"}
ROOFLINE_LABEL = "roofline (aoas)"
ROOFLINE_STYLE = {"color": "black", "linestyle": "--", "marker": "D", "markersize": 5,
                  "linewidth": 1.6, "zorder": 3}
ROOFLINE_PANEL = "tiled"  # Fig. 7/8: the paper's fastest version, the one to compare with
ROOFLINE_TARGET = 1.25  # time within 1.25× of the compute limit (float, p = 2, 1000K)
LIMIT_VERSIONS = ("naive", "tiled", "cdp-original", "cdp-improved")
NOT_MEASURED = "not measured"  # a table cell without a time


def render(devices, figures_dir):
    """All IDW figures and tables for these devices, as report sections."""
    sections = [
        speedup_section(devices, figures_dir, "Fig. 7", "float", FLOAT_LAYOUTS),
        speedup_section(devices, figures_dir, "Fig. 8", "double", DOUBLE_LAYOUTS),
        cdp_section(devices, figures_dir),
        builtin_section(devices, figures_dir),
    ]
    if any(b.counter("pct_of_bound") is not None for d in devices for b in d.benchmarks):
        sections.append(limit_section(devices, figures_dir))
    return sections


def speedup_estimates(device, version, precision, layouts):
    """{layout: (sizes, [Estimate])} of one version at p = LAYOUT_FIGURE_P: Fig. 7/8 data, each
    speedup with its interval from both sides' repetitions (as the claims')."""
    point = {"precision": precision, "p": LAYOUT_FIGURE_P}
    baseline = _timed_by_size(device, {**BASELINE, **point})
    curves = {}
    for layout in layouts:
        gpu = _timed_by_size(device, {"version": version, "layout": layout, **point})
        sizes = sorted(set(gpu) & set(baseline))
        if sizes:
            curves[layout] = (sizes, [ratio_estimate(baseline[s], gpu[s]) for s in sizes])
    return curves


def speedup_curves(device, version, precision, layouts):
    """{layout: (sizes, speedups)}: speedup_estimates' values."""
    return {layout: (sizes, [e.value for e in estimates]) for layout, (sizes, estimates)
            in speedup_estimates(device, version, precision, layouts).items()}


def roofline_speedup(device, precision, estimates=False):
    """(sizes, speedups, or their Estimates) of the roofline version over the CPU baseline;
    None when not run."""
    curve = (speedup_estimates if estimates else speedup_curves)(
        device, ROOFLINE["version"], precision, (ROOFLINE["layout"],))
    return curve.get(ROOFLINE["layout"])


def speedup_section(devices, figures_dir, figure, precision, layouts):
    """Fig. 7 / Fig. 8: speedup over the single-thread CPU per layout, one panel per version.

    The roofline version is one extra black dashed line in the tiled panel (its own panel
    when tiled was not run): one reference next to the paper's fastest version, without
    squashing the slower versions' panels onto its scale.
    """
    versions = [v for v in FIGURE_VERSIONS if _has(devices, version=v, precision=precision)]
    roofline = _has(devices, **ROOFLINE, precision=precision, p=LAYOUT_FIGURE_P)
    panels = versions + ([ROOFLINE["version"]] if roofline and ROOFLINE_PANEL not in versions
                         else [])
    roofline_panel = ROOFLINE_PANEL if ROOFLINE_PANEL in versions else ROOFLINE["version"]
    fig, axes = panel_grid(len(devices), max(len(panels), 1))
    shown_flags = {}
    for row, device in enumerate(devices):
        flagged = _flagged_baselines(device, precision)
        shown_flags.update(flagged)
        if not panels:
            axes[row][0].set_title(panel_title("GPU versions", device, devices))
            mark_not_measured(axes[row][0], f"no naive/tiled/CDP {precision} benchmarks")
        for ax, version in zip(axes[row], panels):
            own = version == ROOFLINE["version"]
            title = (f"{ROOFLINE_LABEL}, beyond the paper" if own else
                     f"{version} + {ROOFLINE_LABEL}" if roofline and version == roofline_panel
                     else version)
            ax.set_title(panel_title(title, device, devices))
            curves = {} if own else speedup_estimates(device, version, precision, layouts)
            extra = (roofline_speedup(device, precision, estimates=True)
                     if version == roofline_panel else None)
            has_baseline = timed_by_size(device.benchmarks, {**BASELINE, "precision": precision,
                                         "p": LAYOUT_FIGURE_P}, PREFER)
            missing = (f"no {BASELINE['version']} baseline" if not has_baseline
                       else f"no {version} {precision} p = {LAYOUT_FIGURE_P} times")
            if not curves and not extra:
                mark_not_measured(ax, missing)
                continue
            _plot_layouts(ax, curves, roofline=extra, flagged={f.size for f in flagged.values()})
            if not curves and not own:
                _note_missing(ax, missing)
            ax.set_ylabel("speedup over single-thread CPU (×)")
    figure_legend(fig)
    where = (f"\nblack dashed: {ROOFLINE_LABEL}, beyond the paper, in the {roofline_panel} panel"
             if roofline else "")
    stem = figure.lower().replace(". ", "").replace(" ", "")
    body = _baseline_note() + flag_note(shown_flags)
    if roofline:
        body += (f" Black dashed line in the {roofline_panel} panel: the `roofline` version "
                 "(beyond the paper: a kernel written for today's throughput, run on layout "
                 "AoaS only), drawn once as a reference rather than in every panel so the "
                 "slower versions keep a readable scale.")
    return figure_section(fig, figures_dir, f"idw_{stem}",
                          f"{PAPER}, {figure}: {precision} speedup over the CPU per layout, "
                          f"p = {LAYOUT_FIGURE_P}", f"{figure} — {precision} precision, speedup "
                          "per layout", body, devices, below=where)


def cdp_section(devices, figures_dir):
    """Fig. 2: original vs improved CDP, time vs size, p = 2 and p = 3.

    cdp-original is affordable only at small sizes (a child grid of m/256 blocks per
    prediction point), so its curves cover the sizes it was run at; hollow squares keep a
    single-size curve visible.
    """
    fig, axes = panel_grid(len(devices), 2)
    original_sizes = set()
    for row, device in enumerate(devices):
        for ax, p in zip(axes[row], (2, 3)):
            ax.set_title(panel_title(f"CDP, float, p = {p}", device, devices))
            curves = {(version, layout): _timed_by_size(device, {
                          "version": version, "layout": layout, "precision": "float", "p": p})
                      for version in CDP_VERSIONS for layout in FLOAT_LAYOUTS}
            curves = {key: points for key, points in curves.items() if points}
            if not curves:
                mark_not_measured(ax, "no cdp-original / cdp-improved benchmarks")
                continue
            _, scale = time_axis(ax, [t for points in curves.values()
                                      for b in points.values() for t in time_bounds(b)])
            for (version, layout), points in curves.items():
                sizes = sorted(points)
                improved = version == "cdp-improved"
                time_errorbar(ax, sizes, [points[s] for s in sizes], scale,
                              color=LAYOUT_COLORS[layout], marker="o" if improved else "s",
                              fillstyle="full" if improved else "none",
                              markersize=6 if improved else 8,
                              linestyle="-" if improved else "--",
                              label=f"{version} {LAYOUT_NAMES[layout]}")
                if not improved:
                    original_sizes.update(sizes)
            size_axis(ax, sorted({s for points in curves.values() for s in points}))
            ax.legend()
    body = ""
    if original_sizes:
        body = ("cdp-original launches a child grid of m/256 blocks per prediction point, so "
                "runs keep it to small sizes; its curves cover the sizes it was run at "
                f"({', '.join(size_label(s) for s in sorted(original_sizes))}), and the "
                "claims comparing it are measured at those sizes only.")
    return figure_section(fig, figures_dir, "idw_fig2",
                          f"{PAPER}, Fig. 2: original vs improved CDP (solid dots = improved, "
                          "dashed hollow squares = original)", "Fig. 2 — original vs improved "
                          "CDP", body, devices)


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
            ratio = f"{builtin / aoas:.3f}" if aoas and builtin else NOT_MEASURED
            aoas_cell, builtin_cell = (time_cell(t, NOT_MEASURED) for t in (aoas, builtin))
            lines.append(f"| {device.label} | {version} | {precision} | {size_label(size)} | "
                         f"{aoas_cell} | {builtin_cell} | {ratio} |")
        ax.set_title(panel_title("builtin / AoaS time", device, devices))
        _plot_ratio_bars(ax, [r for r in rows if r[3] and r[4]])
    if len(lines) == 2:
        lines.append("| — | — | — | — | not measured | not measured | not measured |")
    body = ("Time ratio builtin / AoaS per version, precision and size (below 1: builtin "
            "faster).\n\n" + "\n".join(lines))
    return figure_section(fig, figures_dir, "idw_builtin_vs_aoas",
                          f"{PAPER}: builtin float4/double4 vs AoaS, p = {LAYOUT_FIGURE_P} "
                          "(paper: no remarkable gain)", "Builtin vs AoaS", body, devices)


def limit_curves(device, version, layouts=LIMIT_LAYOUTS, precision="float", p=2):
    """{layout: (sizes, pct_of_bound)} of one version: the % of compute limit figure's data."""
    curves = {}
    for layout in layouts:
        chosen, _ = by_size(device.benchmarks, {"version": version, "layout": layout,
                            "precision": precision, "p": p}, PREFER)
        points = {s: b.counter("pct_of_bound") for s, b in chosen.items()
                  if b.error is None and b.counter("pct_of_bound") is not None}
        if points:
            curves[layout] = (sorted(points), [points[s] for s in sorted(points)])
    return curves


def roofline_limit_rows(device):
    """(precision, p, size, time s, bound s) of every timed roofline benchmark with bound_s."""
    rows = []
    for b in device.benchmarks:
        if (matches(b, ROOFLINE) and b.error is None and b.time_s
                and isinstance(b.params.get("size"), (int, float)) and b.counter("bound_s")):
            rows.append((b.precision, b.params.get("p"), b.params["size"], b.time_s,
                         b.counter("bound_s")))
    order = {"float": 0, "double": 1}
    return sorted(rows, key=lambda r: (order.get(r[0], 2), r[0], str(r[1]), r[2]))


LIMIT_COLUMNS = 2


def limit_section(devices, figures_dir):
    """Each version's time against the device's compute bound (`pct_of_bound` counter).

    One panel per version (float, p = 2) with the roofline version as a black dashed line
    in every panel, and the roofline target (time within 1.25× of the limit = 80 %) dotted.
    """
    versions = [v for v in LIMIT_VERSIONS if any(limit_curves(d, v) for d in devices)]
    roofline = any(limit_curves(d, ROOFLINE["version"], (ROOFLINE["layout"],))
                   for d in devices)
    panels = versions or [ROOFLINE["version"]]
    columns = min(LIMIT_COLUMNS, len(panels))  # wrapped: page-wide, its text readable there
    rows = -(-len(panels) // columns)
    fig, axes = panel_grid(len(devices) * rows, columns)
    for row, device in enumerate(devices):
        extra = limit_curves(device, ROOFLINE["version"], (ROOFLINE["layout"],))
        extra = extra.get(ROOFLINE["layout"])
        device_axes = [ax for line in axes[row * rows:(row + 1) * rows] for ax in line]
        for ax in device_axes[len(panels):]:
            ax.set_visible(False)
        for ax, version in zip(device_axes, panels):
            ax.set_title(panel_title(f"{version}, float, p = 2", device, devices))
            curves = limit_curves(device, version) if version in versions else {}
            if not curves and not extra:
                mark_not_measured(ax, "no pct_of_bound counter")
                continue
            _plot_layouts(ax, curves, roofline=extra)
            if not curves and version != ROOFLINE["version"]:
                _note_missing(ax, f"no {version} pct_of_bound counter")
            if extra:
                ax.axhline(100 / ROOFLINE_TARGET, color="0.4", linestyle=":", linewidth=1.2,
                           label=f"roofline target ({ROOFLINE_TARGET:g}× limit)")
            _percent_axis(ax, [v for _, values in [*curves.values(), *([extra] if extra else [])]
                               for v in values])
    figure_legend(fig)
    where = (f"\nblack dashed: {ROOFLINE_LABEL} in every panel; dotted: its target, "
             f"time within {ROOFLINE_TARGET:g}× of the limit" if roofline else "")
    body = ("`pct_of_bound` = 100 · bound_s / time (`pct_of_limit`, `limit_s` in results "
            "written before issue 11), where bound_s is the benchmark's compute "
            "bound from the ceilings measured at process start (float: 6 FP32 operations at "
            "the FMA rate or 1 reciprocal per interaction, whichever unit saturates first; "
            "double: 6 FP64 operations per interaction). Float, p = 2, one panel per version.")
    if roofline:
        body += (f" The black dashed line in every panel is the `roofline` version (AoaS, "
                 f"beyond the paper); the dotted line is its target, time within "
                 f"{ROOFLINE_TARGET:g}× of the limit ({100 / ROOFLINE_TARGET:g} %), set for "
                 "float p = 2 at 1000K.")
    table = _roofline_table(devices)
    if table:
        body += "\n\n" + table
    return figure_section(fig, figures_dir, "idw_pct_of_limit",
                          f"{PAPER}: time vs the measured compute bound (100 % = at the limit)",
                          "% of device compute limit", body, devices, below=where)


def _roofline_table(devices):
    lines = []
    for device in devices:
        for precision, p, size, time_s, limit_s in roofline_limit_rows(device):
            lines.append(f"| {device.label} | {precision} | {p} | {size_label(size)} | "
                         f"{format_seconds(time_s)} | {format_seconds(limit_s)} | "
                         f"{times_text(time_s / limit_s)} | {100 * limit_s / time_s:.1f} % |")
    if not lines:
        return ""
    return ("Roofline version (AoaS) against its compute limit; target: float, p = 2, at 1000K "
            f"within {ROOFLINE_TARGET:g}× (claim `roofline-float-p2-within-limit` below).\n\n"
            "| GPU | precision | p | size | time | limit_s | time / limit | % of limit |\n"
            "|---|---|---|---|---|---|---|---|\n" + "\n".join(lines))


def _plot_layouts(ax, curves, roofline=None, flagged=()):
    """One line per layout, plus the roofline reference line when given: (sizes, values),
    or (sizes, Estimates), drawn with whiskers from their intervals; the points at `flagged`
    sizes (their CPU baseline is off its scaling) ringed. The legend is the figure's
    (figure_legend), under the panels."""
    lines = [*((LAYOUT_NAMES[layout], sizes, values, {"marker": "o", "color": LAYOUT_COLORS[layout]})
               for layout, (sizes, values) in curves.items()),
             *([(ROOFLINE_LABEL, *roofline, ROOFLINE_STYLE)] if roofline else [])]
    for label, sizes, values, style in lines:
        if values and hasattr(values[0], "low"):
            ratio_errorbar(ax, sizes, values, label=label, **style)
        else:
            ax.plot(sizes, values, label=label, **style)
    mark_flagged(ax, [(s, getattr(v, "value", v)) for _, sizes, values, _ in lines
                      for s, v in zip(sizes, values) if s in flagged])
    size_axis(ax, sorted({s for _, sizes, _, _ in lines for s in sizes}))


# A percent-of-limit axis is logarithmic: CDP at 1-12 % and the roofline at 87 % on one
# panel, a 20 % difference as tall at 2 % as at 80 %. Plain labels (1, 2, 5, 10, 20, 50, 100).
def _percent_axis(ax, values):
    values = [v for v in values if v and v > 0]
    ax.set_yscale("log")
    plain_log_axis(ax.yaxis)
    if values:
        ax.set_ylim(min(values) / 1.3, max(100.0, max(values)) * 1.3)
    ax.set_ylabel("% of device compute limit (log)")


def _flagged_baselines(device, precision):
    """{name: BaselineFlag} of the Fig. 7/8 baseline's sizes that are off its scaling."""
    flags = flags_of(device.benchmarks)
    baseline = _timed_by_size(device, {**BASELINE, "precision": precision, "p": LAYOUT_FIGURE_P})
    return {b.name: flags[b.name] for b in baseline.values() if b.name in flags}


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
        # bars grow from 1 (no difference) up or down: the axis does not start at 0
        ax.bar(xs, [y - 1.0 for y in ys], bottom=1.0, width=width, label=size_label(size))
    ax.axhline(1.0, color="0.3", linewidth=0.8)
    ratio_axis(ax, [builtin / aoas for _, _, _, aoas, builtin in rows])
    ax.set_xlim(-0.6, len(groups) - 0.4)  # bars clear of the frame
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([f"{v}\n{p}" for v, p in groups])
    ax.set_ylabel("builtin / AoaS time")
    ax.legend(title="size")


def _timed_by_size(device, selector):
    """{size: Benchmark} of the timed benchmarks of one selector (block 256 preferred)."""
    chosen, _ = by_size(device.benchmarks, selector, PREFER)
    return {size: b for size, b in chosen.items() if b.time_s is not None and not b.error}


def _has(devices, **selector):
    return any(matches(b, selector) for d in devices for b in d.benchmarks)



def _note_missing(ax, reason):
    """A panel that shows only the roofline reference still says its own version is missing."""
    ax.text(0.5, 0.5, f"not measured ({reason})", ha="center", va="center",
            transform=ax.transAxes, fontsize=9, color="0.35")



def _baseline_note():
    preferred = ", ".join(f"{k} {v}" for k, v in PREFER.items())
    return (f"Speedup = time of the single-thread CPU baseline (`{BASELINE['version']}`, same "
            f"precision, p and size) / GPU time; {preferred} where several were run.")

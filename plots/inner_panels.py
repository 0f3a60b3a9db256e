"""The inner-array paper's strategies and layouts, and the time-over-N panel that Fig. 10
(plots/inner.py) and Fig. 11 (plots/inner_traffic.py) both draw: a module of its own, so that
each of those imports it and neither imports the other back (tests/python/test_imports.py)."""

from plots.estimates import time_bounds
from plots.figures import mark_does_not_run, time_axis, time_errorbar

PAPER = "Springer, Sun & Masuhara 2018"
STRATEGIES = ("none", "partial", "full", "object")
LAYOUTS = ("aos", "soa")
STYLE = {"none": {"marker": "s", "color": "C3"}, "partial": {"marker": "o", "color": "C0"},
         "full": {"marker": "^", "color": "C2"}, "object": {"marker": "D", "color": "C1"}}
LABELS = {"none": "no inlining", "partial": "partial (N)", "full": "full (Max)",
          "object": "array as object"}
LAYOUT_NAMES = {"aos": "AoS", "soa": "SoA"}
# Fig. 10: single points drawn this many steps beside their N (a step is POINT_OFFSET of the
# largest N), so that no inlining (N = 0, beside partial 0) and full, array as object and
# partial at N = Max do not hide one another.
OFFSETS = {"none": -1.0, "partial": 0.0, "full": 1.0, "object": 2.0}
POINT_OFFSET = 0.02


def draw_inline_panel(ax, layouts, unit=None, legend=True):
    """Both layouts' strategies on one axis ({layout: inline_curves}): the paper's one
    axis per benchmark, in `unit` (time_axis's) where given; its legend inside unless
    `legend` is False. True when something (a time or an error) was drawn."""
    runs = [(layout, strategy, points) for layout, curves in layouts.items()
            for strategy, points in curves.items()]
    timed = [[(n, b) for n, b in points if is_timed(b)] for _, _, points in runs]
    errors = [(n, f"{LAYOUT_NAMES[layout]}, {LABELS[strategy]}: {b.error}")
              for layout, strategy, points in runs for n, b in points if b.error]
    if any(timed):
        _, scale = time_axis(ax, [t for points in timed for _, b in points
                                  for t in (b.time_s, *time_bounds(b))], unit=unit)
        step = POINT_OFFSET * max((n for points in timed for n, _ in points), default=1)
        for (layout, strategy, _), points in zip(runs, timed):
            if points:
                time_errorbar(ax, [n + OFFSETS[strategy] * step for n, _ in points],
                              [b for _, b in points], scale,
                              label=f"{LAYOUT_NAMES[layout]}, {LABELS[strategy]}",
                              **strategy_style(layout, strategy, len(points) > 1))
        ax.set_xlabel("inlining size N (elements in the record)")
        if legend:
            ax.legend(ncols=2)
    for slot, (n, error) in enumerate(errors[:3]):
        mark_does_not_run(ax, n, error, slot=slot)
    return any(timed) or bool(errors)


def is_timed(benchmark):
    """A time, not an error."""
    return benchmark.time_s is not None and not benchmark.error


def strategy_style(layout, strategy, joined):
    """A strategy's colour and marker; AoS hollow and dashed, SoA filled and solid. The
    single points (no inlining, full, object) sit on top of the partial curve, which they
    would otherwise hide or be hidden by."""
    style = {**STYLE[strategy], "markersize": 6 if strategy == "partial" else 8,
             "zorder": 2 if strategy == "partial" else 3}
    if layout == "aos":
        style.update(markerfacecolor="white", markeredgewidth=1.6)
    return {**style, "linestyle": ("--" if layout == "aos" else "-") if joined else "none"}

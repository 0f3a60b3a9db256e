"""Lines along the scale (or well-count) axis: a Curve per variant, points that did not run
marked "does not run" on the panel's floor."""

import math
from collections.abc import Callable
from dataclasses import dataclass

from plots.baselines import mark_flagged
from plots.estimates import time_bounds
from plots.figures import (legend, mark_does_not_run, mark_not_measured, plain_log_axis,
                           size_axis, time_axis)
from plots.kriging.data import GRID_COUNT_PER_SCALE2, grid_count
from plots.text import count_label

GRID_AXIS = "grid count M·N·H (scale s: 49,500 s²)"
LEGEND_INSIDE = 4  # a panel of more curves has its legend below it: inside it covers them


def grid_tick(count):
    """A grid-count tick with its scale under it: "4.95M\ns=10"."""
    scale = math.isqrt(round(count / GRID_COUNT_PER_SCALE2))
    return count_label(count) + (f"\ns={scale}" if grid_count(scale) == count else "")



@dataclass(frozen=True)
class Curve:
    """One line: {sweep value: number, or the error of a point that did not run}."""

    name: str
    values: dict
    color: str
    dashed: bool = False
    hollow: frozenset = frozenset()  # sweep values drawn hollow (CPU times from a sample)
    flagged: frozenset = frozenset()  # sweep values ringed: their CPU time is off its scaling
    bounds: dict | None = None  # {sweep value: (low, high)}: whiskers
    time: bool = True  # values and bounds are seconds (a time axis); else ratios


def ratio_curve(name, estimates, color, flagged=frozenset()):
    """The Curve of {sweep value: Estimate, or the error of a point that did not run}: a
    ratio with whiskers from its interval (the repetitions' extremes, as the claims'), the
    sweep values in `flagged` ringed."""
    return Curve(name, {k: e if isinstance(e, str) else e.value for k, e in estimates.items()},
                 color, flagged=frozenset(flagged),
                 bounds={k: (e.low, e.high) for k, e in estimates.items()
                         if not isinstance(e, str)} or None, time=False)


def curve(name, points, value, color, errors=True, **style):
    """The Curve of {sweep value: Benchmark}: value(b) where it ran (left out where the
    benchmark lacks it) and, with `errors`, the error where it did not. A time (`time_s`,
    a `counter` in seconds) brings its repetitions' range as the whiskers."""
    values, bounds = {}, {}
    for key, b in sorted(points.items()):
        if b.error:
            if errors:
                values[key] = b.error
        elif value(b) is not None:
            values[key] = value(b)
            if getattr(value, "bounds", None):
                bounds[key] = value.bounds(b)
    return Curve(name, values, color, bounds=bounds or None, **style)


def draw(ax, curves, xlabel, ylabel, x_of=grid_count, tick_label=grid_tick, log=True):
    """Draw the curves on a log sweep axis: points that ran joined, points that did not
    marked "does not run" on the floor. False (and a "not measured" panel) when empty.

    Curves with bounds get whiskers; of times, from their repetitions, and a time axis in
    the unit that fits (`ylabel` without its unit); others a log axis when `log`."""
    xs = sorted({x_of(k) for c in curves for k in c.values})
    if not xs:
        mark_not_measured(ax, "no benchmarks")
        return False
    scale = 1.0
    if any(c.bounds and c.time for c in curves):
        _, scale = time_axis(ax, [t for c in curves for k, v in c.values.items()
                                  if not isinstance(v, str)
                                  for t in (v, *(c.bounds or {}).get(k, ()))], ylabel)
    else:
        if log:
            ax.set_yscale("log")
            plain_log_axis(ax.yaxis)
        ax.set_ylabel(ylabel)
    for c in curves:
        ran = [k for k, v in c.values.items() if not isinstance(v, str)]
        line = {"color": c.color, "label": c.name}
        if not ran:
            if c.values:  # only errors: still named in the legend
                ax.plot([], [], marker="x", linestyle="none", **line)
            continue
        x, y = [x_of(k) for k in ran], [c.values[k] / scale for k in ran]
        style = {"marker": None if c.dashed else "o", "linestyle": "--" if c.dashed else "-",
                 **line}
        if c.bounds:
            low, high = zip(*(c.bounds[k] for k in ran))
            ax.errorbar(x, y, yerr=[[max(0.0, v - lo / scale) for v, lo in zip(y, low)],
                                    [max(0.0, hi / scale - v) for v, hi in zip(y, high)]],
                        capsize=3, elinewidth=1.0, **style)
        else:
            ax.plot(x, y, **style)
        hollow = [(a, b) for a, b, k in zip(x, y, ran) if k in c.hollow]
        if hollow:  # a decoration of points drawn above, not a line of its own
            ax.scatter(*zip(*hollow), marker="o", facecolors="white", edgecolors=c.color,
                       zorder=3)
        mark_flagged(ax, [(a, b) for a, b, k in zip(x, y, ran) if k in c.flagged])
    _sweep_axis(ax, xs, xlabel, tick_label)
    slots = {}
    for c in curves:
        for key, reason in c.values.items():
            if isinstance(reason, str):
                x = x_of(key)
                slots[x] = slots.get(x, -1) + 1
                mark_does_not_run(ax, x, reason, c.color, slots[x])
    legend(ax, LEGEND_INSIDE)
    return True


@dataclass(frozen=True)
class Quantity:
    """What a curve shows of each benchmark; a time has `bounds`, (fastest, slowest)
    repetition, for its whiskers."""

    of: Callable
    bounds: Callable | None = None

    def __call__(self, benchmark):
        return self.of(benchmark)


time_s = Quantity(lambda benchmark: benchmark.time_s, time_bounds)


def counter(name, seconds=False):
    """A counter's median; with `seconds` a time, its whiskers the repetitions' range."""
    return Quantity(lambda benchmark: benchmark.counters.get(name),
                    (lambda benchmark: benchmark.counter_ranges[name]) if seconds else None)


def _sweep_axis(ax, xs, xlabel, tick_label):
    size_axis(ax, xs, xlabel, tick_label)
    ax.tick_params(axis="x", labelsize=8)

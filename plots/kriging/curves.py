"""Lines along the scale (or well-count) axis: a Curve per variant, points that did not run
marked "does not run" on the panel's floor."""

import math
from dataclasses import dataclass

from plots.figures import mark_does_not_run, mark_not_measured, size_axis
from plots.kriging.data import GRID_COUNT_PER_SCALE2, grid_count
from plots.text import count_label

GRID_AXIS = "grid count M·N·H (scale s: 49,500 s²)"


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


def curve(name, points, value, color, errors=True, **style):
    """The Curve of {sweep value: Benchmark}: value(b) where it ran (left out where the
    benchmark lacks it) and, with `errors`, the error where it did not."""
    values = {}
    for key, b in sorted(points.items()):
        if b.error:
            if errors:
                values[key] = b.error
        elif value(b) is not None:
            values[key] = value(b)
    return Curve(name, values, color, **style)


def draw(ax, curves, xlabel, ylabel, x_of=grid_count, tick_label=grid_tick, log=True):
    """Draw the curves on a log sweep axis: points that ran joined, points that did not
    marked "does not run" on the floor. False (and a "not measured" panel) when empty."""
    xs = sorted({x_of(k) for c in curves for k in c.values})
    if not xs:
        mark_not_measured(ax, "no benchmarks")
        return False
    for c in curves:
        ran = [k for k, v in c.values.items() if not isinstance(v, str)]
        line = {"color": c.color, "label": c.name}
        if not ran:
            if c.values:  # only errors: still named in the legend
                ax.plot([], [], marker="x", linestyle="none", **line)
            continue
        x, y = [x_of(k) for k in ran], [c.values[k] for k in ran]
        ax.plot(x, y, marker=None if c.dashed else "o", linestyle="--" if c.dashed else "-",
                **line)
        hollow = [(a, b) for a, b, k in zip(x, y, ran) if k in c.hollow]
        if hollow:
            ax.plot(*zip(*hollow), linestyle="none", marker="o", markerfacecolor="white",
                    color=c.color)
    _sweep_axis(ax, xs, xlabel, tick_label)
    if log:
        ax.set_yscale("log")
    ax.set_ylabel(ylabel)
    slots = {}
    for c in curves:
        for key, reason in c.values.items():
            if isinstance(reason, str):
                x = x_of(key)
                slots[x] = slots.get(x, -1) + 1
                mark_does_not_run(ax, x, reason, c.color, slots[x])
    ax.legend(fontsize=7)
    return True


def time_s(benchmark):
    return benchmark.time_s


def counter(name):
    return lambda benchmark: benchmark.counters.get(name)


def _sweep_axis(ax, xs, xlabel, tick_label):
    size_axis(ax, xs, xlabel, tick_label)
    ax.tick_params(axis="x", labelsize=8)



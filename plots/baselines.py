"""CPU baselines that leave their own scaling across sizes (docs/architecture.md, "Noise the run
controls"): each CPU program's times over its sizes fitted as a power law by the repeated
median; a point more than MARGIN× off the line is flagged, and the speedup figures mark it
(`mark_flagged`) instead of drawing it plain.
"""

import math
import statistics
from dataclasses import dataclass
from pathlib import Path

from plots.load import RESULT_FILE, load_files, load_results

SIZE_KEYS = ("size", "scale")  # the parameter a CPU program's series runs over (IDW, kriging)
MARGIN = 1.5  # flagged: measured / fitted above MARGIN or below 1 / MARGIN
MIN_SIZES = 4  # one bad point among three cannot be told from the other two
FLAG_LABEL = f"CPU baseline off its scaling (>{MARGIN:g}×)"
FLAG_STYLE = {"marker": "o", "s": 130, "facecolors": "none", "edgecolors": "red",
              "linewidths": 1.8, "zorder": 4}


@dataclass(frozen=True)
class BaselineFlag:
    """A CPU baseline whose time is off the power law its other sizes follow."""

    name: str
    size: float
    measured_s: float
    fitted_s: float

    @property
    def ratio(self):
        return self.measured_s / self.fitted_s


def repeated_median_line(points):
    """(slope, intercept) of Siegel's repeated-median line through [(x, y)]: for each point
    the median of its slopes to the others, the slope the median of those; the intercept the
    median of y - slope x. Robust to a bad point among four or more."""
    slopes = [statistics.median((yj - yi) / (xj - xi) for xj, yj in points if xj != xi)
              for xi, yi in points]
    slope = statistics.median(slopes)
    return slope, statistics.median(y - slope * x for x, y in points)


def _size_key(benchmark):
    return next((k for k in SIZE_KEYS if isinstance(benchmark.params.get(k), (int, float))), None)


def flags_of(benchmarks):
    """{name: BaselineFlag} of the CPU baselines among `benchmarks` that leave their series'
    fitted scaling by more than MARGIN (series: one program, version, layout, precision and
    parameters, the size the only difference; MIN_SIZES timed sizes at least)."""
    series = {}
    for b in benchmarks:
        key = _size_key(b)
        if not b.is_host or key is None or b.error or not b.time_s or b.time_s <= 0:
            continue
        rest = tuple(sorted((k, str(v)) for k, v in b.params.items() if k != key))
        series.setdefault((b.paper, b.app, b.version, b.layout, b.precision, rest), {})[
            b.params[key]] = b
    flags = {}
    for points in series.values():
        if len(points) < MIN_SIZES:
            continue
        logs = [(math.log(size), math.log(b.time_s)) for size, b in points.items()]
        slope, intercept = repeated_median_line(logs)
        for size, b in points.items():
            fitted = math.exp(intercept + slope * math.log(size))
            if not 1 / MARGIN <= b.time_s / fitted <= MARGIN:
                flags[b.name] = BaselineFlag(b.name, size, b.time_s, fitted)
    return flags


def baseline_flags(folder, suites=None):
    """{name: BaselineFlag} of a results folder's CPU baselines, of every suite or of `suites`
    (plots.load.ResultsError on bad input)."""
    if suites is None:
        results = load_results([folder])
    else:
        paths = [p for p in sorted(Path(folder).iterdir())
                 if (m := RESULT_FILE.match(p.name)) and m["suite"] in suites]
        results = load_files(folder, paths)
    flags = {}
    for device in results.devices:
        flags.update(flags_of(device.benchmarks))
    return flags


def mark_flagged(ax, points):
    """A red ring around each (x, y) whose CPU baseline is flagged, named once in the legend."""
    if not points:
        return
    labels = ax.get_legend_handles_labels()[1]
    ax.scatter(*zip(*points), label=None if FLAG_LABEL in labels else FLAG_LABEL, **FLAG_STYLE)


def flag_note(flags):
    """One sentence naming the flagged baselines, or ""."""
    if not flags:
        return ""
    listed = "; ".join(f"`{f.name}` {f.measured_s:.3g} s, {f.ratio:.2f}× its fit ({f.fitted_s:.3g} s)"
                       for f in sorted(flags.values(), key=lambda f: f.name))
    return (f" Red rings: a CPU baseline more than {MARGIN:g}× off the power law its other sizes "
            f"follow (repeated-median fit, log time over log size), a speedup not to read as "
            f"the GPU's: {listed}.")

"""Measured values with their intervals from the repetitions' extremes, and the means over
sizes that keep an interval."""

import math
import statistics
from dataclasses import dataclass


@dataclass(frozen=True)
class Estimate:
    """A measured value and its interval from the repetitions (fastest to slowest)."""

    value: float
    low: float
    high: float


# The bimodality rule (plots/claims/README.md, "Bimodal samples"), the harness's
# (harness/lb/harness/noise.hpp: is_bimodal) applied to results on file: of three or more
# times, some split of the sorted times leaves at least max(1, ceil(n/10)) on each side and the
# gap between the sides exceeds BIMODAL_MIN_GAP of the median and BIMODAL_GAP_OVER_SPREAD times
# the wider side's range.
BIMODAL_GAP_OVER_SPREAD = 3.0
BIMODAL_MIN_GAP = 0.02


@dataclass(frozen=True)
class Modes:
    """A bimodal sample's two groups (sorted) and the one its median lies in."""

    low: tuple
    high: tuple

    @property
    def median_group(self):
        """The group holding the median: the larger group (None for a tie: the median lies
        between the groups)."""
        if len(self.low) == len(self.high):
            return None
        return self.low if len(self.low) > len(self.high) else self.high


def bimodal_modes(times):
    """The sample's two groups when the rule finds it bimodal (of the splits that qualify,
    the one with the widest gap), else None."""
    values = sorted(times)
    n = len(values)
    side = max(1, math.ceil(n / 10))
    if n < 3 or n < 2 * side:
        return None
    median = statistics.median(values)
    splits = [i for i in range(side, n - side + 1)
              if values[i] - values[i - 1] > BIMODAL_MIN_GAP * median
              and values[i] - values[i - 1] > BIMODAL_GAP_OVER_SPREAD
              * max(values[i - 1] - values[0], values[-1] - values[i])]
    if not splits:
        return None
    split = max(splits, key=lambda i: values[i] - values[i - 1])
    return Modes(tuple(values[:split]), tuple(values[split:]))


def time_bounds(benchmark):
    """(fastest, slowest) repetition time; the median twice when repetitions are absent.
    A bimodal sample's bounds are those of the group holding its median: the other mode is
    named in the claim's note (bimodal_note), never allowed to widen the interval into a
    verdict."""
    times = benchmark.repetitions_s
    if len(times) >= 2:
        modes = bimodal_modes(times)
        group = modes.median_group if modes else None
        if group:
            return min(group), max(group)
        return min(times), max(times)
    return benchmark.time_s, benchmark.time_s


def bimodal_note(benchmark):
    """"<name>: bimodal repetitions 636 / 505 / 505 ms, judged on 505–505 ms" or ""."""
    modes = bimodal_modes(benchmark.repetitions_s)
    if not modes:
        return ""
    reps = " / ".join(f"{t * 1e3:.4g}" for t in benchmark.repetitions_s)
    group = modes.median_group
    judged = (f"judged on the median's group {min(group) * 1e3:.4g}–{max(group) * 1e3:.4g} ms"
              if group else "no group holds the median: judged on every repetition")
    return f"{benchmark.name}: bimodal repetitions {reps} ms, {judged}; re-measure it"


def ratio_estimate(slower, faster):
    """time(slower) / time(faster), its interval pairing the extremes of both sides."""
    slow_low, slow_high = time_bounds(slower)
    fast_low, fast_high = time_bounds(faster)
    return Estimate(slower.time_s / faster.time_s, slow_low / fast_high, slow_high / fast_low)


def aggregate(estimates, mean):
    """The mean of the values, and of the interval ends (the noise of the mean)."""
    estimates = list(estimates)
    return Estimate(mean(e.value for e in estimates), mean(e.low for e in estimates),
                    mean(e.high for e in estimates))


def hull_of(estimates):
    """(lowest, highest) interval end over the sizes: noise and the spread across sizes."""
    estimates = list(estimates)
    return min(e.low for e in estimates), max(e.high for e in estimates)



def geomean(values):
    values = list(values)
    return math.exp(statistics.fmean(math.log(v) for v in values))


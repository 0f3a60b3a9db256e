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


# The bimodality rule (plots/claims/README.md, "Bimodal samples"), written once: the
# repetitions sorted, split at their largest gap; the sample is bimodal when that gap is at
# least BIMODAL_GAP_OVER_SPREAD times the wider group's own range and at least
# BIMODAL_MIN_GAP of the median (a gap that small is noise whatever its shape).
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
    """The sample's two groups when the rule finds it bimodal, else None (fewer than three
    repetitions cannot be split into groups with a gap to compare)."""
    values = sorted(times)
    if len(values) < 3:
        return None
    gaps = [b - a for a, b in zip(values, values[1:])]
    split = max(range(len(gaps)), key=gaps.__getitem__) + 1
    low, high = tuple(values[:split]), tuple(values[split:])
    spread = max(low[-1] - low[0], high[-1] - high[0])
    gap = gaps[split - 1]
    if gap >= BIMODAL_GAP_OVER_SPREAD * spread and gap >= BIMODAL_MIN_GAP * statistics.median(values):
        return Modes(low, high)
    return None


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


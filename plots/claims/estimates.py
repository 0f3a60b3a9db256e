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


def time_bounds(benchmark):
    """(fastest, slowest) repetition time; the median twice when repetitions are absent."""
    times = benchmark.repetitions_s
    if len(times) >= 2:
        return min(times), max(times)
    return benchmark.time_s, benchmark.time_s


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


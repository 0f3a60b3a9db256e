"""Two-sample statistics for comparing one benchmark's repetitions on two devices.

Mann–Whitney U (the test Google Benchmark's tools/compare.py runs): exact null distribution
when there are no ties and the samples are small, normal approximation (tie-corrected, with
continuity correction) otherwise. The time ratio B/A and its interval are Hodges–Lehmann on
log times: the median of the n × m pairwise ratios b_j / a_i, and the pairwise ratios at the
ranks the same U distribution gives, so the interval and the test always agree. Only numpy.
"""

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

ALPHA = 0.05
EXACT_MAX_TOTAL = 60  # n + m up to which the exact distribution is tabulated (no ties)
_Z = 1.959963984540054  # two-sided 95 % normal quantile


@dataclass(frozen=True)
class RatioTest:
    ratio: float  # Hodges–Lehmann estimate of B/A
    low: float  # interval bounds on B/A
    high: float
    coverage: float  # the interval's actual coverage (below 95 % when n is too small)
    p_value: float  # two-sided Mann–Whitney p
    min_p_value: float  # the smallest p these sample sizes can give
    method: str  # "exact" or "normal"
    n_a: int
    n_b: int

    @property
    def testable(self):
        """False when even completely separated samples could not reach p < ALPHA."""
        return self.min_p_value < ALPHA

    @property
    def verdict(self):
        if not self.testable:
            return f"not testable at {self.n_a} vs {self.n_b} repetitions"
        if self.p_value >= ALPHA:
            return "no significant difference"
        return "B slower" if self.ratio > 1 else "B faster"


@lru_cache(maxsize=None)
def _u_counts(n, m):
    """Number of orderings of n + m distinct values giving each U = 0 .. n*m."""
    if n == 0 or m == 0:
        return (1,)
    counts = [0] * (n * m + 1)
    for u, c in enumerate(_u_counts(n - 1, m)):  # the largest value is from sample one
        counts[u + m] += c
    for u, c in enumerate(_u_counts(n, m - 1)):  # the largest value is from sample two
        counts[u] += c
    return tuple(counts)


def _exact_cdf(n, m):
    counts = np.array(_u_counts(n, m), dtype=float)
    return np.cumsum(counts) / math.comb(n + m, n)


def ratio_test(times_a, times_b):
    """Compare two samples of positive times; None when either has fewer than two."""
    a = np.log(np.asarray(times_a, dtype=float))
    b = np.log(np.asarray(times_b, dtype=float))
    n, m = len(a), len(b)
    if n < 2 or m < 2:
        return None
    differences = np.sort((b[None, :] - a[:, None]).ravel())
    u = float(np.sum(differences > 0) + 0.5 * np.sum(differences == 0))  # pairs with b > a
    ties = len(np.unique(np.concatenate([a, b]))) < n + m
    if not ties and n + m <= EXACT_MAX_TOTAL:
        cdf = _exact_cdf(n, m)
        tail = min(cdf[int(u)], 1.0 - (cdf[int(u) - 1] if u >= 1 else 0.0))  # U is symmetric
        p_value = min(1.0, 2.0 * tail)
        # k - 1 pairwise differences are cut from each end: the largest k with
        # P(U <= k - 1) <= ALPHA / 2, or one when even that is too likely (tiny samples)
        k = max(1, int(np.searchsorted(cdf, ALPHA / 2, side="right")))
        coverage = 1.0 - 2.0 * cdf[k - 1]
        method = "exact"
    else:
        p_value, k, coverage = _normal(a, b, u), _normal_rank(n, m), 1.0 - ALPHA
        method = "normal"
    min_p = min(1.0, 2.0 / math.comb(n + m, n))
    return RatioTest(ratio=math.exp(float(np.median(differences))),
                     low=math.exp(differences[k - 1]), high=math.exp(differences[n * m - k]),
                     coverage=float(coverage), p_value=float(p_value), min_p_value=min_p,
                     method=method, n_a=n, n_b=m)


def _normal(a, b, u):
    n, m = len(a), len(b)
    _, tie_sizes = np.unique(np.concatenate([a, b]), return_counts=True)
    total = n + m
    variance = n * m / 12.0 * ((total + 1) - np.sum(tie_sizes**3 - tie_sizes) /
                               (total * (total - 1)))
    if variance <= 0:
        return 1.0
    z = max(0.0, abs(u - n * m / 2.0) - 0.5) / math.sqrt(variance)
    return min(1.0, math.erfc(z / math.sqrt(2.0)))


def _normal_rank(n, m):
    return max(1, int(math.floor(n * m / 2.0 - _Z * math.sqrt(n * m * (n + m + 1) / 12.0))))


def geometric_mean(values):
    values = [v for v in values if v is not None and v > 0]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


# Student's t two-sided 95 % quantiles for 1 to 4 degrees of freedom; from 5 on, the
# Cornish–Fisher expansion below is within 0.11 % of the exact value.
_T_SMALL = {1: 12.706204736, 2: 4.302652730, 3: 3.182446305, 4: 2.776445105}


def t_quantile_95(df):
    """The two-sided 95 % quantile of Student's t with `df` degrees of freedom."""
    if df in _T_SMALL:
        return _T_SMALL[df]
    z = _Z
    return (z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3))


@dataclass(frozen=True)
class GeometricSummary:
    """The geometric mean of positive ratios, the 95 % interval of that mean (Student's t on
    the logs: the ratios' spread, not the repetitions'), and the quartiles."""

    mean: float
    low: float | None  # None for a single ratio
    high: float | None
    q1: float
    q3: float
    count: int


def geometric_summary(values):
    logs = np.log([v for v in values if v is not None and v > 0])
    if not len(logs):
        return None
    mean = float(np.mean(logs))
    low = high = None
    if len(logs) > 1:
        half = t_quantile_95(len(logs) - 1) * float(np.std(logs, ddof=1)) / math.sqrt(len(logs))
        low, high = math.exp(mean - half), math.exp(mean + half)
    q1, q3 = np.percentile(logs, [25, 75])
    return GeometricSummary(math.exp(mean), low, high, math.exp(float(q1)), math.exp(float(q3)),
                            len(logs))

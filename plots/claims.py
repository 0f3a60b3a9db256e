"""Published claims as data (plots/claims/<paper>.json), checked by one generic evaluator.

A claims file: `{"paper": id, "claims": [claim, ...]}`; a claim:
  id           unique slug
  text         the claim in short
  quote, line  the paper's sentence verbatim and its line in the paper's text (or
               "beyond_paper": true for a project target)
  paper_value  number, [lo, hi], list of numbers, or text
  measure      {"kind": one of MEASURES, "select": selector, ...} (see each measure below)
  rule         {"rule": "words", "class": a class of claims/words.json, ...} for the papers'
               words, or a shape or plain bound rule of RULES
  note         optional context kept with the verdict (e.g. the paper's GPU)
Every measured value carries an interval from the repetitions' extremes; a verdict is
`inconclusive` when that interval straddles the band's edge (claims/README.md).
Selectors are those of plots/select.py; the paper's sweep parameter (`size` for IDW, `scale`
for kriging; "size" below) is the axis every measurement runs along; a measure's own
`"sweep"` replaces it for that claim (the inner paper's BFS claims run along `graph`).
A measurement runs over the sizes at which every one of its variants was run (a version too
costly for large sizes, such as cdp-original, limits a comparison to the sizes it has; the
note names the sizes used and the ones skipped). A variant absent at every size, no size
common to all variants, or an errored or ambiguous benchmark at a measured size makes the
verdict "not measured", naming it; so does a curve too short for its shape rule.
"""

import json
import math
import statistics
from dataclasses import dataclass, replace
from pathlib import Path

from plots.select import by_size, describe, expand, matches

REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
NOT_MEASURED = "not measured"
INCONCLUSIVE = "inconclusive"  # the measured interval straddles the claim's band edge
VERDICTS = (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE, NOT_MEASURED)
WORDS_FILE = Path(__file__).parent / "claims" / "words.json"
_NOTE_PROBLEMS = 4


class ClaimsError(Exception):
    """A malformed claims file: a message naming the file and claim."""


class NotMeasured(Exception):
    """A measurement lacks benchmarks; `problems` says which."""

    def __init__(self, problems):
        super().__init__("; ".join(problems))
        self.problems = list(dict.fromkeys(problems))


@dataclass(frozen=True)
class Measured:
    value: object
    text: str
    detail: str
    times: dict  # variant label -> geometric-mean seconds, where the kind computes them
    points: tuple = ()  # sweep values of a curve's values (curve kinds only)
    sweep: str = "size"
    interval: tuple = None  # (low, high) of the value from the repetitions' extremes
    hull: tuple = None  # (low, high) over every size's interval: noise and size spread
    per_size: tuple = ()  # Estimate per size (range and curve kinds)
    parts: tuple = ()  # the Measured of each part ("each")


@dataclass(frozen=True)
class Verdict:
    claim_id: str
    text: str
    paper: str
    measured: str
    verdict: str
    note: str
    value: object = None
    interval: str = "—"  # the uncertainty interval the verdict was judged on
    quote: str = ""  # the paper's sentence, verbatim
    line: int = 0  # its line in the paper's text


@dataclass(frozen=True)
class Scope:
    """What a claim is measured on: one device's benchmarks and the paper's conventions."""

    benchmarks: tuple
    baseline: dict  # overrides turning a GPU selector into its CPU baseline ({}: none)
    prefer: dict  # parameters that pick one benchmark when several match at a size
    sweep: str = "size"  # the parameter measurements run along


# --- measurements ------------------------------------------------------------------------

@dataclass(frozen=True)
class Coverage:
    """The sizes a measurement used, and those skipped because a variant was not run there."""

    sizes: list
    skipped: dict  # size -> selectors of the variants not run at that size
    sweep: str = "size"

    @property
    def labelled(self):
        """The text below after the sweep's plural: "sizes 10240–51200 (2)"."""
        return f"{_plural(self.sweep)} {self.text}"

    @property
    def text(self):
        used = _sizes_text(self.sizes)
        if not self.skipped:
            return used
        absent = _describe_all([sel for sels in self.skipped.values() for sel in sels])
        shown = ", ".join(absent[:_NOTE_PROBLEMS])
        more = f", +{len(absent) - _NOTE_PROBLEMS} more" if len(absent) > _NOTE_PROBLEMS else ""
        skipped = ", ".join(map(str, self.skipped))
        only = (f"the only {self.sweep}" if len(self.sizes) == 1 else f"only the {_plural(self.sweep)}")
        return (f"{used}, {only} where every variant was run "
                f"(skipped {skipped}: not run for {shown}{more})")


def _collect_benchmarks(scope, selectors):
    """({key: {size: Benchmark}}, Coverage): every selector timed at every common size."""
    chosen, problems = {}, []
    for key, selector in selectors:
        points, ambiguous = by_size(scope.benchmarks, selector, scope.prefer, scope.sweep)
        problems += ambiguous
        if not points and not ambiguous:
            problems.append(f"absent: {describe(selector)} (every {scope.sweep})")
        chosen[key] = (selector, points)
    if problems:
        raise NotMeasured(problems)
    every = sorted(set().union(*(points for _, points in chosen.values())))
    sizes = [s for s in every if all(s in points for _, points in chosen.values())]
    if not sizes:
        runs = dict.fromkeys(f"{describe(sel)} at {_sizes_text(sorted(points))}"
                             for sel, points in chosen.values())
        raise NotMeasured([f"no {scope.sweep} at which every variant was run: "
                           + "; ".join(runs)])
    skipped = {s: [sel for sel, points in chosen.values() if s not in points]
               for s in every if s not in sizes}
    for selector, points in chosen.values():
        for size in sizes:
            if points[size].error:
                problems.append(f"errored: {points[size].name} ({points[size].error})")
    if problems:
        raise NotMeasured(problems)
    return ({key: {s: points[s] for s in sizes} for key, (_, points) in chosen.items()},
            Coverage(sizes, skipped, scope.sweep))


@dataclass(frozen=True)
class Estimate:
    """A measured value and its interval from the repetitions (fastest to slowest)."""

    value: float
    low: float
    high: float


def _time_bounds(benchmark):
    """(fastest, slowest) repetition time; the median twice when repetitions are absent."""
    times = benchmark.repetitions_s
    if len(times) >= 2:
        return min(times), max(times)
    return benchmark.time_s, benchmark.time_s


def ratio_estimate(slower, faster):
    """time(slower) / time(faster), its interval pairing the extremes of both sides."""
    slow_low, slow_high = _time_bounds(slower)
    fast_low, fast_high = _time_bounds(faster)
    return Estimate(slower.time_s / faster.time_s, slow_low / fast_high, slow_high / fast_low)


def _aggregate(estimates, mean):
    """The mean of the values, and of the interval ends (the noise of the mean)."""
    estimates = list(estimates)
    return Estimate(mean(e.value for e in estimates), mean(e.low for e in estimates),
                    mean(e.high for e in estimates))


def _hull(estimates):
    """(lowest, highest) interval end over the sizes: noise and the spread across sizes."""
    estimates = list(estimates)
    return min(e.low for e in estimates), max(e.high for e in estimates)


def _per_size_ratios(scope, select, faster, slower):
    """Estimate of time(slower) / time(faster) for every variant of `select` at every size."""
    pairs = [(label, {**v, **faster}, {**v, **slower})
             for label, v in expand(select, scope.sweep)]
    chosen, coverage = _collect_benchmarks(
        scope, [((role, label), sel) for label, a, b in pairs
                for role, sel in (("faster", a), ("slower", b))])
    ratios = [ratio_estimate(chosen["slower", label][s], chosen["faster", label][s])
              for label, _, _ in pairs for s in coverage.sizes]
    return ratios, f"{len(pairs)} variant(s) × {coverage.labelled}"


def _baseline(spec, scope):
    baseline = spec.get("baseline", scope.baseline)
    if not baseline:
        raise ClaimsError(f"measure '{spec['kind']}' needs a 'baseline' selector: this paper "
                          "has no default CPU baseline")
    return baseline


def _mean_measure(ratios, over, mean, how):
    total = _aggregate(ratios, mean)
    return Measured(total.value, _times(total.value), f"{how} over {over}", {},
                    interval=(total.low, total.high), hull=_hull(ratios))


def _range_measure(ratios, over):
    value = [min(r.value for r in ratios), max(r.value for r in ratios)]
    return Measured(value, _range_text(value), f"range over {over}", {},
                    interval=_hull(ratios), hull=_hull(ratios), per_size=tuple(ratios))


def measure_ratio(spec, scope):
    """Geometric mean over sizes of time(slower)/time(faster): "faster is k× faster"."""
    ratios, over = _per_size_ratios(scope, spec["select"], spec["faster"], spec["slower"])
    return _mean_measure(ratios, over, _geomean, "geomean")


def measure_ratio_range(spec, scope):
    """Smallest and largest per-size time(slower)/time(faster)."""
    return _range_measure(*_per_size_ratios(scope, spec["select"], spec["faster"],
                                            spec["slower"]))


def measure_speedup(spec, scope):
    """Arithmetic mean over sizes of baseline time / GPU time (the paper's average speedup)."""
    ratios, over = _per_size_ratios(scope, spec["select"], {}, _baseline(spec, scope))
    return _mean_measure(ratios, over, statistics.fmean, "mean")


def measure_speedup_range(spec, scope):
    """Smallest and largest per-size speedup over the baseline across the selection."""
    return _range_measure(*_per_size_ratios(scope, spec["select"], {}, _baseline(spec, scope)))


def measure_gain_over_gain(spec, scope):
    """One ratio measure over another: "the gain is smaller in double than in single"."""
    larger, smaller = (measure_ratio(spec[k], scope) for k in ("larger", "smaller"))
    value = larger.value / smaller.value

    def divide(a, b):
        return a[0] / b[1], a[1] / b[0]

    return Measured(value, _times(value),
                    f"{larger.text} / {smaller.text}; larger: {larger.detail}; "
                    f"smaller: {smaller.detail}", {},
                    interval=divide(larger.interval, smaller.interval),
                    hull=divide(larger.hull, smaller.hull))


def _spread_estimate(times):
    """Slowest / fastest of several (time, fastest, slowest) triples: the interval's low end
    is the part of the gap the noise cannot explain away (never below 1)."""
    value = max(t[0] for t in times) / min(t[0] for t in times)
    low = max(1.0, max(t[1] for t in times) / min(t[2] for t in times))
    return Estimate(value, low, max(t[2] for t in times) / min(t[1] for t in times))


def _time_triple(benchmark):
    return (benchmark.time_s, *_time_bounds(benchmark))


def measure_about_equal(spec, scope):
    """Slowest / fastest of the variants' geometric-mean times."""
    variants = [label for label, _ in expand(spec["select"], scope.sweep)]
    chosen, coverage = _collect_benchmarks(scope, expand(spec["select"], scope.sweep))
    per_size = [_spread_estimate([_time_triple(chosen[v][s]) for v in variants])
                for s in coverage.sizes]
    means = {v: tuple(map(_geomean, zip(*map(_time_triple, chosen[v].values()))))
             for v in variants}
    total = _spread_estimate(list(means.values()))
    times = {v: m[0] for v, m in means.items()}
    fastest, slowest = min(times, key=times.get), max(times, key=times.get)
    detail = f"slowest {slowest}, fastest {fastest}; {coverage.labelled}"
    return Measured(total.value, f"{total.value:.3f}× max/min", detail, times,
                    interval=(total.low, total.high), hull=_hull(per_size))


def measure_each(spec, scope):
    """Several measurements checked together (e.g. one reading of an ambiguous sentence)."""
    results, problems = [], []
    for part in spec["parts"]:
        try:
            results.append(MEASURES[part["kind"]][0](part, scope))
        except NotMeasured as missing:
            problems += missing.problems
    if problems:
        raise NotMeasured(problems)
    details = "; ".join(dict.fromkeys(m.detail for m in results))
    return Measured([m.value for m in results], ", ".join(m.text for m in results), details, {},
                    parts=tuple(results))


def measure_limit_ratio(spec, scope):
    """time / the benchmark's own `bound_s` counter (`limit_s` in results written before
    issue 11; 1 = at the device's compute bound).

    Taken at `at_size` when given (not measured when that size was not run), else at the
    largest size of the selection.
    """
    select = spec["select"]
    points, ambiguous = by_size(scope.benchmarks, select, scope.prefer, scope.sweep)
    if ambiguous:
        raise NotMeasured(ambiguous)
    if not points:
        raise NotMeasured([f"absent: {describe(select)} (every {scope.sweep})"])
    target = spec.get("at_size")
    if target is not None and target not in points:
        raise NotMeasured([f"{scope.sweep} {target} not run for {describe(select)} "
                           f"(run at {_sizes_text(sorted(points))})"])
    size = max(points) if target is None else target
    benchmark = points[size]
    if benchmark.error:
        raise NotMeasured([f"errored: {benchmark.name} ({benchmark.error})"])
    limit = benchmark.counter("bound_s")
    if not isinstance(limit, (int, float)) or limit <= 0:
        raise NotMeasured([f"no limit_s counter (bound_s): {benchmark.name}"])
    value = benchmark.time_s / limit
    where = f"{scope.sweep} {size}" + ("" if target else ", the largest run")
    detail = (f"time {_seconds_text(benchmark.time_s)} vs limit_s {_seconds_text(limit)} "
              f"({100 / value:.1f} % of the limit) at {where}")
    return Measured(value, f"{value:.2f}× the limit", detail, {})


def measure_speedup_curve(spec, scope):
    """Baseline time / time of one variant at every size, in size order: a curve whose
    shape the curve rules judge (rises, peaks, levels off)."""
    select = _one_variant(spec, scope)
    chosen, coverage = _collect_benchmarks(
        scope, [("variant", select), ("baseline", {**select, **_baseline(spec, scope)})])
    points = tuple(coverage.sizes)
    estimates = tuple(ratio_estimate(chosen["baseline"][p], chosen["variant"][p])
                      for p in points)
    values = [e.value for e in estimates]
    peak = values.index(max(values))
    marks = sorted({0, peak, len(values) - 1})
    text = " → ".join(f"{_times(values[k])} at {scope.sweep} {points[k]}"
                      + (" (peak)" if k == peak and len(values) > 1 else "") for k in marks)
    every = ", ".join(f"{p}: {_times(v)}" for p, v in zip(points, values))
    detail = f"speedup per {scope.sweep} ({every}); {coverage.labelled}"
    return Measured(values, text, detail, {}, points, scope.sweep, per_size=estimates)


def measure_counter(spec, scope):
    """The largest value (or the smallest, with "reduce": "min") of one benchmark counter
    over the sizes the variant ran at, e.g. an accuracy counter. Counters named in `also`
    are reduced the same way and reported alongside."""
    reduce, pick = _reducer(spec)
    chosen, coverage = _collect_benchmarks(scope, [("variant", _one_variant(spec, scope))])
    benchmarks = chosen["variant"]
    counter, also = spec["counter"], spec.get("also", ())
    values = {}
    for name in (counter, *also):
        missing = [b.name for b in benchmarks.values() if not _is_number(b.counters.get(name))]
        if missing:
            raise NotMeasured([f"no {name} counter: {n}" for n in missing])
        values[name] = {p: b.counters[name] for p, b in benchmarks.items()}
    at = pick(values[counter], key=values[counter].get)
    value = values[counter][at]
    alongside = "".join(f"; {reduce} {n} {pick(values[n].values()):.3g}" for n in also)
    detail = (f"{reduce} over {coverage.labelled}, at {scope.sweep} {at} "
              f"({benchmarks[at].name}){alongside}")
    return Measured(value, f"{counter} {value:.2g}", detail, {})


_REDUCERS = {"max": max, "min": min}


def _reducer(spec):
    reduce = spec.get("reduce", "max")
    if reduce not in _REDUCERS:
        raise ClaimsError(f"measure '{spec['kind']}': 'reduce' must be one of "
                          f"{', '.join(_REDUCERS)}")
    return reduce, _REDUCERS[reduce]


def measure_ratio_every(spec, scope):
    """time(slower) / time(faster) at every value of the parameter `every` (each tile of a
    tile sweep, say) that the side(s) carrying it were run with, reduced per size by
    `reduce`: "min" reads "slower at every tile" on the closest tile, "max" reads the best
    tile's gain. A side without the parameter is one benchmark per size; where both sides
    carry it they are paired at the same value. The value and its interval are the same
    reduction over sizes; each size keeps its own estimate (for range and band rules).
    """
    reduce, pick = _reducer(spec)
    every = spec["every"]
    sides = {role: {**spec["select"], **spec[role]} for role in ("faster", "slower")}
    values = {role: {b.params[every] for b in scope.benchmarks
                     if every in b.params and matches(b, selector)}
              for role, selector in sides.items()}
    varying = [role for role in sides if values[role]]
    if not varying:
        raise NotMeasured([f"absent: {describe(sides['slower'])} or "
                           f"{describe(sides['faster'])} with any {every}"])
    shared = sorted(set.intersection(*(values[r] for r in varying)), key=lambda v: (
        isinstance(v, str), v))
    points, problems = {}, []
    for value in shared or [None]:
        for role, selector in sides.items():
            chosen, ambiguous = by_size(scope.benchmarks, {**selector, every: value}
                                        if role in varying else selector, scope.prefer,
                                        scope.sweep)
            problems += ambiguous
            points[role, value] = chosen
    if not shared:
        problems.append(f"no {every} common to "
                        + " and ".join(describe(sides[r]) for r in varying))
    if problems:
        raise NotMeasured(problems)
    per_size, where = [], []
    for size in sorted({s for chosen in points.values() for s in chosen}):
        pairs = {v: (points["slower", v].get(size), points["faster", v].get(size))
                 for v in shared}
        pairs = {v: pair for v, pair in pairs.items() if None not in pair}
        if not pairs:
            continue
        errored = [b for pair in pairs.values() for b in pair if b.error]
        if errored:
            raise NotMeasured([f"errored: {b.name} ({b.error})" for b in errored])
        estimates = {v: ratio_estimate(*pair) for v, pair in pairs.items()}
        best = pick(estimates, key=lambda v: estimates[v].value)
        per_size.append(Estimate(estimates[best].value, pick(e.low for e in estimates.values()),
                                 pick(e.high for e in estimates.values())))
        where.append((size, best, len(pairs)))
    if not per_size:
        raise NotMeasured([f"no {scope.sweep} at which {describe(sides['faster'])} and "
                           f"{describe(sides['slower'])} were both run"])
    at = pick(range(len(per_size)), key=lambda k: per_size[k].value)
    total = per_size[at]
    size, value, _ = where[at]
    listed = ", ".join(f"{s}: {_times(e.value)} at {every} {v} of {n}"
                       for (s, v, n), e in zip(where, per_size))
    text = f"{_times(total.value)} ({every} {value}, {scope.sweep} {size})"
    spread = [min(e.value for e in per_size), max(e.value for e in per_size)]
    if _times(spread[0]) != _times(spread[1]):
        text = f"{_range_text(spread)} over {scope.sweep}s; {reduce} {text}"
    return Measured(total.value, text, f"{reduce} over {every} per {scope.sweep} ({listed})", {},
                    interval=(total.low, total.high), hull=_hull(per_size),
                    per_size=tuple(per_size))


def _one_variant(spec, scope):
    variants = expand(spec["select"], scope.sweep)
    if len(variants) != 1:
        raise ClaimsError(f"measure '{spec['kind']}' needs a selection of one variant, not "
                          f"{describe(spec['select'])}")
    return variants[0][1]


MEASURES = {  # kind -> (function, keys its spec needs)
    "ratio": (measure_ratio, ("select", "faster", "slower")),
    "ratio_range": (measure_ratio_range, ("select", "faster", "slower")),
    "speedup": (measure_speedup, ("select",)),
    "speedup_range": (measure_speedup_range, ("select",)),
    "gain_over_gain": (measure_gain_over_gain, ("larger", "smaller")),
    "about_equal": (measure_about_equal, ("select",)),
    "each": (measure_each, ("parts",)),
    "limit_ratio": (measure_limit_ratio, ("select",)),
    "speedup_curve": (measure_speedup_curve, ("select",)),
    "counter": (measure_counter, ("select", "counter")),
    "ratio_every": (measure_ratio_every, ("select", "faster", "slower", "every")),
}


# --- verdict rules: (verdict or reproduced?, note[, interval text]) -----------------------

def rule_words(paper, measured, rule):
    """The band of the claim's word class (words.json) against the measured interval."""
    if measured.parts:
        papers = _as_list(paper) if rule["class"] in ("about N",) else [paper] * len(
            measured.parts)
        if len(papers) != len(measured.parts):
            raise ValueError(f"{len(papers)} paper value(s) for {len(measured.parts)} "
                             "measurement(s)")
        judged = [_judge_words(p, part, rule) for p, part in zip(papers, measured.parts)]
        verdicts = [j[0] for j in judged]
        worst = next((v for v in (NOT_REPRODUCED, INCONCLUSIVE) if v in verdicts), REPRODUCED)
        return (worst, "; ".join(dict.fromkeys(j[1] for j in judged)),
                ", ".join(j[2] for j in judged))
    return _judge_words(paper, measured, rule)


def _judge_words(paper, measured, rule):
    name = rule["class"]
    word = WORDS[name]
    value, interval, hull, what = _scalar(measured, rule)
    if name == "between N and M":
        return _judge_range(paper, measured)
    if name == "about N":
        low, high = paper / (1 + word["tolerance"]), paper * (1 + word["tolerance"])
        low = 1.0 if paper > 1 > low else low
        hull = interval  # the paper's number is an average: only the noise of ours counts
        band = f"'about {paper:g}' ±{word['tolerance']:.0%}"
    elif name in ("more than N", "less than N"):
        low, high = (rule["n"], None) if name == "more than N" else (None, rule["n"])
        hull = interval
        band = f"'{name.replace('N', format(rule['n'], 'g'))}'"
    else:
        low, high = word["low"], word["high"]
        band = f"'{name}'"
    verdict, why = judge_band(interval, hull, low, high)
    edges = " – ".join("…" if e is None else f"{e:.3g}" for e in (low, high))
    judged = interval if (low == 1 and high is None) else hull  # a direction alone: the mean's
    note = (f"{band}: band {edges}; measured {what}{value:.3g}, "
            f"interval {_interval_text(judged)}")
    if judged != interval:
        note += f" (noise of the mean alone {_interval_text(interval)})"
    return verdict, f"{note}{why}", _interval_text(judged)


def judge_band(interval, hull, low, high):
    """(verdict, reason) of a band [low, high] against the measured uncertainty.

    A low edge of 1 is the paper's direction: only a reversal beyond the noise of the mean
    (`interval`) fails it. Other edges are judged on `hull` (noise, plus the spread across
    sizes where the claim spans them): entirely outside fails, straddling is inconclusive.
    """
    unsure = []
    if low == 1:
        if interval[1] < 1:
            return NOT_REPRODUCED, "; reversed beyond the measured noise"
    elif low is not None:
        if hull[1] < low:
            return NOT_REPRODUCED, ""
        if hull[0] < low:
            unsure.append(f"{low:.3g}")
    if high is not None:
        if hull[0] > high:
            return NOT_REPRODUCED, ""
        if hull[1] > high:
            unsure.append(f"{high:.3g}")
    if unsure:
        return INCONCLUSIVE, f"; the interval straddles {' and '.join(unsure)}"
    return REPRODUCED, ""


def _judge_range(paper, measured):
    """Every per-size value inside the paper's [low, high]: inconclusive where only the
    noise decides."""
    low, high = paper
    sizes = measured.per_size
    if any(e.high < low or e.low > high for e in sizes):
        verdict = NOT_REPRODUCED
    elif all(low <= e.low and e.high <= high for e in sizes):
        verdict = REPRODUCED
    else:
        verdict = INCONCLUSIVE
    hull = _hull(sizes)
    return verdict, f"needs every value in {low:g}–{high:g}; interval {_interval_text(hull)}", \
        _interval_text(hull)


def _scalar(measured, rule):
    """(value, interval, hull, what) of a measurement; a curve reduces by the rule's `of`:
    its `peak`, or its `level` (geometric mean of the last `points` points)."""
    if not measured.points:
        if isinstance(measured.value, list):
            return measured.value[0], measured.interval, measured.hull, ""
        return measured.value, measured.interval, measured.hull, ""
    estimates = measured.per_size
    if rule.get("of") == "peak":
        values, points, sweep = _curve(measured, rule, 1)
        value = max(values)
        interval = (max(e.low for e in estimates), max(e.high for e in estimates))
        what = f"peak at {sweep} {points[values.index(value)]} "
    elif rule.get("of") == "level":
        count = rule["points"]
        values, points, sweep = _curve(measured, rule, count + 1)
        level = _aggregate(estimates[-count:], _geomean)
        value, interval = level.value, (level.low, level.high)
        what = f"level (geomean at {sweep}s {', '.join(map(str, points[-count:]))}) "
    else:
        raise ValueError(f"rule '{rule['rule']}' on a curve needs 'of': peak or level")
    return value, interval, interval, what


def rule_at_most(paper, measured, rule):
    return measured.value <= rule["limit"], f"limit {rule['limit']:g}"


def rule_rises(paper, measured, rule):
    """A curve's peak comes after its first point and is at least `factor` × that point."""
    values, points, sweep = _curve(measured, rule, 2)
    peak = values.index(max(values))
    gain = values[peak] / values[0]
    return peak > 0 and gain >= rule["factor"], (
        f"peak at {sweep} {points[peak]} is {gain:.2f}× the value at {sweep} {points[0]} "
        f"(needs ≥ {rule['factor']:g}×, after the first {sweep})")


def rule_peak_then_level(paper, measured, rule):
    """The peak lies before the last `points` points, which are all at least `drop` below it
    and within `flat` of each other: the curve peaks, then levels off."""
    count = rule["points"]
    values, points, sweep = _curve(measured, rule, count + 1)
    peak = values.index(max(values))
    tail = values[-count:]
    fall, spread = values[peak] / max(tail), max(tail) / min(tail)
    ok = peak < len(values) - count and fall >= 1 + rule["drop"] and spread <= 1 + rule["flat"]
    last = ", ".join(map(str, points[-count:]))
    return ok, (f"peak {values[peak]:.3g} at {sweep} {points[peak]}; last {count} {sweep}s "
                f"({last}): peak / highest of them {fall:.2f} (needs ≥ {1 + rule['drop']:g}, "
                f"peak before them), highest / lowest {spread:.2f} "
                f"(needs ≤ {1 + rule['flat']:g})")


def _curve(measured, rule, need):
    """(values, points, sweep) of a curve measurement with at least `need` points."""
    if not measured.points:
        raise ValueError(f"rule '{rule['rule']}' needs a curve measure (speedup_curve)")
    if len(measured.points) < need:
        raise NotMeasured([f"{len(measured.points)} {measured.sweep}(s) measured; rule "
                           f"'{rule['rule']}' needs at least {need}"])
    return measured.value, measured.points, measured.sweep


RULES = {
    "words": (rule_words, ("class",)),
    "at_most": (rule_at_most, ("limit",)),
    "rises": (rule_rises, ("factor",)),
    "peak_then_level": (rule_peak_then_level, ("points", "drop", "flat")),
}


def _load_words(path):
    try:
        classes = json.loads(path.read_text(encoding="utf-8"))["classes"]
    except (OSError, ValueError, KeyError) as error:
        raise ClaimsError(f"{path}: cannot read the word classes: {error}") from None
    return classes


WORDS = _load_words(WORDS_FILE)


# --- files and evaluation ------------------------------------------------------------------

def load_claims(path):
    """The validated claim list of one claims file; ClaimsError names what is wrong."""
    path = Path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ClaimsError(f"{path}:{error.lineno}: malformed JSON: {error.msg}") from None
    except OSError as error:
        raise ClaimsError(f"{path}: cannot read: {error}") from None
    claims = doc.get("claims") if isinstance(doc, dict) else None
    if not isinstance(claims, list) or not claims:
        raise ClaimsError(f"{path}: needs a non-empty 'claims' list")
    seen = set()
    for position, claim in enumerate(claims):
        claim_id = claim.get("id") if isinstance(claim, dict) else None
        where = f"{path}: claim {claim_id or position}"
        if not isinstance(claim_id, str) or claim_id in seen:
            raise ClaimsError(f"{where}: needs a unique string 'id'")
        seen.add(claim_id)
        for key in ("text", "paper_value", "measure", "rule"):
            if key not in claim:
                raise ClaimsError(f"{where}: missing '{key}'")
        if not claim.get("beyond_paper") and not (isinstance(claim.get("quote"), str)
                                                  and isinstance(claim.get("line"), int)):
            raise ClaimsError(f"{where}: needs the paper's sentence as 'quote' and its 'line' "
                              "(or 'beyond_paper': true)")
        _check_measure(where, claim["measure"])
        rule = claim["rule"]
        if not isinstance(rule, dict) or rule.get("rule") not in RULES:
            raise ClaimsError(f"{where}: 'rule' must name one of {', '.join(RULES)}")
        missing = [k for k in RULES[rule["rule"]][1] if k not in rule]
        if missing:
            raise ClaimsError(f"{where}: rule '{rule['rule']}' needs {', '.join(missing)}")
        if rule["rule"] == "words" and rule["class"] not in WORDS:
            raise ClaimsError(f"{where}: word class {rule['class']!r} is not in {WORDS_FILE.name} "
                              f"({', '.join(WORDS)})")
    return claims


def _check_measure(where, measure):
    if not isinstance(measure, dict) or measure.get("kind") not in MEASURES:
        raise ClaimsError(f"{where}: measure 'kind' must be one of {', '.join(MEASURES)}")
    missing = [k for k in MEASURES[measure["kind"]][1] if k not in measure]
    if missing:
        raise ClaimsError(f"{where}: measure '{measure['kind']}' needs {', '.join(missing)}")
    for part in measure.get("parts", ()):
        _check_measure(where, part)


def evaluate_claims(claims, scope):
    return [evaluate_claim(claim, scope) for claim in claims]


def evaluate_claim(claim, scope):
    """Measure one claim on one device's benchmarks and apply its verdict rule."""
    paper = claim["paper_value"]
    static_note = claim.get("note", "")
    common = dict(claim_id=claim["id"], text=claim["text"], paper=format_paper_value(claim),
                  quote=claim.get("quote", ""), line=claim.get("line", 0))
    rule = claim["rule"]

    def not_measured(missing, measured_text="—"):
        shown = missing.problems[:_NOTE_PROBLEMS]
        more = len(missing.problems) - len(shown)
        note = "; ".join(shown) + (f"; +{more} more" if more else "")
        return Verdict(measured=measured_text, verdict=NOT_MEASURED,
                       note=_join(note, static_note), **common)

    if "sweep" in claim["measure"]:  # a claim on benchmarks swept along another parameter
        scope = replace(scope, sweep=claim["measure"]["sweep"])
    try:
        measured = MEASURES[claim["measure"]["kind"]][0](claim["measure"], scope)
    except NotMeasured as missing:
        return not_measured(missing)
    try:
        outcome, rule_note, *interval = RULES[rule["rule"]][0](paper, measured, rule)
    except NotMeasured as missing:  # a curve too short for its shape rule
        return not_measured(missing, measured.text)
    except (TypeError, ValueError) as error:
        raise ClaimsError(f"claim {claim['id']}: paper_value does not fit rule "
                          f"'{rule['rule']}': {error}") from None
    if isinstance(outcome, bool):
        outcome = REPRODUCED if outcome else NOT_REPRODUCED
    return Verdict(measured=measured.text, verdict=outcome,
                   note=_join(measured.detail, rule_note, static_note), value=measured.value,
                   interval=interval[0] if interval else "—", **common)


def format_paper_value(claim):
    value = claim["paper_value"]
    if isinstance(value, str):
        return value
    if claim["rule"].get("class") == "between N and M":
        return f"{value[0]:g}–{value[1]:g}×"
    if isinstance(value, list):
        if all(isinstance(v, str) for v in value):
            return " < ".join(value)
        return ", ".join(f"{v:g}×" for v in value)
    return f"{value:g}×"


# --- small helpers -------------------------------------------------------------------------

def _geomean(values):
    values = list(values)
    return math.exp(statistics.fmean(math.log(v) for v in values))


def _times(value):
    digits = 0 if value >= 100 else 1 if value >= 10 else 2
    return f"{value:.{digits}f}×"


def _interval_text(interval):
    return f"{interval[0]:.3g}–{interval[1]:.3g}"


def _range_text(value):
    return f"{_times(value[0])[:-1]}–{_times(value[1])}"


def _seconds_text(seconds):
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def _describe_all(selectors):
    """Distinct selector descriptions; selectors differing in one key only are merged
    (`cdp-original/{soa,aos,aoas}/float/p:2`)."""
    unique = list({describe(s): s for s in selectors}.values())
    keys = {tuple(s) for s in unique}
    if len(unique) > 1 and len(keys) == 1:
        varying = [k for k in unique[0] if len({repr(s[k]) for s in unique}) > 1]
        if len(varying) == 1 and not any(isinstance(s[varying[0]], list) for s in unique):
            return [describe({**unique[0], varying[0]: [s[varying[0]] for s in unique]})]
    return [describe(s) for s in unique]


def _sizes_text(sizes):
    return f"{sizes[0]}–{sizes[-1]} ({len(sizes)})" if len(sizes) > 1 else str(sizes[0])


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _plural(sweep):
    """"sizes", "scales"; a sweep already plural ("objects") stays as it is."""
    return sweep if sweep.endswith("s") else f"{sweep}s"


def _as_list(value):
    return value if isinstance(value, list) else [value]


def _join(*parts):
    return "; ".join(p for p in parts if p)

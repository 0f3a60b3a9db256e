"""The measurement kinds (MEASURES): ratios, speedups, ranges, spreads, limits, curves and
counters over the sizes every variant of a claim was run at."""

import statistics
from dataclasses import dataclass, replace

from plots.estimates import (Estimate, aggregate, bimodal_note, geomean, hull_of,
                                      ratio_estimate, time_bounds)
from plots.claims.verdicts import NOTE_PROBLEMS, ClaimsError, Measured, NotMeasured
from plots.select import by_size, describe, expand, matches
from plots.text import format_seconds, times_text


@dataclass(frozen=True)
class Coverage:
    """The sizes a measurement used, and those skipped because a variant was not run there."""

    sizes: list
    skipped: dict  # size -> selectors of the variants not run at that size
    sweep: str = "size"
    bimodal: tuple = ()  # bimodal_note of each benchmark used whose repetitions are bimodal
    unlike: tuple = ()  # unlike_codes of the benchmarks used

    @property
    def labelled(self):
        """The text below after the sweep's plural: "sizes 10240–51200 (2)", then the
        benchmarks whose repetitions are bimodal (a claim that uses them says so)."""
        notes = "; ".join(self.bimodal[:NOTE_PROBLEMS])
        more = len(self.bimodal) - NOTE_PROBLEMS
        notes += f"; +{more} more bimodal" if more > 0 else ""
        return f"{_plural(self.sweep)} {self.text}" + (f"; {notes}" if notes else "")

    @property
    def text(self):
        used = _sizes_text(self.sizes)
        if not self.skipped:
            return used
        absent = _describe_all([sel for sels in self.skipped.values() for sel in sels])
        shown = ", ".join(absent[:NOTE_PROBLEMS])
        more = f", +{len(absent) - NOTE_PROBLEMS} more" if len(absent) > NOTE_PROBLEMS else ""
        skipped = ", ".join(map(str, self.skipped))
        only = (f"the only {self.sweep}" if len(self.sizes) == 1 else f"only the {_plural(self.sweep)}")
        return (f"{used}, {only} where every variant was run "
                f"(skipped {skipped}: not run for {shown}{more})")


def collect_benchmarks(scope, selectors):
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
    used = {key: {s: points[s] for s in sizes} for key, (_, points) in chosen.items()}
    bimodal = tuple(dict.fromkeys(filter(None, (bimodal_note(b) for points in used.values()
                                                 for b in points.values()))))
    return used, Coverage(sizes, skipped, scope.sweep, bimodal,
                          unlike_codes(b for points in used.values() for b in points.values()))


# A paper whose programs run a layout through more than one mapping code (Kofler's run-time
# tile and partition mappings beside compiled layouts) registers how to tell them apart
# (plots/papers.py): code_of(benchmark) -> its code's words ("compiled", "on the run-time tile
# mapping"), None where it does not say. The evaluator names no paper.
CODE_OF = []


def register_code_of(code_of):
    """Adds a paper's mapping-code classifier (once)."""
    if code_of not in CODE_OF:
        CODE_OF.append(code_of)


def _code_of(benchmark):
    for code_of in CODE_OF:
        code = code_of(benchmark)
        if code is not None:
            return code
    return None


def unlike_codes(benchmarks):
    """What ran on which mapping code (a registered classifier, CODE_OF) where the benchmarks
    compared ran on more than one ("sampo kdlg-tree on the run-time partition mapping",
    "sampo soa compiled"); () where they share one, or name none."""
    codes = {}
    for benchmark in benchmarks:
        code = _code_of(benchmark)
        if code is not None:
            codes.setdefault(code, {})[f"{benchmark.app} {benchmark.layout}"] = None
    if len(codes) < 2:
        return ()
    return tuple(f"{', '.join(names)} {code}" for code, names in sorted(codes.items()))


def _timed_by(scope, counter):
    """The scope with each benchmark's time read from its `counter` (seconds: a part of the
    run, such as a simulation's time without its set-up), the counter's extremes over the
    repetitions standing for its repetitions; a benchmark without the counter is an error the
    measure names."""
    if counter is None:
        return scope

    def retimed(benchmark):
        value = benchmark.counter(counter)
        if not _is_number(value) or value <= 0:
            return replace(benchmark, error=benchmark.error or f"no {counter} counter")
        return replace(benchmark, time_s=value,
                       repetitions_s=tuple(benchmark.counter_ranges.get(counter, ())))

    return replace(scope, benchmarks=tuple(map(retimed, scope.benchmarks)))


def _per_size_ratios(scope, select, faster, slower, time_counter=None):
    """Estimate of time(slower) / time(faster) for every variant of `select` at every size
    (times from `time_counter` where given: _timed_by)."""
    scope = _timed_by(scope, time_counter)
    pairs = [(label, {**v, **faster}, {**v, **slower})
             for label, v in expand(select, scope.sweep)]
    chosen, coverage = collect_benchmarks(
        scope, [((role, label), sel) for label, a, b in pairs
                for role, sel in (("faster", a), ("slower", b))])
    ratios = [ratio_estimate(chosen["slower", label][s], chosen["faster", label][s])
              for label, _, _ in pairs for s in coverage.sizes]
    return ratios, f"{len(pairs)} variant(s) × {coverage.labelled}", coverage.unlike


def _baseline(spec, scope):
    baseline = spec.get("baseline", scope.baseline)
    if not baseline:
        raise ClaimsError(f"measure '{spec['kind']}' needs a 'baseline' selector: this paper "
                          "has no default CPU baseline")
    return baseline


def _mean_measure(ratios, over, unlike, mean, how):
    total = aggregate(ratios, mean)
    return Measured(total.value, times_text(total.value), f"{how} over {over}", {},
                    interval=(total.low, total.high), hull=hull_of(ratios), unlike=unlike)


def _range_measure(ratios, over, unlike):
    value = [min(r.value for r in ratios), max(r.value for r in ratios)]
    return Measured(value, _range_text(value), f"range over {over}", {},
                    interval=hull_of(ratios), hull=hull_of(ratios), per_size=tuple(ratios),
                    unlike=unlike)


def measure_ratio(spec, scope):
    """Geometric mean over sizes of time(slower)/time(faster): "faster is k× faster"."""
    return _mean_measure(*_per_size_ratios(scope, spec["select"], spec["faster"],
                                           spec["slower"], spec.get("time")), geomean, "geomean")


def measure_ratio_range(spec, scope):
    """Smallest and largest per-size time(slower)/time(faster)."""
    return _range_measure(*_per_size_ratios(scope, spec["select"], spec["faster"],
                                            spec["slower"]))


def measure_speedup(spec, scope):
    """Arithmetic mean over sizes of baseline time / GPU time (the paper's average speedup)."""
    return _mean_measure(*_per_size_ratios(scope, spec["select"], {}, _baseline(spec, scope)),
                         statistics.fmean, "mean")


def measure_speedup_range(spec, scope):
    """Smallest and largest per-size speedup over the baseline across the selection."""
    return _range_measure(*_per_size_ratios(scope, spec["select"], {}, _baseline(spec, scope)))


def measure_gain_over_gain(spec, scope):
    """One ratio measure over another: "the gain is smaller in double than in single"."""
    larger, smaller = (measure_ratio(spec[k], scope) for k in ("larger", "smaller"))
    value = larger.value / smaller.value

    def divide(a, b):
        return a[0] / b[1], a[1] / b[0]

    return Measured(value, times_text(value),
                    f"{larger.text} / {smaller.text}; larger: {larger.detail}; "
                    f"smaller: {smaller.detail}", {},
                    interval=divide(larger.interval, smaller.interval),
                    hull=divide(larger.hull, smaller.hull), unlike=larger.unlike + smaller.unlike)


def _spread_estimate(times):
    """Slowest / fastest of several (time, fastest, slowest) triples: the interval's low end
    is the part of the gap the noise cannot explain away (never below 1)."""
    value = max(t[0] for t in times) / min(t[0] for t in times)
    low = max(1.0, max(t[1] for t in times) / min(t[2] for t in times))
    return Estimate(value, low, max(t[2] for t in times) / min(t[1] for t in times))


def _time_triple(benchmark):
    return (benchmark.time_s, *time_bounds(benchmark))


def measure_about_equal(spec, scope):
    """Slowest / fastest of the variants' geometric-mean times."""
    variants = [label for label, _ in expand(spec["select"], scope.sweep)]
    chosen, coverage = collect_benchmarks(scope, expand(spec["select"], scope.sweep))
    per_size = [_spread_estimate([_time_triple(chosen[v][s]) for v in variants])
                for s in coverage.sizes]
    means = {v: tuple(map(geomean, zip(*map(_time_triple, chosen[v].values()))))
             for v in variants}
    total = _spread_estimate(list(means.values()))
    times = {v: m[0] for v, m in means.items()}
    fastest, slowest = min(times, key=times.get), max(times, key=times.get)
    detail = f"slowest {slowest}, fastest {fastest}; {coverage.labelled}"
    return Measured(total.value, f"{total.value:.3f}× max/min", detail, times,
                    interval=(total.low, total.high), hull=hull_of(per_size),
                    unlike=coverage.unlike)


def measure_span(spec, scope):
    """Slowest / fastest of every benchmark the selection accepts at each size, whatever
    their other parameters (AoS, SoA and every tile: an optimisation space), each size a
    part: the span of one run, its interval from the repetitions' extremes. Every value a
    selector lists must be run at each size: a space without its tiles is not the span."""
    select = spec["select"]
    groups = {}
    for benchmark in scope.benchmarks:
        size = benchmark.params.get(scope.sweep)
        if isinstance(size, (int, float, str)) and matches(benchmark, select):
            groups.setdefault(size, []).append(benchmark)
    problems = [f"errored: {b.name} ({b.error})" for group in groups.values() for b in group
                if b.error]
    problems += [f"absent: {describe({**select, key: value})} at {scope.sweep} {size}"
                 for size, group in groups.items()
                 for key, values in select.items() if isinstance(values, list)
                 for value in values if not any(b.get(key) == value for b in group)]
    problems += [f"{scope.sweep} {size}: only {group[0].name} of {describe(select)}"
                 for size, group in groups.items() if len(group) < 2]
    if not groups:
        problems.append(f"absent: {describe(select)} (every {scope.sweep})")
    if problems:
        raise NotMeasured(problems)
    parts = []
    for size in sorted(groups, key=lambda v: (isinstance(v, str), v)):
        group = sorted(groups[size], key=lambda b: b.time_s)
        span = _spread_estimate([_time_triple(b) for b in group])
        parts.append(Measured(span.value, f"{span.value:.2f}× slowest/fastest",
                              f"{scope.sweep} {size}: slowest {group[-1].name}, fastest "
                              f"{group[0].name} of {len(group)}", {},
                              interval=(span.low, span.high), hull=(span.low, span.high),
                              label=f"{scope.sweep} {size}", unlike=unlike_codes(group)))
    return _parts_measured(parts)


def measure_counter_ratio(spec, scope):
    """counter(`of`) / counter(`to`): one counter of two variants at each point of the
    sweep, each point a part; 1 − that ratio with `"complement": true`. Counters are exact
    (no repetitions' interval): e.g. 1 − bytes(a variant) / bytes(another) is the share one
    saves."""
    counter = spec["counter"]
    chosen, coverage = collect_benchmarks(
        scope, [(role, {**spec["select"], **spec[role]}) for role in ("of", "to")])
    parts = []
    for size in coverage.sizes:
        pair = [chosen[role][size] for role in ("of", "to")]
        missing = [b.name for b in pair if not _is_number(b.counters.get(counter))]
        if missing or pair[1].counters[counter] == 0:
            raise NotMeasured([f"no {counter} counter: {n}" for n in missing]
                              or [f"{counter} is 0: {pair[1].name}"])
        of, to = (b.counters[counter] for b in pair)
        value = 1 - of / to if spec.get("complement") else of / to
        how = "1 − " if spec.get("complement") else ""
        parts.append(Measured(value, f"{value:.3f}", f"{how}{counter} {of:.6g} / {to:.6g} "
                              f"({describe(spec['of'])} / {describe(spec['to'])})", {},
                              interval=(value, value), hull=(value, value),
                              label=" ".join(filter(None, (spec.get("label"),
                                                           f"{scope.sweep} {size}")))))
    return _parts_measured(parts)


def measure(spec, scope):
    """One measure spec on one scope. With `"each_variant": true` the kind is measured on
    every variant of its selection alone and the claim is judged part by part ("for every
    strategy"): a pooled mean would let good variants hide a reversed one."""
    kind = MEASURES[spec["kind"]][0]
    if not spec.get("each_variant"):
        return replace(kind(spec, scope), label=_part_label(spec))
    axes = [k for k, v in spec["select"].items() if isinstance(v, list) and k != scope.sweep]
    specs = [{**spec, "each_variant": False, "select": selector,
              "label": " ".join(filter(None, (spec.get("label"),
                                              describe({k: selector[k] for k in axes}))))}
             for _, selector in expand(spec["select"], scope.sweep)]
    return measure_each({"parts": specs}, scope)


def measure_each(spec, scope):
    """Several measurements judged part by part (the worst part decides); a part that has
    parts of its own (each_variant) adds them."""
    results, problems = [], []
    for part in spec["parts"]:
        try:
            measured = measure(part, scope)
        except NotMeasured as missing:
            problems += missing.problems
            continue
        results += measured.parts or [measured]
    if problems:
        raise NotMeasured(problems)
    return _parts_measured(results)


def _parts_measured(parts):
    """One measurement made of parts, each judged on its own (rules.rule_words)."""
    details = "; ".join(dict.fromkeys(m.detail for m in parts))
    return Measured([m.value for m in parts], ", ".join(f"{m.label} {m.text}".strip()
                                                       for m in parts), details, {},
                    parts=tuple(parts))


def _part_label(spec):
    """How a part is named in a verdict's note: its own `label`, else time(slower) /
    time(faster) as selectors (`aos / soa`), else its selection."""
    if "label" in spec:
        return spec["label"]
    if "slower" in spec and "faster" in spec:
        return f"{describe(spec['slower'])} / {describe(spec['faster'])}"
    return describe(spec.get("select", {}))


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
    detail = (f"time {format_seconds(benchmark.time_s)} vs limit_s {format_seconds(limit)} "
              f"({100 / value:.1f} % of the limit) at {where}")
    # the interval: the repetitions' fastest and slowest over the same limit, as a time's
    times = benchmark.repetitions_s or (benchmark.time_s,)
    interval = (min(times) / limit, max(times) / limit)
    return Measured(value, f"{value:.2f}× the limit", detail, {}, interval=interval, hull=interval)


def measure_speedup_curve(spec, scope):
    """Baseline time / time of one variant at every size, in size order: a curve whose
    shape the curve rules judge (rises, peaks, levels off)."""
    select = one_variant(spec, scope)
    chosen, coverage = collect_benchmarks(
        scope, [("variant", select), ("baseline", {**select, **_baseline(spec, scope)})])
    points = tuple(coverage.sizes)
    estimates = tuple(ratio_estimate(chosen["baseline"][p], chosen["variant"][p])
                      for p in points)
    values = [e.value for e in estimates]
    peak = values.index(max(values))
    marks = sorted({0, peak, len(values) - 1})
    text = " → ".join(f"{times_text(values[k])} at {scope.sweep} {points[k]}"
                      + (" (peak)" if k == peak and len(values) > 1 else "") for k in marks)
    every = ", ".join(f"{p}: {times_text(v)}" for p, v in zip(points, values))
    detail = f"speedup per {scope.sweep} ({every}); {coverage.labelled}"
    return Measured(values, text, detail, {}, points, scope.sweep, per_size=estimates)


def measure_counter(spec, scope):
    """The largest value (or the smallest, with "reduce": "min") of one benchmark counter
    over the sizes the variant ran at, e.g. an accuracy counter. Counters named in `also`
    are reduced the same way and reported alongside."""
    reduce, pick = reducer(spec)
    chosen, coverage = collect_benchmarks(scope, [("variant", one_variant(spec, scope))])
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
    # the interval: the counter's extremes over the repetitions (a benchmark's value alone
    # where the file has no repetitions), reduced over the sizes as the value is
    ranges = [b.counter_ranges.get(counter) or (b.counters[counter],) * 2 for b in benchmarks.values()]
    interval = (pick(r[0] for r in ranges), pick(r[1] for r in ranges))
    return Measured(value, f"{counter} {value:.2g}", detail, {}, interval=interval, hull=interval)


_REDUCERS = {"max": max, "min": min}


def reducer(spec):
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
    With `"each": true` every value is a part of its own (a claim about every tile, judged
    tile by tile), `reduce` then picking only among the sizes.
    """
    _, pick = reducer(spec)
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
    if spec.get("each"):
        return _parts_measured([replace(_reduced_over(points, [v], sides, scope, spec, pick),
                                        label=" ".join(filter(None, (spec.get("label"),
                                                                     f"{every} {v}"))))
                                for v in shared])
    return _reduced_over(points, shared, sides, scope, spec, pick)


def _reduced_over(points, shared, sides, scope, spec, pick):
    """measure_ratio_every over the values `shared` of its parameter, `points[role, value]`
    the benchmarks of each side by size."""
    reduce, every = spec.get("reduce", "max"), spec["every"]
    per_size, where, used = [], [], []
    for size in sorted({s for v in shared for role in sides for s in points[role, v]}):
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
        used += [b for pair in pairs.values() for b in pair]
    if not per_size:
        raise NotMeasured([f"no {scope.sweep} at which {describe(sides['faster'])} and "
                           f"{describe(sides['slower'])} were both run"
                           + (f" at {every} {shared[0]}" if len(shared) == 1 else "")])
    at = pick(range(len(per_size)), key=lambda k: per_size[k].value)
    total = per_size[at]
    size, value, _ = where[at]
    one = len(shared) == 1  # one value: a part of "each", named by its label
    listed = ", ".join(f"{s}: {times_text(e.value)}" + ("" if one else f" at {every} {v} of {n}")
                       for (s, v, n), e in zip(where, per_size))
    text = f"{times_text(total.value)} ({'' if one else f'{every} {value}, '}{scope.sweep} {size})"
    spread = [min(e.value for e in per_size), max(e.value for e in per_size)]
    if times_text(spread[0]) != times_text(spread[1]):
        text = f"{_range_text(spread)} over {scope.sweep}s; {reduce} {text}"
    detail = (f"{every} {shared[0]} per {scope.sweep} ({listed})" if one
              else f"{reduce} over {every} per {scope.sweep} ({listed})")
    return Measured(total.value, text, detail, {},
                    interval=(total.low, total.high), hull=hull_of(per_size),
                    per_size=tuple(per_size), unlike=unlike_codes(used))


def one_variant(spec, scope):
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
    "span": (measure_span, ("select",)),
    "counter_ratio": (measure_counter_ratio, ("select", "counter", "of", "to")),
}


def register_measures(measures):
    """A paper's own measurement kinds ({kind: (function(spec, scope), keys its spec needs)},
    the paper's entry in plots/papers.py): once registered, any claims file may use them. A
    kind taken by another module's function is an error."""
    for kind, entry in measures.items():
        taken = MEASURES.get(kind)
        if taken and (taken[0].__module__, taken[0].__qualname__) != (
                entry[0].__module__, entry[0].__qualname__):
            raise ValueError(f"measure kind '{kind}' is registered twice "
                             f"({taken[0].__module__} and {entry[0].__module__})")
        MEASURES[kind] = entry


# --- the measurements' words ------------------------------------------------------------

def _range_text(value):
    return f"{times_text(value[0])[:-1]}–{times_text(value[1])}"


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



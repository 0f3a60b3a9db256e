"""Published claims as data (plots/claims/<paper>.json), checked by one generic evaluator.

A claims file: `{"paper": id, "claims": [claim, ...]}`; a claim:
  id           unique slug
  text         the claim as the paper states it
  paper_value  number, [lo, hi], list of numbers/labels, or text
  measure      {"kind": one of MEASURES, "select": selector, ...} (see each measure below)
  rule         {"rule": one of RULES, ...parameters}
  note         optional context kept with the verdict (e.g. the paper's GPU)
Selectors are those of plots/select.py; `size` is the sweep every measurement runs along.
A measurement needs every variant at every size any of its variants has; an absent, errored
or ambiguous benchmark makes the verdict "not measured", naming it.
"""

import json
import math
import statistics
from dataclasses import dataclass
from pathlib import Path

from plots.select import by_size, describe, expand

REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
NOT_MEASURED = "not measured"
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


@dataclass(frozen=True)
class Verdict:
    claim_id: str
    text: str
    paper: str
    measured: str
    verdict: str
    note: str
    value: object = None


@dataclass(frozen=True)
class Scope:
    """What a claim is measured on: one device's benchmarks and the paper's conventions."""

    benchmarks: tuple
    baseline: dict  # overrides turning a GPU selector into its CPU baseline
    prefer: dict  # parameters that pick one benchmark when several match at a size


# --- measurements ------------------------------------------------------------------------

def _collect(scope, selectors):
    """{key: {size: seconds}} over one common set of sizes, or raise NotMeasured."""
    chosen, problems = {}, []
    for key, selector in selectors:
        points, ambiguous = by_size(scope.benchmarks, selector, scope.prefer)
        problems += ambiguous
        if not points and not ambiguous:
            problems.append(f"absent: {describe(selector)} (every size)")
        chosen[key] = (selector, points)
    sizes = sorted(set().union(*(points for _, points in chosen.values())))
    for selector, points in chosen.values():
        for size in sizes if points else ():
            benchmark = points.get(size)
            if benchmark is None:
                problems.append(f"absent: {describe(selector)}/size:{size}")
            elif benchmark.error:
                problems.append(f"errored: {benchmark.name} ({benchmark.error})")
    if problems:
        raise NotMeasured(problems)
    return {key: {s: points[s].time_s for s in sizes} for key, (_, points) in chosen.items()}, sizes


def _per_size_ratios(scope, select, faster, slower):
    """time(slower) / time(faster) for every variant of `select` at every size."""
    pairs = [(label, {**v, **faster}, {**v, **slower}) for label, v in expand(select)]
    times, sizes = _collect(scope, [((role, label), sel) for label, a, b in pairs
                                    for role, sel in (("faster", a), ("slower", b))])
    ratios = [times["slower", label][s] / times["faster", label][s]
              for label, _, _ in pairs for s in sizes]
    return ratios, f"{len(pairs)} variant(s) × sizes {_sizes_text(sizes)}"


def _baseline(spec, scope):
    return spec.get("baseline", scope.baseline)


def measure_ratio(spec, scope):
    """Geometric mean over sizes of time(slower)/time(faster): "faster is k× faster"."""
    ratios, over = _per_size_ratios(scope, spec["select"], spec["faster"], spec["slower"])
    value = _geomean(ratios)
    return Measured(value, _times(value), f"geomean over {over}", {})


def measure_ratio_range(spec, scope):
    """Smallest and largest per-size time(slower)/time(faster)."""
    ratios, over = _per_size_ratios(scope, spec["select"], spec["faster"], spec["slower"])
    value = [min(ratios), max(ratios)]
    return Measured(value, _range_text(value), f"range over {over}", {})


def measure_speedup(spec, scope):
    """Arithmetic mean over sizes of baseline time / GPU time (the paper's average speedup)."""
    ratios, over = _per_size_ratios(scope, spec["select"], {}, _baseline(spec, scope))
    value = statistics.fmean(ratios)
    return Measured(value, _times(value), f"mean over {over}", {})


def measure_speedup_range(spec, scope):
    """Smallest and largest per-size speedup over the baseline across the selection."""
    ratios, over = _per_size_ratios(scope, spec["select"], {}, _baseline(spec, scope))
    value = [min(ratios), max(ratios)]
    return Measured(value, _range_text(value), f"range over {over}", {})


def _variant_times(spec, scope):
    """{variant label: geometric-mean time over the common sizes}."""
    variants = expand(spec["select"])
    times, sizes = _collect(scope, variants)
    return {label: _geomean(times[label].values()) for label, _ in variants}, sizes


def measure_about_equal(spec, scope):
    """Slowest / fastest of the variants' geometric-mean times."""
    times, sizes = _variant_times(spec, scope)
    fastest, slowest = min(times, key=times.get), max(times, key=times.get)
    value = times[slowest] / times[fastest]
    detail = f"slowest {slowest}, fastest {fastest}; sizes {_sizes_text(sizes)}"
    return Measured(value, f"{value:.3f}× max/min", detail, times)


def measure_ordering(spec, scope):
    """Variants sorted by geometric-mean time, fastest first."""
    times, sizes = _variant_times(spec, scope)
    value = sorted(times, key=times.get)
    steps = ", ".join(f"{b}/{a} {times[b] / times[a]:.2f}×" for a, b in zip(value, value[1:]))
    return Measured(value, " < ".join(value), f"{steps}; sizes {_sizes_text(sizes)}", times)


def measure_best(spec, scope):
    """The fastest variant (or the slowest, with "pick": "slowest")."""
    times, sizes = _variant_times(spec, scope)
    pick = max if spec.get("pick", "fastest") == "slowest" else min
    value = pick(times, key=times.get)
    others = sorted(times, key=times.get)
    detail = f"by time: {' < '.join(others)}; sizes {_sizes_text(sizes)}"
    return Measured(value, value, detail, times)


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
    return Measured([m.value for m in results], ", ".join(m.text for m in results), details, {})


MEASURES = {  # kind -> (function, keys its spec needs)
    "ratio": (measure_ratio, ("select", "faster", "slower")),
    "ratio_range": (measure_ratio_range, ("select", "faster", "slower")),
    "speedup": (measure_speedup, ("select",)),
    "speedup_range": (measure_speedup_range, ("select",)),
    "about_equal": (measure_about_equal, ("select",)),
    "ordering": (measure_ordering, ("select",)),
    "best": (measure_best, ("select",)),
    "each": (measure_each, ("parts",)),
}


# --- verdict rules: (reproduced?, note) ----------------------------------------------------

def rule_within(paper, measured, rule):
    """Each measured value within ±tolerance of the paper's, on a log scale."""
    limit = math.log1p(rule["tolerance"])
    papers, values = _as_list(paper), _as_list(measured.value)
    if len(papers) != len(values):
        raise ValueError(f"{len(papers)} paper value(s) for {len(values)} measurement(s)")
    pairs = list(zip(papers, values))
    offsets = [m / p - 1 for p, m in pairs]
    ok = all(abs(math.log(m / p)) <= limit for p, m in pairs)
    text = ", ".join(f"{o:+.1%}" for o in offsets)
    return ok, f"measured vs paper {text} (tolerance ±{rule['tolerance']:.0%})"


def rule_at_most(paper, measured, rule):
    return measured.value <= rule["limit"], f"limit {rule['limit']:g}"


def rule_equal(paper, measured, rule):
    return measured.value == paper, ""


def rule_in_range(paper, measured, rule):
    low, high = paper
    return low <= measured.value[0] and measured.value[1] <= high, ""


def rule_fastest_or_within(paper, measured, rule):
    """The paper's variant is the fastest, or within tolerance of the fastest."""
    if paper not in measured.times:
        raise ClaimsError(f"paper_value {paper!r} is not a variant of the selection "
                          f"({', '.join(measured.times)})")
    fastest = min(measured.times, key=measured.times.get)
    behind = measured.times[paper] / measured.times[fastest] - 1
    return behind <= rule["tolerance"], (
        f"{paper} is {behind:.1%} slower than {fastest} (tolerance {rule['tolerance']:.0%})")


RULES = {
    "within": (rule_within, ("tolerance",)),
    "at_most": (rule_at_most, ("limit",)),
    "equal": (rule_equal, ()),
    "in_range": (rule_in_range, ()),
    "fastest_or_within": (rule_fastest_or_within, ("tolerance",)),
}


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
        _check_measure(where, claim["measure"])
        rule = claim["rule"]
        if not isinstance(rule, dict) or rule.get("rule") not in RULES:
            raise ClaimsError(f"{where}: 'rule' must name one of {', '.join(RULES)}")
        missing = [k for k in RULES[rule["rule"]][1] if k not in rule]
        if missing:
            raise ClaimsError(f"{where}: rule '{rule['rule']}' needs {', '.join(missing)}")
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
    common = dict(claim_id=claim["id"], text=claim["text"], paper=format_paper_value(claim))
    try:
        measured = MEASURES[claim["measure"]["kind"]][0](claim["measure"], scope)
    except NotMeasured as missing:
        shown = missing.problems[:_NOTE_PROBLEMS]
        more = len(missing.problems) - len(shown)
        note = "; ".join(shown) + (f"; +{more} more" if more else "")
        return Verdict(measured="—", verdict=NOT_MEASURED, note=_join(note, static_note),
                       **common)
    rule = claim["rule"]
    try:
        ok, rule_note = RULES[rule["rule"]][0](paper, measured, rule)
    except (TypeError, ValueError) as error:
        raise ClaimsError(f"claim {claim['id']}: paper_value does not fit rule "
                          f"'{rule['rule']}': {error}") from None
    return Verdict(measured=measured.text, verdict=REPRODUCED if ok else NOT_REPRODUCED,
                   note=_join(measured.detail, rule_note, static_note), value=measured.value,
                   **common)


def format_paper_value(claim):
    value = claim["paper_value"]
    if isinstance(value, str):
        return value
    if claim["rule"]["rule"] == "in_range":
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


def _range_text(value):
    return f"{_times(value[0])[:-1]}–{_times(value[1])}"


def _sizes_text(sizes):
    return f"{sizes[0]}–{sizes[-1]} ({len(sizes)})" if len(sizes) > 1 else str(sizes[0])


def _as_list(value):
    return value if isinstance(value, list) else [value]


def _join(*parts):
    return "; ".join(p for p in parts if p)

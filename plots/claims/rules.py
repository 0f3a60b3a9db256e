"""The verdict rules (RULES): a measured interval against the band of the paper's words
(claims/words.json) or a shape rule; each returns (verdict or reproduced?, note[, interval
text])."""

import json
from pathlib import Path

from plots.estimates import aggregate, geomean, hull_of
from plots.claims.verdicts import (INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, ClaimsError,
                                   NotMeasured)

WORDS_FILE = Path(__file__).parent / "words.json"


def rule_words(paper, measured, rule):
    """The band of the claim's word class (words.json) against the measured interval."""
    if measured.parts:
        parts = measured.parts
        papers = paper if isinstance(paper, list) and rule["class"] == "about N" else (
            [paper] * len(parts))
        if len(papers) != len(parts):
            raise ValueError(f"{len(papers)} paper value(s) for {len(parts)} measurement(s)")
        judged = [_judge_words(p, part, rule) for p, part in zip(papers, parts)]
        verdicts = [j[0] for j in judged]
        quantifier = rule.get("parts", "every")
        verdict, how = QUANTIFY[quantifier](verdicts)
        notes = [f"{part.label}: {note} → {v}" if part.label else f"{note} → {v}"
                 for part, (v, note, _) in zip(parts, judged)]
        return (verdict, f"judged part by part, {how} ({_tally(verdicts)}); "
                + "; ".join(notes), ", ".join(j[2] for j in judged))
    return _judge_words(paper, measured, rule)


def _every(verdicts):
    """'all', 'every', 'both': the worst part decides."""
    return next((v for v in (NOT_REPRODUCED, INCONCLUSIVE) if v in verdicts),
                REPRODUCED), "the worst decides"


def _some(verdicts):
    """'some', 'in some cases': the best part decides."""
    return next((v for v in (REPRODUCED, INCONCLUSIVE) if v in verdicts),
                NOT_REPRODUCED), "the best decides ('some')"


def _usually(verdicts):
    """'usually', 'most': more than half of the parts reproduced; inconclusive where only
    the inconclusive parts could make more than half."""
    half = len(verdicts) / 2
    reproduced = verdicts.count(REPRODUCED)
    if reproduced > half:
        verdict = REPRODUCED
    elif reproduced + verdicts.count(INCONCLUSIVE) > half:
        verdict = INCONCLUSIVE
    else:
        verdict = NOT_REPRODUCED
    return verdict, "more than half must reproduce ('usually')"


QUANTIFY = {"every": _every, "some": _some, "usually": _usually}  # words.json "quantifiers"


def _judge_words(paper, measured, rule):
    """The band against one measurement; one that compares benchmarks of different mapping
    code (Measured.unlike) is shown with its band, not judged: inconclusive."""
    verdict, note, interval = _judge_band_words(paper, measured, rule)
    if measured.unlike:
        return INCONCLUSIVE, (f"{note}; not judged, not like for like: "
                              f"{'; '.join(measured.unlike)}"), interval
    return verdict, note, interval


def _judge_band_words(paper, measured, rule):
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
    hull = hull_of(sizes)
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
        level = aggregate(estimates[-count:], geomean)
        value, interval = level.value, (level.low, level.high)
        what = f"level (geomean at {sweep}s {', '.join(map(str, points[-count:]))}) "
    else:
        raise ValueError(f"rule '{rule['rule']}' on a curve needs 'of': peak or level")
    return value, interval, interval, what


def rule_at_most(paper, measured, rule):
    """At most `limit`, judged on the measured interval where the measure has one (the
    repetitions' extremes): inconclusive when it straddles the limit, as every band's edge
    (judge_band); on the value alone where the measure is exact (counts, bytes)."""
    limit = rule["limit"]
    if not measured.interval:
        return measured.value <= limit, f"limit {limit:g}"
    low, high = measured.interval
    if low <= limit < high:
        return INCONCLUSIVE, f"limit {limit:g}; the interval straddles it", _interval_text((low, high))
    return high <= limit, f"limit {limit:g}", _interval_text((low, high))


def _shape_verdict(holds, at_worst, at_best):
    """A curve rule's outcome from its test on the medians (`holds`), on the points'
    intervals read against it (`at_worst`) and for it (`at_best`): reproduced when it holds
    whatever the noise, not reproduced when it fails whatever the noise, else inconclusive
    (the points' intervals straddle the rule's edge)."""
    if at_worst:
        return True, ""
    if not at_best:
        return False, ""
    return INCONCLUSIVE, "; the points' intervals straddle it" + (
        " (the medians hold it)" if holds else " (the medians miss it)")


def _bounds(measured, values):
    """(lows, highs) of a curve's points: their intervals (per_size), else the values."""
    if len(measured.per_size) == len(values):
        return [e.low for e in measured.per_size], [e.high for e in measured.per_size]
    return list(values), list(values)


def rule_rises(paper, measured, rule):
    """A curve's peak comes after its first point and is at least `factor` × that point (on
    the points' intervals: the peak's low over the first point's high must reach it)."""
    values, points, sweep = _curve(measured, rule, 2)
    lows, highs = _bounds(measured, values)
    peak = values.index(max(values))
    gain = values[peak] / values[0]
    factor = rule["factor"]
    outcome, why = _shape_verdict(peak > 0 and gain >= factor,
                                  peak > 0 and lows[peak] / highs[0] >= factor,
                                  peak > 0 and highs[peak] / lows[0] >= factor)
    return outcome, (f"peak at {sweep} {points[peak]} is {gain:.2f}× the value at {sweep} {points[0]} "
                     f"(needs ≥ {factor:g}×, after the first {sweep}){why}")


def rule_peak_then_level(paper, measured, rule):
    """The peak lies before the last `points` points, which are all at least `drop` below it
    and within `flat` of each other: the curve peaks, then levels off. Judged on the points'
    intervals too: the fall and the flatness are tested at the intervals' worst and best."""
    count = rule["points"]
    values, points, sweep = _curve(measured, rule, count + 1)
    lows, highs = _bounds(measured, values)
    peak = values.index(max(values))
    tail, tail_lows, tail_highs = values[-count:], lows[-count:], highs[-count:]
    fall, spread = values[peak] / max(tail), max(tail) / min(tail)
    before = peak < len(values) - count
    drop, flat = 1 + rule["drop"], 1 + rule["flat"]

    def shape(fall_, spread_):
        return before and fall_ >= drop and spread_ <= flat

    outcome, why = _shape_verdict(
        shape(fall, spread),
        shape(lows[peak] / max(tail_highs), max(tail_highs) / min(tail_lows)),
        shape(highs[peak] / max(tail_lows), max(1.0, max(tail_lows) / min(tail_highs))))
    last = ", ".join(map(str, points[-count:]))
    return outcome, (f"peak {values[peak]:.3g} at {sweep} {points[peak]}; last {count} {sweep}s "
                     f"({last}): peak / highest of them {fall:.2f} (needs ≥ {drop:g}, "
                     f"peak before them), highest / lowest {spread:.2f} "
                     f"(needs ≤ {flat:g}){why}")


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
    """(word classes, quantifiers) of words.json; each quantifier needs its rule above."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        classes, quantifiers = doc["classes"], doc["quantifiers"]
    except (OSError, ValueError, KeyError) as error:
        raise ClaimsError(f"{path}: cannot read the word classes: {error}") from None
    if set(quantifiers) != set(QUANTIFY):
        raise ClaimsError(f"{path}: quantifiers {sorted(quantifiers)} but the rules know "
                          f"{sorted(QUANTIFY)}")
    return classes, quantifiers


WORDS, QUANTIFIERS = _load_words(WORDS_FILE)


def _interval_text(interval):
    return f"{interval[0]:.3g}–{interval[1]:.3g}"



def _tally(verdicts):
    """"5 reproduced, 1 not reproduced" in the verdicts' order of severity."""
    order = (NOT_REPRODUCED, INCONCLUSIVE, REPRODUCED)
    return ", ".join(f"{verdicts.count(v)} {v}" for v in order if v in verdicts)



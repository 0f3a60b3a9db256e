"""Claims files read and validated, and each claim measured and judged into a Verdict."""

import json
from dataclasses import replace
from pathlib import Path

from plots.claims.measures import MEASURES, measure
from plots.claims.rules import QUANTIFIERS, RULES, WORDS, WORDS_FILE
from plots.claims.verdicts import (INCONCLUSIVE, NOT_MEASURED, NOT_REPRODUCED,
                                   NOT_TRANSFERABLE, NOTE_PROBLEMS, REPRODUCED, ClaimsError,
                                   NotMeasured, Verdict)


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
        _check_readings(where, claim.get("readings"))
        _check_readings(where, claim.get("context"), "context")
        reason = claim.get("not_transferable")
        if reason is not None and not (isinstance(reason, str) and reason.strip()):
            raise ClaimsError(f"{where}: 'not_transferable' must give its reason as text")
        rule = claim["rule"]
        if not isinstance(rule, dict) or rule.get("rule") not in RULES:
            raise ClaimsError(f"{where}: 'rule' must name one of {', '.join(RULES)}")
        missing = [k for k in RULES[rule["rule"]][1] if k not in rule]
        if missing:
            raise ClaimsError(f"{where}: rule '{rule['rule']}' needs {', '.join(missing)}")
        if rule["rule"] == "words" and rule["class"] not in WORDS:
            raise ClaimsError(f"{where}: word class {rule['class']!r} is not in {WORDS_FILE.name} "
                              f"({', '.join(WORDS)})")
        if rule.get("parts", "every") not in QUANTIFIERS:
            raise ClaimsError(f"{where}: quantifier {rule['parts']!r} ('parts') is not in "
                              f"{WORDS_FILE.name} ({', '.join(QUANTIFIERS)})")
    return claims


def _check_measure(where, measure):
    if not isinstance(measure, dict) or measure.get("kind") not in MEASURES:
        raise ClaimsError(f"{where}: measure 'kind' must be one of {', '.join(MEASURES)}")
    missing = [k for k in MEASURES[measure["kind"]][1] if k not in measure]
    if missing:
        raise ClaimsError(f"{where}: measure '{measure['kind']}' needs {', '.join(missing)}")
    if measure.get("each_variant") and not any(isinstance(v, list) for v in
                                               measure.get("select", {}).values()):
        raise ClaimsError(f"{where}: 'each_variant' needs a 'select' listing several variants")
    for part in measure.get("parts", ()):
        _check_measure(where, part)


def _check_readings(where, readings, key="readings"):
    """`readings`: the other ways the paper's sentence can be read on our setup, each
    {"label", "measure"}; the claim's own measure is the first reading (its
    `reading` label). `context` (the same form): measurements shown beside the verdict,
    never judged (a run-time tile sweep beside the compiled tiles a claim is judged on)."""
    if readings is None:
        return
    if not isinstance(readings, list) or not readings:
        raise ClaimsError(f"{where}: '{key}' must be a non-empty list")
    for reading in readings:
        if not (isinstance(reading, dict) and isinstance(reading.get("label"), str)
                and "measure" in reading):
            what = "reading" if key == "readings" else f"{key} entry"
            raise ClaimsError(f"{where}: each {what} needs a 'label' and a 'measure'")
        _check_measure(where, reading["measure"])


def evaluate_claims(claims, scope):
    return [evaluate_claim(claim, scope) for claim in claims]


def evaluate_claim(claim, scope):
    """Measure one claim on one device's benchmarks and apply its verdict rule.

    A claim `not_transferable` (a number tied to the paper's hardware, decided in the claims
    data before measuring) is measured and shown, not judged. A claim with `readings` (a
    comparison our setup cannot make like for like, read every way the sentence admits) is
    judged on each reading: one verdict where they agree, `inconclusive` with every reading's
    number where they do not."""
    if claim.get("readings"):
        return _with_context(claim, scope, _judge_readings(claim, scope))
    verdict = _evaluate_one(claim, scope)
    reason = claim.get("not_transferable")
    if reason and verdict.verdict != NOT_MEASURED:
        verdict = replace(verdict, verdict=NOT_TRANSFERABLE,
                          note=_join(f"not judged, not transferable: {reason}", verdict.note))
    return _with_context(claim, scope, verdict)


def _with_context(claim, scope, verdict):
    """The verdict's note with each `context` measurement (shown, never judged)."""
    shown = []
    for entry in claim.get("context", ()):
        try:
            context = measure(entry["measure"], scope)
        except NotMeasured as missing:
            shown.append(f"{entry['label']}: not measured ({'; '.join(missing.problems)})")
            continue
        shown.append(f"{entry['label']}: {context.text} ({context.detail})")
    if not shown:
        return verdict
    text = "; ".join(shown)
    if verdict.note.endswith("."):  # after a sentence of the claim's note
        return replace(verdict, note=f"{verdict.note} Shown, not judged: {text}.")
    return replace(verdict, note=_join(verdict.note, f"shown, not judged: {text}"))


def _judge_readings(claim, scope):
    readings = [(claim.get("reading", "as measured"), claim["measure"])]
    readings += [(r["label"], r["measure"]) for r in claim["readings"]]
    plain = {k: v for k, v in claim.items() if k not in ("readings", "note")}
    verdicts = [(label, _evaluate_one({**plain, "measure": m}, scope)) for label, m in readings]
    missing = [(label, v) for label, v in verdicts if v.verdict == NOT_MEASURED]
    first = verdicts[0][1]
    if missing:
        note = "; ".join(f"{label}: {v.note}" for label, v in missing)
        measured = "; ".join(f"{label}: {v.measured}" for label, v in verdicts)
        return replace(first, verdict=NOT_MEASURED, measured=measured,
                       note=_join(note, claim.get("note", "")))
    outcomes = {v.verdict for _, v in verdicts}
    verdict = outcomes.pop() if len(outcomes) == 1 else INCONCLUSIVE
    measured = "; ".join(f"{label}: {v.measured}" for label, v in verdicts)
    each = "; ".join(f"{label}: {v.verdict}, interval {v.interval}" for label, v in verdicts)
    why = ("the readings agree" if verdict != INCONCLUSIVE
           else "the readings disagree, so the comparison is not like for like")
    details = "; ".join(f"{label}: {v.note}" for label, v in verdicts)
    return replace(first, measured=measured, verdict=verdict,
                   interval=" / ".join(v.interval for _, v in verdicts),
                   note=_join(f"read {len(verdicts)} ways ({each}): {why}", details,
                              claim.get("note", "")))


def _evaluate_one(claim, scope):
    """One claim's measure and rule on one scope."""
    paper = claim["paper_value"]
    static_note = claim.get("note", "")
    common = dict(claim_id=claim["id"], text=claim["text"], paper=format_paper_value(claim),
                  quote=claim.get("quote", ""), line=claim.get("line", 0))
    rule = claim["rule"]

    def not_measured(missing, measured_text="—"):
        shown = missing.problems[:NOTE_PROBLEMS]
        more = len(missing.problems) - len(shown)
        note = "; ".join(shown) + (f"; +{more} more" if more else "")
        return Verdict(measured=measured_text, verdict=NOT_MEASURED,
                       note=_join(note, static_note), **common)

    if "sweep" in claim["measure"]:  # a claim on benchmarks swept along another parameter
        scope = replace(scope, sweep=claim["measure"]["sweep"])
    try:
        measured = measure(claim["measure"], scope)
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



def _join(*parts):
    return "; ".join(p for p in parts if p)



def evaluate_claims_on_cards(claims, scopes, cards):
    """Each claim judged on every card of one GPU model that ran the same benchmarks side by
    side (`scopes`, one per card; `cards` their names): one verdict where the cards agree,
    with each card's number (the card-to-card term a within-run interval cannot see);
    `inconclusive` with each card's number and verdict where they do not."""
    per_card = [evaluate_claims(claims, scope) for scope in scopes]
    return [_across_cards(list(zip(cards, verdicts))) for verdicts in zip(*per_card)]


def _across_cards(judged):
    first = judged[0][1]
    if len(judged) == 1:
        return first
    outcomes = [v.verdict for _, v in judged]
    if NOT_MEASURED in outcomes:
        missing = [f"{card}: {v.note}" for card, v in judged if v.verdict == NOT_MEASURED]
        return replace(first, verdict=NOT_MEASURED, measured="—", note="; ".join(missing))
    agree = len(set(outcomes)) == 1
    measured = "; ".join(f"{card}: {v.measured}" for card, v in judged)
    interval = "; ".join(f"{card}: {v.interval}" for card, v in judged)
    if agree:
        note = f"the {len(judged)} cards agree ({interval})"
    else:
        each = ", ".join(f"{card} {v.verdict}" for card, v in judged)
        note = f"the cards disagree ({each}): the card-to-card term decides, so inconclusive"
    return replace(first, verdict=outcomes[0] if agree else INCONCLUSIVE, measured=measured,
                   interval=interval, note=_join(note, first.note))

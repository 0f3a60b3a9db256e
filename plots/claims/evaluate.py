"""Claims files read and validated, and each claim measured and judged into a Verdict."""

import json
from dataclasses import replace
from pathlib import Path

from plots.claims.measures import MEASURES, measure
from plots.claims.rules import QUANTIFIERS, RULES, WORDS, WORDS_FILE
from plots.claims.verdicts import (NOT_MEASURED, NOT_REPRODUCED, NOTE_PROBLEMS, REPRODUCED,
                                   ClaimsError, NotMeasured, Verdict)


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


"""Published claims as data (plots/claims/<paper>.json), checked by one generic evaluator.

A claims file: `{"paper": id, "claims": [claim, ...]}`; a claim:
  id           unique slug
  text         the claim in short
  quote, line  the paper's sentence verbatim and its line in the paper's text (or
               "beyond_paper": true for a project target)
  paper_value  number, [lo, hi], list of numbers, or text
  measure      {"kind": one of MEASURES, "select": selector, ...} (see each measure below)
               ("each_variant": true judges every variant of the selection alone: a
               claim over several parts takes its worst part, claims/README.md)
  rule         {"rule": "words", "class": a class of claims/words.json, ...} for the papers'
               words, or a shape or plain bound rule of RULES; "parts": a quantifier of
               words.json ("every", the default; "some"; "usually") says how the parts of a
               claim over several parts combine
  note         optional context kept with the verdict (e.g. the paper's GPU)
  context      optional [{"label", "measure"}]: measured and shown in the note, never judged
               (a run-time tile sweep beside the compiled tiles the claim is judged on)
Every measured value carries an interval from the repetitions' extremes; a verdict is
`inconclusive` when that interval straddles the band's edge, or when the benchmarks compared
ran on different mapping code (a run-time mapping against compiled code, told apart by the
paper's registered classifier: claims/README.md).
Selectors are those of plots/select.py; the paper's sweep parameter (its entry in
plots/papers.py; "size" below) is the axis every measurement runs along; a measure's own
`"sweep"` replaces it for that claim (e.g. claims read per input graph run along `graph`).
A measurement runs over the sizes at which every one of its variants was run (a version too
costly for large sizes, such as cdp-original, limits a comparison to the sizes it has; the
note names the sizes used and the ones skipped). A variant absent at every size, no size
common to all variants, or an errored or ambiguous benchmark at a measured size makes the
verdict "not measured", naming it; so does a curve too short for its shape rule.

One concern a module: verdicts (what an evaluation says), measures (the measurement kinds),
rules (the verdict rules and the word classes), evaluate (reading claims files and judging
each claim). The package names no paper: a paper's own measurement kinds are its plot
modules', registered through its entry in plots/papers.py (register_measures). Values with
their intervals are plots/estimates.py's, outside this package: the figure modules use them
too, without importing the evaluator (tests/python/test_imports.py).
"""

from plots.estimates import Estimate, ratio_estimate
from plots.claims.evaluate import evaluate_claim, evaluate_claims, format_paper_value, load_claims
from plots.claims.measures import MEASURES
from plots.claims.rules import QUANTIFIERS, RULES, WORDS, WORDS_FILE, judge_band, rule_words
from plots.claims.verdicts import (INCONCLUSIVE, NOT_MEASURED, NOT_REPRODUCED, NOT_TRANSFERABLE,
                                   REPRODUCED, VERDICTS, ClaimsError, Measured, NotMeasured, Scope, Verdict)

__all__ = ["Estimate", "ratio_estimate", "evaluate_claim", "evaluate_claims",
           "format_paper_value", "load_claims", "MEASURES", "QUANTIFIERS", "RULES", "WORDS", "WORDS_FILE",
           "judge_band", "rule_words", "INCONCLUSIVE", "NOT_MEASURED", "NOT_REPRODUCED", "NOT_TRANSFERABLE",
           "REPRODUCED", "VERDICTS", "ClaimsError", "Measured", "NotMeasured", "Scope", "Verdict"]

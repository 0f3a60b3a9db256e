"""Every band of the word -> band map (plots/claims/words.json) pinned at its edges.

The expected edges are typed here from the papers' words as plots/claims/README.md documents
them ("small gain: 1 <= r <= 1.5", ...), not read from words.json: moving an edge in the map
moves a verdict below and fails. Each row is a noise-free ratio just inside or just outside
an edge, judged by the evaluator's own `rule_words`. The quantifiers (every, some, usually:
how the parts of a claim over several parts combine) are pinned the same way, below."""

from dataclasses import replace

import pytest

from plots.claims import (INCONCLUSIVE, NOT_REPRODUCED, QUANTIFIERS, REPRODUCED, WORDS, Estimate,
                          Measured, rule_words)

IN, OUT = REPRODUCED, NOT_REPRODUCED
EPS = 0.001  # well inside the precision the bands are written to (3 significant digits)

# class -> [(paper value, extra rule keys, measured r, verdict)]; edges from claims/README.md
BANDS = {
    # r >= 1, the paper's direction; no upper edge
    "faster": [(None, {}, 1 - EPS, OUT), (None, {}, 1.0, IN), (None, {}, 1e6, IN)],
    # r <= 1.04
    "about equal": [(None, {}, 1.0, IN), (None, {}, 1.04 - EPS, IN), (None, {}, 1.04 + EPS, OUT)],
    # r <= 1.04; a loss is no gain, so no lower edge
    "no notable gain": [(None, {}, 0.1, IN), (None, {}, 1.04 - EPS, IN), (None, {}, 1.04 + EPS, OUT)],
    # 1 <= r <= 1.5
    "small gain": [(None, {}, 1 - EPS, OUT), (None, {}, 1 + EPS, IN), (None, {}, 1.5 - EPS, IN),
                   (None, {}, 1.5 + EPS, OUT)],
    # 1 <= r <= 2
    "not very high gain": [(None, {}, 1 - EPS, OUT), (None, {}, 1 + EPS, IN), (None, {}, 2 - EPS, IN),
                           (None, {}, 2 + EPS, OUT)],
    # r >= 1.5
    "obvious gain": [(None, {}, 1.5 - EPS, OUT), (None, {}, 1.5 + EPS, IN), (None, {}, 1e6, IN)],
    # r >= 2
    "large gain": [(None, {}, 2 - EPS, OUT), (None, {}, 2 + EPS, IN), (None, {}, 1e6, IN)],
    # 3.16 <= r <= 31.6
    "order of magnitude": [(None, {}, 3.16 - EPS, OUT), (None, {}, 3.16 + EPS, IN), (None, {}, 31.6 - EPS, IN),
                           (None, {}, 31.6 + EPS, OUT)],
    # N/1.1 <= r <= 1.1 N, and r >= 1 where the paper's N is above 1 (the direction)
    "about N": [(2.0, {}, 2 / 1.1 - EPS, OUT), (2.0, {}, 2 / 1.1 + EPS, IN), (2.0, {}, 2.2 - EPS, IN),
                (2.0, {}, 2.2 + EPS, OUT), (1.05, {}, 1 - EPS, OUT), (1.05, {}, 1.0, IN),
                (0.5, {}, 0.5 / 1.1 - EPS, OUT), (0.5, {}, 0.5 / 1.1 + EPS, IN)],
    # r >= N, r <= N: the paper's own bound (the rule's n)
    "more than N": [(110, {"n": 110}, 110 - EPS, OUT), (110, {"n": 110}, 110 + EPS, IN)],
    "less than N": [(0.3, {"n": 0.3}, 0.3 - EPS, IN), (0.3, {"n": 0.3}, 0.3 + EPS, OUT)],
    # every per-size value in [N, M]
    "between N and M": [((8, 14), {}, 8 - EPS, OUT), ((8, 14), {}, 8 + EPS, IN), ((8, 14), {}, 14 - EPS, IN),
                        ((8, 14), {}, 14 + EPS, OUT)],
}


def measured(r, low=None, high=None):
    """A measurement of r at one size, its interval [low, high] (default: noise-free)."""
    low, high = r if low is None else low, r if high is None else high
    return Measured(value=r, text=f"{r}", detail="", times={}, interval=(low, high), hull=(low, high),
                    per_size=(Estimate(r, low, high),))


@pytest.mark.parametrize("word_class, paper, extra, r, verdict",
                         [(c, *row) for c, rows in BANDS.items() for row in rows])
def test_each_band_edge_of_the_word_map(word_class, paper, extra, r, verdict):
    got = rule_words(paper, measured(r), {"rule": "words", "class": word_class, **extra})
    assert got[0] == verdict, f"'{word_class}' at r = {r}: {got[1]}"


def test_every_word_class_has_its_edges_pinned():
    assert set(BANDS) == set(WORDS)


# class -> [(paper value, extra rule keys, edge)]: every edge but the direction's (1)
EDGES = {
    "about equal": [(None, {}, 1.04)],
    "no notable gain": [(None, {}, 1.04)],
    "small gain": [(None, {}, 1.5)],
    "not very high gain": [(None, {}, 2)],
    "obvious gain": [(None, {}, 1.5)],
    "large gain": [(None, {}, 2)],
    "order of magnitude": [(None, {}, 3.16), (None, {}, 31.6)],
    "about N": [(2.0, {}, 2 / 1.1), (2.0, {}, 2.2)],
    "more than N": [(110, {"n": 110}, 110)],
    "less than N": [(0.3, {"n": 0.3}, 0.3)],
    "between N and M": [((8, 14), {}, 8), ((8, 14), {}, 14)],
}


@pytest.mark.parametrize("word_class, paper, extra, edge", [(c, *row) for c, rows in EDGES.items() for row in rows])
def test_an_interval_straddling_an_edge_is_inconclusive(word_class, paper, extra, edge):
    """Only 1 % of noise either side of the edge: the noise decides, so no verdict."""
    got = rule_words(paper, measured(edge, 0.99 * edge, 1.01 * edge), {"rule": "words", "class": word_class, **extra})
    assert got[0] == INCONCLUSIVE, f"'{word_class}' straddling {edge}: {got[1]}"


@pytest.mark.parametrize("word_class", ["faster", "small gain", "not very high gain"])
def test_a_reversal_within_the_noise_keeps_the_direction(word_class):
    """The direction edge (1) fails only beyond the noise of the mean."""
    rule = {"rule": "words", "class": word_class}
    assert rule_words(None, measured(0.995, 0.99, 1.01), rule)[0] == REPRODUCED
    assert rule_words(None, measured(0.985, 0.98, 0.99), rule)[0] == NOT_REPRODUCED


# --- quantifiers: how the parts' verdicts combine (words.json "quantifiers") ----------------

R, N, U = REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE
# quantifier -> [(parts' verdicts, claim verdict)]; the rules from claims/README.md
QUANTIFIED = {
    # the worst part decides
    "every": [((R, R, R), R), ((R, R, U), U), ((R, U, N), N)],
    # the best part decides
    "some": [((N, N, R), R), ((N, N, U), U), ((N, N, N), N), ((R, U, N), R)],
    # more than half reproduced; inconclusive where the inconclusive parts could make it
    "usually": [((R, R, R, N), R), ((R, R, N, N), N), ((R, R, U, N), U), ((R, R, U, N, N), U),
                ((R, R, N, N, N), N), ((R, R, R, N, N), R), ((R, U, N, N), N)],
}
def parts_of(verdicts):
    """A measurement of parts with these verdicts under 'obvious gain' (edge 1.5)."""
    ratio = {R: measured(2.0), N: measured(1.2), U: measured(1.5, 1.45, 1.55)}
    parts = tuple(replace(ratio[v], label=f"part {k}") for k, v in enumerate(verdicts))
    return Measured(value=[p.value for p in parts], text="", detail="", times={}, parts=parts)


@pytest.mark.parametrize("quantifier, verdicts, verdict",
                         [(q, *row) for q, rows in QUANTIFIED.items() for row in rows])
def test_each_quantifier_combines_the_parts_as_documented(quantifier, verdicts, verdict):
    rule = {"rule": "words", "class": "obvious gain", "parts": quantifier}
    got = rule_words(None, parts_of(verdicts), rule)
    assert got[0] == verdict, f"'{quantifier}' over {verdicts}: {got[1]}"


def test_every_is_the_default_quantifier_and_every_quantifier_is_pinned():
    assert set(QUANTIFIED) == set(QUANTIFIERS)
    mixed = parts_of((R, R, N))
    assert rule_words(None, mixed, {"rule": "words", "class": "obvious gain"})[0] == N
    assert all(QUANTIFIERS[q]["words"] and QUANTIFIERS[q]["why"] for q in QUANTIFIERS)


# words the issue 21 claims added to existing classes: each in the class whose band it reads
ADDED_WORDS = {"outperforms": "faster", "equal or better": "no notable gain",
               "negligible": "no notable gain", "good results": "obvious gain",
               "vary from A to B": "about N"}


@pytest.mark.parametrize("word, word_class", ADDED_WORDS.items())
def test_each_added_word_is_in_one_class(word, word_class):
    assert [c for c in WORDS if word in WORDS[c]["words"]] == [word_class]

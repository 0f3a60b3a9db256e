"""A claim over several parts ("for every strategy", "all sizes larger than 32") is judged
part by part: one reversed part fails it, whatever the other parts' pooled mean says."""

from pathlib import Path

import pytest

from plots.claims import (INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, ClaimsError, Scope,
                          evaluate_claim, load_claims)
from plots.load import Benchmark
from plots.names import FIELDS, parse_name
from plots.papers import PAPERS

# BFS strategy -> time(AoS) / time(SoA): every one a clear SoA gain (≥ 1.5)
GAINS = {("none", None): 2.0, ("full", None): 2.2, ("object", None): 2.5,
         ("partial", 0): 2.0, ("partial", 3): 1.9, ("partial", 10): 2.5}


def bench(name, time_s, spread=0.01):
    parsed = parse_name(name)
    return Benchmark(name=parsed["benchmark"], params=parsed["params"], device="test GPU",
                     preset="test", source=Path("hand-built"), time_s=time_s, error=None,
                     repetitions_s=(time_s * (1 - spread), time_s, time_s * (1 + spread)),
                     counters={}, **{f: parsed[f] for f in FIELDS})


def bfs_scope(gains):
    rows = []
    for (version, inline), gain in gains.items():
        tail = f"/inline:{inline}" if inline is not None else ""
        for layout, time_s in (("soa", 1.0), ("aos", gain)):
            rows.append(bench(f"inner/bfs/{version}/{layout}/int{tail}/graph:road-like", time_s))
    return Scope(tuple(rows), {}, {})


def inner_claim(claim_id):
    return next(c for c in load_claims(PAPERS["inner"].claims_file) if c["id"] == claim_id)


BFS = "bfs-soa-clearly-faster-than-aos"


def test_every_strategy_with_a_clear_gain_reproduces():
    result = evaluate_claim(inner_claim(BFS), bfs_scope(GAINS))
    assert result.verdict == REPRODUCED
    assert "6 reproduced" in result.note


@pytest.mark.parametrize("reversed_part", list(GAINS))
def test_one_reversed_strategy_fails_the_claim(reversed_part):
    """The pooled geomean of the six would still be ≥ 1.5 (five gains of about 2 and one
    0.9): pooled, the claim could not fail."""
    gains = {**GAINS, reversed_part: 0.9}
    result = evaluate_claim(inner_claim(BFS), bfs_scope(gains))
    assert result.verdict == NOT_REPRODUCED
    assert "1 not reproduced, 5 reproduced" in result.note
    version, inline = reversed_part
    label = version if inline is None else f"{version} inline:{inline}"
    assert f"{label}: 'obvious gain': band 1.5 – …; measured 0.9, " in result.note
    assert f"{label} 0.90×" in result.measured


def test_a_part_straddling_the_edge_and_none_failing_is_inconclusive():
    gains = {**GAINS, ("partial", 3): 1.5}  # its interval 1.47–1.53 straddles 1.5
    result = evaluate_claim(inner_claim(BFS), bfs_scope(gains))
    assert result.verdict == INCONCLUSIVE
    assert "1 inconclusive, 5 reproduced" in result.note


def test_a_failing_part_outweighs_an_inconclusive_one():
    gains = {**GAINS, ("partial", 3): 1.5, ("none", None): 1.0}
    assert evaluate_claim(inner_claim(BFS), bfs_scope(gains)).verdict == NOT_REPRODUCED


def synthetic_scope(times):
    return Scope(tuple(bench(f"inner/synthetic/partial/soa/int/inline:{n}/objects:262144", t)
                       for n, t in times.items()), {}, {}, PAPERS["inner"].sweep)


def test_every_inlining_size_above_32_is_judged_on_its_own():
    """Three sizes without gain and one with a clear gain: pooled, the hull straddles the
    band's edge (inconclusive); part by part, the one gain fails the claim."""
    claim = inner_claim("synthetic-soa-partial-no-gain-above-32")
    flat = {32: 1.0, 40: 1.0, 48: 1.0, 56: 1.0, 64: 1.0}
    assert evaluate_claim(claim, synthetic_scope(flat)).verdict == REPRODUCED
    result = evaluate_claim(claim, synthetic_scope({**flat, 48: 0.5}))
    assert result.verdict == NOT_REPRODUCED
    assert "inline:48 2.00×" in result.measured


def test_each_variant_needs_a_selection_of_several(tmp_path):
    claim = inner_claim("bfs-soa-full-no-gain-over-object")
    claim["measure"]["each_variant"] = True
    path = tmp_path / "claims.json"
    path.write_text(__import__("json").dumps({"claims": [claim]}), encoding="utf-8")
    with pytest.raises(ClaimsError, match="'each_variant' needs a 'select' listing several"):
        load_claims(path)

"""Kofler layout claims compare code that differs only in the layout (issue 35 section 1,
the follow-up to SAMPO's tiles above 12K): the tile-sweep claims read the compiled tiles
and partitions (tiled-ct, split-ct) against the compiled AoS and SoA, the run-time sweep
shown beside them, not judged; a comparison across mapping code (a run-time mapping against
compiled code) is shown, not judged: inconclusive. Each test builds a case in which the old
comparison gives the old verdict and the new one differs: the run-time tile code costing a
few per cent against the same tile compiled (H200: BlackScholes 3-8 %, SAMPO 0-6 %; SAMPO's
run-time partitions 4-13 %), as much as the gaps the claims judge."""

import copy
from dataclasses import replace

import pytest

from plots.claims import (INCONCLUSIVE, NOT_MEASURED, NOT_REPRODUCED, REPRODUCED, ClaimsError,
                          Scope, evaluate_claim, load_claims)
from plots.kofler_label import (COMPILED, RUN_TIME_PARTITION, RUN_TIME_TILES, mapping_code)
from plots.papers import PAPERS

from tests.python import test_claims_kofler as sweep
from tests.python import test_claims_kofler_method as method
from tests.python.test_claims_parts import bench


def claim(claim_id):
    return next(c for c in load_claims(PAPERS["kofler"].claims_file) if c["id"] == claim_id)


def run_time(value):
    """The claim's measure as it read before: the run-time sweep and partitions (tiled,
    split) where it now reads the compiled ones, every tile's reduction instead of a part
    per tile."""
    if isinstance(value, list):
        return [run_time(v) for v in value]
    if isinstance(value, dict):
        return {k: run_time(v) for k, v in value.items() if k != "each"}
    return {"tiled-ct": "tiled", "split-ct": "split"}.get(value, value)


def old_claim(claim_id):
    new = claim(claim_id)
    return {**{k: v for k, v in new.items() if k != "context"},
            "measure": run_time(copy.deepcopy(new["measure"]))}


@pytest.fixture
def old_evaluator(monkeypatch):
    """The evaluator before: blind to the code that laid the records out."""
    monkeypatch.setattr("plots.claims.measures.CODE_OF", [])


# claim -> (time model, old verdict, new verdict). The run-time tiles are 5-7 % slower than
# the same tiles compiled; where only one compiled tile is special the others are as slow as
# the run-time ones.
SWEEP_CASES = {
    # a compiled tile beats AoS (0.95×); the run-time tiles' code hid it
    "nbody-tiled-slower-than-aos-every-tile": (
        sweep.layouts(aos=1.0, tiled=1.05, tiled_ct=1.05,
                      special={("nbody", "tiled-ct", 256): 0.95}), REPRODUCED, NOT_REPRODUCED),
    "nbody-soa-best": (
        sweep.layouts(aos=1.2, soa=1.0, tiled=1.05, tiled_ct=1.05,
                      special={("nbody", "tiled-ct", 256): 0.95}), REPRODUCED, NOT_REPRODUCED),
    # the best tile 1.42× over AoS compiled (inside 1.38-1.5), 1.33× on the run-time code
    "bitonic-tiling-gain": (sweep.layouts(aos=1.42, tiled=1.07, tiled_ct=1.0),
                            NOT_REPRODUCED, REPRODUCED),
    # the best tile SoA's time compiled, 1.07× on the run-time code (beyond 'no notable')
    "bitonic-tiling-comparable-to-soa": (sweep.layouts(soa=1.0, tiled=1.07, tiled_ct=1.0),
                                         NOT_REPRODUCED, REPRODUCED),
    # AoS 1.6× SoA; a compiled tile faster than SoA widens the span beyond 'about 1.6'
    "sampo-fig1-run-time-span": (sweep.layouts(aos=1.6, soa=1.0, tiled=1.05, tiled_ct=0.88),
                                 REPRODUCED, NOT_REPRODUCED),
    # every run-time tile and partition 5 % behind SoA; one compiled tile 5 % ahead of it
    "soa-not-the-best-in-some-cases": (
        sweep.layouts(soa=1.0, tiled=1.05, tiled_ct=1.05, split=1.05,
                      special={("sampo", "tiled-ct", 256): 0.95}), NOT_REPRODUCED, REPRODUCED),
    "tiled-usually-equal-or-better-than-soa": (sweep.layouts(soa=1.0, tiled=1.07, tiled_ct=1.0),
                                               NOT_REPRODUCED, REPRODUCED),
    # the best tile 1.55× over AoS compiled ('obvious', r >= 1.5), 1.45× on the run-time code
    "sampo-tiling-good-on-nvidia": (sweep.layouts(aos=1.55, tiled=1.07, tiled_ct=1.0),
                                    NOT_REPRODUCED, REPRODUCED),
}


@pytest.mark.parametrize("claim_id", SWEEP_CASES)
def test_the_run_time_sweep_gave_the_old_verdict_and_the_compiled_tiles_decide(claim_id,
                                                                              monkeypatch):
    times, old, new = SWEEP_CASES[claim_id]
    scope = sweep.kofler_scope(times)
    assert evaluate_claim(claim(claim_id), scope).verdict == new
    # the old comparison, now: the run-time code against compiled code, not judged
    now = evaluate_claim(old_claim(claim_id), scope)
    assert now.verdict == INCONCLUSIVE and "not judged, not like for like" in now.note
    assert "on the run-time tile mapping" in now.note
    monkeypatch.setattr("plots.claims.measures.CODE_OF", [])
    assert evaluate_claim(old_claim(claim_id), scope).verdict == old


def test_every_tile_is_judged_tile_by_tile_on_the_compiled_tiles():
    result = evaluate_claim(claim("nbody-tiled-slower-than-aos-every-tile"), sweep.kofler_scope(
        SWEEP_CASES["nbody-tiled-slower-than-aos-every-tile"][0]))
    # the fixture's compiled tiles below N-body's 65536 bodies, each a part
    assert "judged part by part, the worst decides (1 not reproduced, 4 reproduced)" in \
        result.note
    assert "tile 256 0.95× (size 65536)" in result.measured
    assert "tile 256: 'faster': band 1 – …; measured 0.95" in result.note


def test_the_run_time_sweep_is_shown_not_judged():
    """The context: the sweep's closest tile (every power of two), beside the verdict."""
    result = evaluate_claim(claim("nbody-tiled-slower-than-aos-every-tile"), sweep.kofler_scope(
        SWEEP_CASES["nbody-tiled-slower-than-aos-every-tile"][0]))
    assert result.verdict == NOT_REPRODUCED
    assert "Shown, not judged: run-time tile sweep: 1.05× (tile 2, size 65536)" in result.note
    without = Scope(tuple(b for b in sweep.kofler_scope(sweep.layouts(aos=1.0, tiled=1.05))
                          .benchmarks if b.layout != "tiled"), {}, {})
    result = evaluate_claim(claim("nbody-tiled-slower-than-aos-every-tile"), without)
    assert result.verdict == REPRODUCED  # a context not measured leaves the verdict alone
    assert "run-time tile sweep: not measured (absent: nbody/gpu/tiled or nbody/gpu/aos" in \
        result.note


def test_a_context_needs_its_label_and_measure(tmp_path):
    doc = {"claims": [{**claim("bitonic-tiling-gain"), "context": [{"label": "sweep"}]}]}
    path = tmp_path / "claims.json"
    path.write_text(__import__("json").dumps(doc))
    with pytest.raises(ClaimsError, match="each context entry needs a 'label' and a 'measure'"):
        load_claims(path)


# --- the method's values on the run-time partition mapping ----------------------------------

# SAMPO's kdlg-tree on the run-time partition (runs_as=partition): SoA 4 % faster than it
# (the H200: 0.96×), every other version as designed
H200_LIKE = {("sampo", "soa", None): 0.96}


def test_the_method_behind_compiled_soa_on_its_run_time_code_is_not_judged(old_evaluator):
    """H200: kdlg-tree 0.96× SoA's speed, where the run-time partition code costs 4-13 %
    against the same partition compiled: 'outperforming any other version' was not
    reproduced on the code, not the layout."""
    claim_id = "sampo-method-outperforms-every-other-version"
    old = evaluate_claim(old_claim(claim_id), method.scope(H200_LIKE))
    assert old.verdict == NOT_REPRODUCED and "SoA 0.96×" in old.measured


def test_the_method_behind_compiled_soa_is_inconclusive_with_the_reason():
    result = evaluate_claim(claim("sampo-method-outperforms-every-other-version"),
                            method.scope(H200_LIKE))
    assert result.verdict == INCONCLUSIVE and "SoA 0.96×" in result.measured
    assert ("SoA: 'faster': band 1 – …; measured 0.96, interval 0.941–0.979; reversed beyond "
            "the measured noise; not judged, not like for like: sampo soa compiled; sampo "
            "kdlg-tree on the run-time partition mapping → inconclusive") in result.note
    # the parts on the method's own code are judged: KDLG, manual, by-kernel
    assert "(6 inconclusive, 3 reproduced)" in result.note


@pytest.mark.parametrize("claim_id", method.ACROSS_CODES)
def test_a_claim_across_mapping_code_had_a_verdict_and_now_is_not_judged(claim_id, monkeypatch):
    designed = {("sampo", "split", "manual"): 1.12, ("sampo", "kdlg", None): 1.05 * 2 / 1.8,
                ("sampo", "soa", None): 2 / 1.8}
    scope = method.scope(designed)
    assert evaluate_claim(claim(claim_id), scope).verdict == INCONCLUSIVE
    monkeypatch.setattr("plots.claims.measures.CODE_OF", [])
    assert evaluate_claim(claim(claim_id), scope).verdict == REPRODUCED


def test_the_method_against_its_own_code_is_judged():
    """kdlg-tree and the manual partition both on the run-time partition mapping."""
    result = evaluate_claim(claim("sampo-method-beats-manual-layout"),
                            method.scope({("sampo", "split", "manual"): 1.3}))
    assert result.verdict == NOT_REPRODUCED and "not like for like" not in result.note


def test_the_largest_speedup_is_unknown_where_one_program_crosses_codes():
    """'Up to' over the programs: SAMPO's cell on the run-time partition leaves the maximum
    unknown whichever program is largest."""
    special = {("bitonic", "kdlg-tree", None): 2.0 / 2.5}  # bitonic the largest, compiled
    result = evaluate_claim(claim("method-speedup-up-to"), method.scope(special))
    assert result.verdict == INCONCLUSIVE and result.measured.startswith("2.50× (Bitonic")
    assert "sampo kdlg-tree on the run-time partition mapping" in result.note
    compiled = evaluate_claim(claim("method-speedup-up-to"),
                              method.scope(special, runs=method.COMPILED_SAMPO))
    assert compiled.verdict == REPRODUCED


# --- what laid the records out --------------------------------------------------------------

def kofler(name, label=None):
    return replace(bench(name, 1.0), label=label)


@pytest.mark.parametrize("name, label, code", [
    ("kofler/sampo/gpu/aos/mixed/size:32000", None, COMPILED),
    ("kofler/sampo/gpu/soa/mixed/size:32000", None, COMPILED),
    ("kofler/sampo/gpu/tiled-ct/mixed/tile:32/size:32000", None, COMPILED),
    ("kofler/sampo/gpu/split-ct/mixed/partition:manual/size:32000", None, COMPILED),
    ("kofler/sampo/gpu/tiled/mixed/tile:32/size:32000", None, RUN_TIME_TILES),
    ("kofler/sampo/gpu/split/mixed/partition:manual/size:32000", None, RUN_TIME_PARTITION),
    ("kofler/sampo/gpu/kdlg-tiles/mixed/partition:a+b|c/tiles:4/size:32000", None,
     RUN_TIME_PARTITION),
    ("kofler/nbody/gpu/kdlg/float/partition:pos|vel/size:65536", "runs_as=soa", COMPILED),
    ("kofler/sampo/gpu/kdlg/mixed/partition:a+b|c/size:32000", "runs_as=partition",
     RUN_TIME_PARTITION),
    ("kofler/bitonic/bitonic/tiled-tree/u32/size:1048576",
     "cluster_layouts=tiled-32;runs_as=tiled-ct-32;tree_gpu=G", COMPILED),
    # before runs_as (2026-11-26) every method value ran on the run-time partition
    ("kofler/nbody/gpu/kdlg-tree/float/partition:pos|vel/size:65536",
     "cluster_layouts=soa|soa;tree_gpu=G", RUN_TIME_PARTITION),
    ("kofler/nbody/gpu/kdlg/float/partition:pos|vel/size:65536", None, RUN_TIME_PARTITION),
    # the other papers' layouts say nothing of a mapping: never compared across codes
    ("kofler-tree/synthetic/gpu/tiled/float/tile:32/fields:4/n:128", None, None),
    ("idw/shepard/tiled/soa/float/p:2/size:10240/block:256", None, None),
])
def test_the_mapping_code_of_each_layout(name, label, code):
    assert mapping_code(kofler(name, label)) == code


def test_a_claim_of_one_code_is_judged_whatever_the_layouts():
    """Compiled tiles against compiled SoA: judged, no note of codes."""
    result = evaluate_claim(claim("tiled-usually-equal-or-better-than-soa"),
                            sweep.kofler_scope(sweep.layouts(tiled=1.07, tiled_ct=1.0)))
    assert result.verdict == REPRODUCED and "not like for like" not in result.note


def test_a_compiled_tile_run_at_one_size_is_a_part_over_that_size():
    every = {**old_claim("nbody-tiled-slower-than-aos-every-tile"),
             "measure": {"kind": "ratio_every", "select": {"app": "sampo", "version": "gpu"},
                         "faster": {"layout": "aos"}, "slower": {"layout": "tiled-ct"},
                         "every": "tile", "reduce": "min", "each": True}}
    scope = sweep.kofler_scope(sweep.layouts(aos=1.0, tiled_ct=1.05,
                                             special={("sampo", "tiled-ct", 16384): 0.9}))
    rows = tuple(b for b in scope.benchmarks if not (
        b.layout == "tiled-ct" and b.params.get("tile") == 16384 and b.params["size"] == 32000))
    result = evaluate_claim(every, Scope(rows, {}, {}))
    assert "tile 16384 0.90× (size 128000)" in result.measured
    assert "tile 16384 per size (128000: 0.90×)" in result.note
    assert "tile 256 1.05× (size 32000)" in result.measured  # run at both sizes
    assert result.verdict == NOT_REPRODUCED

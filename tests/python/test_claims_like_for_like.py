"""Verdicts that hold (issue 35): three claims read like for like, bimodal repetitions that
never widen an interval into a verdict, and the `not transferable` class. Each test builds
the case in which the old comparison gave the old (wrong) verdict."""

import copy
from dataclasses import replace
from pathlib import Path

import pytest

from plots.claims import (INCONCLUSIVE, NOT_MEASURED, NOT_REPRODUCED, NOT_TRANSFERABLE,
                          REPRODUCED, ClaimsError, Scope, evaluate_claim, load_claims)
from plots.estimates import bimodal_modes, time_bounds
from plots.claims.evaluate import _check_readings
from plots.load import Benchmark
from plots.names import FIELDS, parse_name
from plots.papers import PAPERS


def bench(name, repetitions, counters=None, counter_ranges=None):
    parsed = parse_name(name)
    ordered = sorted(repetitions)
    return Benchmark(name=parsed["benchmark"], params=parsed["params"], device="test GPU",
                     preset="test", source=Path("hand-built"),
                     time_s=ordered[len(ordered) // 2], error=None,
                     repetitions_s=tuple(repetitions), counters=counters or {},
                     counter_ranges=counter_ranges or {}, **{f: parsed[f] for f in FIELDS})


def claim(paper, claim_id):
    return next(c for c in load_claims(PAPERS[paper].claims_file) if c["id"] == claim_id)


def even(time_s, spread=0.002):
    return (time_s * (1 - spread), time_s, time_s * (1 + spread))


# --- bimodal repetitions -------------------------------------------------------------------

def test_the_issues_sample_is_bimodal_and_judged_on_the_medians_group():
    """AoS at 500K on the H200: 636 / 505 / 505 ms."""
    modes = bimodal_modes((0.636, 0.505, 0.505))
    assert modes and modes.low == (0.505, 0.505) and modes.high == (0.636,)
    assert time_bounds(bench("idw/shepard/cdp-improved/aos/float/p:2/size:512000/block:256",
                             (0.636, 0.505, 0.505))) == (0.505, 0.505)


@pytest.mark.parametrize("sample", [(1.0, 1.001, 1.002), (1.0, 1.01, 1.02, 1.03, 1.04),
                                    (1.0, 1.0, 1.015), (0.9, 1.0), (1.0,)])
def test_ordinary_noise_is_not_bimodal(sample):
    """Even spacing, or a gap under 2 % of the median, or too few repetitions."""
    assert bimodal_modes(sample) is None


def test_a_tie_between_the_groups_keeps_every_repetition():
    b = bench("idw/shepard/naive/aos/float/p:2/size:10240/block:256", (1.0, 1.0, 2.0, 2.0))
    assert bimodal_modes(b.repetitions_s).median_group is None
    assert time_bounds(b) == (1.0, 2.0)


CDP = "idw/shepard/cdp-improved/{layout}/float/p:2/size:{size}/block:256"
# time per layout and size (s): AoS beats AoaS at 3 of 4 sizes (H200: AoS/AoaS 1.002, 0.993,
# 0.988, 0.833); AoS's 500K repetitions bimodal as measured (636 / 505 / 505 ms)
CDP_TIMES = {10240: (0.010, 0.01002, 0.01004), 51200: (0.100, 0.0993, 0.1000),
             102400: (0.200, 0.1976, 0.2000), 512000: (0.600, None, 0.6063)}


def cdp_scope():
    rows = []
    for size, (soa, aos, aoas) in CDP_TIMES.items():
        rows += [bench(CDP.format(layout="soa", size=size), even(soa)),
                 bench(CDP.format(layout="aoas", size=size), even(aoas)),
                 bench(CDP.format(layout="aos", size=size),
                       (0.636, 0.505, 0.505) if aos is None else even(aos))]
    return Scope(tuple(rows), {}, {})


def test_cdp_ordering_is_not_reproduced_by_a_bimodal_widening():
    """Judged on every repetition, AoS's 636 ms lifts the mean's interval across 1 and the
    reversed order 'reproduces'; judged on its median's group it does not."""
    result = evaluate_claim(claim("idw", "float-cdp-ordering"), cdp_scope())
    assert result.verdict == NOT_REPRODUCED
    assert "bimodal repetitions 636 / 505 / 505 ms" in result.note
    widened = [replace(b, repetitions_s=(min(b.repetitions_s), max(b.repetitions_s)))
               for b in cdp_scope().benchmarks]  # two repetitions: no groups, the old bounds
    assert evaluate_claim(claim("idw", "float-cdp-ordering"),
                          Scope(tuple(widened), {}, {})).verdict == REPRODUCED


# --- traffic: read both ways --------------------------------------------------------------

TRAFFIC = ("inner/traffic/{version}/soa/int/inline:0/field:path/network:lowermanhattan-tiled-8x8"
           "/cars:229376/steps:1000")


def traffic_scope(whole, cars):
    """(object, full) times of the whole step and of the cars' kernels alone."""
    rows = []
    for version, total, cars_s in (("object", whole[0], cars[0]), ("full", whole[1], cars[1])):
        rows.append(bench(TRAFFIC.format(version=version), even(total),
                          {"cars_s": cars_s, "controllers_s": total - cars_s},
                          {"cars_s": (cars_s * 0.999, cars_s * 1.001)}))
    return Scope(tuple(rows), {}, {}, "network")


def test_traffic_path_readings_that_disagree_are_inconclusive():
    """The H200's numbers: the whole step 1.12× (inside 'about 1.15'), the cars' kernels
    1.28× (above its 1.26 edge). Read on the whole step alone, as before, it reproduced."""
    scope = traffic_scope(whole=(0.369, 0.330), cars=(0.1985, 0.155))
    result = evaluate_claim(claim("inner", "traffic-path-full-15pct-over-object"), scope)
    assert result.verdict == INCONCLUSIVE
    assert "whole step: 1.12×" in result.measured and "cars' kernels: 1.28×" in result.measured
    assert "the readings disagree" in result.note
    whole_only = {k: v for k, v in claim("inner", "traffic-path-full-15pct-over-object").items()
                  if k != "readings"}
    assert evaluate_claim(whole_only, scope).verdict == REPRODUCED


def test_traffic_path_readings_that_agree_give_their_verdict():
    scope = traffic_scope(whole=(0.380, 0.330), cars=(0.180, 0.155))
    assert evaluate_claim(claim("inner", "traffic-path-full-15pct-over-object"),
                          scope).verdict == REPRODUCED


def test_a_reading_without_its_counter_is_not_measured():
    scope = traffic_scope(whole=(0.369, 0.330), cars=(0.1985, 0.155))
    stripped = Scope(tuple(replace(b, counters={}) for b in scope.benchmarks), {}, {}, "network")
    result = evaluate_claim(claim("inner", "traffic-path-full-15pct-over-object"), stripped)
    assert result.verdict == NOT_MEASURED and "no cars_s counter" in result.note


def test_readings_are_validated():
    with pytest.raises(ClaimsError, match="each reading needs a 'label' and a 'measure'"):
        _check_readings("claims.json: claim x", [{"measure": {"kind": "ratio"}}])


# --- SAMPO: compiled against compiled -----------------------------------------------------

SAMPO = "kofler/sampo/gpu/{layout}/mixed/{tile}size:128000"


def sampo_scope():
    """Run-time tiles cost 4 % against the same tile compiled (H200: 2.6-5.8 %), more than
    the compiled tiles' 2 % lead over SoA."""
    rows = [bench(SAMPO.format(layout="soa", tile=""), even(1.00))]
    for tile in (16384, 32768, 65536):
        rows += [bench(SAMPO.format(layout="tiled-ct", tile=f"tile:{tile}/"), even(0.98)),
                 bench(SAMPO.format(layout="tiled", tile=f"tile:{tile}/"), even(0.98 * 1.04))]
    return Scope(tuple(rows), {}, {})


def test_sampo_tiles_above_12k_compare_compiled_tiles_with_compiled_soa(monkeypatch):
    new = claim("kofler", "sampo-one-cluster-tiles-above-12k-beat-soa")
    assert evaluate_claim(new, sampo_scope()).verdict == REPRODUCED
    old = copy.deepcopy(new)  # the run-time tiles of the sweep, as before
    for part in old["measure"]["parts"]:
        part["faster"]["layout"] = "tiled"
    # now a comparison across mapping code is not judged (tests/python/test_claims_compiled.py)
    assert evaluate_claim(old, sampo_scope()).verdict == INCONCLUSIVE
    monkeypatch.setattr("plots.claims.measures.CODE_OF", [])
    assert evaluate_claim(old, sampo_scope()).verdict == NOT_REPRODUCED


# --- not transferable ---------------------------------------------------------------------

IDW_SPEEDUP = "float-speedup-naive-aoas"


def speedup_scope(cpu_s):
    rows = [bench(f"idw/shepard/naive/aoas/float/p:2/size:{n}/block:256", even(0.001))
            for n in (10240, 51200)]
    rows += [bench(f"idw/shepard/cpu-serial/aos/float/p:2/size:{n}", even(cpu_s))
             for n in (10240, 51200)]
    return Scope(tuple(rows), PAPERS["idw"].baseline, PAPERS["idw"].prefer)


def test_an_absolute_speedup_is_shown_not_judged():
    """2,000× against the paper's 92×: 'not reproduced' before, a contradiction of nothing."""
    result = evaluate_claim(claim("idw", IDW_SPEEDUP), speedup_scope(2.0))
    assert result.verdict == NOT_TRANSFERABLE
    assert result.measured == "2000×" and "GeForce GT640" in result.note
    judged = {k: v for k, v in claim("idw", IDW_SPEEDUP).items() if k != "not_transferable"}
    assert evaluate_claim(judged, speedup_scope(2.0)).verdict == NOT_REPRODUCED


def test_a_not_transferable_claim_without_its_benchmarks_is_not_measured():
    scope = speedup_scope(2.0)
    gpu_only = Scope(tuple(b for b in scope.benchmarks if "cpu" not in b.version),
                     scope.baseline, scope.prefer)
    assert evaluate_claim(claim("idw", IDW_SPEEDUP), gpu_only).verdict == NOT_MEASURED


def test_not_transferable_needs_its_reason(tmp_path):
    doc = {"claims": [{**claim("idw", IDW_SPEEDUP), "not_transferable": " "}]}
    path = tmp_path / "claims.json"
    path.write_text(__import__("json").dumps(doc))
    with pytest.raises(ClaimsError, match="'not_transferable' must give its reason"):
        load_claims(path)


def test_every_not_transferable_claim_is_an_absolute_speedup_over_old_hardware():
    """The class is decided per claim before measuring: only speedups over the papers' CPUs
    (a number set by the 2008-2014 machines), never a layout's ratio on one GPU."""
    marked = [(p, c) for p in PAPERS for c in load_claims(PAPERS[p].claims_file)
              if c.get("not_transferable")]
    assert len(marked) == 14
    for paper, c in marked:
        kind = c["measure"]["kind"]
        assert kind.startswith("speedup"), (paper, c["id"])


# --- two cards side by side ---------------------------------------------------------------

def test_a_verdict_the_two_cards_disagree_on_is_inconclusive_with_both_numbers():
    """As synthetic-soa-object-over-aos-30pct moved from 1.22× to 1.35× between two H100s:
    each card's interval is tight, so only judging on both cards shows the term."""
    from plots.claims.evaluate import evaluate_claims_on_cards
    full = claim("inner", "traffic-path-full-15pct-over-object")
    plain = {k: v for k, v in full.items() if k not in ("readings", "reading")}
    cards = [traffic_scope(whole=(0.369, 0.330), cars=(0.19, 0.155)),
             traffic_scope(whole=(0.450, 0.330), cars=(0.25, 0.155))]
    verdict, = evaluate_claims_on_cards([plain], cards, ["GPU #0", "GPU #1"])
    assert verdict.verdict == INCONCLUSIVE
    assert verdict.measured == "GPU #0: 1.12×; GPU #1: 1.36×"
    assert "GPU #0 reproduced, GPU #1 not reproduced" in verdict.note
    same, = evaluate_claims_on_cards([plain], [cards[0], cards[0]], ["GPU #0", "GPU #1"])
    assert same.verdict == REPRODUCED and "the 2 cards agree" in same.note


# The harness's own cases (tests/cpp/test_noise.cpp, Bimodal.*): one rule in both languages.
@pytest.mark.parametrize("sample, bimodal", [
    ((0.636, 0.505, 0.505), True), ((0.636, 0.505), False),
    ((0.636, 0.505, 0.505, 0.636, 0.505, 0.505), True),
    ((0.5051, 0.5063, 0.5049, 0.6360, 0.6412, 0.5055), True),
    ((1.00, 1.00, 1.01, 1.01), False), ((1.00, 1.00, 1.03, 1.03), True),
    ((1.00, 1.02, 1.04, 1.07, 1.09, 1.11), False),
    (tuple(1.0 + 0.005 * __import__("math").sin(k * 1.7) for k in range(12)), False),
    (tuple(1.3 if k == 4 else 1.0 + 0.005 * __import__("math").sin(k * 1.7)
           for k in range(12)), False)])
def test_the_bimodal_rule_is_the_harnesses(sample, bimodal):
    assert (bimodal_modes(sample) is not None) == bimodal

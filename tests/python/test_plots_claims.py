"""plots.claims: every measurement kind and verdict rule on data with known answers."""

import json
import math
from pathlib import Path

import pytest

from plots.claims import (NOT_MEASURED, NOT_REPRODUCED, REPRODUCED, ClaimsError, Scope,
                          evaluate_claim, load_claims)
from plots.load import Benchmark
from plots.names import FIELDS, parse_name
from plots.papers import PAPERS

FLOAT = {"precision": "float", "p": 2}
# (version, layout) -> {size: seconds}; CPU baseline takes 100× / 200× as long
TIMES = {
    ("naive", "soa"): {1024: 2.0, 2048: 8.0},
    ("naive", "aos"): {1024: 1.0, 2048: 4.0},
    ("naive", "aoas"): {1024: 1.0, 2048: 2.0},
    ("naive", "builtin"): {1024: 1.01, 2048: 2.02},
    ("cpu-serial", "aos"): {1024: 100.0, 2048: 400.0},
}


def bench(name, time_s=None, error=None):
    parsed = parse_name(name)
    return Benchmark(name=parsed["benchmark"], params=parsed["params"], device="test GPU",
                     preset="test", source=Path("hand-built"), time_s=time_s, error=error,
                     **{f: parsed[f] for f in FIELDS})


def name(version, layout, size, precision="float", block=256):
    tail = "" if version.startswith("cpu-") else f"/block:{block}"
    return f"idw/shepard/{version}/{layout}/{precision}/p:2/size:{size}{tail}"


def scope(extra=()):
    rows = [bench(name(v, l, s), t) for (v, l), by_size in TIMES.items()
            for s, t in by_size.items()]
    return Scope(tuple(rows) + tuple(extra), {"version": "cpu-serial", "layout": "aos"},
                 {"block": 256})


def claim(paper_value, measure, rule):
    return {"id": "c", "text": "a claim", "paper_value": paper_value, "measure": measure,
            "rule": rule}


def ratio(faster, slower, version="naive"):
    return {"kind": "ratio", "select": {"version": version, **FLOAT},
            "faster": {"layout": faster}, "slower": {"layout": slower}}


WITHIN = {"rule": "within", "tolerance": 0.10}


@pytest.mark.parametrize("paper, verdict", [
    (2.0, REPRODUCED), (2.1, REPRODUCED), (1.82, REPRODUCED),
    (1.8, NOT_REPRODUCED), (2.25, NOT_REPRODUCED), (1.0, NOT_REPRODUCED),
])
def test_ratio_is_checked_within_ten_percent_on_a_log_scale(paper, verdict):
    result = evaluate_claim(claim(paper, ratio("aos", "soa"), WITHIN), scope())
    assert result.value == pytest.approx(2.0)
    assert result.verdict == verdict


def test_ratio_is_the_geometric_mean_over_sizes():
    result = evaluate_claim(claim(1.4, ratio("aoas", "aos"), WITHIN), scope())
    assert result.value == pytest.approx(math.sqrt(1.0 * 2.0))
    assert result.measured == "1.41×"


def test_speedup_is_the_arithmetic_mean_over_sizes():
    measure = {"kind": "speedup", "select": {"version": "naive", "layout": "aoas", **FLOAT}}
    result = evaluate_claim(claim(150, measure, WITHIN), scope())
    assert result.value == pytest.approx((100 + 200) / 2)
    assert result.verdict == REPRODUCED
    assert evaluate_claim(claim(92, measure, WITHIN), scope()).verdict == NOT_REPRODUCED


@pytest.mark.parametrize("paper, verdict", [([90, 210], REPRODUCED), ([120, 210], NOT_REPRODUCED),
                                            ([90, 150], NOT_REPRODUCED)])
def test_speedup_range_needs_every_point_inside(paper, verdict):
    measure = {"kind": "speedup_range",
               "select": {"version": "naive", "layout": ["aos", "aoas"], **FLOAT}}
    result = evaluate_claim(claim(paper, measure, {"rule": "in_range"}), scope())
    assert result.value == [pytest.approx(100), pytest.approx(200)]
    assert result.verdict == verdict


def test_ratio_range_spans_the_per_size_ratios():
    measure = {"kind": "ratio_range", "select": {"version": "naive", **FLOAT},
               "faster": {"layout": "aoas"}, "slower": {"layout": "soa"}}
    result = evaluate_claim(claim([1.9, 4.1], measure, {"rule": "in_range"}), scope())
    assert result.value == [pytest.approx(2.0), pytest.approx(4.0)]
    assert result.verdict == REPRODUCED
    assert result.paper == "1.9–4.1×"


@pytest.mark.parametrize("layouts, verdict, value", [
    (["aoas", "builtin"], REPRODUCED, 1.01),
    (["aos", "aoas"], NOT_REPRODUCED, math.sqrt(4.0) / math.sqrt(2.0)),
])
def test_about_equal_compares_slowest_to_fastest(layouts, verdict, value):
    measure = {"kind": "about_equal", "select": {"version": "naive", "layout": layouts, **FLOAT}}
    result = evaluate_claim(claim("about equal", measure, {"rule": "at_most", "limit": 1.10}),
                            scope())
    assert result.value == pytest.approx(value)
    assert result.verdict == verdict


@pytest.mark.parametrize("paper, verdict", [(["aoas", "aos", "soa"], REPRODUCED),
                                            (["soa", "aoas", "aos"], NOT_REPRODUCED)])
def test_ordering_lists_fastest_first(paper, verdict):
    measure = {"kind": "ordering",
               "select": {"version": "naive", "layout": ["soa", "aos", "aoas"], **FLOAT}}
    result = evaluate_claim(claim(paper, measure, {"rule": "equal"}), scope())
    assert result.value == ["aoas", "aos", "soa"]
    assert result.measured == "aoas < aos < soa"
    assert result.verdict == verdict


def test_best_picks_fastest_or_slowest_variant():
    select = {"version": ["naive"], "layout": ["soa", "aos", "aoas", "builtin"], **FLOAT}
    fastest = evaluate_claim(claim("naive/aoas", {"kind": "best", "select": select},
                                   {"rule": "equal"}), scope())
    slowest = evaluate_claim(claim("naive/aoas", {"kind": "best", "select": select,
                                                  "pick": "slowest"}, {"rule": "equal"}), scope())
    assert (fastest.value, fastest.verdict) == ("naive/aoas", REPRODUCED)
    assert (slowest.value, slowest.verdict) == ("naive/soa", NOT_REPRODUCED)


@pytest.mark.parametrize("paper, verdict", [("naive/aoas", REPRODUCED),
                                            ("naive/builtin", REPRODUCED),
                                            ("naive/aos", NOT_REPRODUCED)])
def test_fastest_or_within_tolerates_a_close_second(paper, verdict):
    select = {"version": ["naive"], "layout": ["soa", "aos", "aoas", "builtin"], **FLOAT}
    rule = {"rule": "fastest_or_within", "tolerance": 0.02}
    result = evaluate_claim(claim(paper, {"kind": "best", "select": select}, rule), scope())
    assert result.value == "naive/aoas"
    assert result.verdict == verdict


def test_fastest_or_within_rejects_a_label_outside_the_selection():
    select = {"version": ["naive"], "layout": ["soa", "aos"], **FLOAT}
    rule = {"rule": "fastest_or_within", "tolerance": 0.02}
    with pytest.raises(ClaimsError, match="not a variant"):
        evaluate_claim(claim("tiled/aoas", {"kind": "best", "select": select}, rule), scope())


def test_each_needs_every_part_within_tolerance():
    measure = {"kind": "each", "parts": [ratio("aos", "soa"), ratio("aoas", "soa")]}
    right = evaluate_claim(claim([2.0, 2.8], measure, WITHIN), scope())
    swapped = evaluate_claim(claim([2.8, 2.0], measure, WITHIN), scope())
    assert right.value == [pytest.approx(2.0), pytest.approx(math.sqrt(2 * 4))]
    assert (right.verdict, swapped.verdict) == (REPRODUCED, NOT_REPRODUCED)


def test_absent_variant_is_not_measured_and_named():
    result = evaluate_claim(claim(1.72, ratio("aoas", "aos", version="cdp-improved"), WITHIN),
                            scope())
    assert result.verdict == NOT_MEASURED
    assert result.measured == "—"
    assert "absent: cdp-improved/aoas/float/p:2 (every size)" in result.note


def test_errored_benchmark_is_not_measured_and_named():
    errored = bench(name("naive", "hybrid", 2048), error="validation failed at point 7")
    extra = [bench(name("naive", "hybrid", 1024), 1.0), errored]
    measure = {"kind": "about_equal",
               "select": {"version": "naive", "layout": ["aoas", "hybrid"], **FLOAT}}
    result = evaluate_claim(claim("about equal", measure, {"rule": "at_most", "limit": 1.1}),
                            scope(extra))
    assert result.verdict == NOT_MEASURED
    assert errored.name in result.note and "validation failed at point 7" in result.note


def test_a_missing_size_is_not_measured():
    extra = [bench(name("tiled", "aos", 1024), 0.5), bench(name("tiled", "soa", 1024), 0.6),
             bench(name("tiled", "soa", 2048), 2.4)]
    result = evaluate_claim(claim(1.2, ratio("aos", "soa", version="tiled"), WITHIN),
                            scope(extra))
    assert result.verdict == NOT_MEASURED
    assert "absent: tiled/aos/float/p:2/size:2048" in result.note


def test_preferred_block_size_resolves_a_block_sweep_and_ambiguity_does_not_pass():
    sweep = [bench(name("naive", "aos", s, block=128), 9.0) for s in (1024, 2048)]
    assert evaluate_claim(claim(2.0, ratio("aos", "soa"), WITHIN),
                          scope(sweep)).verdict == REPRODUCED
    unpreferred = Scope(scope(sweep).benchmarks, {}, {})
    result = evaluate_claim(claim(2.0, ratio("aos", "soa"), WITHIN), unpreferred)
    assert result.verdict == NOT_MEASURED and "ambiguous" in result.note


def write_claims(tmp_path, claims):
    path = tmp_path / "paper.json"
    path.write_text(json.dumps({"paper": "x", "claims": claims}))
    return path


@pytest.mark.parametrize("mutate, complaint", [
    (lambda c: c.update(measure={"kind": "median"}), "measure 'kind'"),
    (lambda c: c["measure"].pop("faster"), "needs faster"),
    (lambda c: c.update(rule={"rule": "within"}), "needs tolerance"),
    (lambda c: c.update(rule={"rule": "close"}), "'rule' must name"),
    (lambda c: c.pop("paper_value"), "missing 'paper_value'"),
])
def test_malformed_claims_are_rejected(tmp_path, mutate, complaint):
    bad = claim(2.0, ratio("aos", "soa"), dict(WITHIN))
    mutate(bad)
    with pytest.raises(ClaimsError, match=complaint):
        load_claims(write_claims(tmp_path, [bad]))


def test_duplicate_claim_ids_are_rejected(tmp_path):
    one = claim(2.0, ratio("aos", "soa"), WITHIN)
    with pytest.raises(ClaimsError, match="unique"):
        load_claims(write_claims(tmp_path, [one, dict(one)]))


def test_idw_claims_file_holds_every_claim_of_the_paper():
    claims = {c["id"]: c for c in load_claims(PAPERS["idw"].claims_file)}
    expected = {
        "float-naive-aoas-over-aos": 1.25, "float-tiled-aoas-over-aos": 1.01,
        "float-cdp-improved-aoas-over-aos": 1.72, "float-naive-aos-over-soa": 1.23,
        "float-naive-aoas-over-soa": 1.54, "float-tiled-aos-over-soa": 1.01,
        "float-tiled-aoas-over-soa": 1.02, "double-cdp-soa-over-aos": 1.20,
        "double-cdp-soa-over-aoas": 1.04, "cdp-improved-over-original-p2": 2.9,
        "cdp-improved-over-original-p3": 1.5, "mei2014-tiled-over-naive": 2.0,
        "float-speedup-naive-aoas": 92, "float-speedup-tiled-aos": 124,
        "double-speedup-naive-soa": 11.42,
    }
    for claim_id, value in expected.items():
        assert claims[claim_id]["paper_value"] == value, claim_id
    assert claims["float-cdp-soa-reading-as-written"]["paper_value"] == [1.09, 1.81]
    assert claims["float-cdp-soa-reading-swapped"]["paper_value"] == [1.81, 1.09]
    assert claims["mei2014-naive-over-cdp-original"]["paper_value"] == [4.8, 6.0]
    assert claims["double-speedup-range"]["paper_value"] == [8, 14]
    assert claims["float-speedup-range"]["paper_value"] == [15, 130]
    assert claims["float-cdp-ordering"]["paper_value"] == ["soa", "aoas", "aos"]
    assert claims["recommend-tiled-aoas"]["rule"] == {"rule": "fastest_or_within",
                                                      "tolerance": 0.02}
    builtin = [c for c in claims if c.startswith("builtin-vs-aoas-")]
    assert len(builtin) == 4
    assert all(claims[c]["measure"]["kind"] == "about_equal" for c in builtin)
    layout_claims = [c for c in claims.values() if "p" in c["measure"].get("select", {})
                     and not c["id"].startswith("cdp-improved-over-original")]
    assert all(c["measure"]["select"]["p"] == 2 for c in layout_claims)

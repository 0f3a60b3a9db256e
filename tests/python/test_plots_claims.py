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


def bench(name, time_s=None, error=None, **counters):
    parsed = parse_name(name)
    return Benchmark(name=parsed["benchmark"], params=parsed["params"], device="test GPU",
                     preset="test", source=Path("hand-built"), time_s=time_s, error=error,
                     counters=counters, **{f: parsed[f] for f in FIELDS})


def name(version, layout, size, precision="float", block=256, p=2):
    tail = "" if version.startswith("cpu-") else f"/block:{block}"
    return f"idw/shepard/{version}/{layout}/{precision}/p:{p}/size:{size}{tail}"


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


def test_a_variant_run_at_some_sizes_is_measured_at_the_sizes_every_variant_has():
    extra = [bench(name("tiled", "aos", 1024), 0.5), bench(name("tiled", "soa", 1024), 0.6),
             bench(name("tiled", "soa", 2048), 2.4)]
    result = evaluate_claim(claim(1.2, ratio("aos", "soa", version="tiled"), WITHIN),
                            scope(extra))
    assert result.value == pytest.approx(1.2)
    assert result.verdict == REPRODUCED
    assert ("sizes 1024, the only size where every variant was run "
            "(skipped 2048: not run for tiled/aos/float/p:2)") in result.note


def test_partial_sizes_name_the_skipped_variants_together():
    """cdp-original is affordable only at small sizes: compared there, not "not measured"."""
    improved = [bench(name("cdp-improved", l, s), t * 10) for (v, l), by_size in TIMES.items()
                if v == "naive" and l != "builtin" for s, t in by_size.items()]
    original = [bench(name("cdp-original", l, 1024), t * 29)
                for (v, l), by_size in TIMES.items() if v == "naive" and l != "builtin"
                for t in [by_size[1024]]]
    measure = {"kind": "ratio", "select": {"layout": ["soa", "aos", "aoas"], **FLOAT},
               "faster": {"version": "cdp-improved"}, "slower": {"version": "cdp-original"}}
    result = evaluate_claim(claim(2.9, measure, WITHIN), scope(improved + original))
    assert result.value == pytest.approx(2.9)
    assert result.verdict == REPRODUCED
    assert "3 variant(s) × sizes 1024, the only size where every variant was run" in result.note
    assert "(skipped 2048: not run for cdp-original/{soa,aos,aoas}/float/p:2)" in result.note


def test_sizes_common_to_several_are_listed_with_their_count():
    extra = [bench(name("tiled", l, s), 1.0) for l in ("soa", "aos") for s in (512, 1024, 2048)]
    extra.append(bench(name("tiled", "aoas", 1024), 1.0))
    extra.append(bench(name("tiled", "aoas", 2048), 1.0))
    measure = {"kind": "about_equal", "select": {"version": "tiled",
               "layout": ["soa", "aos", "aoas"], **FLOAT}}
    result = evaluate_claim(claim("about equal", measure, {"rule": "at_most", "limit": 1.1}),
                            scope(extra))
    assert result.verdict == REPRODUCED
    assert ("sizes 1024–2048 (2), only the sizes where every variant was run "
            "(skipped 512: not run for tiled/aoas/float/p:2)") in result.note


def test_no_size_common_to_every_variant_is_not_measured():
    extra = [bench(name("tiled", "aos", 1024), 0.5), bench(name("tiled", "soa", 2048), 2.4)]
    result = evaluate_claim(claim(1.2, ratio("aos", "soa", version="tiled"), WITHIN),
                            scope(extra))
    assert result.verdict == NOT_MEASURED
    assert "no size at which every variant was run" in result.note
    assert "tiled/aos/float/p:2 at 1024" in result.note
    assert "tiled/soa/float/p:2 at 2048" in result.note


def test_an_error_at_a_skipped_size_does_not_matter_but_at_a_measured_size_does():
    common = [bench(name("tiled", "aos", 1024), 0.5), bench(name("tiled", "soa", 1024), 0.6),
              bench(name("tiled", "aos", 2048), error="validation failed at point 9")]
    skipped = evaluate_claim(claim(1.2, ratio("aos", "soa", version="tiled"), WITHIN),
                             scope(common))
    assert skipped.verdict == REPRODUCED and "skipped 2048" in skipped.note
    measured = evaluate_claim(claim(1.2, ratio("aos", "soa", version="tiled"), WITHIN),
                              scope(common + [bench(name("tiled", "soa", 2048), 2.4)]))
    assert measured.verdict == NOT_MEASURED
    assert "validation failed at point 9" in measured.note


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


# --- the roofline target: time / limit_s at the target size, else the largest run -------

def idw_claim(claim_id):
    return next(c for c in load_claims(PAPERS["idw"].claims_file) if c["id"] == claim_id)


def roofline(size, time_s, limit_s, precision="float", **fields):
    return bench(name("roofline", "aoas", size, precision), time_s, limit_s=limit_s,
                 pct_of_limit=100 * limit_s / time_s, **fields)


def test_roofline_claim_is_the_time_over_the_limit_with_the_spec_target():
    target = idw_claim("roofline-float-p2-within-limit")
    assert target["paper_value"] == "≤ 1.25× the limit"
    assert target["rule"] == {"rule": "at_most", "limit": 1.25}
    assert target["measure"]["select"] == {"version": "roofline", "layout": "aoas",
                                           "precision": "float", "p": 2}
    assert target["measure"]["at_size"] == 1024000


@pytest.mark.parametrize("time_s, verdict", [(1.2e-3, REPRODUCED), (1.25e-3, REPRODUCED),
                                             (1.3e-3, NOT_REPRODUCED)])
def test_roofline_within_the_limit_at_the_target_size(time_s, verdict):
    extra = [roofline(51200, 9e-3, 1e-4), roofline(1024000, time_s, 1e-3),
             roofline(1024000, 5e-3, 1e-3, precision="double")]
    result = evaluate_claim(idw_claim("roofline-float-p2-within-limit"), scope(extra))
    assert result.value == pytest.approx(time_s / 1e-3)
    assert result.verdict == verdict
    assert result.paper == "≤ 1.25× the limit"
    assert "at size 1024000; limit 1.25" in result.note


def test_roofline_without_the_target_size_is_judged_at_the_largest_size_run():
    extra = [roofline(10240, 1e-3, 1e-4), roofline(51200, 4.9e-3, 1e-3)]
    result = evaluate_claim(idw_claim("roofline-float-p2-within-limit"), scope(extra))
    assert result.value == pytest.approx(4.9)
    assert result.verdict == NOT_REPRODUCED
    assert result.measured == "4.90× the limit"
    assert "at size 51200, the largest run (target size 1024000 not run)" in result.note
    assert "20.4 % of the limit" in result.note


@pytest.mark.parametrize("extra, complaint", [
    ([], "absent: roofline/aoas/float/p:2 (every size)"),
    ([bench(name("roofline", "aoas", 51200), 1e-3)], "no limit_s counter"),
    ([bench(name("roofline", "aoas", 51200), error="validation failed")], "errored: "),
])
def test_roofline_claim_is_not_measured_without_a_timed_benchmark_and_limit(extra, complaint):
    result = evaluate_claim(idw_claim("roofline-float-p2-within-limit"), scope(extra))
    assert result.verdict == NOT_MEASURED
    assert complaint in result.note


# --- every IDW claim on a run with every version -------------------------------------------

IDW_SIZES = (10240, 51200, 102400)
IDW_LAYOUTS = ("soa", "aos", "aoas", "builtin", "soaos", "hybrid")


def full_idw_run(original_sizes=IDW_SIZES):
    """Every version, layout, precision and power; cdp-original at `original_sizes`."""
    rows = []
    for precision in ("float", "double"):
        for p in (2, 3):
            for size in IDW_SIZES:
                work = size * size * (2 if precision == "double" else 1) * (3 if p == 3 else 1)
                rows.append(bench(name("cpu-serial", "aos", size, precision, p=p), work * 1e-9))
                versions = {"naive": 4, "tiled": 2, "cdp-improved": 8, "cdp-original": 20}
                for k, (version, slowdown) in enumerate(versions.items()):
                    if version == "cdp-original" and size not in original_sizes:
                        continue
                    for j, layout in enumerate(IDW_LAYOUTS):
                        rows.append(bench(name(version, layout, size, precision, p=p),
                                          work * 1e-12 * slowdown * (1 + 0.01 * j),
                                          limit_s=work * 1e-13))
                rows.append(bench(name("roofline", "aoas", size, precision, p=p),
                                  work * 1.1e-13, limit_s=work * 1e-13))
    return Scope(tuple(rows), PAPERS["idw"].baseline, PAPERS["idw"].prefer)


def test_every_idw_claim_is_measured_when_every_version_ran_at_every_size():
    verdicts = [evaluate_claim(c, full_idw_run()) for c in load_claims(PAPERS["idw"].claims_file)]
    assert [v.claim_id for v in verdicts if v.verdict == NOT_MEASURED] == []
    assert not any("skipped" in v.note for v in verdicts)
    roofline_verdict = next(v for v in verdicts if v.claim_id == "roofline-float-p2-within-limit")
    assert roofline_verdict.value == pytest.approx(1.1)
    assert roofline_verdict.verdict == REPRODUCED


def test_idw_claims_with_cdp_original_at_small_sizes_only_use_those_sizes():
    claims = load_claims(PAPERS["idw"].claims_file)
    verdicts = {v.claim_id: v for v in
                (evaluate_claim(c, full_idw_run(original_sizes=(10240,))) for c in claims)}
    assert [i for i, v in verdicts.items() if v.verdict == NOT_MEASURED] == []
    for claim_id in ("cdp-improved-over-original-p2", "cdp-improved-over-original-p3",
                     "mei2014-naive-over-cdp-original"):
        note = verdicts[claim_id].note
        assert "sizes 10240, the only size where every variant was run" in note, claim_id
        assert "skipped 51200, 102400: not run for cdp-original/{soa,aos,aoas}/float" in note
    assert verdicts["cdp-improved-over-original-p2"].value == pytest.approx(20 / 8 * 1.01,
                                                                            rel=0.02)
    untouched = verdicts["mei2014-tiled-over-naive"]
    assert "skipped" not in untouched.note and "10240–102400 (3)" in untouched.note


def test_idw_claims_without_cdp_original_stay_not_measured():
    claims = load_claims(PAPERS["idw"].claims_file)
    verdicts = {v.claim_id: v for v in
                (evaluate_claim(c, full_idw_run(original_sizes=())) for c in claims)}
    missing = {i for i, v in verdicts.items() if v.verdict == NOT_MEASURED}
    assert missing == {"cdp-improved-over-original-p2", "cdp-improved-over-original-p3",
                       "mei2014-naive-over-cdp-original"}
    assert "absent: cdp-original/soa/float/p:2 (every size)" in \
        verdicts["cdp-improved-over-original-p2"].note

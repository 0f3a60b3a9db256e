"""plots.claims: every measurement kind and verdict rule on data with known answers."""

import json
import math
import statistics
from pathlib import Path

import pytest

from plots.claims import (INCONCLUSIVE, NOT_MEASURED, NOT_REPRODUCED, NOT_TRANSFERABLE, REPRODUCED,
                          WORDS, ClaimsError, Scope, evaluate_claim, load_claims)
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


def bench(name, time_s=None, error=None, reps=(), **counters):
    """A benchmark of median `time_s`; `reps` are its repetitions' times (none: noise-free)."""
    parsed = parse_name(name)
    return Benchmark(name=parsed["benchmark"], params=parsed["params"], device="test GPU",
                     preset="test", source=Path("hand-built"), time_s=time_s, error=error,
                     repetitions_s=tuple(reps), counters=counters,
                     **{f: parsed[f] for f in FIELDS})


def name(version, layout, size, precision="float", block=256, p=2):
    tail = "" if version.startswith("cpu-") else f"/block:{block}"
    return f"idw/shepard/{version}/{layout}/{precision}/p:{p}/size:{size}{tail}"


def scope(extra=()):
    rows = [bench(name(v, l, s), t) for (v, l), by_size in TIMES.items()
            for s, t in by_size.items()]
    return Scope(tuple(rows) + tuple(extra), {"version": "cpu-serial", "layout": "aos"},
                 {"block": 256})


def claim(paper_value, measure, rule):
    return {"id": "c", "text": "a claim", "quote": "a sentence", "line": 1,
            "paper_value": paper_value, "measure": measure, "rule": rule}


def ratio(faster, slower, version="naive"):
    return {"kind": "ratio", "select": {"version": version, **FLOAT},
            "faster": {"layout": faster}, "slower": {"layout": slower}}


WITHIN = {"rule": "words", "class": "about N"}
FASTER = {"rule": "words", "class": "faster"}
ABOUT_EQUAL = {"rule": "words", "class": "about equal"}
BETWEEN = {"rule": "words", "class": "between N and M"}


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
    result = evaluate_claim(claim(paper, measure, BETWEEN), scope())
    assert result.value == [pytest.approx(100), pytest.approx(200)]
    assert result.verdict == verdict


def test_ratio_range_spans_the_per_size_ratios():
    measure = {"kind": "ratio_range", "select": {"version": "naive", **FLOAT},
               "faster": {"layout": "aoas"}, "slower": {"layout": "soa"}}
    result = evaluate_claim(claim([1.9, 4.1], measure, BETWEEN), scope())
    assert result.value == [pytest.approx(2.0), pytest.approx(4.0)]
    assert result.verdict == REPRODUCED
    assert result.paper == "1.9–4.1×"


def test_a_range_edge_inside_one_sizes_noise_is_inconclusive():
    noisy = [bench(name("naive", "aoas", 1024), 1.0, reps=(0.9, 1.0, 1.05))]
    measure = {"kind": "ratio_range", "select": {"version": "naive", **FLOAT},
               "faster": {"layout": "aoas"}, "slower": {"layout": "soa"}}
    result = evaluate_claim(claim([1.95, 4.1], measure, BETWEEN), noisy_scope(noisy))
    assert result.verdict == INCONCLUSIVE
    assert result.interval == "1.9–4"


def noisy_scope(replacements):
    """scope() with some benchmarks replaced by ones of the same name (with repetitions)."""
    names = {b.name for b in replacements}
    return Scope(tuple(b for b in scope().benchmarks if b.name not in names)
                 + tuple(replacements), scope().baseline, scope().prefer)


@pytest.mark.parametrize("layouts, verdict, value", [
    (["aoas", "builtin"], REPRODUCED, 1.01),
    (["aos", "soa"], NOT_REPRODUCED, 2.0),
])
def test_about_equal_compares_slowest_to_fastest(layouts, verdict, value):
    measure = {"kind": "about_equal", "select": {"version": "naive", "layout": layouts, **FLOAT}}
    result = evaluate_claim(claim("about equal", measure, ABOUT_EQUAL), scope())
    assert result.value == pytest.approx(value)
    assert result.verdict == verdict


def test_about_equal_spread_across_sizes_straddling_the_edge_is_inconclusive():
    """Equal at one size, 1.2× apart at the other: the claim spans sizes, so the mean's 1.095
    alone does not decide it."""
    extra = [bench(name("tiled", "aos", 1024), 1.0), bench(name("tiled", "soa", 1024), 1.0),
             bench(name("tiled", "aos", 2048), 1.0), bench(name("tiled", "soa", 2048), 1.2)]
    measure = {"kind": "about_equal", "select": {"version": "tiled", "layout": ["aos", "soa"],
                                                 **FLOAT}}
    result = evaluate_claim(claim("about equal", measure, ABOUT_EQUAL), scope(extra))
    assert result.value == pytest.approx(math.sqrt(1.2))
    assert result.verdict == INCONCLUSIVE
    assert result.interval == "1–1.2"
    assert "straddles 1.04" in result.note


def test_word_bands_come_from_the_one_mapping():
    assert (WORDS["about equal"]["high"], WORDS["small gain"]["high"],
            WORDS["obvious gain"]["low"], WORDS["large gain"]["low"]) == (1.04, 1.5, 1.5, 2)
    assert all(WORDS[c]["why"] for c in WORDS)
    for paper in PAPERS:
        for c in load_claims(PAPERS[paper].claims_file):
            assert set(c["rule"]) <= {"rule", "class", "n", "of", "points", "limit", "factor",
                                      "drop", "flat", "parts"}, c["id"]
            assert "tolerance" not in c["rule"] and "low" not in c["rule"], c["id"]


@pytest.mark.parametrize("faster_reps, verdict", [
    ((), NOT_REPRODUCED),  # 2 % the other way, no noise: reversed
    ((0.97, 1.0, 1.02), REPRODUCED),  # the reversal is within the repetitions' noise
])
def test_a_reversed_direction_passes_only_within_the_noise(faster_reps, verdict):
    """The paper says AoaS is 1.01× faster; AoaS measures 2 % slower."""
    extra = [bench(name("tiled", "aoas", s), 1.0, reps=faster_reps) for s in (1024, 2048)]
    extra += [bench(name("tiled", "aos", s), 0.98) for s in (1024, 2048)]
    result = evaluate_claim(claim(1.01, ratio("aoas", "aos", version="tiled"), WITHIN),
                            scope(extra))
    assert result.value == pytest.approx(0.98)
    assert result.verdict == verdict


@pytest.mark.parametrize("reps, verdict", [
    ((), REPRODUCED), ((0.98, 1.0, 1.02), REPRODUCED), ((0.8, 1.0, 1.2), INCONCLUSIVE)])
def test_an_interval_straddling_a_band_edge_is_inconclusive(reps, verdict):
    """A 2.0× ratio against 'about 2.1' (band 1.91–2.31): decided unless the noise reaches
    past 1.91."""
    noisy = [bench(name("naive", "aos", s), t, reps=[r * t for r in reps])
             for s, t in TIMES["naive", "aos"].items()]
    result = evaluate_claim(claim(2.1, ratio("aos", "soa"), WITHIN), noisy_scope(noisy))
    assert result.verdict == verdict
    assert "band 1.91 – 2.31" in result.note


def test_the_interval_pairs_the_repetitions_extremes_of_both_sides():
    noisy = [bench(name("naive", "aos", 1024), 1.0, reps=(0.9, 1.0, 1.1)),
             bench(name("naive", "soa", 1024), 2.0, reps=(1.8, 2.0, 2.4))]
    result = evaluate_claim(claim(2.0, ratio("aos", "soa"), WITHIN), noisy_scope(noisy))
    low, high = (float(x) for x in result.interval.split("–"))
    assert low == pytest.approx(math.sqrt(1.8 / 1.1 * 2.0), rel=1e-3)
    assert high == pytest.approx(math.sqrt(2.4 / 0.9 * 2.0), rel=1e-3)


@pytest.mark.parametrize("aoas_behind, reps, verdict", [
    (0.0, (), REPRODUCED), (0.017, (), NOT_REPRODUCED),
    (0.017, (0.97, 1.0, 1.02), REPRODUCED)])
def test_an_ordering_tolerates_what_the_noise_explains_not_a_fixed_percentage(
        aoas_behind, reps, verdict):
    """AoaS best for tiled: 1.7 % behind is a loss unless the repetitions reach across."""
    extra = [bench(name("tiled", "aoas", s), 1.0 + aoas_behind, reps=[r * (1 + aoas_behind)
                                                                     for r in reps])
             for s in (1024, 2048)]
    extra += [bench(name("tiled", l, s), 1.0) for l in ("soa", "aos") for s in (1024, 2048)]
    measure = {"kind": "each", "parts": [ratio("aoas", l, version="tiled")
                                         for l in ("soa", "aos")]}
    assert evaluate_claim(claim("aoas best", measure, FASTER), scope(extra)).verdict == verdict


def test_each_needs_every_part_within_tolerance():
    measure = {"kind": "each", "parts": [ratio("aos", "soa"), ratio("aoas", "soa")]}
    right = evaluate_claim(claim([2.0, 2.8], measure, WITHIN), scope())
    swapped = evaluate_claim(claim([2.8, 2.0], measure, WITHIN), scope())
    assert right.value == [pytest.approx(2.0), pytest.approx(math.sqrt(2 * 4))]
    assert (right.verdict, swapped.verdict) == (REPRODUCED, NOT_REPRODUCED)


def test_each_is_inconclusive_when_a_part_is_and_none_fails():
    noisy = [bench(name("naive", "aoas", s), t, reps=(0.5 * t, t, 1.5 * t))
             for s, t in TIMES["naive", "aoas"].items()]
    measure = {"kind": "each", "parts": [ratio("aos", "soa"), ratio("aoas", "soa")]}
    assert evaluate_claim(claim([2.0, 2.8], measure, WITHIN),
                          noisy_scope(noisy)).verdict == INCONCLUSIVE
    assert evaluate_claim(claim([2.5, 2.8], measure, WITHIN),
                          noisy_scope(noisy)).verdict == NOT_REPRODUCED


def test_gain_over_gain_divides_one_ratio_by_another():
    """AoS gains 2× over SoA in float and 1.25× in double: the double gain is smaller."""
    double = [bench(name("naive", l, s, "double"), t) for l, t in (("soa", 2.5), ("aos", 2.0))
              for s in (1024, 2048)]
    measure = {"kind": "gain_over_gain", "larger": ratio("aos", "soa"),
               "smaller": {**ratio("aos", "soa"), "select": {"version": "naive",
                                                             "precision": "double", "p": 2}}}
    result = evaluate_claim(claim("smaller", measure, FASTER), scope(double))
    assert result.value == pytest.approx(2.0 / 1.25)
    assert result.verdict == REPRODUCED
    reversed_claim = {**measure, "larger": measure["smaller"], "smaller": measure["larger"]}
    assert evaluate_claim(claim("smaller", reversed_claim, FASTER),
                          scope(double)).verdict == NOT_REPRODUCED


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
    result = evaluate_claim(claim("about equal", measure, ABOUT_EQUAL),
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
    result = evaluate_claim(claim("about equal", measure, ABOUT_EQUAL),
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
    (lambda c: c.update(rule={"rule": "words"}), "needs class"),
    (lambda c: c.update(rule={"rule": "words", "class": "hardly any"}), "not in words.json"),
    (lambda c: c.pop("quote"), "needs the paper's sentence"),
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
        "cdp-improved-over-original-p3": 1.5, "float-speedup-naive-soa": 59,
        "float-speedup-naive-aoas": 92, "float-speedup-tiled-aos": 124,
        "double-speedup-naive-soa": 11.42,
    }
    for claim_id, value in expected.items():
        assert claims[claim_id]["paper_value"] == value, claim_id
        assert claims[claim_id]["rule"] == {"rule": "words", "class": "about N"}, claim_id
    assert claims["float-cdp-soa-reading-as-written"]["paper_value"] == [1.09, 1.81]
    assert claims["float-cdp-soa-reading-swapped"]["paper_value"] == [1.81, 1.09]
    assert claims["mei2014-naive-over-cdp-original"]["paper_value"] == [4.8, 6.0]
    assert claims["double-speedup-range"]["paper_value"] == [8, 14]
    assert claims["float-speedup-range"]["paper_value"] == [15, 130]
    # item 6: the claims the paper makes that were missing
    for claim_id in ("float-naive-aoas-best-soa-worst", "float-tiled-aoas-best-soa-worst",
                     "float-aoas-always-over-aos", "double-layout-gains-smaller-than-float",
                     "double-naive-aos-best", "double-cdp-aos-worst-aoas-second",
                     "double-cdp-soa-soaos-hybrid-about-equal", "double-combined-no-notable-gain",
                     "cdp-original-p2-about-p3", "builtin-vs-aoas-cdp-improved-float",
                     "builtin-vs-aoas-cdp-improved-double"):
        assert claim_id in claims, claim_id
    # item 1: the recommendation split in two; item 5: "tiled ≈ 2× naive" has no source
    assert "recommend-tiled-aoas" not in claims and "mei2014-tiled-over-naive" not in claims
    assert claims["recommend-tiled-fastest-version"]["rule"]["class"] == "faster"
    assert claims["recommend-aoas-best-for-tiled"]["rule"]["class"] == "faster"
    builtin = [c for c in claims if c.startswith("builtin-vs-aoas-")]
    assert len(builtin) == 6
    assert all(claims[c]["rule"]["class"] == "no notable gain" for c in builtin)
    layout_claims = [c for c in claims.values() if "p" in c["measure"].get("select", {})
                     and not c["id"].startswith("cdp-")]
    assert all(c["measure"]["select"]["p"] == 2 for c in layout_claims)


def test_every_double_speedup_divides_the_single_precision_cpu_time():
    """l.90: the single-precision CPU results are the baseline of every speedup."""
    claims = load_claims(PAPERS["idw"].claims_file)
    double = [c for c in claims if c["measure"]["kind"].startswith("speedup")
              and c["measure"]["select"]["precision"] == "double"]
    assert len(double) == 4
    assert all(c["measure"]["baseline"]["precision"] == "float" for c in double)
    rows = [bench(name("cpu-serial", "aos", 1024, "float"), 100.0),
            bench(name("cpu-serial", "aos", 1024, "double"), 150.0),
            bench(name("naive", "soa", 1024, "double"), 10.0)]
    claim_ = next(c for c in double if c["id"] == "double-speedup-naive-soa")
    result = evaluate_claim(claim_, Scope(tuple(rows), PAPERS["idw"].baseline, {"block": 256}))
    assert result.value == pytest.approx(10.0)


def test_mei2014_and_improved_cdp_comparisons_are_soa_only():
    """l.63: the Mei 2014 versions and the improved CDP version are SoA implementations."""
    claims = {c["id"]: c for c in load_claims(PAPERS["idw"].claims_file)}
    for claim_id in ("cdp-improved-over-original-p2", "cdp-improved-over-original-p3",
                     "mei2014-naive-over-cdp-original", "cdp-original-p2-about-p3"):
        assert claims[claim_id]["measure"]["select"]["layout"] == "soa", claim_id


def test_soaos_about_hybrid_is_judged_for_all_three_versions():
    claim_ = idw_claim("double-soaos-about-hybrid")
    versions = [p["select"]["version"] for p in claim_["measure"]["parts"]]
    assert versions == ["naive", "tiled", "cdp-improved"]
    assert claim_["line"] == 135 and claim_["quote"].startswith("For all the three versions")


SOURCES = Path(__file__).resolve().parents[2].parent / "shared" / "papers" / "source"


@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_every_quote_is_the_papers_sentence_at_its_line(paper):
    doc = json.loads(PAPERS[paper].claims_file.read_text())
    text = SOURCES / doc["source_text"]
    if not text.is_file():
        pytest.skip(f"the paper's text {text} is not in this checkout's ../shared")
    lines = text.read_text(encoding="utf-8").splitlines()
    for c in doc["claims"]:
        if c.get("beyond_paper"):
            continue
        assert c["quote"] in lines[c["line"] - 1], c["id"]


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


def test_roofline_without_the_target_size_is_not_measured():
    """A claim judged at 1000K says so when 1000K was not run, not at a smaller size."""
    extra = [roofline(10240, 1e-3, 1e-4), roofline(51200, 4.9e-3, 1e-3)]
    result = evaluate_claim(idw_claim("roofline-float-p2-within-limit"), scope(extra))
    assert result.verdict == NOT_MEASURED
    assert "size 1024000 not run for roofline/aoas/float/p:2 (run at 10240–51200 (2))" \
        in result.note


@pytest.mark.parametrize("extra, complaint", [
    ([], "absent: roofline/aoas/float/p:2 (every size)"),
    ([bench(name("roofline", "aoas", 1024000), 1e-3)], "no limit_s counter"),
    ([bench(name("roofline", "aoas", 1024000), error="validation failed")], "errored: "),
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
    rows.append(bench(name("roofline", "aoas", 1024000), 1.1, limit_s=1.0))
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
        assert "skipped 51200, 102400: not run for cdp-original/soa/float" in note
    assert verdicts["cdp-improved-over-original-p2"].value == pytest.approx(20 / 8)
    untouched = verdicts["recommend-tiled-fastest-version"]
    assert "skipped" not in untouched.note and "10240–102400 (3)" in untouched.note


def test_idw_claims_without_cdp_original_stay_not_measured():
    claims = load_claims(PAPERS["idw"].claims_file)
    verdicts = {v.claim_id: v for v in
                (evaluate_claim(c, full_idw_run(original_sizes=())) for c in claims)}
    missing = {i for i, v in verdicts.items() if v.verdict == NOT_MEASURED}
    assert missing == {"cdp-improved-over-original-p2", "cdp-improved-over-original-p3",
                       "mei2014-naive-over-cdp-original", "cdp-original-p2-about-p3"}
    assert "absent: cdp-original/soa/float/p:2 (every size)" in \
        verdicts["cdp-improved-over-original-p2"].note


# --- three H100 runs of the same kriging code: no verdict flips but through inconclusive ----

RUNS = Path(__file__).parent / "fixtures" / "kriging_runs.json"  # make_kriging_runs_fixture.py


def kriging_verdicts(commit):
    runs = json.loads(RUNS.read_text())
    counters = runs["counters"][commit]
    rows = [bench(n, statistics.median(ms) * 1e-3, reps=[t * 1e-3 for t in ms],
                  **counters.get(n, {}))
            for n, ms in zip(runs["names"], runs["ms"][commit])]
    scope = Scope(tuple(rows), {}, {}, "scale")
    return {v.claim_id: v for v in (evaluate_claim(c, scope)
                                     for c in load_claims(PAPERS["kriging"].claims_file))}


def test_kriging_verdicts_of_three_runs_of_the_same_code_differ_only_through_inconclusive():
    runs = [kriging_verdicts(c) for c in ("aafbccb", "1c994f8", "558a836")]
    for claim_id in runs[0]:
        decided = {r[claim_id].verdict for r in runs} - {INCONCLUSIVE}
        assert len(decided) <= 1, (claim_id, [r[claim_id].verdict for r in runs])
        assert NOT_MEASURED not in decided, claim_id
    # the three that flipped under fixed bounds, with their measured values of the time
    values = {i: [round(r[i].value, 2) for r in runs]
              for i in ("exp3-over-exp2-not-very-high", "exp5-over-exp4-small")}
    assert values == {"exp3-over-exp2-not-very-high": [1.19, 1.2, 1.22],
                      "exp5-over-exp4-small": [1.03, 1.02, 1.0]}
    assert [round(max(r["exp6-speedup-peak-above-110"].value)) for r in runs] == [161, 166, 108]
    # 108 against "more than 110" straddles the edge: shown, not judged (an absolute speedup
    # over the paper's CPU is not transferable), where it was inconclusive
    assert runs[2]["exp6-speedup-peak-above-110"].verdict == NOT_TRANSFERABLE


@pytest.mark.parametrize("interval, verdict", [
    ((1.000, 1.009), REPRODUCED),       # all of it at or below the limit
    ((1.005, 1.015), INCONCLUSIVE),     # straddles the limit: the noise cannot tell
    ((1.011, 1.020), NOT_REPRODUCED),   # all of it above
    (None, NOT_REPRODUCED),             # an exact value (a count): the value alone
])
def test_at_most_is_judged_on_the_interval_and_inconclusive_where_it_straddles(interval, verdict):
    """The standard's rule for every band's edge holds for a limit too: a median of 1.0104
    against at most 1.01 whose repetitions reach below the limit is inconclusive, not a miss."""
    from plots.claims.rules import rule_at_most
    from plots.claims.verdicts import Measured
    measured = Measured(1.0104 if interval is None else sum(interval) / 2, "", "", {}, interval=interval)
    outcome, note, *_ = rule_at_most(None, measured, {"rule": "at_most", "limit": 1.01})
    if isinstance(outcome, bool):
        outcome = REPRODUCED if outcome else NOT_REPRODUCED
    assert outcome == verdict, note


def _curve_measured(points, estimates):
    from plots.claims.verdicts import Measured
    from plots.estimates import Estimate
    per_size = tuple(Estimate(v, lo, hi) for v, lo, hi in estimates)
    return Measured([e.value for e in per_size], "", "", {}, tuple(points), "scale", per_size=per_size)


@pytest.mark.parametrize("estimates, verdict", [
    # the peak at scale 4 falls 16 % to scales 8 and 10, which agree within 2 %: levels off
    ([(100, 99, 101), (336, 330, 340), (290, 285, 295), (285, 280, 290)], REPRODUCED),
    # the same medians, but the points' noise (a CPU time on a shared host) reaches a fall
    # under 10 % and a tail wider than 10 %: the noise cannot tell
    ([(100, 80, 120), (336, 280, 390), (290, 240, 340), (285, 235, 335)], INCONCLUSIVE),
    # no fall after the peak whatever the noise
    ([(100, 99, 101), (266, 263, 269), (262, 259, 265), (253, 250, 256)], NOT_REPRODUCED),
])
def test_peak_then_level_is_judged_on_the_points_intervals(estimates, verdict):
    from plots.claims.rules import rule_peak_then_level
    measured = _curve_measured((1, 4, 8, 10), estimates)
    outcome, note = rule_peak_then_level(None, measured, {"points": 2, "drop": 0.1, "flat": 0.1})
    if isinstance(outcome, bool):
        outcome = REPRODUCED if outcome else NOT_REPRODUCED
    assert outcome == verdict, note


@pytest.mark.parametrize("estimates, verdict", [
    ([(1.0, 0.99, 1.01), (1.3, 1.28, 1.32)], REPRODUCED),
    ([(1.0, 0.9, 1.1), (1.15, 1.05, 1.25)], INCONCLUSIVE),   # 1.15 on the medians, the noise wide
    ([(1.0, 0.99, 1.01), (1.02, 1.01, 1.03)], NOT_REPRODUCED),
])
def test_rises_is_judged_on_the_points_intervals(estimates, verdict):
    from plots.claims.rules import rule_rises
    outcome, note = rule_rises(None, _curve_measured((1, 10), estimates), {"factor": 1.1})
    if isinstance(outcome, bool):
        outcome = REPRODUCED if outcome else NOT_REPRODUCED
    assert outcome == verdict, note

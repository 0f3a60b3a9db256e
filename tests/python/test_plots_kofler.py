"""Kofler 2015: figures, Table 2, the other tables, claims verdicts on the synthetic fixture
(tests/python/fixtures/make_kofler_fixture.py: invented numbers with designed outcomes), and
the generic `ratio_every` measure the claims added."""

import contextlib
import io
import json
import shutil
import warnings
from dataclasses import replace
from pathlib import Path

import pytest

from plots.__main__ import main
from plots.figures import TextOutsideFigure, UnreadableFigure
from plots.claims import (INCONCLUSIVE, NOT_MEASURED, NOT_REPRODUCED, REPRODUCED, Scope,
                          evaluate_claim, load_claims)
from plots.kofler_data import PROGRAMS, method_layout_text
from plots.kofler_label import method_choice, runs_as
from plots.load import Benchmark, ResultsError
from plots.names import parse_name
from plots.papers import PAPERS

from tests.python.fixtures import make_kofler_fixture
from tests.python.report_checks import (assert_figures_written, claim_row, one_worker,
                                        rendered_once)

FIXTURES = Path(__file__).parent / "fixtures"
FIGURES = ("kofler_tile_sweep", "kofler_fig1", "kofler_fig5", "kofler_regret")
DESIGNED = {
    "nbody-tiled-slower-than-aos-every-tile": REPRODUCED,
    "nbody-soa-best": REPRODUCED,
    "bitonic-tiling-gain": REPRODUCED,
    "bitonic-tiling-comparable-to-soa": INCONCLUSIVE,
    "sampo-soa-much-faster-than-aos": NOT_REPRODUCED,
    # issue 21's claims read data the fixture lacks (LavaMD float, SAMPO's compiled tiles):
    # they are judged on hand-built results in test_claims_kofler.py
    "sampo-one-cluster-tiles-above-12k-beat-soa": NOT_MEASURED,
    "sampo-fig1-run-time-span": NOT_MEASURED,
    "soa-much-faster-every-program": NOT_MEASURED,
    "soa-not-the-best-in-some-cases": NOT_MEASURED,
    "tiled-usually-equal-or-better-than-soa": NOT_MEASURED,
    "sampo-tiling-good-on-nvidia": NOT_MEASURED,
    # issue 22's claims about the method (its flips: test_claims_kofler_method.py); two reach
    # SAMPO's compiled tiles or the LavaMD float the fixture lacks. SAMPO's kdlg and kdlg-tree
    # ran on the run-time partition mapping (runs_as=partition): against the compiled AoS or
    # SoA shown, not judged; against the run-time manual partition judged
    "nbody-kdlg-splits-the-fields": REPRODUCED,
    "nbody-method-selects-soa": REPRODUCED,
    "bitonic-kdlg-one-cluster": REPRODUCED,
    "bitonic-tree-tiling-gain": REPRODUCED,
    "sampo-kdlg-gain": INCONCLUSIVE,
    "sampo-kdlg-within-10-percent-of-soa": INCONCLUSIVE,
    "sampo-kdlg-tree-gain": INCONCLUSIVE,
    "sampo-method-outperforms-every-other-version": NOT_MEASURED,
    "sampo-method-beats-manual-layout": REPRODUCED,
    "method-never-slower-than-aos": NOT_MEASURED,
    "method-speedup-up-to": INCONCLUSIVE,  # SAMPO's 1.82×, the largest, run-time partition
    # beyond the paper: judged at 131,072 bodies, which the fixture does not run (its
    # verdicts: test_claims_kofler.py)
    "nbody-roofline-within-85-percent-of-bound": NOT_MEASURED,
    # beyond the paper (issue 39 §4): kdlg-tree-plus, the trial's choice; its claim over every
    # program lacks LavaMD float too, and N-body's compiled split keeps its regret's median
    # above 1.01 (1.010×) with an interval (1.00–1.02) that straddles it
    "extended-never-slower-than-aos": NOT_MEASURED,
    "extended-regret-within-one-percent": INCONCLUSIVE,
}


# On the worker that draws this report for the other files too: drawn once (one_worker).
pytestmark = one_worker("kofler_quick")


@pytest.fixture(scope="module")
def generator():
    return make_kofler_fixture


@pytest.fixture(scope="module")
def fixture(generator, tmp_path_factory):
    return generator.write_fixture(tmp_path_factory.mktemp("fixture") / "kofler_quick")


def report_of(*folders, out=None, text_only=False):
    """REPORT.md of one CLI run over these folders (written into the first without `out`);
    a text leaving a figure or an unreadable figure fails it. `text_only`: --report-only (the
    same text, no figure drawn), for a test of the text whose figures another test draws."""
    options = (["--out", str(out)] if out else []) + (["--report-only"] if text_only else [])
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("error", TextOutsideFigure)
        warnings.simplefilter("error", UnreadableFigure)
        assert main([*options, *map(str, folders)]) == 0
    return ((out or folders[0]) / "REPORT.md").read_text()


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    folder, _ = rendered_once("kofler_quick", tmp_path_factory)  # the same generator's folder
    return folder, (folder / "REPORT.md").read_text()


def copy_edited(fixture, tmp_path, edit):
    """A copy of the fixture whose entries are `edit(entries)`."""
    folder = tmp_path / "run"
    shutil.copytree(fixture, folder)
    path = folder / "kofler.gpu0.json"
    doc = json.loads(path.read_text())
    doc["benchmarks"] = edit(doc["benchmarks"])
    path.write_text(json.dumps(doc))
    return folder


def copy_without(fixture, tmp_path, drop):
    """A copy of the fixture without the entries whose benchmark name `drop` accepts."""
    return copy_edited(fixture, tmp_path, lambda entries: [
        e for e in entries if not drop(parse_name(e["name"])["benchmark"])])


def rows_after(text, heading):
    """The Markdown table rows of the section under `heading`."""
    part = text.split(f"### {heading}", 1)[1].split("\n### ", 1)[0]
    return [[c.strip() for c in line.strip("|").split("|")]
            for line in part.splitlines() if line.startswith("| ") and "---" not in line][1:]


def median_seconds(folder, name):
    """The median aggregate of one benchmark straight from the JSON (not through plots)."""
    doc = json.loads((folder / "kofler.gpu0.json").read_text())
    (entry,) = [e for e in doc["benchmarks"] if e["name"] == f"{name}/manual_time_median"]
    return entry["real_time"]


# --- figures and report --------------------------------------------------------------------

def test_every_figure_is_written_and_linked(report):
    folder, text = report
    assert_figures_written(folder, FIGURES)
    for stem in FIGURES:
        assert f"](figures/{stem}.png)" in text, stem


def test_titles_name_the_paper_figure_gpu_and_preset(report):
    folder, _ = report
    for stem, words in (("kofler_fig1", "Fig. 1"), ("kofler_fig5", "Fig. 5"),
                        ("kofler_tile_sweep", "tile sweep")):
        svg = (folder / "figures" / f"{stem}.svg").read_text()
        for word in ("Kofler, Cosenza &amp; Fahringer 2015", words, "NVIDIA H100 80GB HBM3",
                     "preset quick"):
            assert word in svg, (stem, word)


def test_report_names_the_paper_and_says_the_programs_are_cuda_ports(report):
    _, text = report
    assert "## Automatic data layout optimizations for GPUs (Kofler, Cosenza & Fahringer 2015)" \
        in text
    assert "CUDA ports of the OpenCL originals" in text
    # the fixture has every section's data but the other papers' results (a Kofler run's:
    # test_plots_advisor_beyond.py draws that section from hand-built ones)
    without = text.split("### Sections without data", 1)[1].split("\n## ", 1)[0]
    assert [l for l in without.splitlines() if l.startswith("- ")] == [
        "- Regret beyond Kofler: no other paper's program in the run (the method's choice for "
        "each: `layoutbench advise --program <name>`)."]


def test_the_heat_map_marks_the_errored_tile_and_leaves_unrun_tiles_blank(report):
    folder, _ = report
    svg = (folder / "figures" / "kofler_fig1.svg").read_text()
    assert "×" in svg and "16384" in svg and "SoA" in svg and "AoS" in svg


def test_table2_reads_the_counters_and_the_speedups_of_soa_and_the_best_tile(report):
    folder, text = report
    header = text.split("### Table 2", 1)[1].split("\n| ", 1)[1].split("\n", 1)[0]
    assert ("loop bound approx. | AoS time | × AoS: SoA | × AoS: best tile | "
            "× AoS: best partition | × AoS: method (kdlg-tree) | method's layout |") in header
    assert "The paper's \"speedup over AoS\" is the speedup of the layout its method" in text
    rows = {r[0]: r for r in rows_after(text, "Table 2")}
    assert list(rows) == ["N-body", "Bitonic sort", "SAMPO", "BlackScholes", "LavaMD"]
    nbody = rows["N-body"]
    assert nbody[1:7] == ["float", "65.5K", "32", "2", "1", "n"]
    aos = median_seconds(folder, "kofler/nbody/gpu/aos/float/size:65536")
    soa = median_seconds(folder, "kofler/nbody/gpu/soa/float/size:65536")
    tiles = {t: median_seconds(folder, f"kofler/nbody/gpu/tiled/float/tile:{t}/size:65536")
             for t in (2, 8, 32, 128, 512, 4096)}
    best = min(tiles, key=tiles.get)
    assert best == 512
    assert nbody[8].startswith(f"{aos / soa:.2f}× [")
    assert aos / soa == pytest.approx(1.25, rel=0.03)  # the fixture's design
    assert nbody[9].startswith(f"{aos / tiles[best]:.2f}× [") and nbody[9].endswith("(t = 512)")
    assert nbody[10].endswith("(pos-vel)")
    assert rows["SAMPO"][2] == "128K" and rows["SAMPO"][9].endswith("(t = 16384)")
    assert rows["SAMPO"][10].endswith("(hot-cold)")
    assert rows["LavaMD"][5] == "not reported"  # the fixture's LavaMD reports no kernels
    assert rows["LavaMD"][9] == rows["LavaMD"][10] == "not measured"
    method = median_seconds(folder, "kofler/nbody/gpu/kdlg-tree/float/partition:pos|vel/"
                            "size:65536")
    assert nbody[11].startswith(f"{aos / method:.2f}× [")
    assert nbody[12] == "pos: tiled-64; vel: tiled-64 — compiled SoA"
    assert rows["SAMPO"][12].endswith("dead: soa; state: soa; ageInHours: soa; "
                                      "isFemale+cumulativeSporogonicDevelopment: tiled-64 — "
                                      "run-time partition")
    assert [rows[p][6] for p in rows] == ["n", "none", "n, u", "none", "c"]


def test_run_time_against_compile_time_table_judges_the_five_percent_goal(report):
    _, text = report
    rows = rows_after(text, "Run-time vs compile-time")
    by_key = {(r[0], r[2], r[4]): r for r in rows}
    assert by_key["N-body", "65.5K", "512 (best)"][-1] == "within 5 %"
    assert by_key["N-body", "65.5K", "pos-vel (best)"][-1] == "misses"  # 8 % slower
    assert by_key["N-body", "65.5K", "pos-vel (best)"][3] == "split / split-ct"
    assert ("SAMPO", "128K", "manual") in by_key
    assert not any(r[0] == "BlackScholes" for r in rows)  # no compile-time twin measured


def test_sort_table_puts_bitonic_layouts_beside_cub(report):
    _, text = report
    rows = rows_after(text, "Bitonic sort vs CUB")
    at_4m = {(r[2], r[3]): r[5] for r in rows if r[1] == "4.19M"}
    assert at_4m["cub-radix", "soa"] == "1.00×"
    assert set(at_4m) == {("bitonic", "aos"), ("bitonic", "soa"), ("bitonic", "tiled (128)"),
                          ("cub-radix", "aos"), ("cub-radix", "soa"), ("cub-merge", "aos")}
    assert float(at_4m["bitonic", "soa"].rstrip("×")) > 3


def test_bound_table_and_the_issues_goals(report):
    _, text = report
    rows = rows_after(text, "% of bound per program and layout")
    blackscholes = {r[4]: r for r in rows if r[0] == "BlackScholes"}
    assert blackscholes["soa"][5] == blackscholes["soa"][6]  # memory-bound: the copy bound
    assert "BlackScholes: goal ≥ 85 % of measured copy bandwidth; fastest layout soa" in text
    assert "N-body: goal ≥ 70 % of its compute bound; fastest layout soa" in text
    assert text.count("— met") == 3  # and the roofline version's target, below


def test_bound_table_shows_the_roofline_version_and_its_target(report):
    """Its row beside the sweep's layouts, and its target read on its own pct_of_bound at the
    largest size (the fixture's median: 90 %)."""
    folder, text = report
    rows = rows_after(text, "% of bound per program and layout")
    (roofline,) = [r for r in rows if r[:2] == ["N-body", "roofline"]]
    assert roofline[2:5] == ["float", "65.5K", "soa"]
    doc = json.loads((folder / "kofler.gpu0.json").read_text())
    (median,) = [e for e in doc["benchmarks"]
                 if e["name"] == "kofler/nbody/roofline/soa/float/size:65536/manual_time_median"]
    pct = median["pct_of_bound"]
    assert 85 < pct < 95 and roofline[5] == f"{pct:.1f} %"
    assert ("N-body roofline version: goal ≥ 85 % of its FP32 bound (claim "
            "`nbody-roofline-within-85-percent-of-bound`); fastest layout soa at size 65.5K: "
            f"{pct:.1f} % — met") in text


# --- claims --------------------------------------------------------------------------------

def test_claims_give_the_designed_verdicts(report):
    _, text = report
    for claim_id, verdict in DESIGNED.items():
        assert f"| {verdict} |" in claim_row(text, claim_id), claim_id
    assert "8 reproduced, 1 not reproduced, 6 inconclusive, 0 not transferable, 10 not measured." in text
    span = claim_row(text, "sampo-fig1-run-time-span")  # no SAMPO compiled tile in the fixture
    assert "absent: sampo/gpu/tiled-ct at size 32000" in span
    assert ("Shown, not judged: with the run-time tile sweep: not measured (errored: "
            "kofler/sampo/gpu/tiled/float/tile:4096/size:32000") in span
    assert "absent: lavamd/gpu/soa/float (every size)" in claim_row(
        text, "soa-much-faster-every-program")
    every = claim_row(text, "nbody-tiled-slower-than-aos-every-tile")
    assert "tile 32 1.05–1.07× over sizes; min 1.05× (size 16384), tile 512 1.02–" in every
    assert "Shown, not judged: run-time tile sweep: " in every and "at tile 512 of 6" in every
    assert "“It clearly shows that the tiled version" in every
    assert "straddles 1.04" in claim_row(text, "bitonic-tiling-comparable-to-soa")
    assert "needs every value in 1.38–1.5" in claim_row(text, "bitonic-tiling-gain")


def test_a_claim_without_its_data_is_not_measured_and_names_what_is_missing(fixture, tmp_path):
    folder = copy_without(fixture, tmp_path, lambda n: n.startswith("kofler/sampo/gpu/soa/"))
    row = claim_row(report_of(folder), "sampo-soa-much-faster-than-aos")
    assert "| not measured |" in row and "absent: sampo/gpu/soa (every size)" in row


def test_claims_file_quotes_the_three_programs_of_the_issue():
    claims = {c["id"]: c for c in load_claims(PAPERS["kofler"].claims_file)}
    assert set(claims) == set(DESIGNED)
    papers = {k: c for k, c in claims.items() if not c.get("beyond_paper")}
    # the project's targets (a threshold of their own, no quote): test_claims_kofler.py
    assert set(claims) - set(papers) == {"nbody-roofline-within-85-percent-of-bound",
                                         "extended-never-slower-than-aos",
                                         "extended-regret-within-one-percent"}
    assert {c["line"] for c in papers.values()} == {12, 31, 35, 118, 186, 191, 193, 197}
    assert claims["bitonic-tiling-gain"]["paper_value"] == [1.38, 1.5]
    for c in claims.values():  # words, no threshold; or the paper's structure (a count)
        assert set(c["rule"]) - {"parts"} in ({"rule", "class"}, {"rule", "limit"}), c["id"]
        if c["id"] in papers:
            assert c["rule"]["rule"] == "words" or c["measure"]["kind"] == "partition", c["id"]
    # the paper's sentence judged for the extended value: the same measure, its layout swapped
    paper, extended = claims["method-never-slower-than-aos"], claims["extended-never-slower-than-aos"]
    assert json.dumps(paper["measure"]).replace('"kdlg-tree"', '"kdlg-tree-plus"') == \
        json.dumps(extended["measure"])
    assert extended["rule"] == paper["rule"]
    assert claims["extended-regret-within-one-percent"]["rule"] == {"rule": "at_most", "limit": 1.01}


# --- sections without data, other papers ---------------------------------------------------

def test_a_run_of_one_program_leaves_out_the_other_sections_with_a_note(fixture, tmp_path):
    folder = copy_without(fixture, tmp_path, lambda n: not n.startswith("kofler/nbody/"))
    text = report_of(folder)
    assert "### Sections without data" in text
    assert "- Fig. 1: no SAMPO tiled benchmarks." in text
    assert "- Sort vs CUB: no bitonic sort measured beside cub-radix or cub-merge." in text
    assert "### Fig. 1" not in text and "### Table 2" in text
    assert_figures_written(folder, ("kofler_tile_sweep", "kofler_fig5"))
    assert "4 reproduced, 1 not reproduced, 0 inconclusive, 0 not transferable, 20 not measured." in text


def test_a_folder_without_kofler_results_reports_the_other_papers(tmp_path):
    folder = tmp_path / "run"
    shutil.copytree(FIXTURES / "idw_quick", folder)
    text = report_of(folder)
    assert "## IDW interpolation layouts" in text
    assert "Kofler" not in text and not list((folder / "figures").glob("kofler_*"))


def test_kofler_beside_idw_and_two_gpus(fixture, tmp_path):
    first = copy_without(fixture, tmp_path, lambda n: False)
    shutil.copy(FIXTURES / "idw_quick" / "idw.gpu0.json", first)
    second = tmp_path / "h200"
    shutil.copytree(fixture, second)
    path = second / "kofler.gpu0.json"
    doc = json.loads(path.read_text())
    doc["context"]["lb"]["gpu"].update(name="NVIDIA H200", uuid="GPU-h200")
    path.write_text(json.dumps(doc))
    out = tmp_path / "out"
    text = report_of(first, second, out=out)
    assert text.index("## IDW interpolation layouts") < text.index("## Automatic data layout")
    assert "### Claims — NVIDIA H200 (preset quick)" in text
    for stem in FIGURES:
        assert "NVIDIA H200" in (out / "figures" / f"{stem}.svg").read_text(), stem


def test_generator_is_deterministic_and_follows_the_conventions(generator):
    doc = generator.build_fixture()
    assert doc == generator.build_fixture()
    assert doc["context"]["lb"]["run"]["suite"] == "kofler"
    assert doc["context"]["lb"]["run"]["note"].startswith("FIXTURE: invented")
    names = {parse_name(e["name"])["benchmark"]: e for e in doc["benchmarks"]
             if e["run_type"] == "iteration"}
    tiled = parse_name("kofler/sampo/gpu/tiled/float/tile:512/size:32000/manual_time")
    assert tiled["params"] == {"tile": 512, "size": 32000} and tiled["layout"] == "tiled"
    entry = names["kofler/nbody/gpu/split/float/partition:pos-vel/size:16384"]
    for counter in ("interactions", "interactions_per_s", "bytes_read", "bytes_written",
                    "bytes_per_s", "memory_bound_s", "pct_copy_bandwidth", "compute_bound_s",
                    "pct_compute_bound", "bound_s", "pct_of_bound", "footprint_bytes",
                    "max_abs_err", "max_rel_err", "tolerance", "checked", "unvalidated",
                    "struct_bytes", "fields", "kernels"):
        assert counter in entry, counter
    assert entry["pct_of_bound"] == pytest.approx(100 * entry["bound_s"] / 1e-3
                                                  / entry["real_time"], rel=1e-4)
    assert [n for n, e in names.items() if e.get("error_occurred")] == [generator.ERRORED]


# --- the generic ratio_every measure -------------------------------------------------------

def bench(layout, size, time_s=None, tile=None, error=None, reps=(), app="prog"):
    params = {**({"tile": tile} if tile is not None else {}), "size": size}
    name = "/".join(["p", app, "gpu", layout, "float", *(f"{k}:{v}" for k, v in params.items())])
    return Benchmark(name=name, paper="p", app=app, version="gpu", layout=layout,
                     precision="float", params=params, device="GPU", preset="test",
                     source=Path("hand-built"), time_s=time_s, error=error,
                     repetitions_s=tuple(reps))


def every_claim(faster, slower, reduce, rule):
    return {"id": "c", "text": "a claim", "quote": "q", "line": 1,
            "paper_value": rule.pop("paper", "text"),
            "measure": {"kind": "ratio_every", "select": {"app": "prog"}, "faster": faster,
                        "slower": slower, "every": "tile", "reduce": reduce},
            "rule": {"rule": "words", **rule}}


def sweep(tile_times, aos=1.0, sizes=(100, 200), extra=()):
    benchmarks = [bench("aos", s, aos) for s in sizes]
    benchmarks += [bench("tiled", s, t, tile=k) for s in sizes for k, t in tile_times.items()]
    return Scope(tuple(benchmarks) + tuple(extra), {}, {})


SLOWER_EVERY_TILE = ({"layout": "aos"}, {"layout": "tiled"}, "min", {"class": "faster"})


@pytest.mark.parametrize("tiles, verdict, value", [
    ({2: 1.3, 8: 1.1}, REPRODUCED, 1.1),
    ({2: 1.3, 8: 0.9}, NOT_REPRODUCED, 0.9),  # one tile beats AoS: not slower at every tile
])
def test_every_tile_reads_the_tile_closest_to_the_other_layout(tiles, verdict, value):
    result = evaluate_claim(every_claim(*map(_copy, SLOWER_EVERY_TILE)), sweep(tiles))
    assert result.verdict == verdict
    assert result.value == pytest.approx(value)
    assert "at tile 8 of 2" in result.note


def test_best_tile_gain_is_judged_at_every_size_against_a_range():
    scope = sweep({2: 1 / 1.2, 8: 1 / 1.45}, sizes=(100,),
                  extra=[bench("aos", 200, 1.0), bench("tiled", 200, 1 / 1.6, tile=8)])
    claim = every_claim({"layout": "tiled"}, {"layout": "aos"}, "max",
                        {"class": "between N and M", "paper": [1.38, 1.5]})
    result = evaluate_claim(claim, scope)
    assert result.verdict == NOT_REPRODUCED  # 1.6× at size 200 is outside 1.38–1.5
    assert result.measured.startswith("1.45–1.60× over sizes; max 1.60× (tile 8, size 200)")


def test_a_tile_run_at_some_sizes_only_counts_where_it_ran():
    scope = sweep({8: 1.1}, extra=[bench("tiled", 200, 1.05, tile=64)])
    result = evaluate_claim(every_claim(*map(_copy, SLOWER_EVERY_TILE)), scope)
    assert result.verdict == REPRODUCED and result.value == pytest.approx(1.05)
    assert "100: 1.10× at tile 8 of 1, 200: 1.05× at tile 64 of 2" in result.note


def test_noise_across_a_band_edge_is_inconclusive():
    noisy = [bench("aos", 100, 1.0, reps=(0.98, 1.0, 1.02)),
             bench("tiled", 100, 1.04, tile=8, reps=(1.02, 1.04, 1.06))]
    scope = Scope(tuple(noisy), {}, {})
    claim = every_claim({"layout": "aos"}, {"layout": "tiled"}, "min",
                        {"class": "no notable gain"})
    assert evaluate_claim(claim, scope).verdict == INCONCLUSIVE


@pytest.mark.parametrize("extra, complaint", [
    ((), "absent: prog/tiled or prog/aos with any tile"),
    ((bench("aos", 100, 1.0), bench("tiled", 100, tile=8, error="boom")), "errored: "),
])
def test_missing_or_errored_sweeps_are_not_measured(extra, complaint):
    result = evaluate_claim(every_claim(*map(_copy, SLOWER_EVERY_TILE)),
                            Scope(tuple(extra), {}, {}))
    assert result.verdict == NOT_MEASURED and complaint in result.note


def test_both_sides_carrying_the_parameter_are_paired_at_the_same_value():
    scope = Scope((bench("tiled", 100, 1.02, tile=8), bench("tiled-ct", 100, 1.0, tile=8),
                   bench("tiled", 100, 1.10, tile=16), bench("tiled-ct", 100, 1.0, tile=16)),
                  {}, {})
    claim = every_claim({"layout": "tiled-ct"}, {"layout": "tiled"}, "max",
                        {"class": "no notable gain"})
    result = evaluate_claim(claim, scope)
    assert result.value == pytest.approx(1.10) and result.verdict == NOT_REPRODUCED


def _copy(value):
    return dict(value) if isinstance(value, dict) else value


def test_the_fixture_medians_are_what_the_fixture_designs(fixture):
    """The designed ratios hold in the generated file itself (its jitter is 1 %)."""
    aos = median_seconds(fixture, "kofler/sampo/gpu/aos/float/size:128000")
    soa = median_seconds(fixture, "kofler/sampo/gpu/soa/float/size:128000")
    assert aos / soa == pytest.approx(1.72, rel=0.03)


# --- the method: Fig. 5's versions, Fig. 1's clustering, regret (issue 22) -----------------

TREE_LAYOUTS = ("/tiled-tree/", "/kdlg-tree/")


def test_fig5_draws_the_papers_four_versions(report):
    folder, text = report
    svg = (folder / "figures" / "kofler_fig5.svg").read_text()
    for label in ("SoA", "KDLG", "tiled (tree)", "KDLG + tiled (tree)", "tiled-32"):
        assert label in svg, label
    assert "n/m" not in svg  # every version of N-body, bitonic and SAMPO is in the fixture


def failed_without_a_tree(entries):
    """The entries of a run without a tree: each tiled-tree and kdlg-tree benchmark one
    failure naming --kofler-tree, without a label (docs/advisor.md section 4)."""
    edited, failed = [], set()
    for entry in entries:
        layout = next((t.strip("/") for t in TREE_LAYOUTS if t in entry["name"]), None)
        if layout is None:
            edited.append(entry)
        elif entry["run_name"] not in failed:
            failed.add(entry["run_name"])
            failure = make_kofler_fixture.idw.errored_entry(entry["run_name"].removesuffix(
                "/manual_time"))
            failure["error_message"] = (f"layout '{layout}' needs a decision tree: give "
                                        "--kofler-tree FILE (make reproduce trains one: suite "
                                        "kofler-tree, docs/kofler-tree.md)")
            edited.append(failure)
    return edited


@pytest.mark.parametrize("without_a_tree", ["failed", "absent"])
def test_without_a_tree_fig5_marks_the_trees_versions_not_measured(fixture, tmp_path,
                                                                   without_a_tree):
    """A run without a tree: its tree layouts failed (the harness's way) or were not run."""
    folder = (copy_edited(fixture, tmp_path, failed_without_a_tree)
              if without_a_tree == "failed" else
              copy_without(fixture, tmp_path, lambda n: any(t in n for t in TREE_LAYOUTS)))
    text = report_of(folder)
    svg = (folder / "figures" / "kofler_fig5.svg").read_text()
    assert svg.count("n/m") == 6  # two versions in each of the three panels
    rows = {r[0]: r for r in rows_after(text, "Table 2")}
    assert rows["N-body"][11] == rows["N-body"][12] == "not measured"
    regret = rows_after(text, "Regret — the method's choice")
    assert {r[3] for r in regret} == {"not measured (no tree)"}
    assert regret[0][7] == "not measured" and regret[0][8].endswith("]")  # kdlg's regret
    assert "- geometric-mean regret of kdlg-tree: not measured" in text
    for claim_id in ("nbody-method-selects-soa", "sampo-kdlg-tree-gain",
                     "method-never-slower-than-aos"):
        assert "| not measured |" in claim_row(text, claim_id), claim_id
    assert "| reproduced |" in claim_row(text, "bitonic-kdlg-one-cluster")  # kdlg needs no tree


def test_fig1_says_the_trees_clustering_was_not_measured_without_a_tree(fixture, tmp_path):
    # the same folder's figures: test_without_a_tree_fig5_marks_the_trees_versions_not_measured
    text = report_of(copy_edited(fixture, tmp_path, failed_without_a_tree), text_only=True)
    assert "- 128K initial eggs, `kdlg-tree`: not measured" in text
    assert "- 128K initial eggs, `kdlg`: availableEggs+" in text  # kdlg needs no tree
    assert "that cell 1.05× the fastest's time; `kdlg-tree`: not measured" in text


def test_a_label_that_is_not_the_trees_choice_is_one_error_and_nothing_is_written(fixture,
                                                                                    tmp_path):
    bad = "cluster_layouts=tiled-64;tree_gpu=NVIDIA H100 80GB HBM3"  # pos|vel: two clusters

    def relabel(entries):
        return [{**e, "label": bad} if "/nbody/gpu/kdlg-tree/" in e["name"] else e
                for e in entries]
    folder, out = copy_edited(fixture, tmp_path, relabel), tmp_path / "out"
    stderr = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(stderr):
        assert main(["--out", str(out), str(folder)]) == 2
    (line,) = stderr.getvalue().splitlines()
    assert (f"kofler.gpu0.json: kofler/nbody/gpu/kdlg-tree/float/partition:pos|vel/size:16384: "
            f"label '{bad}' is not the decision tree's choice: expected "
            "cluster_layouts=<layout>|...;runs_as=<aos, soa, tiled-ct-<t> or partition>;"
            "tree_gpu=<GPU name> with 2 layout(s) (aos, soa or tiled-<t>), one per cluster of "
            "pos|vel (docs/advisor.md)") in line
    assert not out.exists() or not any(out.iterdir())


def method_bench(layout, partition=None, label=None, error=None):
    params = {**({"partition": partition} if partition else {}), "size": 1}
    return replace(bench(layout, 1, 1.0, app="nbody", error=error), params=params, label=label)


TREE_GPU = ";tree_gpu=NVIDIA H100 80GB HBM3; a name with ; and = in it"


@pytest.mark.parametrize("layout, partition, label, choice, ran, text", [
    # results from before runs_as (2026-11-26): the tree's choice, nothing on the code
    ("kdlg-tree", "pos|vel", "cluster_layouts=tiled-64|soa" + TREE_GPU,
     ["tiled-64", "soa"], None, "pos: tiled-64; vel: soa"),
    ("tiled-tree", None, "cluster_layouts=tiled-32" + TREE_GPU, ["tiled-32"], None,
     "all fields: tiled-32"),
    ("kdlg-tree", "a+b|c", "cluster_layouts=aos|tiled-8" + TREE_GPU, ["aos", "tiled-8"], None,
     "a+b: aos; c: tiled-8"),
    ("kdlg", "pos|vel", None, None, None, "pos: aos; vel: aos"),
    ("kdlg-tree", "pos|vel", None, None, None, "the tree's choice not recorded (no label)"),
    ("soa", None, "cluster_layouts=soa" + TREE_GPU, None, None, None),  # not a tree layout
    # with runs_as: what ran it too
    ("kdlg-tree", "pos|vel", "cluster_layouts=tiled-64|soa;runs_as=soa" + TREE_GPU,
     ["tiled-64", "soa"], "soa", "pos: tiled-64; vel: soa — compiled SoA"),
    ("tiled-tree", None, "cluster_layouts=tiled-32;runs_as=tiled-ct-32" + TREE_GPU,
     ["tiled-32"], "tiled-ct-32", "all fields: tiled-32 — compiled tiled-ct-32"),
    ("kdlg-tree", "a+b|c", "cluster_layouts=aos|tiled-8;runs_as=partition" + TREE_GPU,
     ["aos", "tiled-8"], "partition", "a+b: aos; c: tiled-8 — run-time partition"),
    ("kdlg", "pos|vel", "runs_as=soa", None, "soa", "pos: aos; vel: aos — compiled SoA"),
    ("kdlg", "a+b|c", "runs_as=partition", None, "partition",
     "a+b: aos; c: aos — run-time partition"),
])
def test_the_trees_choice_is_read_from_the_label(layout, partition, label, choice, ran, text):
    benchmark = method_bench(layout, partition, label)
    expected = choice and {"cluster_layouts": choice, "runs_as": ran,
                           "tree_gpu": TREE_GPU.split("=", 1)[1]}
    assert method_choice(benchmark) == expected
    assert runs_as(benchmark) == ran
    assert method_layout_text(benchmark) == text


@pytest.mark.parametrize("label", ["runs_as=compiled", "runs_as=", "runs_as=tiled-32",
                                   "cluster_layouts=aos;runs_as=aos;tree_gpu=G", "aos"])
def test_a_kdlg_label_not_naming_what_ran_it_is_an_error_naming_the_benchmark(label):
    with pytest.raises(ResultsError, match=r"^hand-built: p/nbody/gpu/.*: label '.*' is not what "
                                           r"ran kdlg: expected runs_as="):
        runs_as(method_bench("kdlg", "pos|vel", label))


def test_a_tree_layout_that_failed_has_no_choice():
    failed = method_bench("kdlg-tree", "pos|vel", error="layout 'kdlg-tree' needs a decision tree")
    assert method_choice(failed) is None and method_layout_text(failed) == "not measured"


@pytest.mark.parametrize("layout, partition, label", [
    ("kdlg-tree", "pos|vel", "cluster_layouts=tiled-64;tree_gpu=G"),  # one layout, 2 clusters
    ("kdlg-tree", "pos|vel", "cluster_layouts=tiled-64|soa|soa;tree_gpu=G"),
    ("tiled-tree", None, "cluster_layouts=soa|soa;tree_gpu=G"),
    ("kdlg-tree", "pos|vel", "cluster_layouts=tiled-64|soa"),  # no GPU
    ("kdlg-tree", "pos|vel", "cluster_layouts=tiled-64|soa;tree_gpu="),
    ("kdlg-tree", "pos|vel", "tree_gpu=G;cluster_layouts=tiled-64|soa"),
    ("kdlg-tree", "pos|vel", "cluster_layouts=tiled-0|soa;tree_gpu=G"),
    ("kdlg-tree", "pos|vel", "cluster_layouts=tiled:64|soa;tree_gpu=G"),  # the plan's spelling
    ("kdlg-tree", "pos|vel", "cluster_layouts=blocked|soa;tree_gpu=G"),
    ("kdlg-tree", "pos|vel", ""),
    ("kdlg-tree", None, "cluster_layouts=soa;tree_gpu=G"),  # no partition in the name
    ("kdlg-tree", "pos|vel", "cluster_layouts=soa|soa;runs_as=compiled;tree_gpu=G"),
    ("kdlg-tree", "pos|vel", "cluster_layouts=soa|soa;runs_as=tiled-32;tree_gpu=G"),
])
def test_a_label_not_of_the_trees_form_is_an_error_naming_the_benchmark(layout, partition,
                                                                        label):
    with pytest.raises(ResultsError, match=r"^hand-built: p/nbody/gpu/.*: label '.*' is not the "
                                           r"decision tree's choice: expected "):
        method_choice(method_bench(layout, partition, label))


SAMPO_BIG = ("availableEggs+cycleLength+humanBloodmealCount+delay+numEggBatches+"
             "ovipositionOrLarvalDelay+hoursInState")


def test_fig1_maps_the_kdlg_clusters_tiles_under_the_one_cluster_map(report):
    """The lower maps: one per size, the 7-field cluster's tile across, the 2-field one's
    down (the fixture's kdlg-tiles: fastest at 16 and 4), kdlg at tiles 1 and 1 and
    kdlg-tree at the tree's 16 and 64 marked."""
    folder, text = report
    svg = (folder / "figures" / "kofler_fig1.svg").read_text()
    assert "the KDLG clusters' tiles (float, 32K initial eggs)" in svg
    assert "the KDLG clusters' tiles (float, 128K initial eggs)" in svg
    assert "tile of the 7-field cluster (availableEggs, …), records per tile" in svg
    assert "the 2-field cluster (isFemale, …)" in svg
    assert "kdlg (every cluster AoS)" in svg and "kdlg-tree (the tree's choice)" in svg
    assert (f"- 128K initial eggs: fastest with tile 16 for {SAMPO_BIG} and 4 for isFemale+"
            "cumulativeSporogonicDevelopment (") in text
    assert "16 of 16 combinations timed); `kdlg`'s tiles 1 and 1: that cell " in text
    assert "`kdlg-tree`'s tiles 16 and 64: that cell 1.0" in text
    assert (f"- 128K initial eggs, `kdlg-tree`: {SAMPO_BIG}: tiled-16; dead: soa" in text)


def test_fig1_without_the_tile_sweep_shows_the_methods_two_points(fixture, tmp_path):
    folder = copy_without(fixture, tmp_path, lambda n: "/kdlg-tiles/" in n)
    report_of(folder)
    svg = (folder / "figures" / "kofler_fig1.svg").read_text()
    assert "the clustering the method chose" in svg and "tree's layouts" in svg
    assert "the KDLG clusters' tiles" not in svg


def test_fig1_says_where_the_trees_choice_is_off_the_map(fixture, tmp_path):
    """A tree that lays the 2-field cluster out SoA (t = n) chose no cell of the map."""
    def relabel(entries):
        return [{**e, "label": e["label"].replace("tiled-16|soa|soa|soa|tiled-64",
                                                  "tiled-16|soa|soa|soa|soa")}
                if "/sampo/gpu/kdlg-tree/" in e["name"] else e for e in entries]
    text = report_of(copy_edited(fixture, tmp_path, relabel))
    assert "; `kdlg-tree`: tiled-16 and soa" in text


def test_regret_is_the_choice_over_the_fastest_measured_layout(report):
    folder, text = report
    rows = {(r[0], r[2]): r for r in rows_after(text, "Regret — the method's choice")}
    nbody = rows["N-body", "65.5K"]
    assert nbody[5] == "split-ct (pos-vel)"  # the fastest of every layout at that size
    fastest = median_seconds(folder, "kofler/nbody/gpu/split-ct/float/partition:pos-vel/"
                             "size:65536")
    method = median_seconds(folder, "kofler/nbody/gpu/kdlg-tree/float/partition:pos|vel/"
                            "size:65536")
    assert nbody[7].startswith(f"{method / fastest:.2f}× [")
    assert rows["SAMPO", "128K"][5] == "the choice" and rows["SAMPO", "128K"][7].startswith(
        "1.00×")
    assert rows["LavaMD", "1K"][10].endswith("slower")  # the fixture's LavaMD: 1.10× AoS
    assert "- LavaMD: kdlg-tree slower than AoS at 1 of 1 point(s)" in text
    assert "- SAMPO: kdlg-tree never slower than AoS (2 point(s))" in text
    assert "geometric-mean regret of kdlg-tree over 8 program/precision/size point(s)" in text
    # the extended value: its trial's choice named in its regret cell; never slower than AoS
    assert rows["LavaMD", "1K"][9].endswith("(soa)") and not rows["LavaMD", "1K"][11].endswith("slower")
    assert rows["SAMPO", "128K"][9].endswith("(kdlg-tree)")
    assert "- LavaMD: kdlg-tree-plus never slower than AoS (1 point(s))" in text
    assert "geometric-mean regret of kdlg-tree-plus over 8 program/precision/size point(s)" in text


def test_regret_goal_reads_the_geometric_means_interval(report):
    """Each goal on its layout's mean; the extended value's line names its worst point."""
    _, text = report
    (line,) = [l for l in text.splitlines() if l.startswith("- geometric-mean regret of kdlg-tree over")]
    assert line.endswith("— goal ≤ 1.05: missed")  # the fixture's LavaMD choice is 1.29× SoA
    (line,) = [l for l in text.splitlines() if l.startswith("- geometric-mean regret of kdlg-tree-plus")]
    # the geometric mean is 1.013 (N-body's compiled split 5 % ahead of SoA): its interval
    # straddles the goal here, while the claim reads its median (not reproduced)
    assert "— goal ≤ 1.01: inconclusive (the interval straddles it); worst 1.06× (N-body float, " in line


def test_a_run_without_the_extended_value_has_the_papers_regret_section_alone(fixture, tmp_path):
    """Runs before kdlg-tree-plus (the committed references) keep their section as it was."""
    folder = copy_without(fixture, tmp_path, lambda n: "/kdlg-tree-plus/" in n)
    section = report_of(folder).split("### Regret — the method's choice")[1].split("\n### ")[0]
    assert "kdlg-tree-plus" not in section
    assert "| regret: kdlg-tree | regret: kdlg | × AoS: kdlg-tree |" in section
    assert "The issue's goal on the H100: geometric-mean regret ≤ 1.05 (5 %)" in section


def test_without_the_other_papers_results_their_regret_is_a_section_without_data(report):
    """The other papers' records are judged on their own suites' results (test_plots_advisor_
    beyond.py); a Kofler-only run says where the method's choice for them is."""
    _, text = report
    assert ("- Regret beyond Kofler: no other paper's program in the run (the method's choice "
            "for each: `layoutbench advise --program <name>`)." in text)
    assert "### Regret beyond Kofler" not in text


def test_without_any_method_layout_regret_is_a_section_without_data(fixture, tmp_path):
    folder = copy_without(fixture, tmp_path, lambda n: "/kdlg" in n or "tiled-tree" in n)
    text = report_of(folder)
    assert ("- Regret: no kdlg-tree or kdlg benchmark (the method's layout values) in the run."
            in text)
    assert not (folder / "figures" / "kofler_regret.png").exists()


def test_the_regret_figure_draws_each_mean_and_the_goal_on_the_mean_alone(report,
                                                                          tmp_path_factory):
    """The drawn numbers (issue 42): the last group is each layout's geometric-mean regret,
    computed here from the benchmarks' medians; the goal is a line at 1.05 over that group
    only (a goal on the mean, not a threshold per point); the points wrap into page-wide rows."""
    import math
    from plots.kofler_data import METHOD
    from plots.kofler_method import EXTENDED_GOAL, REGRET_GOAL, REGRET_GROUPS_PER_ROW, regret_rows
    from plots.load import load_results
    from tests.python.report_checks import figures_of
    folder, text = report
    fig, _ = figures_of("kofler_quick", tmp_path_factory)["kofler_regret"]
    (device,) = [d.for_paper("kofler") for d in load_results([folder]).devices]
    rows = regret_rows(device)
    regrets = [method[METHOD].time_s / fastest.time_s for *_, fastest, _, method in rows
               if METHOD in method]
    expected = math.exp(sum(map(math.log, regrets)) / len(regrets))
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert len(panels) == -(-(len(rows) + 1) // REGRET_GROUPS_PER_ROW)
    assert fig.get_figwidth() * 96 <= 1104 / 0.75  # 8 pt text stays 8 px in the page
    last = panels[-1]
    labels = [t.get_text() for t in last.get_xticklabels()]
    mean_x = labels.index(f"geometric mean\n{len(rows)} points")
    goals = {line.get_label(): line for line in last.lines if line.get_label().startswith("goal")}
    assert sorted(goals) == [f"goal of kdlg-tree-plus: geometric mean ≤ {EXTENDED_GOAL:g}",
                             f"goal of kdlg-tree: geometric mean ≤ {REGRET_GOAL:g}"]
    for goal, value in zip(sorted(goals.values(), key=lambda g: g.get_label()), (EXTENDED_GOAL, REGRET_GOAL)):
        assert list(goal.get_ydata()) == [value, value]
        assert mean_x - 0.5 < min(goal.get_xdata()) < max(goal.get_xdata()) < mean_x + 0.5
    assert not [line for ax in panels[:-1] for line in ax.lines if line.get_label().startswith("goal")]
    drawn = [c.lines[0] for c in last.containers if c.lines[0].get_color() == "C3"]  # kdlg-tree
    at_mean = [l.get_ydata()[0] for l in drawn if abs(l.get_xdata()[0] - mean_x) < 0.5]
    assert at_mean == [pytest.approx(expected)]
    assert f"over {len(regrets)} program/precision/size point(s): {expected:.2f}×" in text


def regret_expected(chosen, fastest):
    """(value, low, high) of time(chosen) / time(fastest), worked out here from the medians
    and the repetitions' extremes (not through plots' speedup)."""
    from plots.estimates import time_bounds
    (c_low, c_high), (f_low, f_high) = time_bounds(chosen), time_bounds(fastest)
    return chosen.time_s / fastest.time_s, c_low / f_high, c_high / f_low


def regret_points(ax):
    """{(group, colour): (value, low, high)} of the regret points drawn on `ax`."""
    out = {}
    for container in ax.containers:
        line, _, (whiskers, *_) = container.lines
        (segment,) = whiskers.get_segments()
        low, high = sorted(y for _, y in segment)
        out[round(line.get_xdata()[0]), line.get_color()] = (line.get_ydata()[0], low, high)
    return out


def test_the_regret_figure_draws_every_points_regret_and_its_interval(report, tmp_path_factory):
    """Issue 42 item 3: each drawn point is time(choice) / time(fastest) of its program,
    precision and size, its whisker the repetitions' extremes; the mean group's whiskers the
    geometric means of the ends."""
    import math
    from plots.kofler_method import REGRET_COLORS, REGRET_GROUPS_PER_ROW, regret_rows
    from plots.load import load_results
    from tests.python.report_checks import figures_of
    folder, _ = report
    fig, _ = figures_of("kofler_quick", tmp_path_factory)["kofler_regret"]
    (device,) = [d.for_paper("kofler") for d in load_results([folder]).devices]
    rows = regret_rows(device)
    panels = [regret_points(ax) for ax in fig.axes if ax.get_visible()]
    per_layout = {}
    for k, (*_, fastest, _, method) in enumerate(rows):
        drawn = panels[k // REGRET_GROUPS_PER_ROW]
        for layout, chosen in method.items():
            expected = regret_expected(chosen, fastest)
            per_layout.setdefault(layout, []).append(expected)
            assert drawn[k % REGRET_GROUPS_PER_ROW, REGRET_COLORS[layout]] == \
                pytest.approx(expected, rel=1e-9), (k, layout)
    mean_group = len(rows) % REGRET_GROUPS_PER_ROW
    for layout, points in per_layout.items():
        geometric = [math.exp(sum(math.log(p[i]) for p in points) / len(points)) for i in range(3)]
        assert panels[-1][mean_group, REGRET_COLORS[layout]] == pytest.approx(geometric, rel=1e-9)
    assert sum(map(len, panels)) == sum(map(len, per_layout.values())) + len(per_layout)


def test_the_regret_table_shows_each_points_regret_and_its_time_over_aos(report):
    """Every row's numbers, worked out from the benchmarks: the regret of kdlg-tree and of
    kdlg over the fastest measured layout, and time(AoS) / time(kdlg-tree), with intervals."""
    from plots.kofler_method import regret_rows
    from plots.load import load_results
    from plots.text import count_label
    folder, text = report
    (device,) = [d.for_paper("kofler") for d in load_results([folder]).devices]
    table = {(r[0], r[1], r[2]): r for r in rows_after(text, "Regret — the method's choice")}

    def cell(ratio):
        value, low, high = ratio
        return f"{value:.2f}× [{low:.3g}–{high:.3g}]"

    checked = 0
    for app, precision, size, fastest, aos, method in regret_rows(device):
        row = table[PROGRAMS[app], precision, count_label(size)]
        for column, layout in ((7, "kdlg-tree"), (8, "kdlg")):
            assert row[column] == cell(regret_expected(method[layout], fastest)), (row, layout)
        plus = method["kdlg-tree-plus"]  # its cell names the trial's choice
        chosen = plus.label.split(";")[0].removeprefix("chosen=")
        assert row[9] == f"{cell(regret_expected(plus, fastest))} ({chosen})", row
        assert row[10].removesuffix(" slower") == cell(regret_expected(aos, method["kdlg-tree"]))
        assert row[11].removesuffix(" slower") == cell(regret_expected(aos, plus))
        checked += 1
    assert checked == len(table) == 8


@pytest.mark.parametrize("value, low, high, goal", [
    (1.04, 1.03, 1.05, "met"),
    (1.04, 1.03, 1.06, "inconclusive (the interval straddles it)"),  # its value below the goal
    (1.06, 1.04, 1.08, "inconclusive (the interval straddles it)"),  # its value above the goal
    (1.07, 1.051, 1.09, "missed"),
])
def test_the_regret_goal_is_judged_on_the_whole_interval_of_the_mean(value, low, high, goal):
    from plots.estimates import Estimate
    from plots.kofler_method import _goal
    assert _goal(Estimate(value, low, high), 1.05) == goal


def test_the_regret_mean_counts_the_points_that_measured_each_layout(report):
    """Without kdlg-tree at one point, its geometric mean is over the 7 others; kdlg's over 8."""
    from plots.kofler_method import AGAINST_AOS, REGRET_LAYOUTS, _summary, regret_rows
    from plots.load import load_results
    folder, _ = report
    (device,) = [d.for_paper("kofler") for d in load_results([folder]).devices]
    dropped = next(b for b in device.benchmarks if b.layout == "kdlg-tree" and b.app == "nbody")
    device = replace(device, benchmarks=tuple(b for b in device.benchmarks if b is not dropped))
    lines = _summary(device, regret_rows(device), [device], REGRET_LAYOUTS, AGAINST_AOS)
    assert [l.split(":")[0] for l in lines[:2]] == [
        "- geometric-mean regret of kdlg-tree over 7 program/precision/size point(s)",
        "- geometric-mean regret of kdlg over 8 program/precision/size point(s)"]

"""Li & Dong (kriging) figures, claims and Fig. 4 model input, on the synthetic fixture.

The fixture folder is written by fixtures/make_kriging_fixture.py into a temporary folder
(deterministic; its claims have designed verdicts, listed in the generator's docstring).
"""

import contextlib
import importlib.util
import io
import json
import shutil
from dataclasses import replace
from pathlib import Path

import matplotlib.pyplot as plt
import pytest

from plots.__main__ import main
from plots.claims import (INCONCLUSIVE, NOT_MEASURED, NOT_REPRODUCED, NOT_TRANSFERABLE, REPRODUCED,
                          ClaimsError, Scope, evaluate_claim, evaluate_claims, load_claims)
from plots.figures import figure_notes
from plots.kriging import accuracy, beyond, curves, data, model_figure, model_files
from plots.load import Benchmark, ResultsError, load_results
from plots.names import FIELDS, parse_name
from plots.papers import PAPERS

from tests.python.report_checks import (assert_figures_written, claim_row, one_worker, rendered_once)
from tests.python.report_checks import claim_rows as report_claim_rows

FIXTURES = Path(__file__).parent / "fixtures"
FIGURES = ("kriging_fig2", "kriging_fig3", "kriging_fig4", "kriging_exp7", "kriging_wells")
CONSTANT_ERROR = ("does not run: A of 1001x1001 floats needs 4 MB of __constant__ memory, "
                  "64 KiB available")
DESIGNED = {
    "exp2-over-exp1-very-high": REPRODUCED, "exp2-over-exp1-very-high-cpu": REPRODUCED,
    "exp3-over-exp2-not-very-high": REPRODUCED, "exp4-over-exp2-obvious": NOT_REPRODUCED,
    "exp4-over-exp2-obvious-cpu": REPRODUCED, "exp5-over-exp4-small": REPRODUCED,
    "exp6-over-exp5-greatly": NOT_REPRODUCED, "exp6-vs-exp5-accuracy": REPRODUCED,
    "exp4-to-exp6-declines": REPRODUCED,
    "exp6-speedup-grows": REPRODUCED, "exp6-speedup-peak-above-110": NOT_TRANSFERABLE,
    "exp6-speedup-levels-after-peak": REPRODUCED, "exp6-speedup-level-near-80": NOT_TRANSFERABLE,
}


def load_generator():
    spec = importlib.util.spec_from_file_location("make_kriging_fixture",
                                                  FIXTURES / "make_kriging_fixture.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# On the worker that draws this report for the other files too: drawn once (one_worker).
pytestmark = one_worker("kriging_quick")


@pytest.fixture(scope="module")
def generator():
    return load_generator()


@pytest.fixture(scope="module")
def fixture(generator, tmp_path_factory):
    return generator.write_fixture(tmp_path_factory.mktemp("fixture") / "kriging_quick")


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """One CLI run on a copy of the fixture, without --out: output lands in that folder."""
    return rendered_once("kriging_quick", tmp_path_factory)[0]


@pytest.fixture(scope="module")
def device(fixture):
    (device,) = load_results([fixture]).devices
    return device.for_paper("kriging")


def copy_fixture(fixture, tmp_path, name="run"):
    folder = tmp_path / name
    shutil.copytree(fixture, folder)
    return folder


def claim_rows(text):
    return [row for _, row in report_claim_rows(text)]


# --- the report ---------------------------------------------------------------------------

def test_every_figure_is_written_as_png_and_svg(report):
    assert_figures_written(report, FIGURES)
    text = (report / "REPORT.md").read_text()
    for stem in FIGURES:
        assert f"](figures/{stem}.png)" in text and f"(figures/{stem}.svg)" in text


def test_titles_name_the_paper_figure_gpu_and_preset(report):
    for stem, figure in (("kriging_fig2", "Fig. 2"), ("kriging_fig3", "Fig. 3"),
                         ("kriging_fig4", "Fig. 4")):
        svg = (report / "figures" / f"{stem}.svg").read_text()
        for words in ("Li &amp; Dong", figure, "NVIDIA H100 80GB HBM3", "preset quick"):
            assert words in svg, (stem, words)


def test_report_verdicts_are_the_designed_ones_and_none_is_not_measured(report):
    text = (report / "REPORT.md").read_text()
    assert "## CUDA ordinary kriging (Li & Dong)" in text
    assert "9 reproduced, 2 not reproduced, 0 inconclusive, 2 not transferable, 0 not measured." in text
    rows = claim_rows(text)
    for claim_id, verdict in DESIGNED.items():
        row = claim_row(text, claim_id)
        assert f" | {verdict} | " in row, claim_id
        assert "GTX 460" in row and "E5500" in row, claim_id
    assert len(rows) == len(DESIGNED)


def test_claim_values_and_notes_read_on_scales(device):
    scope = Scope(device.benchmarks, {}, {}, "scale")
    verdicts = {v.claim_id: v for v in
                evaluate_claims(load_claims(PAPERS["kriging"].claims_file), scope)}
    assert {i: v.verdict for i, v in verdicts.items()} == DESIGNED
    assert verdicts["exp2-over-exp1-very-high"].value == pytest.approx(5.0, rel=0.03)
    assert "geomean over 1 variant(s) × scales 1–10 (6)" in \
        verdicts["exp2-over-exp1-very-high"].note
    assert verdicts["exp4-over-exp2-obvious"].value == pytest.approx(1.3, rel=0.03)
    assert "'obvious gain': band 1.5 – …" in verdicts["exp4-over-exp2-obvious"].note
    accuracy = verdicts["exp6-vs-exp5-accuracy"]
    assert accuracy.measured.startswith("vs_exp5_max_rel 1.")
    assert "at scale 10" in accuracy.note and "max vs_exp5_max_abs" in accuracy.note
    level = verdicts["exp6-speedup-level-near-80"]
    assert "at scale 4 (peak)" in level.measured
    assert ("'about 80' ±10%: band 72.7 – 88; measured level (geomean at scales 8, 10) 96.3"
            in level.note)


def test_claims_file_holds_every_claim_of_the_spec_with_its_reading():
    claims = {c["id"]: c for c in load_claims(PAPERS["kriging"].claims_file)}
    assert set(claims) == set(DESIGNED)
    classes = {i: c["rule"].get("class") for i, c in claims.items()}
    assert classes["exp2-over-exp1-very-high"] == classes["exp2-over-exp1-very-high-cpu"] \
        == classes["exp6-over-exp5-greatly"] == "large gain"
    assert classes["exp3-over-exp2-not-very-high"] == "not very high gain"
    assert classes["exp4-over-exp2-obvious"] == classes["exp4-over-exp2-obvious-cpu"] \
        == "obvious gain"
    assert classes["exp5-over-exp4-small"] == "small gain"
    assert classes["exp4-to-exp6-declines"] == "faster"
    assert claims["exp6-vs-exp5-accuracy"]["rule"] == {"rule": "at_most", "limit": 1e-4}
    assert claims["exp6-vs-exp5-accuracy"]["measure"]["counter"] == "vs_exp5_max_rel"
    assert claims["exp6-speedup-peak-above-110"]["rule"] == {
        "rule": "words", "class": "more than N", "n": 110, "of": "peak"}
    assert claims["exp2-over-exp1-very-high-cpu"]["measure"]["faster"] == {"version": "cpu-exp2"}
    assert claims["exp4-over-exp2-obvious-cpu"]["measure"]["slower"] == {"version": "cpu-exp2"}
    assert claims["exp6-speedup-level-near-80"]["paper_value"] == 80
    for claim in claims.values():
        for measure in claim["measure"].get("parts", [claim["measure"]]):
            assert measure["select"].get("wells") == 10, claim["id"]


def test_accuracy_table_has_every_experiment_and_exp6_against_exp5(report, device):
    rows = {r[0]: r for r in accuracy.accuracy_rows(device)}
    assert list(rows) == [f"exp. {e}" for e in range(1, 7)] + [
        "exp. 7 float", "exp. 7 double", "exp. 8 float", "exp. 8 double"]
    name, precision, max_abs, max_rel, tolerance, scale, kappa = rows["exp. 6"]
    assert (precision, scale, kappa, tolerance) == ("float", 10, 38.5, 0.05)
    assert max_rel == pytest.approx(max_abs / 1480)
    text = (report / "REPORT.md").read_text()
    assert "\n| exp. 6 | float | 0.00033 | 2.3e-07 | 0.05 | 10 | 38.5 | yes |" in text
    vs5 = [line for line in text.splitlines() if line.count("|") == 5 and " | 4.95M | " in line]
    assert vs5 == ["| 10 | 4.95M | 0.00027 | 1.8e-07 |"]  # one GPU: no GPU column


# --- the experiment -> CPU program mapping -------------------------------------------------

def test_experiments_3_5_6_use_programs_2_4_and_4_float():
    assert data.CPU_PROGRAMS[3] == {"version": "cpu-exp2", "layout": "soa",
                                       "precision": "double"}
    assert data.CPU_PROGRAMS[5] == data.CPU_PROGRAMS[4] == {
        "version": "cpu-exp4", "layout": "soa", "precision": "double"}
    assert data.CPU_PROGRAMS[6] == {"version": "cpu-exp4", "layout": "soa",
                                       "precision": "float"}
    assert {name: exps for name, (_, exps) in data.programs().items()} == {
        "program 1": [1], "program 2": [2, 3], "program 4": [4, 5], "program 4 float": [6]}


def test_speedups_divide_by_the_mapped_cpu_program(device):
    times = {b.name: b.time_s for b in device.benchmarks}
    for experiment, gpu, cpu in ((3, "gpu-exp3/soa/double", "cpu-exp2/soa/double"),
                                 (5, "gpu-exp5/aos-const/double", "cpu-exp4/soa/double"),
                                 (6, "gpu-exp6/aos-const/float", "cpu-exp4/soa/float")):
        expected = (times[f"kriging/ok/{cpu}/scale:4/wells:10"]
                    / times[f"kriging/ok/{gpu}/scale:4/wells:10"])
        assert data.speedup_estimates(device, experiment)[4].value == pytest.approx(expected)
    exp6 = data.speedup_estimates(device, 6)
    assert max(exp6, key=lambda scale: exp6[scale].value) == 4


def test_speedup_claims_use_the_mapped_baseline():
    for claim in load_claims(PAPERS["kriging"].claims_file):
        if claim["measure"]["kind"] == "speedup_curve":
            assert claim["measure"]["baseline"] == data.CPU_PROGRAMS[6], claim["id"]


def test_captions_say_which_cpu_program_each_experiment_uses(report):
    text = (report / "REPORT.md").read_text()
    assert "experiment 3's CPU program is program 2" in text
    assert "experiment 6's is program 4 in float" in text
    fig2 = (report / "figures" / "kriging_fig2.svg").read_text()
    for legend in ("program 2 (exp. 2, 3)", "program 4 (exp. 4, 5)", "program 4 float (exp. 6)"):
        assert legend in fig2
    assert "exp. 3 / program 2" in (report / "figures" / "kriging_fig3.svg").read_text()
    assert "\n| CPU program 2 (exp. 2, 3) | 149 ms |" in text


# --- points that do not run ----------------------------------------------------------------

def test_errored_sweep_points_are_drawn_and_tabled_as_not_running(report, device):
    svg = (report / "figures" / "kriging_wells.svg").read_text()
    assert svg.count("does not run (1)") == 2  # scales 1 and 10, the same reason
    assert svg.count("does not run: A of 1001x1001") == 1  # note 1 under the figure
    assert "does not run: does not run" not in svg  # the benchmark's own prefix, said once
    text = (report / "REPORT.md").read_text()
    for scale in (1, 10):
        assert f"| exp. 6 | {scale} | 1000 | {CONSTANT_ERROR} |" in text
        assert f"| exp. 7 float | {scale} | 1000 | " in text
    sweep = data.by_wells(device, data.EXPERIMENTS[6], 10)
    assert sorted(sweep) == [10, 100, 1000] and sweep[1000].error == CONSTANT_ERROR
    curve = curves.curve("exp. 6", sweep, lambda b: b.time_s, "C5")
    assert curve.values[1000] == CONSTANT_ERROR and curve.values[100] > curve.values[10]
    assert data.sweep_scales([device]) == [1, 10]


def test_a_curve_with_errors_marks_them_and_still_names_the_series():
    fig, ax = plt.subplots()
    try:
        ran = curves.Curve("ran", {1: 1e-3, 2: 2e-3, 10: "out of memory at scale 10"}, "C0")
        failed = curves.Curve("failed", {10: "does not run: no kernel image"}, "C1")
        assert curves.draw(ax, [ran, failed], "grid", "time (s)")
        assert [t.get_text() for t in ax.texts] == ["does not run (1)", "does not run (2)"]
        assert figure_notes(fig) == ["does not run: out of memory at scale 10",
                                     "does not run: no kernel image"]  # said once each
        assert [t.get_text() for t in ax.get_legend().get_texts()] == ["ran", "failed"]
        assert ax.get_xlim()[1] >= data.grid_count(10)
    finally:
        plt.close(fig)


def test_a_run_without_benchmarks_of_a_figure_says_not_measured(tmp_path, fixture):
    folder = copy_fixture(fixture, tmp_path)
    path = folder / "kriging.gpu0.json"
    doc = json.loads(path.read_text())
    doc["benchmarks"] = [e for e in doc["benchmarks"] if "/gpu-exp7/" not in e["name"]
                         and "wells:10/" in e["name"]]
    path.write_text(json.dumps(doc))
    (device,) = load_results([folder]).devices
    wells = beyond.wells_section([device], tmp_path / "figures")
    exp7 = beyond.exp7_section([device], tmp_path / "figures")
    assert "Well-count sweep: not measured." in wells.body
    assert "Experiments 7 and 8: not measured." in exp7.body
    assert wells.body.endswith("No figure (kriging_wells): nothing measured (no run with other "
                               "than 10 wells).")
    assert not (tmp_path / "figures" / "kriging_wells.svg").exists()


def test_experiment_8_joins_the_beyond_the_paper_tables(tmp_path, fixture):
    """gpu-exp8 results (here: the fixture's exp 7 entries renamed) are drawn and tabled beside
    experiments 6 and 7, with its own accuracy row."""
    folder = copy_fixture(fixture, tmp_path)
    path = folder / "kriging.gpu0.json"
    doc = json.loads(path.read_text())
    doc["benchmarks"] += [{**e, "name": e["name"].replace("/gpu-exp7/", "/gpu-exp8/"),
                           **({"run_name": e["run_name"].replace("/gpu-exp7/", "/gpu-exp8/")}
                              if "run_name" in e else {})}
                          for e in doc["benchmarks"] if "/gpu-exp7/" in e["name"]]
    path.write_text(json.dumps(doc))
    (device,) = load_results([folder]).devices
    exp7 = beyond.exp7_section([device], tmp_path / "figures")
    wells = beyond.wells_section([device], tmp_path / "figures")
    for precision in ("float", "double"):
        assert f"| exp. 8 {precision} | 10 |" in exp7.body, exp7.body
        assert f"| exp. 8 {precision} | 1 | 1000 | " in wells.body, wells.body
        assert dict((r[0], r) for r in accuracy.accuracy_rows(device))[f"exp. 8 {precision}"][2] is not None


# --- Fig. 4: the model files -----------------------------------------------------------------

def test_model_is_read_as_a_mesh_with_x_fastest(fixture):
    model = model_files.read_model(fixture / "kriging-model.gpu0.csv")
    assert model.depth.shape == (11, 90, 50)
    assert model.surfaces[0] == "surface0" and model.surfaces[-1] == "surface10"
    assert (model.x[0], model.x[1], model.y[-1]) == (50, 150, 8950)
    assert (model.depth[1:] > model.depth[:-1]).all()  # positive down, never crossing
    wells = model_files.read_wells(fixture / "kriging-wells.gpu0.csv", model.surfaces)
    assert wells.depth.shape == (11, 10)
    assert "none cross" in model_figure.model_text(model, wells)


@pytest.mark.parametrize("missing", ["kriging-model.gpu0.csv", "kriging-wells.gpu0.csv"])
def test_a_missing_model_file_gives_a_not_drawn_note(tmp_path, fixture, missing):
    folder = copy_fixture(fixture, tmp_path)
    (folder / missing).unlink()
    (device,) = load_results([folder]).devices
    section = model_figure.fig4_section([device], tmp_path / "figures")
    assert section.figures == ()
    assert section.body.startswith(f"Fig. 4 not drawn: {missing} not in `{folder}`")
    assert not (tmp_path / "figures" / "kriging_fig4.png").exists()


def replace_line(path, number, text):
    lines = path.read_text().splitlines()
    lines[number - 1] = text
    path.write_text("\n".join(lines) + "\n")


def swap_rows(path):
    lines = path.read_text().splitlines()
    lines[2], lines[3] = lines[3], lines[2]
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("file, breakage, complaint", [
    ("model", lambda p: replace_line(p, 5, "250,50,1,2,3"), ":5: 5 values, expected 13"),
    ("model", lambda p: replace_line(p, 3, "150,50," + ",".join(["x"] * 11)),
     ":3: not a number"),
    ("model", lambda p: replace_line(p, 4, "250,50," + ",".join(["nan"] * 11)),
     ":4: NaN or infinite value"),
    ("model", lambda p: replace_line(p, 1, "easting,northing,a,b"), ":1: header must be"),
    ("model", swap_rows, ":4: x does not increase along the mesh"),
    ("model", lambda p: replace_line(p, 60, "850,250," + ",".join(["700"] * 11)),
     ":60: mesh point (850, 250) where the M × N mesh with x fastest has (850, 150)"),
    ("model", lambda p: p.write_text(""), ": empty file"),
    ("wells", lambda p: replace_line(p, 1, "x,y," + ",".join(f"s{h}" for h in range(11))),
     ":1: surface columns s0,s1,"),
])
def test_a_malformed_model_file_is_one_clear_error_naming_it(tmp_path, capsys, fixture, file,
                                                               breakage, complaint):
    folder = copy_fixture(fixture, tmp_path)
    path = folder / f"kriging-{file}.gpu0.csv"
    breakage(path)
    out = tmp_path / "out"
    assert main(["--out", str(out), str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"plots: error: {path}")
    assert complaint in err
    assert not out.exists(), "nothing is written when an input is malformed"
    with pytest.raises(ResultsError, match=path.name):
        model_files.check_inputs(load_results([folder]).devices)


# --- several papers, several GPUs, the generator -------------------------------------------

def test_a_folder_with_idw_and_kriging_reports_both(tmp_path, fixture):
    folder = copy_fixture(fixture, tmp_path)
    shutil.copy(FIXTURES / "idw_quick" / "idw.gpu0.json", folder)
    with contextlib.redirect_stdout(io.StringIO()):
        assert main([str(folder)]) == 0
    text = (folder / "REPORT.md").read_text()
    assert text.index("## IDW interpolation layouts") < text.index("## CUDA ordinary kriging")
    assert text.count("\n### Claims\n") == 2
    assert "9 reproduced, 2 not reproduced, 0 inconclusive, 2 not transferable, 0 not measured." in text
    assert "\nEach verbal claim is read" in text
    assert "\nSpeedups and ratios the paper states as numbers" in text
    for stem in FIGURES + ("idw_fig7",):
        assert (folder / "figures" / f"{stem}.png").is_file(), stem


def test_several_folders_are_several_gpus_and_fig4_comes_from_the_first(tmp_path, fixture):
    folders = []
    for gpu in ("NVIDIA H100 80GB HBM3", "NVIDIA H200"):
        folder = copy_fixture(fixture, tmp_path, gpu.split()[-1])
        path = folder / "kriging.gpu0.json"
        doc = json.loads(path.read_text())
        doc["context"]["lb"]["gpu"].update(name=gpu, uuid=f"GPU-{gpu}")
        path.write_text(json.dumps(doc))
        folders.append(str(folder))
    (Path(folders[0]) / "kriging-model.gpu0.csv").unlink()
    out = tmp_path / "out"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--out", str(out), *folders]) == 0
    text = (out / "REPORT.md").read_text()
    assert "### Claims — NVIDIA H200 (preset quick)" in text
    assert "NVIDIA H200" in (out / "figures" / "kriging_fig2.svg").read_text()
    fig4 = (out / "figures" / "kriging_fig4.svg").read_text()
    assert "NVIDIA H200 (first GPU with a model)" in fig4


def test_generator_is_deterministic_and_follows_the_results_contract(generator):
    doc = generator.build_fixture()
    assert doc == generator.build_fixture()
    assert generator.model_rows() == generator.model_rows()
    assert doc["context"]["lb"]["run"]["suite"] == "kriging"
    names = {parse_name(e["name"])["benchmark"]: e for e in doc["benchmarks"]
             if e["run_type"] == "iteration"}
    assert len(names) == 84
    exp6 = names["kriging/ok/gpu-exp6/aos-const/float/scale:6/wells:10"]
    assert {"vs_exp5_max_abs", "vs_exp5_max_rel", "kappa", "tolerance"} <= set(exp6)
    assert "vs_exp5_max_rel" not in names["kriging/ok/gpu-exp6/aos-const/float/scale:1/wells:100"]
    exp7 = names["kriging/ok/gpu-exp7/dense/double/scale:2/wells:10"]
    assert exp7["x_memory_bound"] == pytest.approx(exp7["device_s"] / exp7["memory_bound_s"])
    cpu = names["kriging/ok/cpu-exp1/soa/double/scale:10/wells:10"]
    assert cpu["sampled"] == 1 and cpu["estimates"] == 4_950_000
    errored = [n for n, e in names.items() if e.get("error_occurred")]
    assert sorted(errored) == [f"kriging/ok/gpu-exp6/aos-const/float/scale:{s}/wells:1000"
                               for s in (1, 10)]


# --- the generic claim machinery the kriging claims added ----------------------------------

def bench(name, time_s=None, error=None, **counters):
    parsed = parse_name(name)
    return Benchmark(name=parsed["benchmark"], params=parsed["params"], device="test GPU",
                     preset="test", source=Path("hand-built"), time_s=time_s, error=error,
                     counters=counters, **{f: parsed[f] for f in FIELDS})


def krig(version, scale, precision="float", layout="soa", wells=10):
    return f"kriging/ok/{version}/{layout}/{precision}/scale:{scale}/wells:{wells}"


def curve_scope(speedups, extra=()):
    rows = [bench(krig("cpu-x", s), 100.0) for s in speedups]
    rows += [bench(krig("gpu-x", s), 100.0 / v) for s, v in speedups.items()]
    return Scope(tuple(rows) + tuple(extra), {"version": "cpu-x"}, {}, "scale")


def curve_claim(rule, paper="shape"):
    return {"id": "c", "text": "a claim", "quote": "q", "line": 1, "paper_value": paper,
            "rule": rule,
            "measure": {"kind": "speedup_curve", "select": {"version": "gpu-x"}}}


PEAKED = {1: 40, 2: 90, 4: 135, 6: 115, 8: 97, 10: 94}


@pytest.mark.parametrize("rule, curve, verdict", [
    ({"rule": "rises", "factor": 1.1}, PEAKED, REPRODUCED),
    ({"rule": "rises", "factor": 1.1}, {1: 100, 2: 105, 4: 90}, NOT_REPRODUCED),
    ({"rule": "rises", "factor": 1.1}, {1: 100, 2: 90, 4: 80}, NOT_REPRODUCED),
    ({"rule": "words", "class": "more than N", "n": 110, "of": "peak"}, PEAKED, REPRODUCED),
    ({"rule": "words", "class": "more than N", "n": 140, "of": "peak"}, PEAKED, NOT_REPRODUCED),
    ({"rule": "peak_then_level", "points": 2, "drop": 0.1, "flat": 0.1}, PEAKED, REPRODUCED),
    ({"rule": "peak_then_level", "points": 2, "drop": 0.1, "flat": 0.1},
     {1: 40, 2: 90, 4: 100, 6: 110, 8: 120, 10: 125}, NOT_REPRODUCED),  # still rising
    ({"rule": "peak_then_level", "points": 2, "drop": 0.1, "flat": 0.1},
     {1: 40, 4: 135, 8: 110, 10: 80}, NOT_REPRODUCED),  # still falling
    ({"rule": "peak_then_level", "points": 2, "drop": 0.1, "flat": 0.1},
     {1: 40, 4: 135, 8: 130, 10: 128}, NOT_REPRODUCED),  # no drop after the peak
])
def test_curve_rules_read_the_shape_of_a_speedup_curve(rule, curve, verdict):
    result = evaluate_claim(curve_claim(rule), curve_scope(curve))
    assert result.value == [pytest.approx(v) for v in curve.values()]
    assert result.verdict == verdict


def test_plateau_is_the_geomean_of_the_last_points_within_tolerance_of_the_paper():
    rule = {"rule": "words", "class": "about N", "of": "level", "points": 2}
    near = evaluate_claim(curve_claim(rule, 80), curve_scope({1: 40, 4: 135, 8: 84, 10: 81}))
    far = evaluate_claim(curve_claim(rule, 80), curve_scope(PEAKED))
    assert (near.verdict, far.verdict) == (REPRODUCED, NOT_REPRODUCED)
    assert ("'about 80' ±10%: band 72.7 – 88; measured level (geomean at scales 8, 10) 95.5"
            in far.note)
    assert far.measured == "40.0× at scale 1 → 135× at scale 4 (peak) → 94.0× at scale 10"


@pytest.mark.parametrize("rule", [
    {"rule": "peak_then_level", "points": 2, "drop": 0.1, "flat": 0.1},
    {"rule": "words", "class": "about N", "of": "level", "points": 2},  # needs a lead-in
])
def test_a_curve_too_short_for_its_rule_is_not_measured_but_shows_what_was(rule):
    result = evaluate_claim(curve_claim(rule, 80), curve_scope({1: 40, 10: 94}))
    assert result.verdict == NOT_MEASURED
    assert f"2 scale(s) measured; rule '{rule['rule']}' needs at least 3" in result.note
    assert result.measured.startswith("40.0× at scale 1")


def test_speedup_curve_without_a_baseline_is_a_claims_error():
    scope = Scope(curve_scope(PEAKED).benchmarks, {}, {}, "scale")
    with pytest.raises(ClaimsError, match="needs a 'baseline'"):
        evaluate_claim(curve_claim({"rule": "rises", "factor": 1.1}), scope)


@pytest.mark.parametrize("rule, value, verdict", [
    ({"rule": "words", "class": "large gain"}, 2.0, REPRODUCED),
    ({"rule": "words", "class": "large gain"}, 1.9, NOT_REPRODUCED),
    ({"rule": "words", "class": "small gain"}, 1.15, REPRODUCED),
    ({"rule": "words", "class": "small gain"}, 0.98, NOT_REPRODUCED),  # a loss, no noise
    ({"rule": "words", "class": "small gain"}, 1.55, NOT_REPRODUCED),
    ({"rule": "words", "class": "not very high gain"}, 1.9, REPRODUCED),
    ({"rule": "words", "class": "obvious gain"}, 1.3, NOT_REPRODUCED),
])
def test_verbal_bounds_on_a_ratio(rule, value, verdict):
    rows = [bench(krig("gpu-a", s), 1.0) for s in (1, 10)]
    rows += [bench(krig("gpu-b", s), value) for s in (1, 10)]
    measure = {"kind": "ratio", "select": {"wells": 10}, "faster": {"version": "gpu-a"},
               "slower": {"version": "gpu-b"}}
    claim = {"id": "c", "text": "t", "quote": "q", "line": 1, "paper_value": "words",
             "measure": measure, "rule": rule}
    result = evaluate_claim(claim, Scope(tuple(rows), {}, {}, "scale"))
    assert result.value == pytest.approx(value)
    assert result.verdict == verdict


def counter_claim(**measure):
    return {"id": "c", "text": "t", "paper_value": "no loss",
            "rule": {"rule": "at_most", "limit": 1e-4},
            "measure": {"kind": "counter", "select": {"version": "gpu-x"},
                        "counter": "vs_exp5_max_rel", **measure}}


def test_counter_measure_takes_the_worst_scale_and_reports_companions():
    rows = (bench(krig("gpu-x", 1), 1.0, vs_exp5_max_rel=2e-7, vs_exp5_max_abs=3e-4),
            bench(krig("gpu-x", 10), 1.0, vs_exp5_max_rel=5e-5, vs_exp5_max_abs=7e-2),
            bench(krig("gpu-x", 1, wells=1000), error="does not fit"))
    result = evaluate_claim(counter_claim(also=["vs_exp5_max_abs"]),
                            Scope(rows, {}, {"wells": 10}, "scale"))
    assert result.value == pytest.approx(5e-5) and result.verdict == REPRODUCED
    assert result.measured == "vs_exp5_max_rel 5e-05"
    assert "max over scales 1–10 (2), at scale 10" in result.note
    assert "max vs_exp5_max_abs 0.07" in result.note


@pytest.mark.parametrize("ranges, verdict", [
    ({1: (1e-7, 3e-7), 10: (4e-5, 6e-5)}, REPRODUCED),        # every repetition under the limit
    ({1: (1e-7, 3e-7), 10: (4e-5, 1.5e-4)}, INCONCLUSIVE),    # the worst scale's straddle it
    ({1: (1e-7, 3e-7), 10: (1.1e-4, 1.5e-4)}, NOT_REPRODUCED),
])
def test_counter_measure_carries_the_repetitions_extremes(ranges, verdict):
    """A counter's value is its median, its interval its extremes over the repetitions, each
    reduced over the scales as the value is: at_most is then inconclusive where they straddle."""
    rows = tuple(replace(bench(krig("gpu-x", s), 1.0, vs_exp5_max_rel=sum(r) / 2),
                         counter_ranges={"vs_exp5_max_rel": r}) for s, r in ranges.items())
    result = evaluate_claim(counter_claim(), Scope(rows, {}, {}, "scale"))
    assert result.verdict == verdict, result.note


@pytest.mark.parametrize("rows, complaint", [
    ((bench(krig("gpu-x", 1), 1.0),), "no vs_exp5_max_rel counter: kriging/ok/gpu-x"),
    ((bench(krig("gpu-x", 1), 1.0, vs_exp5_max_rel=1e-7),
      bench(krig("gpu-x", 2), error="validation failed")), "errored: kriging/ok/gpu-x"),
    ((), "absent: gpu-x (every scale)"),
])
def test_counter_measure_is_not_measured_without_the_counter_on_every_run(rows, complaint):
    result = evaluate_claim(counter_claim(), Scope(rows, {}, {}, "scale"))
    assert result.verdict == NOT_MEASURED
    assert complaint in result.note


@pytest.mark.parametrize("measure, rule, complaint", [
    ({"kind": "counter", "select": {}}, {"rule": "at_most", "limit": 1}, "needs counter"),
    ({"kind": "speedup_curve"}, {"rule": "rises", "factor": 1.1}, "needs select"),
    ({"kind": "ratio", "select": {}, "faster": {}, "slower": {}}, {"rule": "words"},
     "needs class"),
    ({"kind": "speedup_curve", "select": {}}, {"rule": "peak_then_level", "points": 2},
     "needs drop, flat"),
])
def test_malformed_claims_of_the_new_kinds_are_rejected(tmp_path, measure, rule, complaint):
    path = tmp_path / "paper.json"
    path.write_text(json.dumps({"claims": [{"id": "c", "text": "t", "paper_value": 1,
                                            "quote": "q", "line": 1,
                                            "measure": measure, "rule": rule}]}))
    with pytest.raises(ClaimsError, match=complaint):
        load_claims(path)


def test_counter_measure_with_an_unknown_reduction_is_a_claims_error():
    rows = (bench(krig("gpu-x", 1), 1.0, vs_exp5_max_rel=1e-7),)
    with pytest.raises(ClaimsError, match="'reduce' must be one of max, min"):
        evaluate_claim(counter_claim(reduce="mean"), Scope(rows, {}, {}, "scale"))

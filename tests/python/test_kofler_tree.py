"""Kofler's per-GPU decision tree (plots/kofler_tree.py; the registry's fit step of suite
kofler-tree and the kofler suite's tree input, which harness/orchestrator/inputs.py follows):
the training patterns (fastest + less than 1 % slower), the fit on a results file with a known
answer, the JSON format, where a run finds a GPU's tree, its figure, and the orchestrator's
fit step and --kofler-tree pass-through against the fake binary."""
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from plots import kofler_tree
from plots.figures import TextOutsideFigure, UnreadableFigure
from plots.load import load_results, read_result_file
from plots.papers import PAPERS

from tests.python.report_checks import load_fixture_generator

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "harness"))  # harness/run.py's parts, as run.py finds them
from orchestrator.binary import Registry  # noqa: E402
from orchestrator.inputs import COMMITTED_DIR_ENV, input_args, suite_inputs  # noqa: E402

# The registry the binary prints (tests/python/fixtures/registry.json, kept equal to it by
# test_suite_registry.py): the kofler suite takes the fit's tree as its input "kofler-tree".
_SUITES = json.loads((Path(__file__).with_name("fixtures") / "registry.json").read_text())["suites"]
REGISTRY = Registry([s["name"] for s in _SUITES], {s["name"]: s["steps"] for s in _SUITES}, {},
                    {s["name"]: s["inputs"] for s in _SUITES})
INPUTS = suite_inputs(REGISTRY)
(TREE_INPUT,) = INPUTS["kofler"]
TREES = TREE_INPUT.source  # the fit step's output "tree"

fixture = load_fixture_generator("kofler_tree")
try:
    import sklearn  # noqa: F401
    HAS_SKLEARN = True
except ImportError:
    HAS_SKLEARN = False
needs_sklearn = pytest.mark.skipif(not HAS_SKLEARN, reason="scikit-learn is not installed")


# ------------------------------------------------------------------------------ patterns

def test_a_class_0_9_percent_slower_is_a_pattern_and_1_1_percent_is_not():
    times = {"soa": 1.0, "tiled:64": 1.009, "tiled:128": 1.011, "aos": 2.0}
    assert kofler_tree.near_fastest(times) == ["soa", "tiled:64"]


def test_patterns_are_every_kernels_near_fastest_classes_at_its_bytes():
    kernels = {(2, 128): {"aos": 1.0, "soa": 1.005, "tiled:8": 1.5},
               (2, 1024): {"aos": 2.0, "soa": 1.0, "tiled:8": 1.0},
               (5, 128): {"aos": 3.0, "soa": 1.0, "tiled:8": 1.02}}
    assert kofler_tree.patterns(kernels) == [(8, "aos"), (8, "soa"), (8, "tiled:8"), (8, "soa"),
                                             (20, "soa")]


def test_kernels_leave_out_failed_benchmarks_and_name_classes(tmp_path):
    path = fixture.write_fixture(tmp_path, fields=(3,), iterations=(128,),
                                 classes=("aos", "soa", "tiled:32"))
    document = json.loads(path.read_text())
    failed = "kofler-tree/synthetic/gpu/aos/float/fields:3/n:128"
    document["benchmarks"] = [e for e in document["benchmarks"] if not e["name"].startswith(failed)]
    document["benchmarks"].append({"name": failed + "/manual_time", "run_name": failed,
                                   "run_type": "iteration", "repetitions": 3,
                                   "repetition_index": 0, "threads": 1, "error_occurred": True,
                                   "error_message": "record 5 field 0: got nan, expected 12",
                                   "iterations": 0, "real_time": 0, "cpu_time": 0,
                                   "time_unit": "us"})
    path.write_text(json.dumps(document))
    kernels = kofler_tree.kernels(read_result_file(path).benchmarks)
    assert list(kernels) == [(3, 128)] and sorted(kernels[(3, 128)]) == ["soa", "tiled:32"]


# ------------------------------------------------------------------------------ intervals

def test_intervals_are_integer_bytes_from_1_merged_and_open_at_the_end():
    def predict(sigma):
        return "tiled:32" if sigma <= 16.5 else "tiled:32" if sigma <= 20 else "soa"
    assert kofler_tree.intervals(predict, [16.5, 20.0, 0.5]) == [
        {"from_bytes": 1, "to_bytes": 20, "class": "tiled:32"},
        {"from_bytes": 21, "to_bytes": None, "class": "soa"}]
    assert kofler_tree.intervals(lambda s: "aos", []) == [
        {"from_bytes": 1, "to_bytes": None, "class": "aos"}]


def test_a_split_between_two_trained_sizes_lies_at_the_smaller_one_as_c5_places_it():
    def predict(sigma):  # scikit-learn's split half-way between 16 and 24
        return "tiled:32" if sigma <= 20.0 else "soa"
    trained = [4, 8, 16, 24, 32]
    assert kofler_tree.intervals(predict, [20.0], trained) == [
        {"from_bytes": 1, "to_bytes": 16, "class": "tiled:32"},
        {"from_bytes": 17, "to_bytes": None, "class": "soa"}]


# ------------------------------------------------------------------------------ the fit

@needs_sklearn
def test_fit_on_a_known_answer_gives_tile_32_up_to_16_bytes_then_soa(tmp_path):
    tree = kofler_tree.make_tree(read_result_file(fixture.write_fixture(tmp_path)))
    assert tree["intervals"] == [{"from_bytes": 1, "to_bytes": 16, "class": "tiled:32"},
                                 {"from_bytes": 17, "to_bytes": None, "class": "soa"}]
    assert tree["training"]["accuracy"] == 1.0
    kernels = len(fixture.FIELDS) * len(fixture.ITERATIONS)
    # one pattern a kernel, and m = 2's tile 64 (0.9 % slower) twice more
    assert tree["training"]["kernels"] == kernels
    assert tree["training"]["patterns"] == kernels + len(fixture.ITERATIONS)


@needs_sklearn
def test_tree_json_has_the_agreed_format(tmp_path):
    out = tmp_path / "tree.json"
    assert kofler_tree.main(["fit", "--results", str(fixture.write_fixture(tmp_path)),
                             "--out", str(out)]) == 0
    tree = json.loads(out.read_text())
    assert set(tree) == {"format", "gpu", "feature", "tile_unit", "intervals", "classes",
                         "training", "sklearn"}
    assert tree["format"] == "layoutbench-kofler-tree/1"
    assert tree["gpu"] == {"name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-fixture-0000"}
    assert (tree["feature"], tree["tile_unit"]) == ("cluster_bytes", "records")
    assert tree["classes"] == list(kofler_tree.CLASSES[:1]) + [
        f"tiled:{t}" for t in fixture.TILES] + ["soa"]
    training = tree["training"]
    assert training["commit"] == "0123456789abcdef0123456789abcdef01234567"
    assert training["grid"] == {"fields": list(fixture.FIELDS),
                                "iterations": list(fixture.ITERATIONS),
                                "classes": tree["classes"], "records": fixture.RECORDS,
                                "threads": fixture.THREADS}
    assert isinstance(training["patterns"], int) and 0 <= training["accuracy"] <= 1
    assert "seconds" in training
    assert set(tree["sklearn"]) == {"version", "params", "text"}
    assert "cluster_bytes <= 18.00" in tree["sklearn"]["text"]  # half-way, placed at 16
    kofler_tree.check_tree(tree, out)  # what a reader checks
    assert TREES.read(out) == tree  # what the orchestrator takes for a tree


def test_a_tree_with_a_gap_or_an_unknown_class_is_refused():
    good = {"format": kofler_tree.FORMAT,
            "intervals": [{"from_bytes": 1, "to_bytes": 16, "class": "tiled:32"},
                          {"from_bytes": 17, "to_bytes": None, "class": "soa"}]}
    kofler_tree.check_tree(good, "t.json")
    for spans, problem in (
            ([{"from_bytes": 1, "to_bytes": 16, "class": "tiled:32"},
              {"from_bytes": 18, "to_bytes": None, "class": "soa"}], "does not start at 17"),
            ([{"from_bytes": 1, "to_bytes": None, "class": "tiled:3"}], "unknown class"),
            ([{"from_bytes": 1, "to_bytes": 16, "class": "soa"}], "bad end")):
        with pytest.raises(kofler_tree.TreeError, match=problem):
            kofler_tree.check_tree(dict(good, intervals=spans), "t.json")


def test_fit_without_scikit_learn_is_one_line_naming_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "sklearn", None)  # import sklearn now raises ImportError
    out = tmp_path / "tree.json"
    code = kofler_tree.main(["fit", "--results", str(fixture.write_fixture(tmp_path)),
                             "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert err.count("\n") == 1 and "scikit-learn is not installed" in err


def test_fit_on_other_results_is_one_message(tmp_path, capsys):
    path = tmp_path / "kofler.gpu0.json"
    path.write_text(fixture.write_fixture(tmp_path).read_text())
    assert kofler_tree.main(["fit", "--results", str(path), "--out", str(tmp_path / "t.json")]) == 2
    assert "not results of the kofler-tree suite" in capsys.readouterr().err


# ------------------------------------------------------------------------------ find the tree

def test_the_kofler_suite_takes_the_fits_tree_and_trees_are_committed_in_results_trees():
    assert (TREE_INPUT.name, TREES.suite, TREES.step["name"], TREES.output) == (
        "kofler-tree", kofler_tree.SUITE, "fit", "tree")
    assert TREES.committed == {"folder": "results/trees", "format": kofler_tree.FORMAT,
                               "reuse": "reuse"}
    assert kofler_tree.tree_path(Path("run"), 3) == TREES.own(Path("run"), 3)


def tree_file(path, name, uuid, cls="soa"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"format": kofler_tree.FORMAT, "gpu": {"name": name, "uuid": uuid},
                                "intervals": [{"from_bytes": 1, "to_bytes": None, "class": cls}]}))
    return path


def test_find_tree_takes_the_runs_own_then_committed_by_uuid_then_by_name(tmp_path):
    run, committed = tmp_path / "run", tmp_path / "trees"
    run.mkdir()
    name, uuid = "NVIDIA H100 80GB HBM3", "GPU-1234"
    assert TREES.find(run, name, uuid, committed) is None
    by_name = tree_file(committed / "nvidia-h100-80gb-hbm3.json", name, "GPU-other")
    assert TREES.find(run, name, uuid, committed) == by_name
    by_uuid = tree_file(committed / "my-lab-h100.json", "renamed", uuid)
    assert TREES.find(run, name, uuid, committed) == by_uuid
    tree_file(run / "kofler-tree" / "tree.gpu0.json", name, "GPU-another-card")  # not this GPU
    assert TREES.find(run, name, uuid, committed) == by_uuid
    own = tree_file(run / "kofler-tree" / "tree.gpu1.json", name, uuid)
    assert TREES.find(run, name, uuid, committed) == own
    (run / "kofler-tree" / "tree.gpu1.json").write_text("{not json")  # unreadable: not a tree
    assert TREES.find(run, name, uuid, committed) == by_uuid
    (run / "kofler-tree" / "tree.gpu1.json").write_text(json.dumps(
        {"format": "another/1", "gpu": {"name": name, "uuid": uuid}}))  # not of the format
    assert TREES.find(run, name, uuid, committed) == by_uuid


def test_kofler_tree_args_only_for_the_kofler_suite_and_only_with_a_tree(tmp_path, monkeypatch):
    committed = tmp_path / "trees"
    monkeypatch.setenv(COMMITTED_DIR_ENV, str(committed))
    assert input_args(INPUTS["kofler"], tmp_path, "GPU X", "GPU-x") == []
    path = tree_file(committed / "gpu-x.json", "GPU X", "GPU-y")
    assert input_args(INPUTS["kofler"], tmp_path, "GPU X", "GPU-x") == ["--kofler-tree", str(path)]
    assert [suite for suite, inputs in INPUTS.items() if inputs] == ["kofler"]


# ------------------------------------------------------------------------------ figure

@needs_sklearn
def test_tree_figure_is_drawn_readable_and_in_the_report_registry(tmp_path):
    fixture.write_fixture(tmp_path)
    tree = kofler_tree.make_tree(read_result_file(tmp_path / "kofler-tree.gpu0.json"))
    kofler_tree.write_tree(tree, kofler_tree.tree_path(tmp_path, 0))
    devices = [d.for_paper("kofler-tree") for d in load_results([tmp_path]).devices]
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnreadableFigure)
        warnings.simplefilter("error", TextOutsideFigure)
        (section,) = PAPERS["kofler-tree"].render(devices, tmp_path / "figures")
    assert [p.name for p in section.figures] == ["kofler_tree.png"]
    assert section.figures[0].exists() and section.figures[0].with_suffix(".svg").exists()
    assert "1–16 B: tiled:32, 17–∞ B: soa" in section.body and "100 %" in section.body


def test_without_a_tree_the_report_says_so(tmp_path):
    fixture.write_fixture(tmp_path, fields=(1,), iterations=(128,), classes=("aos", "soa"))
    devices = [d.for_paper("kofler-tree") for d in load_results([tmp_path]).devices]
    (section,) = kofler_tree.render(devices, tmp_path / "figures")
    assert not section.figures and "No device" in section.body


# ------------------------------------------------------------------------------ orchestrator

FAKE = Path(__file__).with_name("fake_layoutbench.py")


def orchestrate(tmp_path, preset_text, *args, **env):
    binary = tmp_path / "layoutbench"
    binary.write_text(f'#!/bin/sh\nexec "{sys.executable}" -S "{FAKE}" "$@"\n')
    binary.chmod(0o755)
    preset = tmp_path / "tree.json"
    preset.write_text(preset_text)
    calls = tmp_path / "calls.jsonl"
    environment = {k: v for k, v in os.environ.items()
                   if not k.startswith("FAKE_LB_") and k != "CUDA_VISIBLE_DEVICES"}
    environment.update(FAKE_LB_CALLS=str(calls), FAKE_LB_SUITES="kofler-tree,kofler",
                       LB_PRESET_DIR=str(Path(__file__).with_name("fixtures") / "presets"),
                       LB_COMMITTED_DIR=str(tmp_path / "trees"), **env)
    result = subprocess.run([sys.executable, str(REPO / "harness" / "run.py"), "--bin", str(binary),
                             "--results-root", str(tmp_path / "runs"), "--preset", str(preset),
                             "--no-figures", *args], env=environment, capture_output=True,
                            text=True, timeout=120, cwd=REPO)
    runs = [json.loads(line) for line in calls.read_text().splitlines()] if calls.exists() else []
    return result, [c["argv"] for c in runs if c["argv"][0] == "run"]


def tree_preset(reuse):
    return ('{\n  "suites": {\n    "kofler-tree": {\n      "records": 4096,\n'
            f'      "fit": {{"reuse": {reuse}}}\n    }},\n    "kofler": {{}}\n  }}\n}}\n')


def suite_of(argv):
    return argv[argv.index("--suite") + 1]


@needs_sklearn
def test_training_then_fit_then_kofler_gets_the_runs_own_tree(tmp_path):
    result, runs = orchestrate(tmp_path, tree_preset(0))
    assert result.returncode == 0, result.stdout + result.stderr
    (run_dir,) = (tmp_path / "runs").iterdir()
    tree = run_dir / "kofler-tree" / "tree.gpu0.json"
    assert [suite_of(r) for r in runs] == ["kofler-tree", "kofler"]
    assert "--kofler-tree" not in runs[0]
    assert runs[1][runs[1].index("--kofler-tree") + 1] == str(tree.resolve())
    document = json.loads(tree.read_text())
    assert document["gpu"] == {"name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-fake-0"}
    assert document["intervals"] == [{"from_bytes": 1, "to_bytes": 16, "class": "tiled:32"},
                                     {"from_bytes": 17, "to_bytes": None, "class": "soa"}]
    assert "kofler-tree fit gpu0: tree.gpu0.json" in result.stdout


def test_quick_reuses_a_committed_tree_and_skips_training(tmp_path):
    committed = tree_file(tmp_path / "trees" / "nvidia-h100-80gb-hbm3.json",
                          "NVIDIA H100 80GB HBM3", "GPU-elsewhere")
    result, runs = orchestrate(tmp_path, tree_preset(1))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "[gpu 0] kofler-tree: skipped: the committed tree" in result.stdout
    assert [suite_of(r) for r in runs] == ["kofler"]
    assert runs[0][runs[0].index("--kofler-tree") + 1] == str(committed)


def test_without_a_committed_tree_quick_trains_and_a_failed_fit_is_a_warning(tmp_path):
    result, runs = orchestrate(tmp_path, tree_preset(1), FAKE_LB_DEVICES="1")
    assert result.returncode == 0, result.stdout + result.stderr
    assert [suite_of(r) for r in runs] == ["kofler-tree", "kofler"]
    if not HAS_SKLEARN:  # the step fails with the one line naming scikit-learn
        assert "scikit-learn is not installed" in result.stdout + result.stderr
        assert "--kofler-tree" not in runs[1]


TREE_VALUES = ("tiled-tree/float/size:2048", "kdlg-tree/float/partition:pos|vel/size:2048",
               "kdlg-tree-plus/float/partition:pos|vel/size:2048")


@pytest.mark.parametrize("tree_from", ["training", "committed"])
def test_the_kofler_plan_made_before_the_tree_is_what_the_kofler_run_runs(tmp_path, tree_from):
    """The orchestrator plans every suite before kofler-tree trains the tree; kofler's plan holds
    the method's tree values all the same (the binary plans them with or without a tree), so
    the plan counts, progress and results agree and a resume finds the same plan. Without a
    tree (no scikit-learn: the fit fails) the tree values are failures, not missing."""
    if tree_from == "committed":
        tree_file(tmp_path / "trees" / "nvidia-h100-80gb-hbm3.json", "NVIDIA H100 80GB HBM3", "GPU-elsewhere")
    preset = tree_preset(1 if tree_from == "committed" else 0)
    result, runs = orchestrate(tmp_path, preset)
    assert result.returncode == 0, result.stdout + result.stderr
    (run_dir,) = (tmp_path / "runs").iterdir()
    planned = json.loads((run_dir / "run.json").read_text())["plan"]["kofler"]
    results = json.loads((run_dir / "kofler.gpu0.json").read_text())["benchmarks"]
    names = {b["run_name"] for b in results}
    assert len(names) == planned == 10  # 6 of the fake's own, the method's 3 and kdlg-tree-plus
    assert f"kofler: {planned}/{planned} benchmarks done" in result.stdout
    with_tree = "--kofler-tree" in runs[-1]
    assert with_tree == (tree_from == "committed" or HAS_SKLEARN)
    failed = {b["run_name"] for b in results if b.get("error_occurred")}
    assert failed == (set() if with_tree else {f"kofler/nbody/gpu/{v}/manual_time" for v in TREE_VALUES})
    resumed, _ = orchestrate(tmp_path, preset, "--resume", str(run_dir))
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "now plans" not in resumed.stdout + resumed.stderr
    assert json.loads((run_dir / "run.json").read_text())["plan"]["kofler"] == planned

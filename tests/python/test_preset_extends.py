"""Presets that extend one another ("extends": "paper"), as the orchestrator reads them for
the suites a preset configures and its artifact steps' objects: the same merge rule as the
binary's (harness/preset.cpp; tests/cpp/test_harness.cpp tests it there), and the compare
preset, which extends paper, configures what paper does."""
import json
import math
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "harness"))  # harness/run.py's parts, as run.py finds them
from orchestrator.binary import Registry  # noqa: E402
from orchestrator.common import UsageError  # noqa: E402
from orchestrator.presets import (artifact_specs, merge_preset, preset_suites,  # noqa: E402
                                  read_preset)

PRESETS = REPO / "harness" / "presets"
NAMED = {p.stem: p for p in sorted(PRESETS.glob("*.json"))}


def registry(named=NAMED):
    """The fake binary's suites and steps (tests/python/fixtures/registry.json), with `named`."""
    suites = json.loads((Path(__file__).with_name("fixtures") / "registry.json").read_text())["suites"]
    return Registry([s["name"] for s in suites], {s["name"]: s["steps"] for s in suites}, named)


def test_objects_merge_key_by_key_and_everything_else_replaces():
    parent = {"a": {"x": 1, "y": [1, 2]}, "b": {"z": 1}, "c": 1}
    child = {"a": {"y": [3], "w": None}, "b": [1], "c": {"k": 2}}
    assert merge_preset(parent, child) == {"a": {"x": 1, "y": [3], "w": None}, "b": [1], "c": {"k": 2}}
    assert parent == {"a": {"x": 1, "y": [1, 2]}, "b": {"z": 1}, "c": 1}  # left as it was


def write(folder, name, document):
    path = folder / f"{name}.json"
    path.write_text(json.dumps(document, indent=1) if not isinstance(document, str) else document)
    return path


def test_a_chain_merges_from_the_farthest_up(tmp_path):
    named = {"base": write(tmp_path, "base", {"repetitions": 3, "suites": {
        "idw": {"sizes": [1024, 2048], "powers": [2]}, "kriging": {"model": {"scale": 1}}}}),
             "mid": write(tmp_path, "mid", {"extends": "base", "repetitions": 5,
                                            "suites": {"idw": {"sizes": [4096]}}})}
    top = write(tmp_path, "top", {"extends": "mid", "suites": {"kriging": {"model": {"scale": 2}}}})
    read = read_preset(top, named)
    assert read.document == {"repetitions": 5, "suites": {
        "idw": {"sizes": [4096], "powers": [2]}, "kriging": {"model": {"scale": 2}}}}
    assert [f for f, _ in read.files] == [top, named["mid"], named["base"]]
    assert read.file_with("powers")[0] == named["base"]
    assert read.file_with("model")[0] == top


def error_of(call, *args):
    with pytest.raises(UsageError) as raised:
        call(*args)
    return str(raised.value)


def test_a_circle_and_a_bad_extends_are_one_error_naming_the_files(tmp_path):
    named = {"a": write(tmp_path, "a", {"extends": "b"}), "b": write(tmp_path, "b", {"extends": "a"})}
    a, b = named["a"], named["b"]
    assert error_of(read_preset, a, named) == f"{b}: 'extends' goes round in a circle: {a} extends {b} extends {a}"
    for bad in ("nope", "../a", str(a), 3, None):
        child = write(tmp_path, "child", {"extends": bad, "suites": {}})
        assert error_of(read_preset, child, named) == \
            f"{child}: 'extends' must name a preset of the preset folder (a, b); got {json.dumps(bad)}"
    write(tmp_path, "a", "{\n\"extends\": [")
    assert error_of(read_preset, write(tmp_path, "child", {"extends": "a"}), named).startswith(
        f"{a}:2: malformed JSON")


def test_an_artifact_steps_error_points_into_the_file_that_has_its_object(tmp_path):
    named = {"base": write(tmp_path, "base", '{"suites": {"kriging":\n{"model": {"scale": 0, "experiment": 1}}}}')}
    child = write(tmp_path, "child", {"extends": "base", "repetitions": 2})
    assert error_of(artifact_specs, str(child), registry(named)).startswith(
        f"{named['base']}:2: suites.kriging.model: 'scale' must be at least 1")


def test_compare_configures_what_paper_does_with_enough_repetitions_for_the_u_test():
    compare, paper = (read_preset(NAMED[name], NAMED) for name in ("compare", "paper"))
    assert compare.files[1][0] == NAMED["paper"] and '"suites"' not in compare.files[0][1]
    assert {k: v for k, v in compare.document.items() if k not in ("description", "repetitions")} == \
        {k: v for k, v in paper.document.items() if k not in ("description", "repetitions")}
    n = compare.document["repetitions"]
    assert n >= 9 and 2 / math.comb(2 * n, n) < 0.05  # 9 vs 9 can reach p < 0.05 (two-sided)
    r = registry()
    assert preset_suites("compare", r) == preset_suites("paper", r)
    assert [(s.suite, s.values) for s in artifact_specs("compare", r)] == \
        [(s.suite, s.values) for s in artifact_specs("paper", r)] != []

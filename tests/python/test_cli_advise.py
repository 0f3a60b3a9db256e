"""`layoutbench advise` end to end (docs/advisor.md): N-body's recorded accesses give the
clusters pos|vel, each laid out as a given tree says; every other program (every paper's) is
advised the same way; --json is the same as one object; an
unknown program, a bad tree file or a bad --kofler-tree is one line on stderr, exit 2, nothing
on stdout. The method's layout values in `plan` (the same names with or without a tree) and,
on a GPU, in `run` (without a tree they fail, with one they carry its choice in their label).
The advisor's output on the paper's worked example is tested in tests/cpp/test_advisor.cpp.
Skipped when the binary has not been built."""
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "build" / "layoutbench"

pytestmark = pytest.mark.skipif(not BIN.exists(), reason=f"needs the built binary {BIN}")

TREE = {"format": "layoutbench-kofler-tree/1", "gpu": {"name": "Test GPU", "uuid": "GPU-1"},
        "feature": "cluster_bytes", "tile_unit": "records",
        "intervals": [{"from_bytes": 1, "to_bytes": 16, "class": "tiled:64"},
                      {"from_bytes": 17, "to_bytes": None, "class": "soa"}]}


# Every recordable program (docs/advisor.md): Kofler's five, then the other papers'.
PROGRAMS = ["bitonic", "blackscholes", "lavamd", "nbody", "sampo", "idw-naive", "idw-tiled", "kriging",
            "synthetic", "bfs", "traffic-cars", "traffic-cells"]
OTHER_RECORDS = {"idw-naive": "point", "idw-tiled": "point", "kriging": "well", "synthetic": "object",
                 "bfs": "vertex", "traffic-cars": "car", "traffic-cells": "cell"}


def run(*args):
    env = dict(os.environ, LB_PRESET_DIR=str(ROOT / "harness" / "presets"))
    return subprocess.run([str(BIN), *map(str, args)], capture_output=True, text=True, timeout=120, env=env)


def write_tree(tmp_path, tree=TREE):
    path = tmp_path / "tree.json"
    path.write_text(json.dumps(tree))
    return path


def test_nbody_splits_pos_and_vel_and_the_tree_lays_out_each(tmp_path):
    r = run("advise", "--program", "nbody")
    assert r.returncode == 0, r.stderr
    assert "program nbody, recorded at: " in r.stdout
    assert "clusters (epsilon 128 B): pos|vel\n" in r.stdout
    assert "no tree given: clusters only" in r.stdout
    r = run("advise", "--program", "nbody", "--tree", write_tree(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "  pos: sigma 16 B, diameter 0, layout tiled:64\n" in r.stdout
    assert "  kdlg-tree: pos tiled:64 | vel tiled:64\n  tiled-tree: one cluster, sigma 32 B, layout soa\n" in r.stdout


def test_help_lists_every_program():
    r = run("advise", "--help")
    assert r.returncode == 0, r.stderr
    assert "the program whose bodies record: " + ", ".join(PROGRAMS) in " ".join(r.stdout.split())


@pytest.mark.parametrize("program", PROGRAMS)
def test_every_program_is_advised_with_its_clusters_and_the_trees_choice(tmp_path, program):
    """The text names the program (and its record, for the other papers'), the problem
    recorded, a δ row per field, the clusters and, with a tree, each cluster's class; --json
    is the same advice: its partition is the text's, every field in exactly one cluster."""
    r = run("advise", "--program", program, "--tree", write_tree(tmp_path))
    assert r.returncode == 0, r.stderr
    record = f" (record: {OTHER_RECORDS[program]})" if program in OTHER_RECORDS else ""
    assert r.stdout.startswith(f"program {program}{record}, recorded at: ")
    j = run("advise", "--program", program, "--tree", write_tree(tmp_path), "--json")
    assert j.returncode == 0, j.stderr
    advice = json.loads(j.stdout)
    assert advice["program"] == program and advice.get("record") == OTHER_RECORDS.get(program)
    assert f"clusters (epsilon 128 B): {advice['partition']}\n" in r.stdout
    names = [f["name"] for f in advice["fields"]]
    assert sorted(f for c in advice["clusters"] for f in c["fields"]) == sorted(names)
    assert len(advice["delta"]) == len(names)
    for c in advice["clusters"]:
        assert c["layout"] == ("tiled:64" if c["bytes"] <= 16 else "soa")  # TREE's intervals
        assert f"  {'+'.join(c['fields'])}: sigma {c['bytes']} B, diameter {c['diameter']}, layout {c['layout']}\n" \
            in r.stdout


def test_json_is_the_same_advice(tmp_path):
    r = run("advise", "--program", "nbody", "--tree", write_tree(tmp_path), "--json")
    assert r.returncode == 0, r.stderr
    advice = json.loads(r.stdout)
    assert advice["program"] == "nbody" and advice["partition"] == "pos|vel"
    assert [c["fields"] for c in advice["clusters"]] == [["pos"], ["vel"]]
    assert [c["layout"] for c in advice["clusters"]] == ["tiled:64", "tiled:64"]
    assert advice["whole_record_layout"] == "soa"
    assert advice["delta"][0][0] == 0 and advice["delta"][0][1] >= 128


def test_a_larger_epsilon_joins_what_128_bytes_kept_apart():
    r = run("advise", "--program", "nbody", "--epsilon", "1000000", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["partition"] == "pos+vel"


@pytest.mark.parametrize("args, problem", [
    (["advise", "--program", "nope"], "layoutbench: error: no recorded bodies for program 'nope'; recordable: "
                                      + ", ".join(PROGRAMS)),
    (["advise", "--program", "nbody", "--tree", "{tree}"],
     "layoutbench: error: {tree}: interval 2: from_bytes 18 leaves a gap after the previous interval, which ends at 16"),
    (["plan", "--suite", "kofler", "--preset", "paper", "--kofler-tree", "{tree}"],
     "layoutbench: error: {tree}: interval 2: from_bytes 18 leaves a gap after the previous interval, which ends at 16"),
])
def test_mistakes_are_one_line_and_exit_2(tmp_path, args, problem):
    bad = json.loads(json.dumps(TREE))
    bad["intervals"][1]["from_bytes"] = 18
    tree = str(write_tree(tmp_path, bad))
    r = run(*[a.replace("{tree}", tree) for a in args])
    assert r.returncode == 2
    assert r.stdout == ""
    assert r.stderr == problem.replace("{tree}", tree) + "\n"


NBODY_METHOD = ["kofler/nbody/gpu/kdlg/float/partition:pos|vel/size:65536",
                "kofler/nbody/gpu/tiled-tree/float/size:65536",
                "kofler/nbody/gpu/kdlg-tree/float/partition:pos|vel/size:65536",
                "kofler/nbody/gpu/kdlg-tree-plus/float/partition:pos|vel/size:65536"]


def test_paper_plans_the_tree_layouts_the_same_with_or_without_a_tree(tmp_path):
    """The method's three values (and kdlg-tree-plus) are planned with or without --kofler-tree, under names that do
    not depend on the tree (the KDLG partition only): runs on GPUs with different trees pair up,
    and the orchestrator's plan (made before kofler-tree trains the tree) is the run's."""
    args = ["plan", "--suite", "kofler", "--preset", "paper", "--filter", "nbody/gpu/(kdlg|tiled-tree).*/size:65536"]
    r = run(*args)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == NBODY_METHOD
    assert r.stderr == ""
    with_tree = run(*args, "--kofler-tree", write_tree(tmp_path))
    assert with_tree.returncode == 0, with_tree.stderr
    assert with_tree.stdout == r.stdout and with_tree.stderr == ""
    whole = run("plan", "--suite", "kofler", "--preset", "paper")
    assert whole.returncode == 0, whole.stderr
    assert run("plan", "--suite", "kofler", "--preset", "paper", "--kofler-tree", write_tree(tmp_path)).stdout \
        == whole.stdout


def journal_runs(path):
    """{name: [its "run" records]} and {name: ok} of a `layoutbench run` journal."""
    runs, done = {}, {}
    for line in path.read_text().splitlines():
        entry = json.loads(line)
        if entry["type"] == "run":
            runs.setdefault(entry["name"], []).append(entry["run"])
        elif entry["type"] == "done":
            done[entry["name"]] = entry["ok"]
    return runs, done


def test_tree_values_without_a_tree_fail_each_with_the_option_and_with_one_carry_the_trees_choice(tmp_path, gpu):
    """Run on the GPU: without a tree, tiled-tree, kdlg-tree and kdlg-tree-plus fail (each its
    own failure, the message naming --kofler-tree) and the run goes on (kdlg passes); with a
    tree every value passes, the tree's carry what it chose in their label, kdlg-tree-plus what
    its trial chose, and every label says the code that ran it (runs_as: N-body's fields alone
    are the compiled SoA)."""
    # The paper preset's N-body size: --sizes would apply to every Kofler program the filter
    # then drops, and LavaMD refuses 4096 boxes per side.
    args = ["run", "--suite", "kofler", "--preset", "paper", "--filter", "nbody/gpu/(kdlg|tiled-tree).*/size:65536"]
    names = NBODY_METHOD
    r = run(*args, "--journal", tmp_path / "without.jsonl")
    assert r.returncode == 0, r.stderr
    runs, done = journal_runs(tmp_path / "without.jsonl")
    assert done == {names[0]: True, names[1]: False, names[2]: False, names[3]: False}
    for name, layout in ((names[1], "tiled-tree"), (names[2], "kdlg-tree"), (names[3], "kdlg-tree-plus")):
        assert {x["error_message"] for x in runs[name]} == {
            f"layout '{layout}' needs a decision tree: give --kofler-tree FILE (make reproduce trains one: "
            "suite kofler-tree, docs/kofler-tree.md)"}
    r = run(*args, "--journal", tmp_path / "with.jsonl", "--kofler-tree", write_tree(tmp_path))
    assert r.returncode == 0, r.stderr
    runs, done = journal_runs(tmp_path / "with.jsonl")
    assert done == {name: True for name in names}
    assert {x.get("label") for x in runs[names[0]]} == {"runs_as=soa"}  # kdlg: pos|vel, each alone
    # TREE: 16 B (pos, vel) -> tiled:64; 32 B (the whole record) -> soa
    assert {x["label"] for x in runs[names[1]]} == {"cluster_layouts=soa;runs_as=soa;tree_gpu=Test GPU"}
    assert {x["label"] for x in runs[names[2]]} == {
        "cluster_layouts=tiled-64|tiled-64;runs_as=soa;tree_gpu=Test GPU"}
    # kdlg-tree-plus: kdlg-tree is the compiled SoA here (it shares soa's trial), tiled-tree too
    (plus,) = {x["label"] for x in runs[names[3]]}
    assert re.fullmatch(r"chosen=(aos|soa);runs_as=\1;trial_us=aos:[0-9.]+\[[0-9.]+,[0-9.]+\]\|"
                        r"soa:[0-9.]+\[[0-9.]+,[0-9.]+\]\|kdlg-tree:as soa\|tiled-tree:as soa;"
                        r"tree_gpu=Test GPU", plus), plus

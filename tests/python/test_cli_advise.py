"""`layoutbench advise` end to end (docs/advisor.md): N-body's recorded accesses give the
clusters pos|vel, each laid out as a given tree says; --json is the same as one object; an
unknown program, a bad tree file or a bad --kofler-tree is one line on stderr, exit 2, nothing
on stdout. The advisor's output on the paper's worked example is tested in
tests/cpp/test_advisor.cpp. Skipped when the binary has not been built."""
import json
import os
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
                                      "bitonic, blackscholes, lavamd, nbody, sampo"),
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


def test_paper_plans_the_tree_layouts_only_with_a_tree(tmp_path):
    """Without --kofler-tree the paper preset plans kdlg and notes what it left out; with one it
    plans all three values, named by the partition and each cluster's layout."""
    r = run("plan", "--suite", "kofler", "--preset", "paper", "--filter", "nbody/gpu/(kdlg|tiled-tree)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["kofler/nbody/gpu/kdlg/float/partition:pos|vel/size:65536",
                                "kofler/nbody/gpu/kdlg/float/partition:pos|vel/size:131072"]
    assert "layoutbench: note: nbody: tiled-tree, kdlg-tree not planned: no decision tree given " \
           "(give --kofler-tree FILE)" in r.stderr
    r = run("plan", "--suite", "kofler", "--preset", "paper", "--filter", "nbody/gpu/(kdlg|tiled-tree).*/size:65536",
            "--kofler-tree", write_tree(tmp_path))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [
        "kofler/nbody/gpu/kdlg/float/partition:pos|vel/size:65536",
        "kofler/nbody/gpu/tiled-tree/float/partition:pos+vel/cluster_layouts:soa/size:65536",
        "kofler/nbody/gpu/kdlg-tree/float/partition:pos|vel/cluster_layouts:tiled-64|tiled-64/size:65536"]
    assert "note" not in r.stderr

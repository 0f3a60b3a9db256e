"""`layoutbench traffic` end to end: the network's statistics and a summary on stdout, the final
state as CSV (one row per car), the same file for the same seed and another for another seed;
bad options are one line on stderr, `layoutbench: error: ...`, exit 2, no output file. The
rules are tested in tests/cpp/test_traffic.cpp. Skipped when the binary has not been built."""
import csv
import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "build" / "layoutbench"
SMALL = ROOT / "fuzz" / "corpus" / "street_network" / "old_style.graphml"  # 97 cells, no sinks
MANHATTAN = ROOT.parent / "shared" / "datasets" / "lowermanhattan.graphml"

pytestmark = pytest.mark.skipif(not BIN.exists(), reason=f"needs the built binary {BIN}")


def run(*args, env=None):
    return subprocess.run([str(BIN), "traffic", *map(str, args)], capture_output=True, text=True, timeout=120,
                          env=env)


def simulate(tmp_path, network=SMALL, cars=20, steps=50, seed=3, name="state.csv"):
    out = tmp_path / name
    r = run("--network", network, "--cars", cars, "--steps", steps, "--seed", seed, "--out", out)
    assert r.returncode == 0, r.stderr
    return r, out


def test_prints_the_statistics_and_writes_a_row_per_car(tmp_path):
    r, out = simulate(tmp_path)
    assert "nodes 4, edges 6 (1 self-loops, 1 parallel), streets 6, cells 97 of 4 m" in r.stdout
    assert "1 traffic lights, 1 yield controllers, 6 signal groups" in r.stdout
    assert "simulation: 8 turns, 0 sink cells; cell fan-in at most 4, fan-out at most 2" in r.stdout
    assert "traffic (cpu): 50 steps of 20 cars in" in r.stdout and "invariants hold; checksum " in r.stdout
    with out.open() as f:
        rows = list(csv.DictReader(f))
    assert [int(row["car"]) for row in rows] == list(range(20))
    cells = [int(row["cell"]) for row in rows if row["active"] == "1"]
    assert len(cells) == len(set(cells)) == 20  # no sinks here: every car active, one a cell
    for row in rows:
        path = [int(c) for c in row["path"].split()]
        assert int(row["velocity"]) <= min(len(path), int(row["max_velocity"]))
        assert all(0 <= c < 97 for c in path)
        if int(row["velocity"]) > 0:
            assert path[int(row["velocity"]) - 1] == int(row["cell"])  # it moved along its path
    assert not list(tmp_path.glob(".state.csv.*"))  # no temporary file left


def test_the_same_seed_gives_the_same_state_and_another_seed_another(tmp_path):
    a = simulate(tmp_path, name="a.csv")[1].read_text()
    b = simulate(tmp_path, name="b.csv")[1].read_text()
    c = simulate(tmp_path, seed=4, name="c.csv")[1].read_text()
    assert a == b
    assert a != c


def test_lower_manhattan(tmp_path):
    if not MANHATTAN.exists():
        pytest.skip(f"shared datasets not present: {MANHATTAN}")
    r, out = simulate(tmp_path, network=MANHATTAN, cars=2000, steps=100)
    assert "cells 123696" in r.stdout
    assert "simulation: 9998 turns, 29 sink cells; cell fan-in at most 6, fan-out at most 6" in r.stdout
    assert len(out.read_text().splitlines()) == 2001


@pytest.mark.parametrize("args, message", [
    (["--cars", "0", "--steps", "1"], "--cars: give at least 1 car"),
    (["--cars", "98", "--steps", "1"], "--cars 98: the network has 97 cells a car can start on (97 cells, 0 sinks)"),
    (["--cars", "-1", "--steps", "1"], "--cars: '-1' is not a non-negative integer"),
    (["--cars", "5", "--steps", "1.5"], "--steps: '1.5' is not a non-negative integer"),
    (["--cars", "5", "--steps", "4294967296"], "--steps 4294967296: at most 4294967295"),
    (["--cars", "5", "--steps", "1", "--seed", "x"], "--seed: 'x' is not a non-negative integer"),
    (["--cars", "5", "--steps", "1", "--field", "path"],
     "--field, --strategy and --inline choose a layout: give --layout aos|soa|aosoa32 (or --device gpu)"),
    (["--cars", "5", "--steps", "1", "--layout", "soa", "--strategy", "none"],
     "--strategy none: give the array field it is for (--field incoming, outgoing, path or cells)"),
    (["--cars", "5", "--steps", "1", "--layout", "aos", "--field", "cells", "--strategy", "object"],
     "--field cells (aos object): both cell arrays apart run in soa with strategy object or none only"),
    (["--cars", "5", "--steps", "1", "--layout", "aos", "--field", "incoming", "--strategy", "partial", "--inline", "9"],
     "--inline 9: Cell::incoming holds at most 8 elements"),
    (["--cars", "5", "--steps", "1", "--device", "gpu", "--field", "path", "--inline", "3"],
     "--inline: an inline count (3) is for the partial strategy only, not full"),
    (["--cars", "5", "--steps", "1", "--layout", "aosoa"], "--layout: 'aosoa' is not one of aos, soa"),
    (["--cars", "5", "--steps", "1", "--device", "tpu"], "--device: 'tpu' is not one of cpu, gpu"),
    (["--cars", "5"], "--steps is required"),
])
def test_bad_options_are_one_error_with_exit_2_and_no_file(tmp_path, args, message):
    out = tmp_path / "state.csv"
    r = run("--network", SMALL, *args, "--out", out)
    assert r.returncode == 2
    assert r.stdout == ""
    assert r.stderr.startswith("layoutbench: error: " + message), r.stderr
    assert r.stderr.count("\n") == 1
    assert not list(tmp_path.iterdir())


def test_gpu_device_without_a_gpu_says_so_before_any_work(tmp_path):
    # CUDA_VISIBLE_DEVICES="" hides every GPU, so this runs on a GPU machine too.
    out = tmp_path / "state.csv"
    r = run("--network", SMALL, "--cars", 5, "--steps", 1, "--device", "gpu", "--out", out,
            env={**os.environ, "CUDA_VISIBLE_DEVICES": ""})
    assert (r.returncode, r.stdout) == (2, "")  # no statistics printed first
    assert r.stderr.startswith("layoutbench: error: no CUDA GPU visible: --device gpu needs one"), r.stderr
    assert r.stderr.count("\n") == 1
    assert not list(tmp_path.iterdir())


def summary(stdout):
    """The summary line's counts and checksum (without the time, the layout and the file)."""
    found = re.search(r"^traffic \(.*\): (\d+ steps of \d+ cars) in [\d.]+ s: (.*) -> ", stdout.splitlines()[-1])
    assert found, stdout
    return found.groups()


@pytest.mark.parametrize("layout", [["--layout", "aos", "--field", "path", "--strategy", "partial", "--inline", "6"],
                                    ["--layout", "soa", "--field", "incoming", "--strategy", "none"],
                                    ["--layout", "soa", "--field", "cells", "--strategy", "object"]])
def test_a_layout_on_the_host_ends_in_the_references_state(tmp_path, layout):
    ref, ref_out = simulate(tmp_path, name="ref.csv")
    out = tmp_path / "laid_out.csv"
    r = run("--network", SMALL, "--cars", 20, "--steps", 50, "--seed", 3, *layout, "--out", out)
    assert r.returncode == 0, r.stderr
    assert "traffic (cpu, " in r.stdout.splitlines()[-1]
    assert summary(r.stdout) == summary(ref.stdout)
    assert "checksum" in summary(r.stdout)[1]
    assert out.read_text() == ref_out.read_text()


def test_a_bad_network_or_output_is_refused(tmp_path):
    r = run("--network", tmp_path / "absent.graphml", "--cars", 1, "--steps", 1, "--out", tmp_path / "s.csv")
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == f"layoutbench: error: {tmp_path / 'absent.graphml'}: cannot open file (No such file or directory)\n"
    r = run("--network", SMALL, "--cars", 1, "--steps", 1, "--out", tmp_path / "s.txt")
    assert r.returncode == 2 and "unknown extension '.txt'" in r.stderr
    bad = tmp_path / "bad.graphml"
    bad.write_text('<graphml><graph><node id="1"/></graph></graphml>')
    r = run("--network", bad, "--cars", 1, "--steps", 1, "--out", tmp_path / "s.csv")
    assert r.returncode == 2 and r.stderr.startswith(f"layoutbench: error: {bad}:1: node '1' has no x coordinate")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.graphml"]

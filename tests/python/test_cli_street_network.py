"""`layoutbench street-network --network FILE` end to end: the statistics of an OSMnx GraphML
street network on stdout (exit 0); a malformed file, a missing file or a missing option is one
line on stderr, `layoutbench: error: <file>:<line>: <problem>`, exit 2, nothing on stdout. The
loader's rules are tested in tests/cpp/test_street_network.cpp. Skipped when the binary has not
been built."""
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "build" / "layoutbench"
SEEDS = ROOT / "fuzz" / "corpus" / "street_network"
MANHATTAN = ROOT.parent / "shared" / "datasets" / "lowermanhattan.graphml"

pytestmark = pytest.mark.skipif(not BIN.exists(), reason=f"needs the built binary {BIN}")


def run(*args):
    return subprocess.run([str(BIN), "street-network", *map(str, args)], capture_output=True, text=True, timeout=60)


def test_prints_the_statistics():
    r = run("--network", SEEDS / "old_style.graphml")
    assert r.returncode == 0, r.stderr
    assert "nodes 4, edges 6 (1 self-loops, 1 parallel), streets 6, cells 97 of 4 m" in r.stdout
    assert "1 traffic lights, 1 yield controllers, 6 signal groups" in r.stdout


def test_lower_manhattan():
    if not MANHATTAN.exists():
        pytest.skip(f"shared datasets not present: {MANHATTAN}")
    r = run("--network", MANHATTAN)
    assert r.returncode == 0, r.stderr
    assert "nodes 2196, edges 4536" in r.stdout and "cells 123696" in r.stdout


@pytest.mark.parametrize("text, problem", [
    ("not xml at all", ":1: not an XML file: it starts with 'not xml at all'"),
    ((SEEDS / "old_style.graphml").read_text()[:1500], ":19: the file ends inside a tag"),
    ('<graphml><graph><node id="1"/></graph></graphml>', ":1: node '1' has no x coordinate"),
])
def test_a_malformed_file_is_one_error_with_exit_2(tmp_path, text, problem):
    path = tmp_path / "bad.graphml"
    path.write_text(text)
    r = run("--network", path)
    assert r.returncode == 2
    assert r.stdout == ""
    assert r.stderr.startswith(f"layoutbench: error: {path}{problem}"), r.stderr
    assert r.stderr.count("\n") == 1


def test_missing_file_and_option(tmp_path):
    r = run("--network", tmp_path / "absent.graphml")
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == f"layoutbench: error: {tmp_path / 'absent.graphml'}: cannot open file (No such file or directory)\n"
    r = run()
    assert r.returncode == 2 and "--network is required" in r.stderr

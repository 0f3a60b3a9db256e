"""The planner keeps its plans: `layoutbench plan` of the quick and paper presets lists, suite by
suite in the registry's run order, exactly the benchmarks of tests/python/fixtures/plans/<preset>.txt
(names are what results, claims and figures key on); compare, which extends paper, lists paper's. A
deliberate change of a plan regenerates the fixture (the command is in its docstring below) and says
so in its commit. Skipped when the binary has not been built."""
import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BIN = REPO / "build" / "layoutbench"
PLANS = Path(__file__).with_name("fixtures") / "plans"

pytestmark = pytest.mark.skipif(not BIN.exists(), reason=f"needs the built binary {BIN}")


def layoutbench(*args, data_dir):
    # An empty data folder: the paper preset's BFS graph "auto" is then road-like everywhere.
    env = dict(os.environ, LB_PRESET_DIR=str(REPO / "harness" / "presets"), LB_DATA_DIR=str(data_dir))
    result = subprocess.run([str(BIN), *args], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def planned(preset, data_dir):
    """What `for s in <suites>; do layoutbench plan --suite $s --preset <preset>; done` prints."""
    suites = [s["name"] for s in json.loads(layoutbench("suites", "--json", data_dir=data_dir))["suites"]]
    return "".join(layoutbench("plan", "--suite", s, "--preset", preset, data_dir=data_dir) for s in suites)


@pytest.mark.parametrize("preset, listed", [("quick", "quick"), ("paper", "paper"), ("compare", "paper")])
def test_plan_is_the_committed_list(preset, listed, tmp_path):
    expected = (PLANS / f"{listed}.txt").read_text().splitlines()
    got = planned(preset, tmp_path).splitlines()
    missing = [n for n in expected if n not in set(got)]
    extra = [n for n in got if n not in set(expected)]
    assert not missing and not extra, f"missing {missing[:5]}, extra {extra[:5]}"
    assert got == expected  # the same benchmarks in the same run order


@pytest.mark.parametrize("preset", ["quick", "paper"])
def test_every_planned_name_is_made_of_its_programs_declared_axes(preset, tmp_path):
    """One namer: <suite>/<program>/<version>/<layout>/<precision>{/<key>:<value>}, where the
    program is one the registry lists for the suite, version, layout and precision are values
    of its first three axes (inner's version is its strategy), and every key is one of its axes
    (each value one it lists, where it lists them)."""
    registry = json.loads(layoutbench("suites", "--json", data_dir=tmp_path))
    programs = {(s["name"], p["name"]): {a["name"]: a["values"] for a in p["axes"]}
                for s in registry["suites"] for p in s["programs"]}
    for name in (PLANS / f"{preset}.txt").read_text().splitlines():
        suite, program, version, layout, precision, *params = name.split("/")
        axes = programs[(suite, program)]
        for axis, value in (*zip(list(axes)[:3], (version, layout, precision)),
                            *(param.split(":", 1) for param in params)):
            assert axis in axes, f"{name}: {program} declares no axis {axis}"
            assert not axes[axis] or value in axes[axis], f"{name}: {value} is not a {axis} of {program}"


@pytest.mark.parametrize("preset", ["quick", "paper"])
def test_plan_json_says_where_each_runs_as_plots_reads_it(preset, tmp_path):
    """`plan --json` lists plan's names, each with where it runs: harness/run.py runs the CPU
    ones once per host, and plots gives every card of a folder the folder's CPU baselines by
    their version (load.HOST_VERSION_PREFIX): one rule, or a card would lack its baselines."""
    from plots.load import HOST_VERSION_PREFIX
    registry = json.loads(layoutbench("suites", "--json", data_dir=tmp_path))
    for suite in (s["name"] for s in registry["suites"]):
        plain = layoutbench("plan", "--suite", suite, "--preset", preset, data_dir=tmp_path)
        planned = json.loads(layoutbench("plan", "--json", "--suite", suite, "--preset", preset,
                                         data_dir=tmp_path))
        assert [b["name"] for b in planned] == plain.splitlines()
        for b in planned:
            on_host = b["name"].split("/")[2].startswith(HOST_VERSION_PREFIX)
            assert b["where"] == ("cpu" if on_host else "gpu"), b

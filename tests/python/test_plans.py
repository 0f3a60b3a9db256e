"""The planner keeps its plans: `layoutbench plan` of every named preset (harness/presets/*.json)
lists, suite by suite in the registry's run order, exactly the benchmarks of
tests/python/fixtures/plans/<preset>.txt (names are what results, claims and figures key on), and
the command line's overrides plan what fixtures/plans/overrides/ holds. A deliberate change of a
plan regenerates the fixture (the command is in `planned`'s docstring below) and says so in its
commit. Skipped when the binary has not been built."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BIN = REPO / "build" / "layoutbench"
PLANS = Path(__file__).with_name("fixtures") / "plans"
PRESETS = sorted(p.stem for p in (REPO / "harness" / "presets").glob("*.json"))

pytestmark = pytest.mark.skipif(not BIN.exists(), reason=f"needs the built binary {BIN}")


def layoutbench(*args, data_dir):
    # An empty data folder: the paper preset's BFS graph "auto" is then road-like everywhere.
    env = dict(os.environ, LB_PRESET_DIR=str(REPO / "harness" / "presets"), LB_DATA_DIR=str(data_dir))
    result = subprocess.run([str(BIN), *args], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def configured_suites(preset, data_dir):
    """The registry's suites, in run order, that the preset (with what it extends) configures."""
    sys.path.insert(0, str(REPO / "harness"))  # as run.py finds it
    from orchestrator.presets import read_preset
    registry = json.loads(layoutbench("suites", "--json", data_dir=data_dir))
    named = {p["name"]: Path(p["file"]) for p in registry["presets"]}
    configured = read_preset(named[preset], named).document["suites"]
    return [s["name"] for s in registry["suites"] if s["name"] in configured]


def planned(preset, data_dir):
    """What `for s in <the preset's suites>; do layoutbench plan --suite $s --preset <preset>;
    done` prints (with LB_DATA_DIR an empty folder)."""
    return "".join(layoutbench("plan", "--suite", s, "--preset", preset, data_dir=data_dir)
                   for s in configured_suites(preset, data_dir))


@pytest.mark.parametrize("preset", PRESETS)
def test_plan_is_the_committed_list(preset, tmp_path):
    fixture = PLANS / f"{preset}.txt"
    assert fixture.exists(), f"no {fixture}: every named preset's plan is pinned (see `planned`)"
    expected = fixture.read_text().splitlines()
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


# The command line's overrides whose meaning stays as it was: `layoutbench plan --suite S
# --preset P ARGS` lists fixtures/plans/overrides/<S>_<P>_<ARGS without "--", blanks and
# commas as "_">.txt. (Those whose meaning changed on purpose are tested below them.)
OVERRIDES = [
    ("idw", "quick", ["--sizes", "1000"]),  # --sizes replaces the preset's sizes
    ("idw", "quick", ["--precision", "float"]),
    ("idw", "quick", ["--precision", "double"]),
    ("idw", "quick", ["--sizes", "1000,2048", "--precision", "double"]),
    ("idw", "paper", ["--sizes", "102400", "--precision", "float"]),  # version_overrides still apply
    ("kriging", "quick", ["--sizes", "1"]),  # the scales; the well sweep at scale 1 stays
    ("kriging", "quick", ["--precision", "float"]),  # only the float programs
    ("kriging", "quick", ["--precision", "double"]),
    ("kofler-tree", "quick", ["--precision", "float"]),
]


def override_fixture(suite, preset, args):
    slug = "_".join([suite, preset, *(a.removeprefix("--").replace(",", "_") for a in args)])
    return PLANS / "overrides" / f"{slug}.txt"


@pytest.mark.parametrize("suite, preset, args", OVERRIDES)
def test_an_override_plans_the_committed_list(suite, preset, args, tmp_path):
    got = layoutbench("plan", "--suite", suite, "--preset", preset, *args, data_dir=tmp_path)
    assert got.splitlines() == override_fixture(suite, preset, args).read_text().splitlines()


@pytest.mark.parametrize("sizes, program, problem", [
    ("1024", "lavamd", "boxes_1d must be at most 1000; 1024 is not"),
    ("10", "bitonic", "sizes must be powers of two >= 1024; 10 is not"),
])
def test_sizes_a_program_refuses_are_one_error_naming_it(sizes, program, problem, tmp_path):
    env = dict(os.environ, LB_PRESET_DIR=str(REPO / "harness" / "presets"), LB_DATA_DIR=str(tmp_path))
    r = subprocess.run([str(BIN), "plan", "--suite", "kofler", "--preset", "quick", "--sizes", sizes],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 2 and not r.stdout
    assert f"--sizes: {problem} (for {program})" in r.stderr, r.stderr


def plan_error(tmp_path, *args):
    """`layoutbench plan ARGS`'s exit status, output and error."""
    env = dict(os.environ, LB_PRESET_DIR=str(REPO / "harness" / "presets"), LB_DATA_DIR=str(tmp_path))
    return subprocess.run([str(BIN), "plan", *args], capture_output=True, text=True, env=env, timeout=120)


@pytest.mark.parametrize("precision", ["float", "double"])
def test_precision_the_inner_programs_lack_is_an_error_not_every_benchmark(precision, tmp_path):
    """The inner programs compute in int: --precision float once still planned every one of
    them (the option was ignored). Now it is one error naming the precision they have."""
    r = plan_error(tmp_path, "--suite", "inner", "--preset", "quick", "--precision", precision)
    assert r.returncode == 2 and not r.stdout, r.stdout[:300]
    assert f"--precision: unknown precision '{precision}' (suite inner's programs have: int)" in r.stderr, r.stderr


def registry_of(data_dir):
    return json.loads(layoutbench("suites", "--json", data_dir=data_dir))


def pinned_sizes_axes():
    """The axis --sizes sets in each program (none: --sizes is an error naming its axes), as
    the committed registry (fixtures/registry.json) pins it with the program's other axes: a
    new program's is pinned there when the registry is regenerated, not in a table here."""
    registry = json.loads((PLANS.parent / "registry.json").read_text())
    return {(s["name"], p["name"]): a["name"] for s in registry["suites"] for p in s["programs"]
            for a in p["axes"] if a.get("shorthand") == "--sizes"}


def test_the_registry_exports_each_axis_with_its_type_and_preset_key(tmp_path):
    """Every program's axes, each with its type, the preset key it reads (null: the program
    makes its values), its values, whether names carry it (and a value they leave out) and the
    shorthand that sets it; and
    every key of a shipped preset's program object is one of its axes' keys or its settings."""
    registry = registry_of(tmp_path)
    sizes_axes = pinned_sizes_axes()
    assert {"size", "scale", "boxes_1d", "objects"} <= set(sizes_axes.values())
    for suite in registry["suites"]:
        for program in suite["programs"]:
            where = f"{suite['name']}/{program['name']}"
            axes = program["axes"]
            assert len({a["name"] for a in axes}) == len(axes), where
            for a in axes:
                assert a["type"] in ("count", "integer", "number", "text"), (where, a)
                assert a["key"] is None or (isinstance(a["key"], str) and a["key"]), (where, a)
                assert isinstance(a["values"], list) and isinstance(a["named"], bool), (where, a)
                # a value names leave out is one of the axis's (BFS's paper search, per-level)
                assert "unnamed" not in a or (a["named"] and a["unnamed"] in a["values"]), (where, a)
            assert sum(a["named"] for a in axes[:3]) == 3, f"{where}: <version>/<layout>/<precision> first"
            shorthands = {a["shorthand"]: a["name"] for a in axes if "shorthand" in a}
            assert shorthands.get("--precision") == axes[2]["name"] == "precision", where
            assert shorthands.get("--sizes") == sizes_axes.get((suite["name"], program["name"])), where
            sized = [a for a in axes if a.get("shorthand") == "--sizes"]
            assert len(sized) <= 1 and all(a["type"] in ("count", "integer") and a["key"] for a in sized), where
    sys.path.insert(0, str(REPO / "harness"))
    from orchestrator.presets import read_preset
    named = {p["name"]: Path(p["file"]) for p in registry["presets"]}
    for preset in PRESETS:
        document = read_preset(named[preset], named).document
        for suite in registry["suites"]:
            section = document["suites"].get(suite["name"])
            if section is None:
                continue
            for program in suite["programs"]:
                obj = section if suite["section"] == "one_program" else section.get(program["name"])
                if obj is None:
                    continue
                known = {a["key"].split(".")[0] for a in program["axes"] if a["key"]} | set(program["settings"])
                assert set(obj) <= known, f"{preset}: {suite['name']}/{program['name']}: {set(obj) - known}"


@pytest.mark.parametrize("suite", ["idw", "kriging", "kofler-tree", "kofler", "inner"])
def test_axis_on_a_names_version_layout_or_precision_plans_the_names_that_have_that_value(suite, tmp_path):
    """`--axis NAME=v` for each value v the quick plan has on a name's first three axes plans
    exactly the quick plan's names with v there (the preset's list replaced where it lists the
    axis, the program's own values narrowed otherwise: the same for these), and
    `--precision v` the same as `--axis precision=v`: every program, one rule."""
    registry = registry_of(tmp_path)
    programs = next(s for s in registry["suites"] if s["name"] == suite)["programs"]
    plan = [n for n in (PLANS / "quick.txt").read_text().splitlines() if n.split("/")[0] == suite]
    for k in range(3):
        (axis,) = {p["axes"][k]["name"] for p in programs}
        for value in dict.fromkeys(n.split("/")[2 + k] for n in plan):
            want = [n for n in plan if n.split("/")[2 + k] == value]
            got = layoutbench("plan", "--suite", suite, "--preset", "quick", "--axis", f"{axis}={value}",
                              data_dir=tmp_path).splitlines()
            assert got == want, f"--axis {axis}={value}"
            if axis == "precision" and value in ("float", "double"):
                assert layoutbench("plan", "--suite", suite, "--preset", "quick", "--precision", value,
                                   data_dir=tmp_path).splitlines() == want


@pytest.mark.parametrize("args, error", [
    (["--suite", "kofler", "--axis", "colour=red"],
     "--axis colour: nbody has no axis 'colour' (nbody has the axes version, layout, precision, tile, "),
    (["--suite", "kofler", "--axis", "layout=aosoa"], "--axis layout: unknown layout 'aosoa' (suite kofler's programs have: aos, soa, "),
    (["--suite", "kofler", "--axis", "layout="], "--axis layout: an empty list of values"),
    (["--suite", "kofler", "--axis", "layout=aos,aos"], "--axis layout: 'aos' is given twice"),
    (["--suite", "kofler", "--axis", "layout=aos", "--axis", "layout=soa"], "--axis layout is given twice"),
    (["--suite", "idw", "--sizes", "1024", "--axis", "size=2048"], "both set shepard's axis 'size'"),
    (["--suite", "kofler-tree", "--sizes", "1024"], "--sizes: synthetic has no axis that --sizes sets"),
    (["--suite", "inner", "--sizes", "1024"], "--sizes: bfs has no axis that --sizes sets"),
    (["--suite", "kofler-tree", "--precision", "double"],
     "--precision: unknown precision 'double' (suite kofler-tree's programs have: float)"),
])
def test_axis_mistakes_are_one_error(args, error, tmp_path):
    r = plan_error(tmp_path, "--preset", "quick", *args)
    assert r.returncode == 2 and not r.stdout, r.stdout[:300]
    assert len(r.stderr.strip().splitlines()) == 1 and error in r.stderr, r.stderr


@pytest.mark.parametrize("suite, preset, args, dropped", [
    # The well sweep planned its own scales whatever --sizes gave: now only those given.
    ("kriging", "quick", ["--sizes", "2"], lambda n: "/scale:1/" in n),
    ("kriging", "paper", ["--sizes", "10"], lambda n: "/scale:1/" in n),
    # SAMPO (precision mixed) ran at any --precision: now at none of float and double.
    ("kofler", "quick", ["--precision", "double"], lambda n: n.startswith("kofler/sampo/")),
])
def test_overrides_whose_meaning_changed_plan_the_old_list_less_what_they_no_longer_ran(
        suite, preset, args, dropped, tmp_path):
    """Each of these planned, before the planner's typed axes, the names `--axis` semantics
    give now plus those `dropped` picks out (derived from the pinned full plan: --sizes and
    --precision narrow it exactly as --axis does)."""
    full = [n for n in (PLANS / f"{preset}.txt").read_text().splitlines() if n.split("/")[0] == suite]
    got = layoutbench("plan", "--suite", suite, "--preset", preset, *args, data_dir=tmp_path).splitlines()
    assert got and not any(dropped(n) for n in got)
    if args[0] == "--precision":
        assert got == [n for n in full if n.split("/")[4] == args[1]]
    else:
        assert got == [n for n in full if f"/scale:{args[1]}/" in n]

"""The recipe, proven (issue 37 §5): tests/fixture_program is a repository of one program,
"scale" of suite "fixture" (y = a·x over a record {x, y}, on the host through the layout
library), added through exactly the places docs/adding-a-program.md lists, each at its path
there, and nothing else besides the program's own folders. Its binary (the bench commands over
its own suite list; not layoutbench, in no preset of harness/presets) plans it from its preset,
runs it on the CPU with no GPU visible, and its results validate as harness/run.py assembles
them; plots draws its figure and the claims evaluator judges its claim, through its paper
entry. The run needs the built binary (build/tests/fixture_program/lb_fixture_bench) and skips
without it; the recipe's check does not."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from plots import papers
from plots.claims import REPRODUCED, Scope, evaluate_claims, load_claims
from plots.figures import inspecting
from plots.load import load_results
from plots.report import write_report
from tests.python.report_checks import claim_row

REPO = Path(__file__).resolve().parents[2]
RECIPE = REPO / "docs" / "adding-a-program.md"
FIXTURE = REPO / "tests" / "fixture_program"
BIN = REPO / "build" / "tests" / "fixture_program" / "lb_fixture_bench"
PINS = FIXTURE / "tests" / "python" / "fixtures"
# The recipe's placeholders, as the fixture fills them.
NAMES = {"program": "scale", "paper": "fixture", "suite": "fixture"}


def recipe_items(heading):
    """The path (first code span) of each numbered item of the recipe's section `heading`."""
    text = RECIPE.read_text(encoding="utf-8")
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\d+\. `([^`]+)`", section, re.M)


def path_pattern(path):
    """A recipe path as a regular expression over paths: <program>, <paper>, <suite> as NAMES
    fills them, any other <placeholder> or * one name, a trailing / everything under it."""
    pattern = ""
    for piece in re.split(r"(<[a-z-]+>|\*)", path.rstrip("/")):
        if piece in ("*",) or (piece.startswith("<") and piece[1:-1] not in NAMES):
            pattern += "[^/]+"
        elif piece.startswith("<"):
            pattern += re.escape(NAMES[piece[1:-1]])
        else:
            pattern += re.escape(piece)
    return re.compile(pattern + ("/.+" if path.endswith("/") else ""))


def fixture_files():
    return sorted(p.relative_to(FIXTURE).as_posix() for p in FIXTURE.rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts)


def test_the_recipe_names_at_most_six_places_each_in_the_tree():
    places = recipe_items("The places")
    assert 1 <= len(places) <= 6, places
    assert len(recipe_items("Its own folders")) >= 4
    for place in places:
        glob = re.sub(r"<[a-z-]+>", "*", place.rstrip("/"))
        assert any(REPO.glob(glob)), f"the recipe's place {place} is not in the tree"


def test_the_fixture_touches_exactly_the_recipes_places():
    """Every file of the fixture lies in the program's own folders or at one of the places, and
    every place has one: the recipe's list is what the fixture touches."""
    own = [path_pattern(p) for p in recipe_items("Its own folders")]
    places = {p: path_pattern(p) for p in recipe_items("The places")}
    touched, stray = {}, []
    for rel in fixture_files():
        hit = [p for p, pattern in places.items() if pattern.fullmatch(rel)]
        mine = any(pattern.fullmatch(rel) for pattern in own)
        assert len(hit) + mine <= 1, f"{rel}: in its own folders and at {hit}"
        if hit:
            touched.setdefault(hit[0], []).append(rel)
        elif not mine:
            stray.append(rel)
    assert not stray, f"fixture files at no place of the recipe: {stray}"
    assert set(touched) == set(places), f"places the fixture does not touch: {set(places) - set(touched)}"


def test_the_fixture_is_not_shipped():
    """Not in layoutbench (its suite list, its build), in no preset of harness/presets."""
    shipped = json.loads((REPO / "tests" / "python" / "fixtures" / "registry.json").read_text())
    assert NAMES["suite"] not in {s["name"] for s in shipped["suites"]}
    assert f"lb_{NAMES['program']}" not in (REPO / "CMakeLists.txt").read_text()
    assert "scale_program" not in (REPO / "benches" / "suites.cpp").read_text()
    for preset in (REPO / "harness" / "presets").glob("*.json"):
        assert NAMES["suite"] not in json.loads(preset.read_text()).get("suites", {}), preset


def test_the_path_patterns_fill_the_recipes_placeholders():
    assert path_pattern("kernels/<program>/").fullmatch("kernels/scale/lb/scale/scale.hpp")
    assert not path_pattern("kernels/<program>/").fullmatch("kernels/sort/a.cpp")
    assert path_pattern("harness/presets/<preset>.json").fullmatch("harness/presets/quick.json")
    assert not path_pattern("harness/presets/<preset>.json").fullmatch("harness/presets/a/quick.json")
    assert path_pattern("plots/claims/<paper>.json").fullmatch("plots/claims/fixture.json")


def fixture_bench(*args, tmp_path):
    """The fixture binary's output: its preset folder, no GPU visible (a GPU machine runs it as
    CI does), an empty data folder."""
    env = dict(os.environ, LB_PRESET_DIR=str(FIXTURE / "harness" / "presets"), CUDA_VISIBLE_DEVICES="",
               LB_DATA_DIR=str(tmp_path))
    result = subprocess.run([str(BIN), *args], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def assemble_results(journal, folder, plan):
    """<suite>.gpu0.json from the run's journal, as harness/run.py assembles it."""
    sys.path.insert(0, str(REPO / "harness"))  # as run.py finds it
    from orchestrator.console import Console
    from orchestrator.journal import assemble
    folder.mkdir()
    assemble(journal, folder / "fixture.gpu0.json", plan, Console())
    return folder


@pytest.mark.skipif(not BIN.exists(), reason=f"needs the built fixture binary {BIN}")
def test_the_fixture_is_planned_run_validated_drawn_and_judged(tmp_path, monkeypatch):
    # Its registry and plan are pinned as the shipped ones are (tests/python/fixtures/); its
    # registry's suites only: the layout kinds' table is the shipped registry's pin.
    registry = json.loads(fixture_bench("suites", "--json", tmp_path=tmp_path))
    assert [p["name"] for p in registry["presets"]] == ["quick"]
    assert {"suites": registry["suites"]} == json.loads((PINS / "registry.json").read_text())
    plan = fixture_bench("plan", "--suite", "fixture", "--preset", "quick", tmp_path=tmp_path).splitlines()
    assert plan == (PINS / "plans" / "quick.txt").read_text().splitlines()
    where = json.loads(fixture_bench("plan", "--json", "--suite", "fixture", "--preset", "quick", tmp_path=tmp_path))
    assert [b["name"] for b in where] == plan and {b["where"] for b in where} == {"cpu"}

    # Run on the CPU, no GPU visible; the results validate.
    journal = tmp_path / "fixture.gpu0.jsonl"
    fixture_bench("run", "--suite", "fixture", "--preset", "quick", "--journal", str(journal),
                  "--cpu-lock", str(tmp_path / "cpu.lock"), tmp_path=tmp_path)
    results = load_results([assemble_results(journal, tmp_path / "results", plan)])
    (device,) = results.devices
    (result_file,) = results.files
    assert result_file.lb["run"]["preset"] == "quick" and "gpu" not in result_file.lb
    assert [b.name for b in device.benchmarks] == plan
    for b in device.benchmarks:
        assert b.error is None and b.time_s > 0, (b.name, b.error)
        assert b.counters["checked"] == b.params["size"] and b.counters["unvalidated"] == 0, b.name
        assert b.counters["max_abs_err"] == 0 and b.counters["record_bytes"] in (8, 16), b.name
        assert b.counters["elements"] == b.params["size"], b.name

    # Drawn and judged through its paper entry, as a shipped paper is.
    fixture_papers = load_fixture_papers()
    assert sorted(fixture_papers) == [s["name"] for s in registry["suites"]]
    for paper in fixture_papers.values():
        monkeypatch.setitem(papers.PAPERS, paper.id, paper)
    paper = fixture_papers["fixture"]
    (verdict,) = evaluate_claims(load_claims(paper.claims_file),
                                 Scope(device.for_paper("fixture").benchmarks, paper.baseline, paper.prefer))
    assert verdict.verdict == REPRODUCED, verdict
    drawn = {}
    with inspecting(lambda stem, fig, problems: drawn.setdefault(stem, problems)):
        written = write_report(results, tmp_path / "report")
    assert drawn == {"fixture_scale": []}, drawn
    assert tmp_path / "report" / "figures" / "fixture_scale.png" in written
    report = (tmp_path / "report" / "REPORT.md").read_text()
    assert "reproduced" in claim_row(report, "fixture-exact")


def load_fixture_papers():
    """The fixture's PAPERS (its plots/papers.py), loaded by path: the folder is no package."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("fixture_program_papers", FIXTURE / "plots" / "papers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.PAPERS


@pytest.mark.skipif(not BIN.exists(), reason=f"needs the built fixture binary {BIN}")
def test_the_fixtures_names_and_counters_are_documented(tmp_path):
    """Its results/README.md (the docs place) names each of its axes and counters, and its
    example is a name it plans."""
    doc = (FIXTURE / "results" / "README.md").read_text()
    (suite,) = json.loads(fixture_bench("suites", "--json", tmp_path=tmp_path))["suites"]
    (program,) = suite["programs"]
    for axis in program["axes"]:
        assert all(f"`{v}`" in doc for v in axis["values"]), axis
    named = [a["name"] for a in program["axes"][3:] if a["named"]]
    assert all(f"`{n}:" in doc for n in named), named
    assert all(f"`{c}`" in doc for c in program["counters"]), program["counters"]
    (example,) = re.findall(r"Example: `([^`]+)`", doc)
    assert example in (PINS / "plans" / "quick.txt").read_text().splitlines()

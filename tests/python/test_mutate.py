"""tools/mutate.py: every listed mutation applies to today's tree (a stale one fails here, in
every CI run, not only when the pass runs), and a mutation applies exactly once or not at all."""

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("mutate", ROOT / "tools" / "mutate.py")
mutate = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mutate)

MUTATIONS = mutate.load()


def test_the_list_is_long_enough_and_its_ids_unique():
    assert len(MUTATIONS) >= 30
    assert len({m["id"] for m in MUTATIONS}) == len(MUTATIONS)


@pytest.mark.parametrize("m", MUTATIONS, ids=lambda m: m["id"])
def test_every_mutation_applies_to_todays_tree(m):
    original = (ROOT / m["file"]).read_text(encoding="utf-8")
    mutated, line_no = mutate.mutate_text(original, m)
    assert mutated != original
    assert mutated.split("\n")[line_no - 1].strip() == m["line"].replace(m["from"], m["to"])
    assert m["tests"] and all(set(t) in ({"gtest"}, {"pytest"}) for t in m["tests"]), m["id"]
    assert not m.get("equivalent") or len(m["equivalent"]) > 40, "an equivalent mutation says why"


TEXT = "a\n  if (x < 1) y;\nb\n  if (x < 1) y;\n"


@pytest.mark.parametrize("m, complaint", [
    ({"id": "t", "file": "f", "line": "if (x < 2) y;", "from": "<", "to": ">"}, "found 0 times"),
    ({"id": "t", "file": "f", "line": "if (x < 1) y;", "from": "<", "to": ">"}, "found 2 times"),
    ({"id": "t", "file": "f", "line": "a", "from": "b", "to": "c"}, "not in its line exactly once"),
    ({"id": "t", "file": "f", "after": "c", "line": "if (x < 1) y;", "from": "<", "to": ">"}, "anchor 'c' found 0"),
])
def test_a_stale_mutation_is_reported(m, complaint):
    with pytest.raises(mutate.Stale, match=complaint):
        mutate.mutate_text(TEXT, m)


def test_an_anchor_picks_the_first_matching_line_after_it():
    m = {"id": "t", "file": "f", "after": "b", "line": "if (x < 1) y;", "from": "<", "to": ">"}
    assert mutate.mutate_text(TEXT, m) == ("a\n  if (x < 1) y;\nb\n  if (x > 1) y;\n", 4)


def test_a_mutation_of_a_file_that_moved_is_stale_not_a_crash(monkeypatch, capsys):
    # plots/claims.py became a package: the pass said FileNotFoundError with a traceback.
    moved = {"id": "moved", "file": "plots/no_such_module.py", "line": "x = 1", "from": "1", "to": "2",
             "tests": [{"pytest": ["tests/python/test_mutate.py"]}]}
    monkeypatch.setattr(mutate, "load", lambda: [moved])
    assert mutate.main(["--list"]) == 2
    assert "moved: plots/no_such_module.py does not exist" in capsys.readouterr().err

"""The Kofler layout kinds have one name table, the binary's (kernels/layout/lb/layout/choice.hpp,
exported by `layoutbench suites --json` as "layouts" and kept in
tests/python/fixtures/registry.json): Python reads it through plots/layout_kinds.py, parses the
method's labels through it, and names no kind as a literal in the Kofler suite's code, C++ or
Python (a scan of the code, comments and docstrings dropped); the claims select only kinds of
the table."""
import ast
import json
from pathlib import Path

import pytest

from plots import kofler_data, kofler_label
from plots.layout_kinds import (CLUSTER_LAYOUT, KIND, KINDS, METHOD_LAYOUTS, REGISTRY, RUNS_AS,
                                TREE_LAYOUTS, TRIAL_LAYOUTS, parse_label, tile_of)
from tests.python.cpp_source import cpp_tokens

REPO = Path(__file__).resolve().parents[2]
TABLE = json.loads(REGISTRY.read_text())["layouts"]

# The Kofler suite's code, where a kind is named only through the table.
KOFLER_CODE = [
    *sorted((REPO / "benches" / "kofler").glob("*.[ch]pp")),
    *sorted((REPO / "kernels" / "kofler").rglob("*.[ch]pp")),
    *sorted((REPO / "kernels" / "kofler").glob("*.cu")),
    REPO / "kernels" / "layout" / "choice.cpp",
    REPO / "kernels" / "layout" / "lb" / "layout" / "choice_mapping.hpp",
    REPO / "kernels" / "layout" / "lb" / "layout" / "program_layouts.hpp",
    *sorted((REPO / "plots").glob("kofler*.py")),
    REPO / "plots" / "layout_kinds.py",
    REPO / "tests" / "python" / "fixtures" / "make_kofler_fixture.py",
]  # not the fake binary: its Kofler names come from the table, its "aos" is IDW's layout
# The table itself: each kind's `static constexpr std::string_view name = "..."`.
TABLE_FILE = REPO / "kernels" / "layout" / "lb" / "layout" / "choice.hpp"


def cpp_strings(text):
    """The string literals of C++ source (raw ones included), comments dropped."""
    return [token for kind, token in cpp_tokens(text) if kind == "string"]


def python_strings(text):
    """The string constants of Python source, docstrings dropped (f-strings' literal parts too)."""
    tree = ast.parse(text)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                       ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings]


def named_kinds(path):
    """The string literals of a file's code that are a kind's name."""
    text = path.read_text(encoding="utf-8")
    code = python_strings(text) if path.suffix == ".py" else cpp_strings(text)
    return sorted({piece for piece in code if piece in KINDS})


def test_the_table_is_the_binarys_every_kind_by_name():
    assert [k["name"] for k in TABLE["kinds"]] == list(KINDS)
    for name, kind in KINDS.items():
        assert getattr(KIND, name.replace("-", "_")) == name
        assert kind.sweeps in ("", *kind.params)
        assert kind.compiled is None or KINDS[kind.compiled].code == "compiled"
    assert METHOD_LAYOUTS == (KIND.kdlg, KIND.tiled_tree, KIND.kdlg_tree, KIND.kdlg_tree_plus)
    assert TREE_LAYOUTS == (KIND.tiled_tree, KIND.kdlg_tree)
    assert TRIAL_LAYOUTS == (KIND.kdlg_tree_plus,)
    assert kofler_data.RUN_TIME == {KIND.tiled: KIND.tiled_ct, KIND.split: KIND.split_ct}
    assert kofler_data.KNOBS == {KIND.tiled: "tile", KIND.tiled_ct: "tile", KIND.split: "partition",
                                 KIND.split_ct: "partition", KIND.kdlg_tiles: "tiles"}
    assert kofler_label.RUN_TIME_LAYOUTS == {
        KIND.tiled: kofler_label.RUN_TIME_TILES, KIND.split: kofler_label.RUN_TIME_PARTITION,
        KIND.kdlg_tiles: kofler_label.RUN_TIME_PARTITION}


@pytest.mark.parametrize("layout, label, parsed", [
    ("kdlg-tree", "cluster_layouts=tiled-32|soa;runs_as=partition;tree_gpu=NVIDIA H200",
     {"cluster_layouts": "tiled-32|soa", "runs_as": "partition", "tree_gpu": "NVIDIA H200"}),
    # the GPU's name to the label's end, whatever it holds
    ("tiled-tree", "cluster_layouts=aos;runs_as=aos;tree_gpu=G;x=y",
     {"cluster_layouts": "aos", "runs_as": "aos", "tree_gpu": "G;x=y"}),
    # before 2026-11-26: no runs_as
    ("kdlg-tree", "cluster_layouts=soa|soa;tree_gpu=G",
     {"cluster_layouts": "soa|soa", "runs_as": None, "tree_gpu": "G"}),
    ("kdlg", "runs_as=tiled-ct-32", {"runs_as": "tiled-ct-32"}),
    ("kdlg-tree-plus", "chosen=soa;runs_as=soa;trial_us=aos:11.0[10.0,12.0]|soa:9.5[9.0,9.9]|"
     "kdlg-tree:as soa|tiled-tree:invalid;tree_gpu=NVIDIA H200",
     {"chosen": "soa", "runs_as": "soa", "trial_us": "aos:11.0[10.0,12.0]|soa:9.5[9.0,9.9]|"
      "kdlg-tree:as soa|tiled-tree:invalid", "tree_gpu": "NVIDIA H200"}),
    ("kdlg-tree-plus", "cluster_layouts=soa;runs_as=soa;tree_gpu=G", None),
    ("kdlg", "runs_as=aos;tree_gpu=G", {"runs_as": "aos;tree_gpu=G"}),  # runs_as then says no
    ("kdlg", "cluster_layouts=aos;runs_as=aos;tree_gpu=G", None),
    ("kdlg-tree", "runs_as=aos", None),
    ("kdlg-tree", "tree_gpu=G;cluster_layouts=aos", None),
    ("tiled", "runs_as=aos", None),  # not labelled
])
def test_a_label_is_parsed_through_the_table(layout, label, parsed):
    assert parse_label(layout, label) == parsed


def test_the_labels_words_are_the_tables():
    for written in ("aos", "soa", "tiled-1", "tiled-4096"):
        assert CLUSTER_LAYOUT.fullmatch(written), written
    for written in ("tiled:4", "tiled-0", "tiled-ct-4", "partition", "split"):
        assert not CLUSTER_LAYOUT.fullmatch(written), written
    for written in ("aos", "soa", "tiled-ct-32", "partition"):
        assert RUNS_AS.fullmatch(written), written
    for written in ("tiled-32", "split-ct", "tiled-ct"):
        assert not RUNS_AS.fullmatch(written), written
    assert (tile_of("tiled-64"), tile_of("tiled-ct-32"), tile_of("soa"), tile_of("x-3")) == \
        (64, 32, None, None)


@pytest.mark.parametrize("sample, named", [
    ('// "tiled-tree"\nconst char* s = "kdlg";', ["kdlg"]),
    ('auto t = "tiled-tree/float";', []),  # a name holding one is not a kind's name
    ('"""kdlg"""\nx = ("split", "splits")\n', ["split"]),
])
def test_the_scan_finds_a_kind_named_in_code(tmp_path, sample, named):
    path = tmp_path / ("sample.py" if sample.startswith('"""') else "sample.hpp")
    path.write_text(sample)
    assert named_kinds(path) == named


def test_the_kofler_code_names_no_kind_outside_the_table():
    assert all(p.exists() for p in KOFLER_CODE) and TABLE_FILE.exists()
    found = {str(p.relative_to(REPO)): named for p in KOFLER_CODE if (named := named_kinds(p))}
    assert found == {}, f"kinds named outside the table (read them from it): {found}"
    # the table names each kind once
    assert sorted(named_kinds(TABLE_FILE)) == sorted(KINDS)


def test_the_kofler_claims_select_kinds_of_the_table():
    claims = json.loads((REPO / "plots" / "claims" / "kofler.json").read_text())
    selected = set()

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "layout":
                    selected.update([value] if isinstance(value, str) else value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)
    walk(claims)
    assert selected and selected <= set(KINDS), selected - set(KINDS)

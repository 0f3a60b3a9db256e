"""The generic layers name no suite and no program (issue 37): the C++ harness (harness/lb,
harness/*.cpp, the bench commands harness/cli/bench_*), the orchestrator (harness/run.py, harness/orchestrator/) and the claims
evaluator (plots/claims/*.py). A suite declares what it needs instead: its steps and inputs in
the registry (benches/suites.cpp), its measurement kinds through plots/papers.py.

What is scanned is code: C++ identifiers and string literals (comments dropped), Python
names, attributes, arguments, imports and strings (docstrings dropped). Prose may give a
suite as an example; code that names one depends on it. The names are those of the binary's
registry (tests/python/fixtures/registry.json, kept equal to it by test_suite_registry.py) and
of plots/papers.py: suites, programs, step commands and inputs, matched as whole words
(`kofler_tree_args` and "--kofler-tree" both name kofler)."""
import ast
import json
import re
from pathlib import Path

import pytest

from plots.papers import PAPERS
from tests.python.cpp_source import cpp_tokens

REPO = Path(__file__).resolve().parents[2]
REGISTRY = Path(__file__).with_name("fixtures") / "registry.json"

GENERIC = {
    "the C++ harness": [*sorted((REPO / "harness" / "lb").rglob("*.hpp")),
                        *sorted((REPO / "harness").glob("*.cpp")),
                        *sorted((REPO / "harness").glob("*.cu")),
                        *sorted((REPO / "harness").glob("*.cpp.in")),
                        # the subcommands every benchmark binary has, over the suite list it links
                        *sorted((REPO / "harness" / "cli").glob("bench_*"))],
    "the orchestrator": [REPO / "harness" / "run.py",
                         *sorted((REPO / "harness" / "orchestrator").glob("*.py"))],
    "the claims evaluator": sorted((REPO / "plots" / "claims").glob("*.py")),
}

# Words of those names that are also the generic code's own, each with why it stays.
ALLOWED = {
    "ok": "kriging's program; also the journal's done record's field and every check's flag",
    "plots": "of the fit step's command plots.kofler_tree; also the package every figure and "
             "claim is drawn by (`python3 -m plots`, plots.claims)",
    "tree": "of kofler-tree, whose other word is kofler; also a folder tree (rmtree, rglob)",
}


def words(text):
    """The lower-case words of an identifier or string: split at anything but letters and
    digits, and at camelCase humps."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", text)
    return {w.lower() for w in re.split(r"[^A-Za-z0-9]+", spaced) if w}


def suite_names():
    """Every suite, program, step command and input name the registry and the papers have."""
    suites = json.loads(REGISTRY.read_text())["suites"]
    names = set(PAPERS) | {s["name"] for s in suites}
    names |= {p["name"] for s in suites for p in s["programs"]}
    names |= {step["command"] for s in suites for step in s["steps"]}
    names |= {i["name"] for s in suites for i in s.get("inputs", [])}
    found = set().union(*map(words, names))
    return found - set(ALLOWED)


def cpp_code(text):
    """The identifiers and string literals of C++ source, comments dropped."""
    return [token for _, token in cpp_tokens(text)]


def python_code(text):
    """The names, attributes, arguments, imported modules and strings of Python source,
    docstrings dropped."""
    tree = ast.parse(text)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                       ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)
                  and isinstance(node.body[0].value.value, str)}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            out.append(node.id)
        elif isinstance(node, ast.Attribute):
            out.append(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append(node.name)
        elif isinstance(node, ast.arg):
            out.append(node.arg)
        elif isinstance(node, ast.keyword) and node.arg:
            out.append(node.arg)
        elif isinstance(node, ast.alias):
            out += [node.name, node.asname or ""]
        elif isinstance(node, ast.ImportFrom):
            out.append(node.module or "")
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and id(node) not in docstrings):
            out.append(node.value)
    return out


def named_suites(path, names):
    """{name: the first piece of code naming it} of the file at `path`."""
    text = path.read_text(encoding="utf-8")
    code = python_code(text) if path.suffix == ".py" else cpp_code(text)
    found = {}
    for piece in code:
        for word in words(piece) & names:
            found.setdefault(word, piece)
    return found


def test_the_names_come_from_the_registry():
    names = suite_names()
    assert {"kofler", "kriging", "idw", "inner", "nbody", "sampo", "bfs", "traffic",
            "krige", "synthetic"} <= names
    assert not names & set(ALLOWED) and all(GENERIC.values())


@pytest.mark.parametrize("sample, named", [
    ('int x; // kofler\n/* kriging */ int y;', {}),
    ('const char* s = "--kofler-tree";', {"kofler": "--kofler-tree"}),
    ("std::shared_ptr<const T> kofler_tree{};", {"kofler": "kofler_tree"}),
    ('auto j = R"({"suite": "idw"})"; int n = 1\'000;', {"idw": '{"suite": "idw"}'}),
    ("struct KrigingModel {};", {"kriging": "KrigingModel"}),
    ("char c = '\"'; int sampo;", {"sampo": "sampo"}),
])
def test_the_cpp_scan_reads_code_not_comments(tmp_path, sample, named):
    path = tmp_path / "sample.hpp"
    path.write_text(sample)
    assert named_suites(path, suite_names()) == named


@pytest.mark.parametrize("sample, named", [
    ('"""Like kriging\'s model."""\n# kofler\nx = 1\n', {}),
    ('from plots import kofler_data\n', {"kofler": "kofler_data"}),
    ('def f():\n    """idw"""\n    return f"--{name}" if suite != "kofler" else 0\n',
     {"kofler": "kofler"}),
    ('TREE_SUITE = "kofler-tree"\n', {"kofler": "kofler-tree"}),
])
def test_the_python_scan_reads_code_not_docstrings(tmp_path, sample, named):
    path = tmp_path / "sample.py"
    path.write_text(sample)
    assert named_suites(path, suite_names()) == named


@pytest.mark.parametrize("layer", sorted(GENERIC))
def test_a_generic_layer_names_no_suite_or_program(layer):
    names = suite_names()
    found = {str(path.relative_to(REPO)): named
             for path in GENERIC[layer] if (named := named_suites(path, names))}
    assert found == {}, f"{layer} names suites or programs in code: {found}"

"""No import circles in plots/ and harness/orchestrator/. Every import that can run counts:
module level and inside functions (an import moved into a function still closes a circle, it
only delays it); imports under `if TYPE_CHECKING:` never run and do not count. Importing
`a.b.c` runs the packages `a` and `a.b` first, so it is an edge to each of them as well (less
the importer's own packages, which are already running). A circle fails, named module by
module."""
import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# (folder, the package name its modules are imported by): harness/ is on the orchestrator's path.
ROOTS = ((REPO / "plots", "plots"), (REPO / "harness" / "orchestrator", "orchestrator"))


def modules(roots):
    """{module name: file} of every .py file under each root."""
    found = {}
    for folder, package in roots:
        for path in sorted(folder.rglob("*.py")):
            parts = [package, *path.relative_to(folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _is_type_checking(node):
    test = node.test
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def _imports(tree):
    """Every Import/ImportFrom node that can run (anywhere but under `if TYPE_CHECKING:`)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        for child in ast.iter_child_nodes(node):
            if not (isinstance(child, ast.If) and _is_type_checking(child)):
                stack.append(child)
            else:
                stack.extend(child.orelse)


def _with_packages(name, known, importer):
    """`name` and the packages above it that are known modules, less the importer's own."""
    parts = name.split(".")
    own = {".".join(importer.split(".")[:k]) for k in range(1, importer.count(".") + 1)}
    return {n for n in (".".join(parts[:k]) for k in range(1, len(parts) + 1))
            if n in known and n not in own and n != importer}


def import_graph(known):
    """{module: set of modules it imports (among `known`)}."""
    graph = {}
    for module, path in known.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        edges = set()
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    edges |= _with_packages(alias.name, known, module)
                continue
            base = node.module or ""
            if node.level:  # relative: from the package, `level - 1` packages up
                anchor = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            edges |= _with_packages(base, known, module)
            for alias in node.names:  # `from pkg import module` imports that module
                if f"{base}.{alias.name}" in known:
                    edges |= _with_packages(f"{base}.{alias.name}", known, module)
        graph[module] = edges
    return graph


def cycles(graph):
    """One circle per strongly connected component that has one (Tarjan), each as the list
    of its modules in import order, first repeated last."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []

    def connect(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph.get(v, ()):
                found.append(_circle(graph, component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def _circle(graph, component):
    """A shortest path from the component's first module back to itself (breadth first)."""
    start = min(component)
    came_from = {start: None}
    frontier = [start]
    while frontier:
        following = []
        for v in frontier:
            for w in sorted(graph[v] & component):
                if w == start:
                    path = [v]
                    while came_from[path[-1]] is not None:
                        path.append(came_from[path[-1]])
                    return [*reversed(path), start]
                if w not in came_from:
                    came_from[w] = v
                    following.append(w)
        frontier = following
    raise AssertionError(f"no circle in {sorted(component)}")


def test_plots_and_the_orchestrator_have_no_import_circle():
    known = modules(ROOTS)
    assert {"plots.claims.measures", "orchestrator.cli"} <= set(known)  # the roots are read
    found = cycles(import_graph(known))
    assert not found, "import circles: " + "; ".join(" -> ".join(c) for c in found)


def _package(tmp_path, files):
    for name, text in files.items():
        path = tmp_path / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return cycles(import_graph(modules([(tmp_path / "pkg", "pkg")])))


@pytest.mark.parametrize("files, circle", [
    # Module level, both spellings of `from`.
    ({"__init__.py": "", "a.py": "from pkg import b\n", "b.py": "from pkg.a import x\n"},
     ["pkg.a", "pkg.b", "pkg.a"]),
    # Dodged with an import inside a function (plots/inner.py's before this test).
    ({"__init__.py": "", "a.py": "def f():\n    from pkg import b\n", "b.py": "import pkg.a\n"},
     ["pkg.a", "pkg.b", "pkg.a"]),
    # Through a package's __init__ (plots/claims/measures.py -> plots/kofler_data.py ->
    # plots/claims before this test), and relative.
    ({"__init__.py": "", "c/__init__.py": "from .m import M\n", "c/e.py": "",
      "c/m.py": "from pkg import d\n", "d.py": "from pkg.c.e import E\n"},
     ["pkg.c", "pkg.c.m", "pkg.d", "pkg.c"]),
])
def test_a_circle_is_found_and_named(tmp_path, files, circle):
    assert _package(tmp_path, files) == [circle]


def test_no_circle_where_imports_only_run_one_way(tmp_path):
    # A package's __init__ importing its modules, and type-only imports, close no circle.
    assert _package(tmp_path, {
        "__init__.py": "", "c/__init__.py": "from pkg.c.e import E\n", "c/e.py": "import pkg.c\n",
        "a.py": "from typing import TYPE_CHECKING\nimport pkg.b\n",
        "b.py": "import typing\nif typing.TYPE_CHECKING:\n    from pkg import a\nelse:\n    import pkg.c\n"}) == []

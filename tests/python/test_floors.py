"""Floors only point down: datasets < kernels < harness < benches. A C++/CUDA file may include
headers of its own floor and the floors below, never of a floor above; a library target (CMake
add_library) may link and take include directories of its floor and below. plots/ (Python) is
apart; tests/ and tools/ may include anything. An include is resolved as the compiler does:
next to the including file, then in the include directories CMakeLists.txt names."""
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FLOORS = {"datasets": 0, "kernels": 1, "harness": 2, "benches": 3}
SOURCES = (".cpp", ".hpp", ".cu", ".cuh", ".h", ".in")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def floor_of(path):
    """The floor of a repository-relative path, or None (tests, tools, plots, build, ...)."""
    return FLOORS.get(Path(path).parts[0]) if Path(path).parts else None


def cmake_calls(name, text):
    """The argument lists of every `name(...)` call in a CMake text (comments dropped)."""
    text = re.sub(r"#[^\n]*", "", text)
    return [m.group(1).split() for m in re.finditer(rf"\b{name}\s*\(([^)]*)\)", text)]


PROGRAM_KEYWORDS = ("KERNELS", "LINK", "BENCHES", "CPU_TESTS", "GPU_TESTS")


def program_entries(cmake_text):
    """{keyword: [arguments]} of each lb_program(<name> ...) entry (CMakeLists.txt's function:
    a program's kernel library lb_<name>, include directory kernels/<name>), with "name"."""
    entries = []
    for args in cmake_calls("lb_program", cmake_text):
        if args[0] == "name":  # the function's own definition
            continue
        entry, key = {"name": args[0]}, None
        for a in args[1:]:
            if a in PROGRAM_KEYWORDS:
                key = a
                entry.setdefault(key, [])
            elif key:
                entry[key].append(a)
        entries.append(entry)
    return entries


def include_dirs(cmake_text):
    """Every directory of the source tree a target_include_directories call or an
    lb_program entry with a kernel library names."""
    dirs = []
    for args in cmake_calls("target_include_directories", cmake_text):
        dirs += [a for a in args[1:] if a not in ("PUBLIC", "PRIVATE", "INTERFACE", "SYSTEM", "BEFORE")
                 and "$" not in a]
    dirs += [f"kernels/{e['name']}" for e in program_entries(cmake_text) if e.get("KERNELS")]
    return list(dict.fromkeys(dirs))


def upward_includes(repo, also=None):
    """'file: includes "x" (resolved to y, floor above)' for every include that runs up. `also`:
    another tree whose CMakeLists.txt's directories resolve includes after repo's own (the
    fixture program's files include the repository's headers)."""
    roots = [repo] + ([also] if also else [])
    dirs = [root / d for root in roots for d in include_dirs((root / "CMakeLists.txt").read_text())]
    problems = []
    files = (p for top in FLOORS for p in (repo / top).rglob("*") if p.suffix in SOURCES and p.is_file())
    for path in sorted(files):
        rel = path.relative_to(repo)
        own = floor_of(rel)
        if own is None:
            continue
        for name in INCLUDE.findall(path.read_text(errors="replace")):
            local = path.parent / name
            candidates = [local] if local.is_file() else [d / name for d in dirs if (d / name).is_file()]
            for target in candidates:
                target = target.resolve()
                root = next(r for r in roots if target.is_relative_to(r.resolve()))
                target_rel = target.relative_to(root.resolve())
                theirs = floor_of(target_rel)
                if theirs is not None and theirs > own:
                    problems.append(f'{rel}: includes "{name}" ({target_rel}, a floor above)')
    return problems


def library_floors(cmake_text):
    """{library target: its floor} from add_library's source files (the highest floor among them);
    INTERFACE libraries by their include directories."""
    floors = {}
    for args in cmake_calls("add_library", cmake_text):
        paths = [a for a in args[1:] if "/" in a and not a.startswith("$")]
        found = [f for f in map(floor_of, paths) if f is not None]
        if found:
            floors[args[0]] = max(found)
    for args in cmake_calls("target_include_directories", cmake_text):
        if args[0] in floors or "INTERFACE" not in args:
            continue
        found = [f for f in map(floor_of, args[2:]) if f is not None]
        if found:
            floors[args[0]] = max(found)
    for entry in program_entries(cmake_text):
        found = [f for f in map(floor_of, entry.get("KERNELS", [])) if f is not None]
        if found:
            floors[f"lb_{entry['name']}"] = max(found)
    return floors


def links(cmake_text):
    """(target, [libraries it links]) of every target_link_libraries call and lb_program entry
    (its kernel library links lb_layout and its LINK)."""
    out = [(args[0], args[1:]) for args in cmake_calls("target_link_libraries", cmake_text)]
    out += [(f"lb_{e['name']}", ["lb_layout", *e.get("LINK", [])]) for e in program_entries(cmake_text)
            if e.get("KERNELS")]
    return out


def upward_links(cmake_text):
    """A library target that links a library of a higher floor or takes one's include directory."""
    floors = library_floors(cmake_text)
    problems = []
    for target, deps in links(cmake_text):
        if target not in floors:
            continue  # executables are where the floors meet
        for dep in deps:
            if floors.get(dep, -1) > floors[target]:
                problems.append(f"{target} links {dep} (a floor above)")
    for args in cmake_calls("target_include_directories", cmake_text):
        target = args[0]
        if target not in floors:
            continue
        for d in args[1:]:
            f = floor_of(d)
            if f is not None and f > floors[target]:
                problems.append(f"{target} takes the include directory {d} (a floor above)")
    return problems


def test_no_file_includes_a_header_of_a_higher_floor():
    assert upward_includes(REPO) == []


def test_no_library_links_a_higher_floor():
    assert upward_links((REPO / "CMakeLists.txt").read_text()) == []


def test_the_fixture_program_keeps_the_floors():
    """tests/fixture_program is a repository of one program (docs/adding-a-program.md): its
    floors point down as the shipped tree's do, its includes resolved in its directories and
    the repository's."""
    fixture = REPO / "tests" / "fixture_program"
    assert upward_includes(fixture, also=REPO) == []
    assert upward_links((fixture / "CMakeLists.txt").read_text()) == []
    assert "lb_scale" in library_floors((fixture / "CMakeLists.txt").read_text())


def test_a_program_entry_is_a_kernel_library_of_its_own():
    """An lb_program entry's kernel library is on the kernels floor: one that links the
    harness, or whose kernel includes a harness header, is found."""
    cmake = "lb_program(p KERNELS kernels/p/p.cpp LINK lb_harness BENCHES benches/p/p_bench.cpp)\n" \
            "add_library(lb_harness STATIC harness/h.cpp)\n"
    assert library_floors(cmake) == {"lb_p": 1, "lb_harness": 2}
    assert upward_links(cmake) == ["lb_p links lb_harness (a floor above)"]
    assert include_dirs(cmake) == ["kernels/p"]


def test_the_check_sees_an_upward_include(tmp_path):
    """The check itself: a kernel header including a harness header, found through the include
    directory CMake names, and one from the same folder; a harness file including a kernel
    header is fine."""
    (tmp_path / "CMakeLists.txt").write_text(
        "add_library(k STATIC kernels/k/a.cpp)\ntarget_include_directories(k PUBLIC kernels/k harness benches)\n"
        "add_library(h STATIC harness/h.cpp)\ntarget_include_directories(h PUBLIC harness)\n"
        "target_link_libraries(k PUBLIC h fmt::fmt) # a comment (with parentheses)\n"
        "target_link_libraries(h PUBLIC k)\n")
    for name, text in {"kernels/k/a.hpp": '#include "lb/h.hpp"\n#include "b.hpp"\n',
                       "kernels/k/b.hpp": "", "harness/lb/h.hpp": '#include "a.hpp"\n',
                       "benches/b.hpp": "", "kernels/k/c.cpp": '#include "../../benches/b.hpp"\n',
                       "tests/t.cpp": '#include "lb/h.hpp"\n'}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert upward_includes(tmp_path) == [
        'kernels/k/a.hpp: includes "lb/h.hpp" (harness/lb/h.hpp, a floor above)',
        'kernels/k/c.cpp: includes "../../benches/b.hpp" (benches/b.hpp, a floor above)']
    assert upward_links((tmp_path / "CMakeLists.txt").read_text()) == [
        "k links h (a floor above)", "k takes the include directory harness (a floor above)",
        "k takes the include directory benches (a floor above)"]

"""`layoutbench bfs` end to end: a SNAP edge list in, "id,level" out (file ids ascending,
-1 for vertices the source does not reach), the same levels from every layout and strategy
(checked by the binary against its queue BFS and here against a BFS in Python), the loader's
counts and statistics on stderr, and one clear error (exit 2, no output file) for bad input
or options. The CPU everywhere; the GPU where one is visible. Skipped when the binary has not
been built."""

import collections
import csv
import subprocess
from pathlib import Path

import pytest

from tests.python.gpu import gpu_visible

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "build" / "layoutbench"
EXCERPT = ROOT.parent / "shared" / "datasets" / "roadNet-PA.head.txt"

pytestmark = pytest.mark.skipif(not BIN.exists(), reason=f"needs the built binary {BIN}")

# Sparse ids, a one-way edge (40 -> 10), a duplicate, a self-loop, an island (70 <-> 80).
GRAPH = "# test graph\n10\t20\n20\t10\n20 30\n30 20\n40\t10\n20\t10\n30\t30\n70 80\n80 70\n"
LEVELS_FROM_10 = {10: 0, 20: 1, 30: 2, 40: -1, 70: -1, 80: -1}


def run(*args):
    return subprocess.run([str(BIN), *map(str, args)], capture_output=True, text=True)


def graph_file(tmp_path, text=GRAPH, name="g.txt"):
    path = tmp_path / name
    path.write_text(text)
    return path


def read_levels(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["id", "level"]
    return {int(a): int(b) for a, b in rows[1:]}


def python_bfs(path, source):
    adj = collections.defaultdict(set)
    ids = set()
    for line in Path(path).read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            a, b = map(int, line.split())
            ids |= {a, b}
            adj[a].add(b)
    level = {i: -1 for i in ids}
    level[source] = 0
    queue = collections.deque([source])
    while queue:
        v = queue.popleft()
        for w in adj[v]:
            if level[w] == -1:
                level[w] = level[v] + 1
                queue.append(w)
    return level


def test_levels_of_a_small_graph_on_the_cpu(tmp_path):
    out = tmp_path / "levels.csv"
    r = run("bfs", "--graph", graph_file(tmp_path), "--source", 10, "--out", out, "--device", "cpu")
    assert r.returncode == 0, r.stderr
    assert read_levels(out) == LEVELS_FROM_10
    assert list(read_levels(out)) == sorted(LEVELS_FROM_10)
    assert "9 edge lines (1 duplicates, 1 self-loops dropped)" in r.stderr
    assert "vertices 6, max id 80, directed edges 7, weak components 2" in r.stderr
    assert "3 of 6 vertices reached, largest level 2" in r.stderr


@pytest.mark.parametrize("layout", ["aos", "soa"])
@pytest.mark.parametrize("strategy,inline", [("none", 0), ("partial", 0), ("partial", 2), ("partial", 10),
                                             ("full", 0), ("object", 0)])
def test_every_layout_gives_the_python_levels_on_the_excerpt(tmp_path, layout, strategy, inline):
    if not EXCERPT.exists():
        pytest.skip(f"shared datasets not present: {EXCERPT}")
    out = tmp_path / "levels.csv"
    r = run("bfs", "--graph", EXCERPT, "--source", 5000, "--out", out, "--device", "cpu", "--layout", layout,
            "--strategy", strategy, "--inline", inline)
    assert r.returncode == 0, r.stderr
    assert read_levels(out) == python_bfs(EXCERPT, 5000)


@pytest.mark.usefixtures("gpu")
def test_gpu_matches_python(tmp_path):
    path = EXCERPT if EXCERPT.exists() else graph_file(tmp_path)
    source = 5000 if EXCERPT.exists() else 10
    for layout in ("aos", "soa"):
        for search in ("per-level", "persistent", "queue"):
            out = tmp_path / f"{layout}-{search}.csv"
            r = run("bfs", "--graph", path, "--source", source, "--out", out, "--layout", layout,
                    "--search", search)
            assert r.returncode == 0, r.stderr
            assert read_levels(out) == python_bfs(path, source)
            assert f"{search} search" in r.stderr and " us a level)" in r.stderr


def test_gpu_device_without_a_gpu_says_so(tmp_path):
    if gpu_visible():
        pytest.skip("a CUDA GPU is visible: the no-GPU message cannot be seen here")
    out = tmp_path / "o.csv"
    r = run("bfs", "--graph", graph_file(tmp_path), "--source", 10, "--out", out)
    assert r.returncode == 2 and not out.exists()
    assert "no CUDA GPU visible: --device gpu needs one" in r.stderr


@pytest.mark.parametrize("text,message", [
    ("1 2\n3\n", "g.txt:2: expected two vertex ids"),
    ("1 2\n1 -2\n", "g.txt:2: vertex id '-2' is negative"),
    ("1 x\n", "g.txt:1: vertex id 'x' is not an integer"),
    ("1 99999999999999999999\n", "g.txt:1: vertex id '99999999999999999999' is too large"),
    ("# nothing\n", "g.txt: no edges"),
])
def test_bad_graph_gives_one_clear_error_and_no_output(tmp_path, text, message):
    out = tmp_path / "o.csv"
    r = run("bfs", "--graph", graph_file(tmp_path, text), "--source", 1, "--out", out, "--device", "cpu")
    assert r.returncode == 2
    assert message in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert not out.exists()


@pytest.mark.parametrize("args,message", [
    (["--source", "50"], "--source: "),  # no edge mentions 50
    (["--source", "-1"], "--source: '-1' is not a vertex id"),
    (["--layout", "aosoa"], "--layout: unknown inner-array layout 'aosoa'"),
    (["--strategy", "inline"], "--strategy: unknown inner-array strategy 'inline'"),
    (["--strategy", "full", "--inline", "3"], "--inline: an inline count (3) is for the partial strategy only"),
    (["--strategy", "partial", "--inline", "11"], "--inline: 11 is above the largest inline count built, 10"),
    (["--device", "tpu"], "--device: unknown device 'tpu'"),
    (["--search", "frontier"], "--search: unknown search 'frontier' (per-level, persistent or queue)"),
    (["--search", "persistent"], "--search: the persistent search runs on the GPU only (--device gpu)"),
    (["--search", "queue"], "--search: the queue search runs on the GPU only (--device gpu)"),
])
def test_bad_options_are_named(tmp_path, args, message):
    out = tmp_path / "o.csv"
    base = {"--graph": graph_file(tmp_path), "--source": "10", "--out": out, "--device": "cpu"}
    for k, v in zip(args[::2], args[1::2]):
        base[k] = v
    r = run("bfs", *[x for kv in base.items() for x in kv])
    assert r.returncode == 2 and message in r.stderr, r.stderr
    assert not out.exists()


def test_a_degree_above_the_slots_is_refused_for_full_and_object(tmp_path):
    star = "".join(f"0 {v}\n" for v in range(1, 12))
    for strategy in ("full", "object"):
        r = run("bfs", "--graph", graph_file(tmp_path, star), "--source", 0, "--out", tmp_path / "o.csv",
                "--device", "cpu", "--strategy", strategy)
        assert r.returncode == 2 and "vertex 0 has degree 11, above the 9 slots" in r.stderr, r.stderr
    r = run("bfs", "--graph", graph_file(tmp_path, star), "--source", 0, "--out", tmp_path / "o.csv",
            "--device", "cpu", "--strategy", "partial", "--inline", 4)
    assert r.returncode == 0, r.stderr


def test_output_is_checked_before_the_graph_is_read(tmp_path):
    r = run("bfs", "--graph", tmp_path / "absent.txt", "--source", 1, "--out", tmp_path / "no" / "o.csv",
            "--device", "cpu")
    assert r.returncode == 2 and "--out" in r.stderr and "does not exist" in r.stderr, r.stderr
    path = graph_file(tmp_path)
    r = run("bfs", "--graph", path, "--source", 10, "--out", path, "--device", "cpu")
    assert r.returncode == 2 and "is the input file" in r.stderr, r.stderr
    assert path.read_text() == GRAPH


def test_help_names_the_output_format():
    r = run("bfs", "--help")
    assert r.returncode == 0
    assert "id,level per vertex (level -1: not reachable from the source)" in r.stdout


def test_a_graph_that_cannot_fit_is_refused_before_reading(tmp_path):
    huge = tmp_path / "huge.txt"
    with open(huge, "wb") as f:
        f.truncate(1 << 40)  # 1 TiB, sparse: nothing is written, nothing may be read
    out = tmp_path / "o.csv"
    r = run("bfs", "--graph", huge, "--source", 0, "--out", out, "--device", "cpu")
    assert r.returncode == 2, r.stderr
    assert f"loading {huge}: needs" in r.stderr and "GiB of host memory" in r.stderr, r.stderr
    assert not out.exists()

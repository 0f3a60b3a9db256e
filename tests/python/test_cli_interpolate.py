"""`layoutbench idw-interpolate` end to end: CSV in, grid out, exact at data points, clear
errors for bad input. CPU path everywhere; the GPU path (compared with the CPU one) only
where a GPU is visible. Skipped when the binary has not been built."""

import csv
import json
import subprocess
from pathlib import Path

import pytest

BIN = Path(__file__).resolve().parents[2] / "build" / "layoutbench"

pytestmark = pytest.mark.skipif(not BIN.exists(), reason=f"needs the built binary {BIN}")


def run(*args):
    return subprocess.run([str(BIN), *map(str, args)], capture_output=True, text=True)


def points_file(tmp_path, rows, header=True):
    path = tmp_path / "points.csv"
    path.write_text(("x,y,value\n" if header else "") + "".join(f"{x},{y},{z}\n" for x, y, z in rows))
    return path


def read_grid(path):
    with open(path) as f:
        return [(float(r["x"]), float(r["y"]), float(r["value"])) for r in csv.DictReader(f)]


def interpolate(tmp_path, points, device, layout="aoas", precision="double", name="out.csv"):
    out = tmp_path / name
    r = run("idw-interpolate", "--points", points, "--grid", "0:10:11,0:10:11", "--out", out,
            "--device", device, "--layout", layout, "--precision", precision)
    assert r.returncode == 0, r.stderr
    return read_grid(out)


DATA = [(0, 0, 1.0), (10, 0, 2.0), (0, 10, 3.0), (10, 10, 4.0), (5, 5, 10.0), (2.5, 7.5, -3.0)]


def test_cpu_output_is_exact_at_data_points_and_bounded(tmp_path):
    grid = interpolate(tmp_path, points_file(tmp_path, DATA), "cpu")
    assert len(grid) == 121
    values = {(x, y): v for x, y, v in grid}
    for x, y, z in DATA:
        if (float(x), float(y)) in values:
            assert values[(float(x), float(y))] == z
    assert all(-3.0 <= v <= 10.0 for _, _, v in grid)


def test_every_layout_gives_the_same_grid_on_the_cpu(tmp_path):
    points = points_file(tmp_path, DATA)
    base = interpolate(tmp_path, points, "cpu", layout="soa")
    for layout in ["aos", "aoas", "builtin", "soaos", "hybrid"]:
        assert interpolate(tmp_path, points, "cpu", layout=layout, name=f"{layout}.csv") == base


def gpu_visible():
    r = run("list-devices")
    return r.returncode == 0 and json.loads(r.stdout)


@pytest.mark.skipif(not BIN.exists() or not gpu_visible(), reason="no CUDA GPU visible")
@pytest.mark.parametrize("precision", ["float", "double"])
def test_gpu_matches_cpu(tmp_path, precision):
    points = points_file(tmp_path, DATA)
    cpu = interpolate(tmp_path, points, "cpu", precision=precision, name="cpu.csv")
    gpu = interpolate(tmp_path, points, "gpu", precision=precision, name="gpu.csv")
    tol = 1e-5 if precision == "float" else 1e-12
    for (x, y, a), (_, _, b) in zip(cpu, gpu):
        assert abs(a - b) <= tol * abs(a), (x, y, a, b)


@pytest.mark.parametrize("text,message", [
    ("x,y,value\n1,2\n", "points.csv:2: expected 3 columns"),
    ("1,2,3\n4,oops,6\n", "points.csv:2: column 2 (y) is not a number"),
    ("1,2,nan\n", "points.csv:1: column 3 (value) is not finite"),
    ("", "no data points"),
    ("1,1,5\n2,2,6\n1,1,7\n", "points.csv:3: data point coincides with line 1"),
])
def test_bad_csv_gives_one_clear_error_and_no_output(tmp_path, text, message):
    path = tmp_path / "points.csv"
    path.write_text(text)
    out = tmp_path / "out.csv"
    r = run("idw-interpolate", "--points", path, "--grid", "0:1:2,0:1:2", "--out", out, "--device", "cpu")
    assert r.returncode == 2
    assert message in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert not out.exists()


@pytest.mark.parametrize("args,message", [
    (["--layout", "soaos", "--precision", "float"], "unknown layout 'soaos' for float"),
    (["--precision", "half"], "unknown precision 'half'"),
    (["--grid", "0:1:2"], "grid spec '0:1:2'"),
    (["--version", "cdp", "--device", "gpu"], "unknown IDW version 'cdp'"),
])
def test_bad_options_are_named(tmp_path, args, message):
    points = points_file(tmp_path, DATA)
    base = {"--points": points, "--grid": "0:1:2,0:1:2", "--out": tmp_path / "o.csv", "--device": "cpu"}
    for k, v in zip(args[::2], args[1::2]):
        base[k] = v
    r = run("idw-interpolate", *[x for kv in base.items() for x in kv])
    assert r.returncode == 2 and message in r.stderr, r.stderr


def test_unknown_preset_and_suite_for_plan():
    r = run("plan", "--preset", "fast")
    assert r.returncode == 2 and "unknown preset 'fast'" in r.stderr
    r = run("plan", "--suite", "nbody")
    assert r.returncode == 2 and "unknown suite 'nbody'" in r.stderr

"""`layoutbench idw-interpolate` end to end: CSV in, grid out, exact at data points, clear
errors for bad input. CPU path everywhere; the GPU path (compared with the CPU one) only
where a GPU is visible. Skipped when the binary has not been built."""

import csv
import os
import resource
import stat
import subprocess
from pathlib import Path

import pytest

from tests.python.gpu import gpu_visible, require_gpu

BIN = Path(__file__).resolve().parents[2] / "build" / "layoutbench"

pytestmark = pytest.mark.skipif(not BIN.exists(), reason=f"needs the built binary {BIN}")


def run(*args, env=None):
    return subprocess.run([str(BIN), *map(str, args)], capture_output=True, text=True, env=env)


def points_file(tmp_path, rows, header=True):
    path = tmp_path / "points.csv"
    path.write_text(("x,y,value\n" if header else "") + "".join(f"{x},{y},{z}\n" for x, y, z in rows))
    return path


def read_grid(path):
    with open(path) as f:
        return [(float(r["x"]), float(r["y"]), float(r["value"])) for r in csv.DictReader(f)]


def interpolate(tmp_path, points, device, layout="aoas", precision="double", name="out.csv", grid="0:10:11,0:10:11"):
    out = tmp_path / name
    r = run("idw-interpolate", "--points", points, "--grid", grid, "--out", out,
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


@pytest.mark.usefixtures("gpu")
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
    (["--precision", "half"], "--precision: 'half' is not one of float, double"),
    (["--grid", "0:1:2"], "grid spec '0:1:2'"),
    (["--version", "cdp", "--device", "gpu"], "unknown IDW version 'cdp'"),
    (["--version", "bogus"], "unknown IDW version 'bogus'"),  # the CPU runs the naive body, but a typo is a typo
    (["--power", "inf"], "--power must be a positive finite number"),
])
def test_bad_options_are_named(tmp_path, args, message):
    points = points_file(tmp_path, DATA)
    base = {"--points": points, "--grid": "0:1:2,0:1:2", "--out": tmp_path / "o.csv", "--device": "cpu"}
    for k, v in zip(args[::2], args[1::2]):
        base[k] = v
    r = run("idw-interpolate", *[x for kv in base.items() for x in kv])
    assert r.returncode == 2 and message in r.stderr, r.stderr


def test_help_lists_every_version_and_the_layouts_of_each_precision():
    r = run("idw-interpolate", "--help")
    assert r.returncode == 0
    assert "naive, tiled, cdp-original, cdp-improved, roofline" in r.stdout
    assert "float: soa, aos, aoas, builtin, aosoa32, xy-aosoa32;" in r.stdout
    assert "double: soa, aos, aoas, builtin, soaos, hybrid, aosoa32, xy-aosoa32" in r.stdout


def test_gpu_device_without_a_gpu_says_so(tmp_path):
    if gpu_visible():
        pytest.skip("a CUDA GPU is visible: the no-GPU message cannot be seen here")
    out = tmp_path / "o.csv"
    r = run("idw-interpolate", "--points", points_file(tmp_path, DATA), "--grid", "0:1:2,0:1:2", "--out", out,
            "--device", "gpu")
    assert r.returncode == 2 and not out.exists()
    assert r.stderr.strip() == ("layoutbench: error: no CUDA GPU visible: --device gpu needs one "
                                "(--device cpu runs the naive version with OpenMP)")


@pytest.mark.parametrize("args", [["--help"], ["plan"], ["idw-interpolate", "--device", "cpu"]])
def test_gpu_math_libraries_load_only_for_kriging_experiment_7(tmp_path, args):
    """cuBLAS, cuSOLVER (and cuSPARSE behind it) are loaded on experiment 7's first use, not
    by every start of the binary (they cost 0.09 s and 260 MB)."""
    if args[0] == "idw-interpolate":
        args += ["--points", points_file(tmp_path, DATA), "--grid", "0:10:11,0:10:11", "--out", tmp_path / "o.csv"]
    r = run(*args, env={**os.environ, "LD_DEBUG": "libs"})
    assert r.returncode == 0, r.stderr[-2000:]
    loaded = [line for line in r.stderr.splitlines() if "calling init:" in line]
    assert loaded, "LD_DEBUG=libs reported no libraries"
    for name in ["libcublas", "libcusolver", "libcusparse"]:
        assert not any(name in line for line in loaded), f"{name} loaded by layoutbench {args[0]}"


# Item: results that are not numbers. IDW is invariant under translating and scaling the
# coordinates, so far-off or huge coordinates give the ordinary answer (or a clear refusal).
SHIFT = 2.0 ** 66  # ~7.4e19: float cannot tell its neighbours 1e6 apart; double holds them exactly
STEP = 2.0 ** 20


@pytest.mark.parametrize("device", ["cpu", "gpu"])
@pytest.mark.parametrize("precision", ["float", "double"])
@pytest.mark.parametrize("origin,unit", [(SHIFT, STEP), (0.0, 2.0 ** 990)])
def test_far_off_or_huge_coordinates_give_the_ordinary_answer(tmp_path, precision, origin, unit, device):
    if device == "gpu":
        require_gpu()
    # Against the ordinary input on the same device: the GPU's float reciprocal and order of
    # summation differ from the CPU's by a few ulps, which is not what this test is about.
    ordinary = interpolate(tmp_path, points_file(tmp_path, DATA), device, precision=precision, name="a.csv")
    moved = tmp_path / "moved.csv"
    moved.write_text("".join(f"{origin + x * unit!r},{origin + y * unit!r},{z}\n" for x, y, z in DATA))
    grid = f"{origin!r}:{origin + 10 * unit!r}:11,{origin!r}:{origin + 10 * unit!r}:11"
    far = interpolate(tmp_path, moved, device, precision=precision, name="b.csv", grid=grid)
    tol = 1e-6 if precision == "float" else 1e-13
    for (_, _, a), (_, _, b) in zip(ordinary, far):
        assert abs(a - b) <= tol * abs(a), (a, b)


@pytest.mark.parametrize("precision", ["float", "double"])
@pytest.mark.parametrize("args", [["--power", "1000"], ["--grid", "-1e300:1e300:3,-1e300:1e300:3"]])
def test_weights_no_precision_holds_are_refused_with_the_reason(tmp_path, precision, args):
    out = tmp_path / "o.csv"
    base = {"--points": points_file(tmp_path, DATA), "--grid": "0:10:11,0:10:11", "--out": out, "--device": "cpu",
            "--precision": precision}
    base.update(zip(args[::2], args[1::2]))
    r = run("idw-interpolate", *[x for kv in base.items() for x in kv])
    assert r.returncode == 2 and not out.exists(), r.stderr
    assert "the weights 1/d^p of this input span" in r.stderr and f"more than {precision} holds" in r.stderr


def test_values_beyond_float_are_interpolated_in_float(tmp_path):
    points = points_file(tmp_path, [(x, y, z * 1e307) for x, y, z in DATA])
    values = [v for _, _, v in interpolate(tmp_path, points, "cpu", precision="float")]
    assert all(-3.0000001e307 <= v <= 10.000001e307 for v in values)
    assert abs(max(values) - 10e307) <= 1e-6 * 10e307


def test_unknown_preset_and_suite_for_plan():
    r = run("plan", "--preset", "fast")
    assert r.returncode == 2 and "unknown preset 'fast'" in r.stderr
    r = run("plan", "--suite", "nbody")
    assert r.returncode == 2 and "unknown suite 'nbody'" in r.stderr


# --- output safety (issue 9): the writer never destroys what it should not ------------------

def interpolate_to(tmp_path, out, points=None):
    points = points or points_file(tmp_path, DATA)
    return run("idw-interpolate", "--points", points, "--grid", "0:10:3,0:10:3", "--out", out, "--device", "cpu")


def test_a_symlinked_output_replaces_the_file_it_names(tmp_path):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "grid.csv"
    target.write_text("old\n")
    link = tmp_path / "link.csv"
    link.symlink_to("real/grid.csv")
    r = interpolate_to(tmp_path, link)
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and len(read_grid(target)) == 9


def test_a_fifo_or_a_read_only_file_is_refused_and_kept(tmp_path):
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    r = interpolate_to(tmp_path, fifo)
    assert r.returncode == 2 and "not a regular file" in r.stderr, r.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    ro = tmp_path / "ro.csv"
    ro.write_text("keep\n")
    ro.chmod(0o444)
    r = interpolate_to(tmp_path, ro)
    assert r.returncode == 2 and "read-only" in r.stderr, r.stderr
    assert ro.read_text() == "keep\n" and stat.S_IMODE(os.stat(ro).st_mode) == 0o444


def test_the_mode_is_kept_and_a_users_tmp_file_is_left_alone(tmp_path):
    out = tmp_path / "out.csv"
    out.write_text("old\n")
    out.chmod(0o640)
    mine = tmp_path / "out.csv.tmp"
    mine.write_text("my notes\n")
    r = interpolate_to(tmp_path, out)
    assert r.returncode == 0, r.stderr
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o640
    assert mine.read_text() == "my notes\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv", "out.csv.tmp", "points.csv"]


def test_output_paths_are_checked_before_the_input_is_read(tmp_path):
    r = interpolate_to(tmp_path, tmp_path / "missing" / "out.csv", points=tmp_path / "absent.csv")
    assert r.returncode == 2 and "--out" in r.stderr and "does not exist" in r.stderr, r.stderr
    points = points_file(tmp_path, DATA)
    r = interpolate_to(tmp_path, points, points=points)
    assert r.returncode == 2 and "is the input file" in r.stderr, r.stderr


def limited_memory():
    """An address-space limit, so that a run that does allocate fails fast instead of
    taking the machine's memory (the check must refuse before allocating anyway)."""
    resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))


def test_a_grid_that_cannot_fit_is_refused_before_allocating(tmp_path):
    out = tmp_path / "out.csv"
    r = subprocess.run([str(BIN), "idw-interpolate", "--points", str(points_file(tmp_path, DATA)),
                        "--grid", "0:1:100000000,0:1:100000000", "--out", str(out), "--device", "cpu"],
                       capture_output=True, text=True, preexec_fn=limited_memory, timeout=60)
    assert r.returncode == 2, r.stderr
    assert "needs" in r.stderr and "GiB of host memory" in r.stderr and "available" in r.stderr, r.stderr
    assert not out.exists()


# --- messages (issue 9) -------------------------------------------------------------------

@pytest.mark.parametrize("text,message", [
    ("1,2,3\n1,1e309,3\n", "points.csv:2: column 2 (y) is out of range for a double: '1e309'"),
    ("x,y,value\n", "no data points (a header only)"),
    ("\ufeff1,2,3\n", None),  # a spreadsheet's byte order mark
    ("1,2,3\n1," + "9" * 100000 + "x,3\n", "(100001 bytes)"),
    ("1,2,3\n1,\x01\x7fz,3\n", "'\\x01\\x7fz'"),
])
def test_loader_messages(tmp_path, text, message):
    path = tmp_path / "points.csv"
    path.write_text(text, encoding="utf-8")
    r = interpolate_to(tmp_path, tmp_path / "out.csv", points=path)
    if message is None:
        assert r.returncode == 0, r.stderr
        return
    assert r.returncode == 2 and message in r.stderr, r.stderr
    assert len(r.stderr) < 300


def test_a_directory_as_input_or_preset_is_named(tmp_path):
    r = interpolate_to(tmp_path, tmp_path / "out.csv", points=tmp_path)
    assert r.returncode == 2 and "is a directory" in r.stderr, r.stderr
    r = run("plan", "--preset", tmp_path)
    assert r.returncode == 2 and "is a directory" in r.stderr, r.stderr


@pytest.mark.parametrize("args,message", [
    (["--sizes", "-1024"], "--sizes: '-1024' is not a positive integer"),
    (["--sizes", "1024.5"], "--sizes: '1024.5' is not a positive integer"),
    (["--sizes", "0"], "--sizes: '0' is not a positive integer"),
    (["--suite", "kriging", "--sizes", "200"], "--sizes: scale 200 is not in 1..100"),
    (["--sizes", "1000,2000,1000"], "--sizes: 1000 is given twice"),  # twice planned under one name
])
def test_plan_sizes_are_positive_integers_named_by_the_option(args, message):
    r = run("plan", *args)
    assert r.returncode == 2 and message in r.stderr, r.stderr


@pytest.mark.parametrize("sizes,message", [("[-1024]", "element 1 is -1024"), ("[1024, 1024.5]", "element 2 is 1024.5")])
def test_preset_sizes_are_positive_integers(tmp_path, sizes, message):
    preset = tmp_path / "p.json"
    preset.write_text('{"suites": {"idw": {\n"sizes": %s, "versions": ["naive"], "precisions": ["float"], '
                      '"powers": [2]}}}' % sizes)
    r = run("plan", "--preset", preset)
    assert r.returncode == 2 and "p.json:2: 'sizes' must list positive integers" in r.stderr, r.stderr
    assert message in r.stderr

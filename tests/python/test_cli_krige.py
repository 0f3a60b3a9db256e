"""`layoutbench krige` end to end: the generated case or a wells CSV in, the model CSV out
(header, one row per mesh point, x fastest), exact at the wells, ordered surfaces, clear
errors (exit 2, no output file) for bad input, and the --wells-out round trip. The CPU
programs everywhere; the GPU path only where a GPU is visible (skipped, with the reason,
elsewhere). Skipped when the binary has not been built."""

import csv
import math
import subprocess
from pathlib import Path

import pytest

from tests.python.gpu import gpu_visible

BIN = Path(__file__).resolve().parents[2] / "build" / "layoutbench"

pytestmark = pytest.mark.skipif(not BIN.exists(), reason=f"needs the built binary {BIN}")

SURFACES = 11                 # the generated case: 11 surfaces bounding 10 strata
MESH_X, MESH_Y = 50, 90       # its mesh at scale 1 (cell centres 50, 150, ...)


def run(*args):
    return subprocess.run([str(BIN), *map(str, args)], capture_output=True, text=True)


def krige(*args):
    r = run("krige", *args)
    assert r.returncode == 0, r.stderr
    return r


def read_model(path):
    """(header, rows of floats)."""
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        return header, [[float(v) for v in row] for row in reader]


def wells_file(tmp_path, text, name="wells.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_generated_case_gives_the_mesh_with_ordered_surfaces(tmp_path):
    out = tmp_path / "model.csv"
    r = krige("--scale", 1, "--device", "cpu", "--out", out)
    summary = r.stderr.strip().splitlines()
    assert len(summary) == 2
    half_diagonal = 0.5 * math.hypot(100.0 * MESH_X, 100.0 * MESH_Y)
    assert summary[0] == f"variogram: exponential, sill 1, range {half_diagonal:.6g} (practical), nugget 0"
    assert f"kriged {MESH_X * MESH_Y} points x {SURFACES} surfaces" in summary[1]
    assert "experiment 6, cpu, float" in summary[1]
    header, rows = read_model(out)
    assert header == ["x", "y", *(f"surface{h}" for h in range(SURFACES))]
    assert len(rows) == MESH_X * MESH_Y
    assert all(len(row) == 2 + SURFACES for row in rows)
    # x fastest, cell centres 100 m apart
    assert [row[0] for row in rows[:MESH_X]] == [50.0 + 100.0 * i for i in range(MESH_X)]
    assert {row[1] for row in rows[:MESH_X]} == {50.0} and rows[MESH_X][1] == 150.0
    assert rows[-1][:2] == [100.0 * MESH_X - 50.0, 100.0 * MESH_Y - 50.0]
    for row in rows:
        values = row[2:]
        assert all(math.isfinite(v) for v in values)
        # the generator's surfaces never cross: every stratum keeps a positive thickness
        assert all(lower > upper for upper, lower in zip(values, values[1:])), row


def test_double_experiment_writes_round_trip_digits(tmp_path):
    out = tmp_path / "model.csv"
    krige("--scale", 1, "--experiment", 4, "--device", "cpu", "--out", out)
    first = out.read_text().splitlines()[1].split(",")
    assert max(len(v.replace("-", "").replace(".", "").lstrip("0")) for v in first[2:]) > 9


# Wells exactly on mesh points of 0:1000:11 x 0:1000:11 (coordinates 0, 100, ..., 1000).
EXACT_WELLS = [(100, 200, 510.25, 600.5), (700, 300, 480.0, 575.75), (400, 800, 530.5, 640.0),
               (900, 900, 495.125, 590.0), (0, 1000, 520.0, 610.25)]


@pytest.mark.parametrize("experiment, rel_tol", [(1, 1e-9), (2, 1e-9), (4, 1e-9), (6, 1e-5), (8, 1e-9)])
def test_model_equals_the_wells_at_the_wells(tmp_path, experiment, rel_tol):
    wells = wells_file(tmp_path, "x,y,top,base\n" + "".join(f"{x},{y},{t},{b}\n" for x, y, t, b in EXACT_WELLS))
    out = tmp_path / "model.csv"
    krige("--wells", wells, "--grid", "0:1000:11,0:1000:11", "--experiment", experiment,
          "--device", "cpu", "--out", out)
    header, rows = read_model(out)
    assert header == ["x", "y", "top", "base"] and len(rows) == 121
    at = {(row[0], row[1]): row[2:] for row in rows}
    for x, y, top, base in EXACT_WELLS:
        got = at[(float(x), float(y))]
        assert got[0] == pytest.approx(top, rel=rel_tol) and got[1] == pytest.approx(base, rel=rel_tol)
    assert all(math.isfinite(v) for row in rows for v in row)


def test_wells_out_round_trips(tmp_path):
    model, wells = tmp_path / "model.csv", tmp_path / "wells.csv"
    krige("--scale", 1, "--experiment", 4, "--device", "cpu", "--out", model, "--wells-out", wells)
    header, well_rows = read_model(wells)
    assert header == ["x", "y", *(f"surface{h}" for h in range(SURFACES))]
    assert len(well_rows) == 10
    # Fed back with --wells, the file loads to the same numbers (written again digit for
    # digit). (The model differs a little: the variogram's range comes from the --grid
    # extent, 50..4950 m here, where the generated case uses its whole 0..5000 m domain.)
    again, wells_again = tmp_path / "again.csv", tmp_path / "wells_again.csv"
    krige("--wells", wells, "--grid", f"50:{100 * MESH_X - 50}:{MESH_X},50:{100 * MESH_Y - 50}:{MESH_Y}",
          "--experiment", 4, "--device", "cpu", "--out", again, "--wells-out", wells_again)
    assert wells_again.read_text() == wells.read_text()
    header_again, rows_again = read_model(again)
    header_model, rows_model = read_model(model)
    assert header_again == header_model and len(rows_again) == len(rows_model)
    assert [r[:2] for r in rows_again] == [r[:2] for r in rows_model]


GOOD = "x,y,top,base\n0,0,1,2\n1000,0,3,4\n500,900,5,7\n"


@pytest.mark.parametrize("text, message", [
    ("x,y,top,base\n0,0,1,2\n1000,0,3\n", "wells.csv:3: expected 4 columns (x,y + 2 surfaces), found 3"),
    ("x,y,top\n0,0,1\n10,10,nan\n", "wells.csv:3: column 3 (top) is not finite"),
    ("x,y,top\n0,0,oops\n10,10,2\n", "wells.csv:2: column 3 (top) is not a number"),
    ("x,y,top\n5,5,1\n", "1 well; kriging needs at least 2"),
    ("x,y,top\n1,1,5\n2,2,6\n1,1,7\n", "wells.csv:4: well coincides with line 2"),
    ("0,0,1\n1,1,2\n", "wells.csv:1: expected a header x,y,<surface 1>"),
    ("", "empty file"),
    # 1e-5 m apart: distinct wells, but a singular system in float (experiment 6)
    ("x,y,top\n100,100,5\n100,100.00001,6\n500,500,7\n", "singular in float"),
])
def test_bad_wells_give_one_clear_error_and_no_output(tmp_path, text, message):
    wells = wells_file(tmp_path, text)
    out = tmp_path / "out.csv"
    r = run("krige", "--wells", wells, "--grid", "0:1000:11,0:1000:11", "--device", "cpu", "--out", out)
    assert r.returncode == 2
    assert message in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == [wells]  # no output, no temporary file


def test_singular_system_names_the_wells(tmp_path):
    wells = wells_file(tmp_path, "x,y,top\n100,100,5\n100,100.00001,6\n500,500,7\n")
    r = run("krige", "--wells", wells, "--grid", "0:1000:11,0:1000:11", "--device", "cpu",
            "--out", tmp_path / "out.csv")
    assert r.returncode == 2 and "closest wells are 0 at (100, 100) and 1 at" in r.stderr, r.stderr


@pytest.mark.parametrize("args, message", [
    (["--scale", 1, "--wells", "WELLS", "--grid", "0:1:2,0:1:2"], "not both"),
    ([], "nothing to krige"),
    (["--wells", "WELLS"], "--wells needs --grid"),
    (["--scale", 1, "--grid", "0:1:2,0:1:2"], "--grid is for --wells"),
    (["--wells", "WELLS", "--grid", "0:1:2,0:1:2", "--well-count", 5], "--well-count is for the generated case"),
    (["--wells", "WELLS", "--grid", "0:1:2"], "grid spec '0:1:2'"),
    (["--wells", "WELLS", "--grid", "5:5:1,7:7:1"], "a single point has no extent"),
    (["--scale", 1, "--precision", "float"], "--precision is only for experiments 7 and 8"),
    (["--scale", 1, "--experiment", 5, "--precision", "double"], "--precision is only for experiments 7 and 8"),
    (["--scale", 1, "--experiment", 7, "--precision", "half"], "--precision: 'half' is not one of float, double"),
    (["--scale", 1, "--experiment", 9], "unknown experiment 9"),
    (["--scale", 1, "--experiment", 8, "--solve", "host"], "--solve is for experiment 8 on the GPU"),
    (["--scale", 1, "--experiment", 7, "--solve", "auto", "--device", "gpu"], "--solve is for experiment 8 on the GPU"),
    (["--scale", 1, "--experiment", 8, "--solve", "gpu"], "--solve: 'gpu' is not one of device, host, auto"),
    (["--scale", 1, "--experiment", 7], "experiment 7 runs on the GPU only"),
    (["--scale", 1, "--well-count", 1], "--well-count 1: kriging needs at least 2 wells"),
    (["--scale", 1, "--model", "linear"], "--model: unknown variogram model 'linear'"),
    (["--scale", 1, "--range", 0], "range must be positive"),
    (["--scale", 1, "--nugget", -1], "nugget must be >= 0"),
    (["--scale", 1, "--sill", 0.5, "--nugget", 0.5], "must be finite and above the nugget 0.5"),
    (["--scale", 1, "--device", "tpu"], "unknown device 'tpu'"),
    (["--scale", 0], "scale must be at least 1"),
    (["--scale", 1, "--experiment", 4, "--well-count", 65], "holds at most 64"),
    # the device experiments' capacities are checked before looking for a GPU
    (["--scale", 1, "--experiment", 1, "--well-count", 17, "--device", "gpu"], "holds at most 16"),
])
def test_bad_options_are_named_and_write_nothing(tmp_path, args, message):
    wells = wells_file(tmp_path, GOOD)
    out = tmp_path / "out.csv"
    args = [wells if a == "WELLS" else a for a in args]
    if "--device" not in args:
        args += ["--device", "cpu"]
    r = run("krige", *args, "--out", out)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_out_is_required(tmp_path):
    r = run("krige", "--scale", 1, "--device", "cpu")
    assert r.returncode == 2 and "--out FILE is required" in r.stderr


def test_failure_keeps_an_existing_output_file(tmp_path):
    out = tmp_path / "out.csv"
    out.write_text("previous model\n")
    wells = wells_file(tmp_path, "x,y,top\n5,5,1\n")
    r = run("krige", "--wells", wells, "--grid", "0:10:3,0:10:3", "--device", "cpu", "--out", out)
    assert r.returncode == 2 and out.read_text() == "previous model\n"


@pytest.mark.parametrize("experiment", [1, 2, 3, 4, 5, 6])
@pytest.mark.usefixtures("gpu")
def test_gpu_matches_the_cpu_program(tmp_path, experiment):
    cpu, gpu = tmp_path / "cpu.csv", tmp_path / "gpu.csv"
    krige("--scale", 1, "--experiment", experiment, "--device", "cpu", "--out", cpu)
    r = krige("--scale", 1, "--experiment", experiment, "--device", "gpu", "--out", gpu)
    assert f"experiment {experiment}, gpu" in r.stderr
    header_cpu, rows_cpu = read_model(cpu)
    header_gpu, rows_gpu = read_model(gpu)
    assert header_gpu == header_cpu and len(rows_gpu) == len(rows_cpu)
    # float with fast math (6) against the float CPU program; double against double
    rel = 1e-4 if experiment == 6 else 1e-9
    for a, b in zip(rows_cpu, rows_gpu):
        assert a[:2] == b[:2]
        assert b[2:] == pytest.approx(a[2:], rel=rel)


def test_gpu_without_a_gpu_is_a_clear_error(tmp_path):
    if gpu_visible():
        pytest.skip("a GPU is visible: the no-GPU message cannot be provoked here")
    out = tmp_path / "out.csv"
    r = run("krige", "--scale", 1, "--device", "gpu", "--out", out)
    assert r.returncode == 2 and "no CUDA GPU visible" in r.stderr and not out.exists()


def expect_same_model(tmp_path, first, second, summary, rel):
    """`krige --scale 1` with the options `first`, then `second` (whose summary names
    `summary`): the same rows within rel."""
    a, b = tmp_path / "first.csv", tmp_path / "second.csv"
    krige("--scale", 1, *first, "--out", a)
    r = krige("--scale", 1, *second, "--out", b)
    assert summary in r.stderr, r.stderr
    header_a, rows_a = read_model(a)
    header_b, rows_b = read_model(b)
    assert header_b == header_a and len(rows_b) == len(rows_a)
    for row_a, row_b in zip(rows_a, rows_b):
        assert row_b == pytest.approx(row_a, rel=rel)


@pytest.mark.parametrize("precision, rel", [("double", 1e-9), ("float", 1e-4)])
@pytest.mark.usefixtures("gpu")
def test_gpu_experiment_7_matches_the_double_cpu_program(tmp_path, precision, rel):
    expect_same_model(tmp_path, ["--experiment", 4, "--device", "cpu"],
                      ["--experiment", 7, "--precision", precision, "--device", "gpu"],
                      f"experiment 7, gpu, {precision}", rel)


def test_variogram_options_are_used_and_printed(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    r = krige("--scale", 1, "--experiment", 4, "--device", "cpu", "--model", "spherical", "--range", 3000,
              "--sill", 2, "--nugget", 0.5, "--out", a)
    assert r.stderr.strip().splitlines()[0] == "variogram: spherical, sill 2, range 3000 (practical), nugget 0.5"
    krige("--scale", 1, "--experiment", 4, "--device", "cpu", "--out", b)
    _, rows_a = read_model(a)
    _, rows_b = read_model(b)
    assert rows_a != rows_b  # another variogram, another model


def test_default_experiment_runs_many_wells_and_says_which(tmp_path):
    """No --experiment with more wells than experiment 6 holds: experiment 8 on the GPU, named on stderr
    (without a GPU the run then stops at the missing GPU, after saying so)."""
    out = tmp_path / "out.csv"
    r = run("krige", "--scale", 1, "--well-count", 200, "--out", out)
    assert "no --experiment given and experiment 6 cannot run these wells" in r.stderr, r.stderr
    assert "using experiment 8 (the dual form) on the GPU" in r.stderr, r.stderr
    if gpu_visible():
        assert r.returncode == 0 and "experiment 8, gpu, double" in r.stderr, r.stderr
    else:
        assert r.returncode == 2 and "no CUDA GPU visible" in r.stderr and not out.exists()
    # an explicit choice that cannot run stays an error, before looking for a GPU
    r = run("krige", "--scale", 1, "--well-count", 200, "--experiment", 6, "--out", out)
    assert r.returncode == 2 and "constant memory" in r.stderr and "using experiment" not in r.stderr, r.stderr
    help_text = " ".join(run("krige", "--help").stdout.split())
    assert "the CPU programs hold 64) experiment 8, named on stderr" in help_text
    assert "Experiment 8 gives no kriging variance" in help_text


def test_cpu_default_beyond_64_wells_is_experiment_8(tmp_path):
    """The CPU programs of 1-6 hold 64 wells: beyond, no --experiment runs experiment 8 on the
    CPU (any well count), said on stderr; it agrees with the reference-checked exp 4 where both run."""
    out = tmp_path / "out.csv"
    r = krige("--scale", 1, "--well-count", 200, "--device", "cpu", "--out", out)
    assert "experiment 6 cannot run these wells (200 wells, but the CPU programs of experiments 1-6 hold at " \
           "most 64); using experiment 8 (the dual form) on the CPU" in r.stderr, r.stderr
    assert "experiment 8, cpu, double" in r.stderr, r.stderr
    _, rows = read_model(out)
    assert len(rows) == MESH_X * MESH_Y and all(math.isfinite(v) for row in rows for v in row)
    small = tmp_path / "small.csv"
    r = krige("--scale", 1, "--device", "cpu", "--out", small)  # 10 wells: the paper's 6 stays the default
    assert "experiment 6, cpu, float" in r.stderr and "using experiment" not in r.stderr, r.stderr


@pytest.mark.parametrize("precision, rel", [("double", 1e-9), ("float", 1e-4)])
def test_cpu_experiment_8_matches_experiment_4(tmp_path, precision, rel):
    expect_same_model(tmp_path, ["--experiment", 4, "--device", "cpu"],
                      ["--experiment", 8, "--precision", precision, "--device", "cpu"],
                      f"experiment 8, cpu, {precision}", rel)


@pytest.mark.parametrize("solve", ["device", "host", "auto"])
@pytest.mark.parametrize("precision, rel", [("double", 1e-9), ("float", 1e-4)])
@pytest.mark.usefixtures("gpu")
def test_gpu_experiment_8_matches_its_cpu_program(tmp_path, precision, rel, solve):
    expect_same_model(tmp_path, ["--experiment", 8, "--precision", precision, "--device", "cpu"],
                      ["--experiment", 8, "--precision", precision, "--device", "gpu", "--solve", solve],
                      f"experiment 8, gpu, {precision}", rel)


@pytest.mark.usefixtures("gpu")
def test_gpu_timing_splits_the_run(tmp_path):
    r = krige("--scale", 1, "--experiment", 8, "--device", "gpu", "--timing", "--out", tmp_path / "out.csv")
    assert "experiment 8 solved alpha on the device" in r.stderr, r.stderr
    lines = r.stderr.split("krige timing:\n")[1].splitlines()
    parts = [line.rsplit(None, 2)[0].strip() for line in lines]
    assert parts == ["loading the input", "start-up (CUDA context, allocations)", "program (timed region)", "solve",
                     "kernels", "transfers and host work", "checking the estimates", "writing", "total"], lines


def test_timing_on_the_cpu_splits_the_run(tmp_path):
    r = krige("--scale", 1, "--device", "cpu", "--timing", "--out", tmp_path / "out.csv")
    lines = r.stderr.split("krige timing:\n")[1].splitlines()
    parts = {line.rsplit(None, 2)[0].strip(): float(line.rsplit(None, 2)[1]) for line in lines}
    assert list(parts) == ["loading the input", "program (timed region)", "checking the estimates", "writing",
                           "total"], lines
    assert all(ms >= 0 for ms in parts.values())
    assert parts["total"] >= parts["program (timed region)"] + parts["writing"]
    # the summary stays the line before the split
    assert "kriged 4500 points x 11 surfaces" in r.stderr.split("krige timing:")[0].strip().splitlines()[-1]

def test_a_single_point_grid_runs_with_a_range(tmp_path):
    out = tmp_path / "out.csv"
    wells = wells_file(tmp_path, GOOD)
    krige("--wells", wells, "--grid", "5:5:1,7:7:1", "--range", 500, "--device", "cpu", "--experiment", 4, "--out", out)
    _, rows = read_model(out)
    assert len(rows) == 1 and rows[0][:2] == [5.0, 7.0]


# --- several outputs, sizes (issue 9) -----------------------------------------------------

def test_two_outputs_naming_one_file_are_refused_before_any_work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = run("krige", "--scale", 1, "--device", "cpu", "--out", "a.csv", "--wells-out", "./a.csv")
    assert r.returncode == 2 and "name the same file" in r.stderr, r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_outputs_land_all_or_none(tmp_path):
    out = tmp_path / "out.csv"
    out.write_text("previous model\n")
    (tmp_path / "folder").mkdir()
    r = run("krige", "--scale", 1, "--device", "cpu", "--out", out, "--wells-out", tmp_path / "folder")
    assert r.returncode == 2 and "--wells-out" in r.stderr and "is a directory" in r.stderr, r.stderr
    assert out.read_text() == "previous model\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "out.csv"]


def test_a_case_that_cannot_fit_is_refused_before_allocating(tmp_path):
    import resource

    def limited_memory():  # a run that does allocate fails fast instead of taking the machine
        resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))

    out = tmp_path / "out.csv"
    r = subprocess.run([str(BIN), "krige", "--scale", "2147483647", "--device", "cpu", "--out", str(out)],
                       capture_output=True, text=True, preexec_fn=limited_memory, timeout=60)
    assert r.returncode == 2, r.stderr
    assert "needs" in r.stderr and "GiB of host memory" in r.stderr and "available" in r.stderr, r.stderr
    assert not out.exists()


def test_wells_loader_messages(tmp_path):
    out = tmp_path / "out.csv"
    wells = wells_file(tmp_path, "\ufeffx,y,top\n0,0,1\n5,5,2\n")
    r = run("krige", "--wells", wells, "--grid", "0:5:3,0:5:3", "--device", "cpu", "--out", out)
    assert r.returncode == 0, r.stderr
    wells = wells_file(tmp_path, "x,y,top\n0,0,1\n5,1e400,2\n")
    r = run("krige", "--wells", wells, "--grid", "0:5:3,0:5:3", "--device", "cpu", "--out", out)
    assert r.returncode == 2 and "wells.csv:3: column 2 (y) is out of range for a double" in r.stderr, r.stderr
    r = run("krige", "--wells", tmp_path, "--grid", "0:5:3,0:5:3", "--device", "cpu", "--out", out)
    assert r.returncode == 2 and "is a directory" in r.stderr, r.stderr

"""Errors of the `layoutbench` subcommands that name their cause (issue 19): command-line
syntax, integer and choice options, output extensions, a mesh overflowing a double, a failed
write, memory limits, and signals arriving while an output is written. All on the CPU."""

import json
import os
import resource
import signal
import subprocess
import time
from pathlib import Path

import pytest

BIN = Path(__file__).resolve().parents[2] / "build" / "layoutbench"

pytestmark = pytest.mark.skipif(not BIN.exists(), reason=f"needs the built binary {BIN}")

POINTS = "x,y,value\n0,0,1\n10,0,2\n0,10,3\n10,10,5\n3,7,4\n"
GRAPH = "1 2\n2 3\n"
WELLS = "x,y,top\n0,0,1\n5,5,2\n"


def run(*args, **kwargs):
    return subprocess.run([str(BIN), *map(str, args)], capture_output=True, text=True, timeout=120, **kwargs)


@pytest.fixture
def inputs(tmp_path):
    """The input files, by option."""
    files = {"--points": tmp_path / "points.csv", "--graph": tmp_path / "g.txt", "--wells": tmp_path / "wells.csv"}
    for path, text in zip(files.values(), (POINTS, GRAPH, WELLS)):
        path.write_text(text)
    return files


def command(subcommand, inputs, out, *extra):
    """A complete CPU command line of `subcommand` writing `out`."""
    base = {"idw-interpolate": ["--points", inputs["--points"], "--grid", "0:10:3,0:10:3"],
            "krige": ["--scale", 1],
            "bfs": ["--graph", inputs["--graph"], "--source", 1]}[subcommand]
    return [subcommand, *base, "--device", "cpu", "--out", out, *extra]


def assert_one_error(r, *fragments):
    """Exit code 2 and one line, `layoutbench: error: ...`, containing every fragment."""
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("layoutbench: error: "), r.stderr
    for fragment in fragments:
        assert fragment in lines[0], r.stderr


# --- syntax errors: the project's form and exit code 2 (not CLI11's 104-114) ----------------

@pytest.mark.parametrize("args, hint", [
    ([], "layoutbench --help"),
    (["nosuch"], "layoutbench --help"),
    (["plan", "--bogus"], "layoutbench plan --help"),
    (["run", "--preset", "quick"], "layoutbench run --help"),  # --journal is required
    (["suites", "--bogus"], "layoutbench suites --help"),
    (["list-devices", "extra"], "layoutbench list-devices --help"),
    (["idw-interpolate", "--points"], "layoutbench idw-interpolate --help"),
    (["krige", "--scale"], "layoutbench krige --help"),
    (["bfs", "--graph", "g.txt"], "layoutbench bfs --help"),
])
def test_syntax_errors_are_one_line_with_a_help_hint_and_exit_2(args, hint):
    assert_one_error(run(*args), f"(see `{hint}`)")


def test_help_still_exits_0():
    for args in (["--help"], ["krige", "--help"]):
        r = run(*args)
        assert r.returncode == 0 and "Usage:" in r.stdout, r.stderr


# --- integer options: a negative number (or hex, octal) never wraps --------------------------

@pytest.mark.parametrize("subcommand, option, value", [
    ("bfs", "--inline", "-1"),
    ("bfs", "--inline", "0x3"),
    ("krige", "--well-count", "-1"),
    ("krige", "--scale", "-1"),
    ("krige", "--experiment", "-6"),
    ("idw-interpolate", "--block", "-256"),
])
def test_integer_options_refuse_what_is_not_a_non_negative_integer(tmp_path, inputs, subcommand, option, value):
    out = tmp_path / "out.csv"
    args = command(subcommand, inputs, out)
    if option in args:  # --scale: replace the base's
        args[args.index(option) + 1] = value
    else:
        args += [option, value]
    if subcommand == "bfs":
        args += ["--strategy", "partial"]
    assert_one_error(run(*args), f"{option}: '{value}' is not a non-negative integer")
    assert not out.exists()


# --- the output's extension picks the format: an unknown one is refused, listing them -------

@pytest.mark.parametrize("subcommand, formats", [
    ("idw-interpolate", "give .csv, .npy, .tif or .tiff"),
    ("krige", "give .csv, .npy, .tif or .tiff"),
    ("bfs", "give .csv"),
])
@pytest.mark.parametrize("name, problem", [("out.txt", "unknown extension '.txt'"), ("out", "no extension")])
def test_an_unknown_out_extension_is_refused_listing_the_formats(tmp_path, inputs, subcommand, formats, name, problem):
    out = tmp_path / name
    assert_one_error(run(*command(subcommand, inputs, out)), f"--out '{out}': {problem}", formats)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.txt", "points.csv", "wells.csv"]


# --- --precision: one error naming the option and the values --------------------------------

@pytest.mark.parametrize("args", [
    ["idw-interpolate", "--points", "POINTS", "--grid", "0:1:2,0:1:2", "--device", "cpu", "--out", "OUT"],
    ["krige", "--scale", 1, "--device", "cpu", "--out", "OUT"],  # no --experiment: not blamed on it
    ["krige", "--scale", 1, "--experiment", 8, "--device", "cpu", "--out", "OUT"],
    ["plan"],  # not blamed on the preset file
    ["plan", "--precision", "float"],  # the list's every item is checked
])
def test_an_unknown_precision_names_the_option_and_the_values(tmp_path, inputs, args):
    out = tmp_path / "out.csv"
    args = [inputs["--points"] if a == "POINTS" else out if a == "OUT" else a for a in args]
    precision = "float,half" if "--precision" in args else "half"
    if "--precision" in args:
        args = args[:args.index("--precision")]
    r = run(*args, "--precision", precision)
    assert_one_error(r, "--precision: 'half' is not one of float, double")
    assert not out.exists()


# --- a mesh whose extent overflows a double: the grid spec is the cause, not --range --------

@pytest.mark.parametrize("extra", [[], ["--range", 5]])
def test_a_mesh_overflowing_a_double_names_the_grid_spec(tmp_path, inputs, extra):
    out = tmp_path / "out.csv"
    spec = "-1e308:1e308:3,0:1:3"
    r = run("krige", "--wells", inputs["--wells"], "--grid", spec, "--device", "cpu", "--out", out, *extra)
    assert_one_error(r, f"grid spec '{spec}'", "overflows a double")
    assert "--range" not in r.stderr and not out.exists()


# --- a failed write says why -----------------------------------------------------------------

def test_a_failed_write_gives_the_reason_and_keeps_the_old_output(tmp_path, inputs):
    """A file size limit (RLIMIT_FSIZE, SIGXFSZ ignored) makes write(2) fail with EFBIG, the
    way a full disk fails it with ENOSPC: the message carries strerror's text."""
    out = tmp_path / "out.csv"
    out.write_text("old\n")

    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (10000, 10000))

    r = run("idw-interpolate", "--points", inputs["--points"], "--grid", "0:10:100,0:10:100", "--device", "cpu",
            "--out", out, preexec_fn=small_files)
    assert_one_error(r, f"--out {out}: write failed: {os.strerror(27)}")  # EFBIG: "File too large"
    assert out.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.txt", "out.csv", "points.csv", "wells.csv"]


# --- out of host memory: what was being allocated, and how much -----------------------------

def test_out_of_memory_names_what_was_being_allocated(tmp_path):
    """Under an address-space limit of 300 MiB (the binary alone maps about 150 MiB), reading
    a 60 MiB points file fails in the loader; the error says so, with the file's size (or,
    where the file fits, the memory check after it names the interpolation and its need)."""
    points = tmp_path / "big.csv"
    with open(points, "w") as f:
        f.write("x,y,value\n")
        f.writelines(f"{i % 2000}.5,{i // 2000}.25,{i % 7}\n" for i in range(4_000_000))
    out = tmp_path / "out.csv"

    def limited():
        resource.setrlimit(resource.RLIMIT_AS, (300 << 20, 300 << 20))

    r = run("idw-interpolate", "--points", points, "--grid", "0:1:2,0:1:2", "--device", "cpu", "--out", out,
            preexec_fn=limited)
    # Where the loader fits (the GPU machine: another allocator, other mappings), the memory
    # check before the interpolation refuses instead: also one line saying what and how much.
    assert_one_error(r, "host memory")
    assert (f"out of host memory while loading the points of {points} (a 60.6 MiB file)" in r.stderr
            or "interpolating 2 x 2 grid points: needs" in r.stderr), r.stderr
    assert "std::bad_alloc" not in r.stderr and not out.exists()


# --- signals: however many arrive, no temporary file is left and the old output stays -------

@pytest.mark.parametrize("signals", [(signal.SIGINT, signal.SIGTERM), (signal.SIGTERM, signal.SIGTERM),
                                     (signal.SIGQUIT, signal.SIGQUIT)])
def test_signals_in_a_row_leave_no_temporary_file(tmp_path, inputs, signals):
    """A long write (4 million grid points) hit by two signals back to back, as `timeout` or
    a second ^C sends them, the moment its temporary file appears and a little later. (The
    deterministic version, a storm of signals while 64 temporaries are unlinked, is
    AtomicFileSignals.ASignalStormLeavesNoTemporaryFile in tests/cpp/test_atomic_file.cpp.)"""
    out = tmp_path / "out.csv"
    for attempt in range(12):
        out.write_text("old\n")
        proc = subprocess.Popen([str(BIN), "idw-interpolate", "--points", str(inputs["--points"]), "--grid",
                                 "0:10:2000,0:10:2000", "--device", "cpu", "--out", str(out)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while not any(p.name.startswith(".out.csv.") for p in tmp_path.iterdir()):
            assert proc.poll() is None and time.monotonic() < deadline, "no temporary file appeared"
        time.sleep(0.01 * (attempt % 3))
        for sig in signals:
            proc.send_signal(sig)
        assert proc.wait(timeout=30) in (-signals[0], -signals[1])
        assert sorted(p.name for p in tmp_path.iterdir()) == ["g.txt", "out.csv", "points.csv", "wells.csv"], \
            f"attempt {attempt}"
        assert out.read_text() == "old\n"


def test_a_write_past_the_file_size_limit_leaves_no_temporary_file(tmp_path, inputs):
    """`ulimit -f`: the write that passes it gets SIGXFSZ, which ends the process as the other
    cleanup signals do, its temporary file removed, the old output kept (issue 41)."""
    out = tmp_path / "out.csv"
    out.write_text("old\n")

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 16, 1 << 16))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    proc = subprocess.run([str(BIN), "idw-interpolate", "--points", str(inputs["--points"]), "--grid",
                           "0:10:300,0:10:300", "--device", "cpu", "--out", str(out)],
                          capture_output=True, timeout=120, preexec_fn=small_files)
    assert proc.returncode == -signal.SIGXFSZ, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.txt", "out.csv", "points.csv", "wells.csv"]
    assert out.read_text() == "old\n"


# --- issue 41: stdout, trees and plans ---------------------------------------------------------

@pytest.mark.parametrize("args", [["plan", "--suite", "idw", "--preset", "quick"], ["suites", "--json"],
                                  ["build-info"], ["advise", "--program", "nbody", "--json"]])
def test_a_failed_write_to_stdout_is_exit_2(args):
    with open("/dev/full", "w") as full:
        r = subprocess.run([str(BIN), *args], stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    # The reason where the final flush fails (a short output), else "an earlier write failed".
    assert_one_error(r, "cannot write to standard output (")


@pytest.mark.parametrize("args", [["advise", "--program", "nbody", "--tree", "/dev/zero"],
                                  ["plan", "--suite", "kofler", "--preset", "quick", "--kofler-tree", "/dev/zero"]])
def test_a_tree_that_never_ends_is_refused_before_any_read(args):
    r = run(*args)
    assert_one_error(r, "/dev/zero: is a device, not a file")


@pytest.mark.parametrize("args, option", [
    (["advise", "--program", "nbody", "--tree", ""], "--tree"),
    (["plan", "--suite", "kofler", "--preset", "quick", "--kofler-tree", ""], "--kofler-tree"),
    (["run", "--preset", "quick", "--journal", "j.jsonl", "--skip-file", ""], "--skip-file"),
    (["krige", "--wells", "", "--grid", "0:1:2,0:1:2", "--out", "m.csv"], "--wells"),
    (["krige", "--scale", "1", "--device", "cpu", "--out", "m.csv", "--wells-out", ""], "--wells-out"),
])
def test_an_empty_value_is_refused_not_read_as_the_option_left_out(tmp_path, args, option):
    r = run(*args, cwd=tmp_path)
    assert_one_error(r, f"{option}: '' is empty")
    assert r.stdout == "" and not list(tmp_path.iterdir())


@pytest.mark.parametrize("command", ["plan", "run"])
def test_an_input_the_suite_does_not_take_is_refused_not_ignored(tmp_path, command):
    """A suite declares the inputs it reads (--kofler-tree: the kofler suite's); given to
    another suite, the file would be ignored, so it is an error before anything is read."""
    args = ["--journal", tmp_path / "j.jsonl"] if command == "run" else []
    r = run(command, "--suite", "idw", "--preset", "quick", *args, "--kofler-tree", "/dev/zero")
    assert_one_error(r, "--kofler-tree: suite idw takes no such input")
    assert r.stdout == "" and not list(tmp_path.iterdir())


def test_a_tree_tile_out_of_range_is_refused_as_the_file_is_read(tmp_path):
    tree = tmp_path / "tree.json"
    tree.write_text('{"format": "layoutbench-kofler-tree/1", "gpu": {"name": "g", "uuid": "u"},\n'
                    ' "feature": "cluster_bytes", "tile_unit": "records",\n'
                    ' "intervals": [{"from_bytes": 1, "to_bytes": null, "class": "tiled:18446744073709551615"}]}')
    for args in (["plan", "--suite", "kofler", "--preset", "quick"], ["advise", "--program", "nbody"]):
        r = run(*args, "--kofler-tree" if args[0] == "plan" else "--tree", tree)
        assert_one_error(r, f"{tree}: interval 1: class 'tiled:18446744073709551615': the tile is out of range")
        assert r.stdout == ""


def test_a_plan_above_the_limit_is_one_error_naming_the_limit(tmp_path):
    preset = tmp_path / "big.json"
    sizes = ", ".join(str(32 * s) for s in range(1, 201))
    preset.write_text('{"suites": {"idw": {"sizes": [' + sizes + '],\n "versions": ["naive"], "layouts": ["soa"],'
                      ' "precisions": ["float"], "powers": [2], "cpu_baselines": false}}}')
    r = run("plan", "--suite", "idw", "--preset", preset, env={**os.environ, "LB_MAX_BENCHMARKS": "100"})
    assert_one_error(r, f"{preset}:1: suite idw plans 200 benchmarks, more than the limit of 100", "LB_MAX_BENCHMARKS")
    assert r.stdout == ""
    r = run("plan", "--suite", "idw", "--preset", preset, env={**os.environ, "LB_MAX_BENCHMARKS": "200"})
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 200, r.stderr


def test_a_run_time_tile_above_any_run_is_refused_naming_it(tmp_path):
    """A preset's "tiles" of 2^64 - 1 was planned, and the run-time mapping's walk over tiles
    would never have ended (issue 41)."""
    preset = tmp_path / "tiles.json"
    preset.write_text('{"suites": {"kofler": {"nbody": {"sizes": [1024], "steps": 1,\n'
                      ' "layouts": ["aos", "tiled"], "tiles": [4, 18446744073709551615]}}}}')
    r = run("plan", "--suite", "kofler", "--preset", preset)
    assert_one_error(r, "tile 18446744073709551615 is not in 1..1073741824 records")
    assert r.stdout == ""


def run_without_gpu(tmp_path, *args):
    """`layoutbench run --suite idw --preset quick --sizes 1000 ARGS` with no GPU visible (as on
    CI, and on a GPU machine the same): its result and journal."""
    journal = tmp_path / "idw.jsonl"
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", LB_PRESET_DIR=str(BIN.parents[1] / "harness" / "presets"))
    r = run("run", "--suite", "idw", "--preset", "quick", "--sizes", 1000, "--journal", journal,
            "--cpu-lock", tmp_path / "cpu.lock", *args, env=env)
    records = [json.loads(line) for line in journal.read_text().splitlines()] if journal.exists() else []
    return r, records


def test_run_of_gpu_benchmarks_without_a_gpu_is_one_error_counting_them(tmp_path):
    r, records = run_without_gpu(tmp_path, "--filter", "idw/shepard/(naive|cpu-serial)/aos/float/p:2/")
    assert_one_error(r, "no CUDA GPU visible: `run` needs one (1 of the 2 planned benchmarks run on the GPU)")
    assert records == []


def test_run_of_cpu_benchmarks_needs_no_gpu(tmp_path):
    """A plan of CPU benchmarks runs with no GPU visible (it was refused as a GPU plan is): its
    context has no gpu and no ceilings block, and every benchmark is done."""
    r, records = run_without_gpu(tmp_path, "--filter", "idw/shepard/cpu-serial/aos/float/p:2/")
    assert r.returncode == 0, r.stderr
    (context,) = [rec["context"]["lb"] for rec in records if rec["type"] == "context"]
    assert "gpu" not in context and "ceilings" not in context and context["run"]["device_index"] is None
    done = [rec for rec in records if rec["type"] == "done"]
    assert [d["name"] for d in done] == ["idw/shepard/cpu-serial/aos/float/p:2/size:1000"] and done[0]["ok"]

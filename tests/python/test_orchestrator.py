"""harness/run.py against a fake layoutbench (tests/python/fake_layoutbench.py): assembly,
crash recovery, interruption and resume, bad input, several devices, figures."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RUN_PY = REPO / "harness" / "run.py"
FAKE = Path(__file__).with_name("fake_layoutbench.py")

LAYOUTS = ("soa", "aos", "aoas")
QUICK_PLAN = [f"idw/shepard/naive/{layout}/{precision}/p:2/size:1024/manual_time"
              for precision in ("float", "double") for layout in LAYOUTS]


sys.path.insert(0, str(REPO / "harness"))  # harness/run.py's parts, as run.py finds them
from orchestrator.binary import cuda_visible_devices  # noqa: E402
from orchestrator.console import Console  # noqa: E402
from orchestrator.journal import JournalError, assemble, read_journal  # noqa: E402
from orchestrator.presets import read_preset  # noqa: E402


def copy_orchestrator(repo):
    """harness/run.py and its package into another checkout."""
    shutil.copytree(RUN_PY.with_name("orchestrator"), repo / "harness" / "orchestrator",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(RUN_PY, repo / "harness" / "run.py")


@pytest.fixture
def work(tmp_path):
    """A wrapper script standing in for build/layoutbench, a results root and a calls log."""
    binary = tmp_path / "layoutbench"
    binary.write_text(f'#!/bin/sh\nexec "{sys.executable}" -S "{FAKE}" "$@"\n')
    binary.chmod(0o755)

    class Work:
        bin = binary
        root = tmp_path / "runs"
        calls = tmp_path / "calls.jsonl"
        # Named presets resolve to idw-only stand-ins (run.py runs every suite a preset
        # configures; the fake binary knows the suites FAKE_LB_SUITES names).
        preset_dir = Path(__file__).with_name("fixtures") / "presets"

        def env(self, **fake):
            env = {k: v for k, v in os.environ.items()
                   if not k.startswith("FAKE_LB_") and k != "CUDA_VISIBLE_DEVICES"}
            env["FAKE_LB_CALLS"] = str(self.calls)
            env["LB_PRESET_DIR"] = str(self.preset_dir)
            env.update({f"FAKE_LB_{k.upper()}": str(v) for k, v in fake.items()})
            return env

        def command(self, *args, script=RUN_PY):
            return [sys.executable, str(script), "--bin", str(self.bin),
                    "--results-root", str(self.root), *args]

        def run(self, *args, script=RUN_PY, figures=False, **fake):
            args = args if figures else (*args, "--no-figures")
            return subprocess.run(self.command(*args, script=script), env=self.env(**fake),
                                  capture_output=True, text=True, timeout=60)

        def start(self, *args, **fake):
            return subprocess.Popen(self.command(*args, "--no-figures"), env=self.env(**fake),
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

        def run_dirs(self):
            return sorted(self.root.iterdir()) if self.root.exists() else []

        def the_run_dir(self):
            (run_dir,) = self.run_dirs()
            return run_dir

        def run_calls(self):
            if not self.calls.exists():
                return []
            calls = [json.loads(line) for line in self.calls.read_text().splitlines()]
            return [c for c in calls if c["argv"][0] == "run"]

    return Work()


def records(journal):
    return [json.loads(line) for line in journal.read_text().splitlines() if line.strip()]


def start_counts(journal):
    return Counter(r["name"] for r in records(journal) if r["type"] == "start")


def load_google_benchmark_json(path):
    """Loads a result file the way google benchmark's tools/compare.py reads one."""
    document = json.loads(path.read_text())
    assert set(document) == {"context", "benchmarks"}
    assert isinstance(document["context"], dict)
    for entry in document["benchmarks"]:
        assert isinstance(entry["name"], str) and isinstance(entry["run_name"], str)
        assert entry["run_type"] in ("iteration", "aggregate")
        # Every entry has the time keys compare.py reads; a failure has a message and zero times.
        assert "time_unit" in entry and "real_time" in entry and "cpu_time" in entry
        if entry.get("error_occurred"):
            assert entry["error_message"] and entry["real_time"] == 0
        if entry["run_type"] == "aggregate":
            assert entry["aggregate_name"]
    return document


def benchmark_names(document):
    return list(dict.fromkeys(entry["run_name"] for entry in document["benchmarks"]))


def test_full_run_assembles_google_benchmark_json(work):
    result = work.run()
    assert result.returncode == 0, result.stderr
    run_dir = work.the_run_dir()
    assert run_dir.name.endswith("_nvidia-h100-80gb-hbm3_quick")
    assert run_dir.name[:10].count("-") == 2  # YYYY-MM-DD_
    document = load_google_benchmark_json(run_dir / "idw.gpu0.json")
    assert benchmark_names(document) == QUICK_PLAN
    assert document["context"]["lb"]["gpu"]["uuid"] == "GPU-fake-0"
    # 2 repetitions + mean, median, cv for each benchmark, none failed
    assert len(document["benchmarks"]) == 5 * len(QUICK_PLAN)
    assert not any(entry.get("error_occurred") for entry in document["benchmarks"])
    meta = json.loads((run_dir / "run.json").read_text())
    assert meta["args"]["preset"] == "quick" and meta["plan"] == {"idw": 6} and meta["started"]
    log = (run_dir / "run.log").read_text()
    assert "[gpu 0] [1/6] idw/shepard" in log and "idw: 6/6 benchmarks done" in log
    assert "elapsed" in log
    assert result.stdout.strip().splitlines()[-1] == f"run folder: {run_dir}"
    assert [c["cuda_visible_devices"] for c in work.run_calls()] == ["0"]
    assert not (run_dir / ".lock").exists()


def test_existing_folder_gets_a_suffix_and_preset_file_its_stem(work, tmp_path):
    assert work.run().returncode == 0
    assert work.run().returncode == 0
    assert [d.name[11:] for d in work.run_dirs()] == [
        "nvidia-h100-80gb-hbm3_quick", "nvidia-h100-80gb-hbm3_quick_2"]
    preset = tmp_path / "my-sweep.json"
    preset.write_text("{}")
    assert work.run("--preset", str(preset)).returncode == 0
    assert work.run_dirs()[0].name.endswith("_my-sweep")
    assert [c for c in work.run_calls()][-1]["argv"][4] == str(preset)


def test_crashes_are_recorded_as_failed_and_the_rest_runs(work):
    sticky, segfault = QUICK_PLAN[1], QUICK_PLAN[4]
    result = work.run(crash=f"{sticky}=3;{segfault}=SIGSEGV")
    assert result.returncode == 0, result.stderr
    run_dir = work.the_run_dir()
    document = load_google_benchmark_json(run_dir / "idw.gpu0.json")
    assert benchmark_names(document) == QUICK_PLAN
    by_name = {}
    for entry in document["benchmarks"]:
        by_name.setdefault(entry["run_name"], []).append(entry)
    # exit 3: the binary recorded the failure itself
    assert [e.get("error_occurred") for e in by_name[sticky]] == [True]
    # SIGSEGV mid-benchmark: the orchestrator's record replaces the partial repetition
    (crashed,) = by_name[segfault]
    assert crashed["error_occurred"] is True and "SIGSEGV" in crashed["error_message"]
    for name in set(QUICK_PLAN) - {sticky, segfault}:
        assert not any(e.get("error_occurred") for e in by_name[name])
    assert start_counts(run_dir / "idw.gpu0.journal.jsonl") == Counter(QUICK_PLAN)
    assert len(work.run_calls()) == 3
    assert "2 failed" in result.stdout and "restarting for the remaining" in result.stdout


def test_torn_journal_line_from_a_killed_binary_is_dropped(work):
    torn = QUICK_PLAN[2]
    result = work.run(crash=f"{torn}=torn")
    assert result.returncode == 0, result.stderr
    journal = work.the_run_dir() / "idw.gpu0.journal.jsonl"
    assert "dropping an incomplete last journal line" in result.stderr
    records(journal)  # every line is JSON again
    document = load_google_benchmark_json(work.the_run_dir() / "idw.gpu0.json")
    assert benchmark_names(document) == QUICK_PLAN
    failed = [e for e in document["benchmarks"] if e.get("error_occurred")]
    assert [e["name"] for e in failed] == [torn] and "SIGKILL" in failed[0]["error_message"]


def wait_for_done(journal, count, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if journal.exists() and journal.read_text().count('"type": "done"') >= count:
            return
        time.sleep(0.02)
    raise AssertionError(f"{journal} never had {count} done records")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_interrupted_run_resumes_only_what_is_missing(work, signum):
    layouts = "soa,aos,aoas,builtin,soaos,hybrid"
    proc = work.start("--filter", "/(aos|aoas|soaos)/", delay=0.2, layouts=layouts)
    wait_for_done(_first_journal(work), 2)
    proc.send_signal(signum)
    stdout, stderr = proc.communicate(timeout=20)
    assert proc.returncode == 128 + signum, stderr
    run_dir = work.the_run_dir()
    journal = run_dir / "idw.gpu0.journal.jsonl"
    assert "resume with" in stdout and not (run_dir / ".lock").exists()
    done_before = [r["name"] for r in records(journal) if r["type"] == "done"]
    assert 2 <= len(done_before) < 6
    interrupted = [r["name"] for r in records(journal) if r["type"] == "start"][len(done_before):]
    assert len(interrupted) == 1  # killed after its first repetition was journaled
    assert any(r["type"] == "run" and r["name"] == interrupted[0] for r in records(journal))
    assert all(r["ok"] for r in records(journal) if r["type"] == "done")  # nothing failed
    partial = load_google_benchmark_json(run_dir / "idw.gpu0.json")
    assert benchmark_names(partial) == done_before

    result = subprocess.run([sys.executable, str(RUN_PY), "--resume", str(run_dir),
                             "--no-figures"], env=work.env(layouts=layouts), capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    planned = [f"idw/shepard/naive/{layout}/{precision}/p:2/size:1024/manual_time"
               for precision in ("float", "double") for layout in ("aos", "aoas", "soaos")]
    # the filter came from run.json
    document = load_google_benchmark_json(run_dir / "idw.gpu0.json")
    assert benchmark_names(document) == planned
    assert not any(e.get("error_occurred") for e in document["benchmarks"])
    assert len(document["benchmarks"]) == 5 * len(planned)  # no leftovers of the killed attempt
    starts = start_counts(journal)
    assert all(starts[name] == 1 for name in done_before)
    assert set(starts) == set(planned)
    assert sum(starts.values()) == len(planned) + 1
    assert json.loads((run_dir / "run.json").read_text())["resumed"]


def _first_journal(work, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for run_dir in work.run_dirs():
            return run_dir / "idw.gpu0.journal.jsonl"
        time.sleep(0.02)
    raise AssertionError("no run folder appeared")


def test_resume_refuses_while_the_run_is_still_going(work):
    proc = work.start(delay=0.3)
    wait_for_done(_first_journal(work), 1)
    run_dir = work.the_run_dir()
    result = subprocess.run([sys.executable, str(RUN_PY), "--resume", str(run_dir)],
                            env=work.env(), capture_output=True, text=True, timeout=60)
    proc.terminate()
    proc.communicate(timeout=20)
    assert result.returncode == 2 and "still being written by" in result.stderr


def test_resume_rejects_a_different_selection(work):
    assert work.run().returncode == 0
    result = subprocess.run([sys.executable, str(RUN_PY), "--resume", str(work.the_run_dir()),
                             "--preset", "paper"], env=work.env(), capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 2 and "differs from the run being resumed" in result.stderr


def test_truncated_last_journal_line_is_tolerated_on_resume(work):
    assert work.run().returncode == 0
    run_dir = work.the_run_dir()
    journal = run_dir / "idw.gpu0.journal.jsonl"
    lines = journal.read_text().splitlines(keepends=True)
    third_done = [i for i, line in enumerate(lines) if '"done"' in line][2]
    journal.write_text("".join(lines[:third_done + 1]) + '{"type": "run", "name": "idw/sh')
    result = subprocess.run([sys.executable, str(RUN_PY), "--resume", str(run_dir),
                             "--no-figures"], env=work.env(), capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert f"{journal}:{third_done + 2}: dropping an incomplete last journal line" in result.stderr
    assert benchmark_names(load_google_benchmark_json(run_dir / "idw.gpu0.json")) == QUICK_PLAN
    assert start_counts(journal) == Counter(QUICK_PLAN)


def test_corrupt_journal_line_in_the_middle_is_an_error(work):
    assert work.run().returncode == 0
    run_dir = work.the_run_dir()
    journal = run_dir / "idw.gpu0.journal.jsonl"
    lines = journal.read_text().splitlines(keepends=True)
    journal.write_text("".join(lines[:2]) + "{garbage\n" + "".join(lines[2:]))
    result = subprocess.run([sys.executable, str(RUN_PY), "--resume", str(run_dir),
                             "--no-figures"], env=work.env(), capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 1
    assert f"{journal}:3: corrupt journal line" in result.stderr


def test_read_journal_and_assemble_tolerate_only_the_last_line(tmp_path, capsys):
    journal = tmp_path / "idw.gpu0.journal.jsonl"
    good = [{"type": "context", "context": {"host_name": "h"}},
            {"type": "start", "name": "a"},
            {"type": "run", "name": "a", "run": {"name": "a", "run_name": "a", "real_time": 1}},
            {"type": "done", "name": "a", "ok": True}]
    journal.write_text("".join(json.dumps(r) + "\n" for r in good) + '{"type": "st')
    parsed = read_journal(journal)
    assert parsed.records == good and parsed.torn_line == 5
    assemble(journal, tmp_path / "out.json", ["a", "b"], Console())
    assert f"{journal}:5: ignoring an incomplete last journal line" in capsys.readouterr().err
    document = json.loads((tmp_path / "out.json").read_text())
    assert document == {"context": {"host_name": "h"}, "benchmarks": [good[2]["run"]]}
    journal.write_text('{"type": "start", "name": "a"}\n[1]\n' + json.dumps(good[3]) + "\n")
    with pytest.raises(JournalError, match=r"journal.jsonl:2: corrupt journal line"):
        read_journal(journal)


def test_cuda_visible_devices_follows_an_inherited_list(monkeypatch):
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    assert cuda_visible_devices(1) == "1"
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "4,5")
    assert cuda_visible_devices(1) == "5"


def test_no_gpu_is_one_line_and_exit_2(work):
    result = work.run(devices=0)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "no CUDA GPU" in result.stderr and "make figures" in result.stderr
    assert result.stdout == "" and not work.root.exists()


@pytest.mark.parametrize("args, expected", [
    (["--preset", "nosuch"], "unknown preset 'nosuch'"),
    (["--preset", "BAD_PRESET_FILE"], "malformed preset"),
    (["--suites", "idw,nosuch"], "unknown suite 'nosuch'"),
    (["--sizes", "big"], "bad --sizes"),
])
def test_a_preset_error_comes_before_the_missing_gpu(work, tmp_path, args, expected):
    """What needs no GPU (the preset, the suites, the plans) is checked first: on a machine
    without one, a mistake there is what the user is told, not "no CUDA GPU"."""
    bad_preset = tmp_path / "broken.json"
    bad_preset.write_text("this preset is bad\n")
    args = [str(bad_preset) if a == "BAD_PRESET_FILE" else a for a in args]
    result = work.run(*args, devices=0)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and expected in result.stderr, result.stderr
    assert "no CUDA GPU" not in result.stderr and not work.root.exists()


@pytest.mark.parametrize("args, expected", [
    (["--preset", "nosuch"], "unknown preset 'nosuch'"),
    (["--preset", "BAD_PRESET_FILE"], "malformed preset"),
    (["--suites", "idw,nosuch"], "unknown suite 'nosuch'"),
    (["--devices", "3"], "unknown device index 3"),
    (["--sizes", "big"], "bad --sizes"),
    (["--bogus"], "unrecognized arguments"),
])
def test_bad_input_is_one_message_exit_2_and_creates_nothing(work, tmp_path, args, expected):
    bad_preset = tmp_path / "broken.json"
    bad_preset.write_text("this preset is bad\n")
    args = [str(bad_preset) if a == "BAD_PRESET_FILE" else a for a in args]
    result = work.run(*args)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and expected in result.stderr
    assert not work.root.exists()


def test_binary_dying_before_any_benchmark_gives_up(work):
    result = work.run(startup_exit=5)
    assert result.returncode == 1
    assert "exited with code 5 before finishing any benchmark" in result.stderr
    assert len(work.run_calls()) == 1


def test_two_devices_give_two_journals_and_two_result_files(work):
    result = work.run(devices=2)
    assert result.returncode == 0, result.stderr
    run_dir = work.the_run_dir()
    for k in (0, 1):
        document = load_google_benchmark_json(run_dir / f"idw.gpu{k}.json")
        assert benchmark_names(document) == QUICK_PLAN
        assert document["context"]["lb"]["gpu"]["uuid"] == f"GPU-fake-{k}"
        assert (run_dir / f"idw.gpu{k}.journal.jsonl").exists()
    assert sorted(c["cuda_visible_devices"] for c in work.run_calls()) == ["0", "1"]
    log = (run_dir / "run.log").read_text()
    assert "[gpu 0] [6/6]" in log and "[gpu 1] [6/6]" in log

    assert work.run("--devices", "1", devices=2).returncode == 0
    second = work.run_dirs()[1]
    assert sorted(p.name for p in second.glob("*.json*")) == [
        "idw.gpu1.journal.jsonl", "idw.gpu1.json", "run.json"]


def test_split_gives_each_device_its_share_and_resume_keeps_it(work):
    layouts = "soa,aos,aoas,builtin,soaos,hybrid"
    planned = [f"idw/shepard/naive/{layout}/{precision}/p:2/size:1024/manual_time"
               for precision in ("float", "double") for layout in layouts.split(",")]
    proc = work.start("--split", devices=2, delay=0.2, layouts=layouts)
    wait_for_done(_first_journal(work), 2)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=20)
    assert proc.returncode == 128 + signal.SIGINT, stderr
    run_dir = work.the_run_dir()
    journals = [run_dir / f"idw.gpu{k}.journal.jsonl" for k in (0, 1)]
    done_before = [[r["name"] for r in records(j) if r["type"] == "done"] for j in journals]
    assert len(done_before[0]) < len(planned) // 2  # interrupted with work left

    result = subprocess.run([sys.executable, str(RUN_PY), "--resume", str(run_dir),
                             "--no-figures"], env=work.env(devices=2, layouts=layouts),
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    for k, journal in enumerate(journals):
        share = planned[k::2]  # every other benchmark, from the device's position
        assert benchmark_names(load_google_benchmark_json(run_dir / f"idw.gpu{k}.json")) == share
        starts = start_counts(journal)
        assert set(starts) == set(share)  # nothing of the other device's share, before or after
        assert all(starts[name] == 1 for name in done_before[k])
    assert json.loads((run_dir / "run.json").read_text())["args"]["split"] is True
    assert f"all {len(planned)} benchmarks done" in result.stdout



FAKE_COMMIT = "0123456789abcdef0123456789abcdef01234567"  # the fake binary's default build
OTHER_COMMIT = "1d538a9f00000000000000000000000000000000"


def run_with_work_left(work, **fake):
    """A finished run whose journals then lose all but their first three benchmarks, so a
    resume has work to do (and would append a context of its binary's build)."""
    assert work.run(**fake).returncode == 0
    run_dir = work.the_run_dir()
    for journal in run_dir.glob("*.journal.jsonl"):
        lines = journal.read_text().splitlines(keepends=True)
        third_done = [i for i, line in enumerate(lines) if '"done"' in line][2]
        journal.write_text("".join(lines[:third_done + 1]))
    return run_dir


def resume(work, run_dir, **fake):
    return subprocess.run([*work.command("--resume", str(run_dir), "--no-figures")],
                          env=work.env(**fake), capture_output=True, text=True, timeout=60)


def contexts(journal):
    return [r["context"]["lb"]["build"] for r in records(journal) if r["type"] == "context"]


def test_resume_with_a_binary_of_the_runs_build_proceeds(work):
    run_dir = run_with_work_left(work)
    result = resume(work, run_dir)
    assert result.returncode == 0, result.stderr
    journal = run_dir / "idw.gpu0.journal.jsonl"
    assert contexts(journal) == [contexts(journal)[0]] * 2  # the resumed binary's: the same build
    assert contexts(journal)[0]["git_commit"] == FAKE_COMMIT
    assert benchmark_names(load_google_benchmark_json(run_dir / "idw.gpu0.json")) == QUICK_PLAN


@pytest.mark.parametrize("first, then, recorded, binary", [
    ({}, {"git_commit": OTHER_COMMIT}, "0123456 (clean)", "1d538a9 (clean)"),
    ({}, {"git_dirty": 1}, "0123456 (clean)", "0123456 (dirty)"),
    ({"git_dirty": 1}, {}, "0123456 (dirty)", "0123456 (clean)"),
])
def test_resume_with_a_binary_of_another_build_is_refused_and_changes_nothing(
        work, first, then, recorded, binary):
    """Resuming appends results of the binary's build to journals whose result files carry
    the latest context's build: the results of the first build would be labelled as the
    second's. One message naming both builds, exit 2, not a byte changed."""
    run_dir = run_with_work_left(work, devices=2, **first)
    before = {p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file()}
    calls = len(work.run_calls())
    result = resume(work, run_dir, devices=2, **then)
    assert result.returncode == 2, result.stderr
    advice = ("Build 0123456 to resume (git checkout 0123456 && make build), or start a new run."
              if not first else "Build 0123456 with the uncommitted changes it was built with "
              "to resume, or start a new run.")
    assert result.stderr == (
        f"harness/run.py: {run_dir} holds results of layoutbench built from commit {recorded}; "
        f"{work.bin} is {binary}: resuming would label those results as this build's. "
        f"{advice}\n")
    assert {p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file()} == before
    assert len(work.run_calls()) == calls


def test_resume_checks_every_journal_of_the_run(work):
    """A journal of another build among the run's is refused even where the binary matches
    the others; the message names every build."""
    run_dir = run_with_work_left(work, devices=2)
    journal = run_dir / "idw.gpu1.journal.jsonl"
    journal.write_text(journal.read_text().replace(FAKE_COMMIT, OTHER_COMMIT))
    result = resume(work, run_dir, devices=2)
    assert result.returncode == 2
    assert ("built from commits 0123456 (clean), 1d538a9 (clean); " in result.stderr
            and "Its journals come from several builds: start a new run." in result.stderr)


def test_a_journal_naming_no_commit_is_not_checked(work):
    """An older run's journals (their contexts name no git commit) resume with any binary."""
    run_dir = run_with_work_left(work, git_commit="")
    result = resume(work, run_dir, git_commit=OTHER_COMMIT)
    assert result.returncode == 0, result.stderr
    assert benchmark_names(load_google_benchmark_json(run_dir / "idw.gpu0.json")) == QUICK_PLAN

# A stand-in for plots/kofler_tree.py in a copied checkout: `fit --results R --out T` writes a
# tree naming its GPU and the training kernels it was fitted on.
FAKE_FIT = """import json, pathlib, sys
args = dict(zip(sys.argv[2::2], sys.argv[3::2]))
results = json.loads(pathlib.Path(args["--results"]).read_text())
out = pathlib.Path(args["--out"])
out.parent.mkdir(parents=True, exist_ok=True)
out.write_text(json.dumps({"format": "layoutbench-kofler-tree/1",
                           "gpu": results["context"]["lb"]["gpu"],
                           "trained_on": sorted({b["run_name"] for b in results["benchmarks"]})}))
"""


def repo_with_fake_fit(tmp_path):
    """A checkout with the orchestrator and a stand-in for the tree's fit step (FAKE_FIT)."""
    repo = tmp_path / "repo"
    copy_orchestrator(repo)
    (repo / "plots").mkdir()
    (repo / "plots" / "__init__.py").write_text("")
    (repo / "plots" / "kofler_tree.py").write_text(FAKE_FIT)
    return repo


def test_split_runs_a_suite_with_a_python_step_whole_on_every_device(work, tmp_path, monkeypatch):
    """Under --split the decision tree's training (kofler-tree, whose results feed the fit
    step) runs whole on each GPU, so each fits its own tree on the full grid; the other
    suites are still split; a resume and a Slurm run's tasks share alike."""
    repo = repo_with_fake_fit(tmp_path)
    preset = tmp_path / "split.json"
    preset.write_text('{"suites": {"idw": {}, "kofler-tree": {"fit": {"reuse": 0}}, "kofler": {}}}\n')
    fake = {"devices": 2, "suites": "idw,kofler-tree,kofler"}
    result = work.run("--preset", str(preset), "--split", script=repo / "harness" / "run.py", **fake)
    assert result.returncode == 0, result.stdout + result.stderr
    run_dir = work.the_run_dir().resolve()
    plans = json.loads((run_dir / "run.json").read_text())["plan"]
    training = [f"kofler-tree/synthetic/gpu/{c}/fields:{m}/n:128/manual_time"
                for m in (4, 8) for c in ("aos/float", "soa/float", "tiled/float/tile:32")]
    idw = [f"idw/shepard/naive/{layout}/{precision}/p:2/size:2048/manual_time"
           for precision in ("float", "double") for layout in LAYOUTS]
    kofler = []
    for k in (0, 1):
        assert set(start_counts(run_dir / f"kofler-tree.gpu{k}.journal.jsonl")) == set(training)
        tree = run_dir / "kofler-tree" / f"tree.gpu{k}.json"
        fitted = json.loads(tree.read_text())
        assert fitted["trained_on"] == sorted(training) and fitted["gpu"]["uuid"] == f"GPU-fake-{k}"
        assert benchmark_names(load_google_benchmark_json(run_dir / f"idw.gpu{k}.json")) == idw[k::2]
        kofler.append(benchmark_names(load_google_benchmark_json(run_dir / f"kofler.gpu{k}.json")))
        (call,) = [c["argv"] for c in work.run_calls()
                   if "kofler" in c["argv"] and c["cuda_visible_devices"] == str(k)]
        assert call[call.index("--kofler-tree") + 1] == str(tree)  # its own tree
    assert len(set(kofler[0] + kofler[1])) == plans["kofler"] and len(kofler[0]) == (plans["kofler"] + 1) // 2
    assert "kofler-tree whole on each" in result.stdout
    total = 2 * plans["kofler-tree"] + plans["idw"] + plans["kofler"]
    assert f"all {total} benchmarks done" in result.stdout

    calls = len(work.run_calls())
    resumed = subprocess.run([sys.executable, str(repo / "harness" / "run.py"), "--resume",
                              str(run_dir), "--no-figures"], env=work.env(**fake),
                             capture_output=True, text=True, timeout=60)
    assert resumed.returncode == 0, resumed.stderr
    assert len(work.run_calls()) == calls and f"all {total} benchmarks done" in resumed.stdout

    # The same folder as a Slurm run's (two array tasks of one partition, one GPU each):
    # its tasks share kofler-tree whole too, as its array tasks and collect job read them.
    from orchestrator.cli import recorded_run
    from orchestrator.runs import tally
    from orchestrator.shards import slurm_tasks
    meta = json.loads((run_dir / "run.json").read_text())
    meta.update(executor="slurm", tasks=[t.as_json() for t in slurm_tasks([None], 2, 1)],
                slurm={"options": {}, "submissions": []})
    (run_dir / "run.json").write_text(json.dumps(meta))
    for key, value in work.env(**fake).items():
        monkeypatch.setenv(key, value)
    run = recorded_run(run_dir, Console())
    counted = {(suite, task.id): tally(run, task, slot, suite)
               for suite in run.plans for task in run.shards.tasks for slot in task.slots}
    assert all(c.planned == c.done for c in counted.values())
    assert [counted["kofler-tree", t].planned for t in (0, 1)] == [plans["kofler-tree"]] * 2
    assert [counted["idw", t].planned for t in (0, 1)] == [len(idw) // 2] * 2


def test_split_needs_two_devices_and_resume_cannot_add_it(work):
    result = work.run("--split")
    assert result.returncode == 2 and "--split needs two or more devices" in result.stderr
    assert not work.run_dirs()
    assert work.run(devices=2).returncode == 0
    result = subprocess.run([sys.executable, str(RUN_PY), "--resume", str(work.the_run_dir()),
                             "--split"], env=work.env(devices=2), capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 2 and "differs from the run being resumed" in result.stderr


def test_two_suites_run_in_order(work):
    result = work.run("--suites", "idw,kriging", suites="idw,kriging")
    assert result.returncode == 0, result.stderr
    run_dir = work.the_run_dir()
    kriging = load_google_benchmark_json(run_dir / "kriging.gpu0.json")
    assert benchmark_names(kriging) == [n.replace("idw/", "kriging/", 1) for n in QUICK_PLAN]
    assert json.loads((run_dir / "run.json").read_text())["plan"] == {"idw": 6, "kriging": 6}


@pytest.mark.parametrize("plots_exit", [0, 1])
def test_figures_run_on_the_folder_and_their_failure_keeps_results(work, tmp_path, plots_exit):
    repo = tmp_path / "repo"
    copy_orchestrator(repo)
    (repo / "plots").mkdir()
    (repo / "plots" / "__init__.py").write_text("")
    (repo / "plots" / "__main__.py").write_text(
        "import pathlib, sys\n"
        "pathlib.Path(sys.argv[1], 'figures').mkdir()\n"
        "print('drew figures')\n"
        f"sys.exit({plots_exit})\n")
    result = work.run(script=repo / "harness" / "run.py", figures=True)
    run_dir = work.the_run_dir()
    assert (run_dir / "figures").is_dir() and "[plots] drew figures" in result.stdout
    load_google_benchmark_json(run_dir / "idw.gpu0.json")
    if plots_exit == 0:
        assert result.returncode == 0, result.stderr
    else:
        assert result.returncode == 3 and "figures failed" in result.stderr
    assert result.stdout.strip().splitlines()[-1] == f"run folder: {run_dir}"


def test_paths_inside_the_repository_are_recorded_relative_to_its_root(work, tmp_path):
    """Committed results must not name the maintainer's checkout: the binary, the run folder,
    the preset and the journals inside the repository are named from its root."""
    repo = tmp_path / "checkout"
    copy_orchestrator(repo)
    (repo / "build").mkdir()
    shutil.copy(work.bin, repo / "build" / "layoutbench")
    (repo / "my-sweep.json").write_text("{}")
    (repo / "plots").mkdir()
    (repo / "plots" / "__init__.py").write_text("")
    (repo / "plots" / "__main__.py").write_text(
        "import os, sys\nprint('plots ran with', *sys.argv[1:])\n"
        "assert os.getcwd() == os.path.dirname(os.path.dirname(__file__))\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = subprocess.run(
        [sys.executable, str(repo / "harness" / "run.py"), "--bin", str(repo / "build" / "layoutbench"),
         "--preset", str(repo / "my-sweep.json")],
        cwd=elsewhere, env=work.env(), capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    (run_dir,) = (repo / "results" / "runs").iterdir()
    relative_dir = f"results/runs/{run_dir.name}"
    meta = json.loads((run_dir / "run.json").read_text())
    assert meta["bin"] == "build/layoutbench" and meta["args"]["preset"] == "my-sweep.json"
    (call,) = work.run_calls()
    assert call["argv"][3:5] == ["--preset", "my-sweep.json"]
    assert f"{relative_dir}/idw.gpu0.journal.jsonl" in call["argv"]
    log = (run_dir / "run.log").read_text()
    assert str(repo) not in log and str(tmp_path) not in log
    assert f"[plots] plots ran with {relative_dir}\n" in log
    assert log.splitlines()[-1] == f"run folder: {relative_dir}"
    load_google_benchmark_json(run_dir / "idw.gpu0.json")
    resumed = subprocess.run(  # the recorded binary is found from another folder
        [sys.executable, str(repo / "harness" / "run.py"), "--resume", str(run_dir)],
        cwd=elsewhere, env=work.env(), capture_output=True, text=True, timeout=60)
    assert resumed.returncode == 0, resumed.stderr


# --------------------------------------------------------------------------- Fig. 4 model

def model_preset(tmp_path, model='{"scale": 2, "experiment": 6}'):
    """A preset whose kriging suite asks for the model ("model" on line 5)."""
    path = tmp_path / "fig4.json"
    path.write_text('{\n  "suites": {\n    "kriging": {\n      "sizes": [1],\n'
                    f'      "model": {model}\n    }}\n  }}\n}}\n')
    return path


def krige_calls(work):
    if not work.calls.exists():
        return []
    calls = [json.loads(line) for line in work.calls.read_text().splitlines()]
    return [c for c in calls if c["argv"][0] == "krige"]


def model_files(run_dir, k):
    return run_dir / f"kriging-model.gpu{k}.csv", run_dir / f"kriging-wells.gpu{k}.csv"


def test_kriging_model_is_made_on_each_device_after_its_suites(work, tmp_path):
    preset = model_preset(tmp_path)
    result = work.run("--preset", str(preset), "--suites", "idw,kriging", suites="idw,kriging",
                      devices=2)
    assert result.returncode == 0, result.stderr
    run_dir = work.the_run_dir().resolve()
    calls = [json.loads(line) for line in work.calls.read_text().splitlines()]
    for k in (0, 1):
        model, wells = model_files(run_dir, k)
        assert model.read_text().startswith("x,y,surface0,surface1\n")
        assert wells.read_text().startswith("x,y,surface0,surface1\n")
        load_google_benchmark_json(run_dir / f"kriging.gpu{k}.json")
        mine = [c for c in calls if c["cuda_visible_devices"] == str(k)]
        # after both suites of that device, with that device alone visible
        assert [c["argv"][0] for c in mine] == ["run", "run", "krige"]
        assert mine[-1]["argv"][1:] == ["--scale", "2", "--experiment", "6", "--device", "gpu",
                                        "--out", str(model), "--wells-out", str(wells)]
        assert (f"kriging model gpu{k} (scale 2, experiment 6): kriging-model.gpu{k}.csv, "
                f"kriging-wells.gpu{k}.csv") in result.stdout
    assert "[gpu 0] kriged 4 points x 2 surfaces" in result.stdout
    assert "warning" not in result.stderr


def test_the_registrys_steps_run_in_order_with_their_files(work, tmp_path):
    """Kriging's model and the decision tree's fit, both from the registry: the fit right
    after kofler-tree, kofler given that tree, the model after every suite; the summary names
    each step's files, the Python step's first."""
    repo = repo_with_fake_fit(tmp_path)
    preset = tmp_path / "steps.json"
    preset.write_text('{"suites": {"kriging": {"model": {"scale": 2, "experiment": 6}},\n'
                      ' "kofler-tree": {"fit": {"reuse": 0}}, "kofler": {}}}\n')
    result = work.run("--preset", str(preset), script=repo / "harness" / "run.py",
                      suites="kriging,kofler-tree,kofler")
    assert result.returncode == 0, result.stdout + result.stderr
    run_dir = work.the_run_dir().resolve()
    calls = [c["argv"] for c in map(json.loads, work.calls.read_text().splitlines())
             if c["argv"][0] in ("run", "krige")]
    tree = run_dir / "kofler-tree" / "tree.gpu0.json"
    assert [a[a.index("--suite") + 1] if a[0] == "run" else a[0] for a in calls] == [
        "kriging", "kofler-tree", "kofler", "krige"]
    assert "--kofler-tree" not in calls[0] + calls[1]
    assert calls[2][calls[2].index("--kofler-tree") + 1] == str(tree)
    assert json.loads(tree.read_text())["gpu"]["uuid"] == "GPU-fake-0"
    assert all(p.exists() for p in model_files(run_dir, 0))
    summary = result.stdout[result.stdout.index("summary"):]
    assert 0 <= summary.index("kofler-tree fit gpu0: tree.gpu0.json") < summary.index(
        "kriging model gpu0 (scale 2, experiment 6): kriging-model.gpu0.csv, kriging-wells.gpu0.csv")


def test_kriging_model_is_kept_on_resume_and_made_again_when_a_file_is_missing(work, tmp_path):
    preset = model_preset(tmp_path)
    assert work.run("--preset", str(preset), "--suites", "kriging", suites="kriging").returncode == 0
    run_dir = work.the_run_dir()
    assert len(krige_calls(work)) == 1

    def resume():
        return subprocess.run([sys.executable, str(RUN_PY), "--resume", str(run_dir),
                               "--no-figures"], env=work.env(suites="kriging"),
                              capture_output=True, text=True, timeout=60)

    result = resume()
    assert result.returncode == 0, result.stderr
    assert len(krige_calls(work)) == 1 and "exist, kept" in result.stdout
    model, wells = model_files(run_dir, 0)
    wells.unlink()
    result = resume()
    assert result.returncode == 0, result.stderr
    assert len(krige_calls(work)) == 2 and model.exists() and wells.exists()


def test_failing_krige_warns_and_the_run_still_completes(work, tmp_path):
    preset = model_preset(tmp_path)
    result = work.run("--preset", str(preset), "--suites", "kriging", suites="kriging",
                      krige_exit=2)
    assert result.returncode == 0, result.stderr
    assert ("warning: [gpu 0] kriging model (Fig. 4) not made: layoutbench krige exited with "
            "code 2") in result.stderr
    assert "out of memory (fake failure)" in result.stderr  # the tail of its output
    run_dir = work.the_run_dir()
    assert not any(p.exists() for p in model_files(run_dir, 0))
    assert benchmark_names(load_google_benchmark_json(run_dir / "kriging.gpu0.json"))
    assert "not made (see the warning above): Fig. 4 is not drawn" in result.stdout
    assert "all 6 benchmarks done" in result.stdout


def test_no_kriging_model_when_the_kriging_suite_is_not_run(work, tmp_path):
    preset = model_preset(tmp_path)
    result = work.run("--preset", str(preset), "--suites", "idw", suites="idw,kriging")
    assert result.returncode == 0, result.stderr
    assert krige_calls(work) == [] and "kriging model" not in result.stdout


def test_every_suite_of_the_preset_runs_by_default(work, tmp_path):
    preset = tmp_path / "both.json"
    preset.write_text('{"suites": {"idw": {"sizes": [1]},\n'
                      '            "kriging": {"model": {"scale": 1, "experiment": 6}}}}\n')
    result = work.run("--preset", str(preset), suites="idw,kriging")
    assert result.returncode == 0, result.stderr
    run_dir = work.the_run_dir()
    assert (run_dir / "idw.gpu0.json").exists() and (run_dir / "kriging.gpu0.json").exists()
    assert len(krige_calls(work)) == 1
    # A filter that matches one suite's names only: the other suite is left out, not an error.
    result = work.run("--preset", str(preset), "--filter", "idw/", suites="idw,kriging")
    assert result.returncode == 0, result.stderr
    newest = work.run_dirs()[-1]
    assert not (newest / "kriging.gpu0.json").exists()


@pytest.mark.parametrize("model, expected", [
    ('"big"', 'must be an object, not "big"'),
    ('{"scale": 2}', "missing 'experiment'"),
    ('{"experiment": 6}', "missing 'scale'"),
    ('{"scale": "2", "experiment": 6}', "'scale' must be an integer, not \"2\""),
    ('{"scale": true, "experiment": 6}', "'scale' must be an integer, not true"),
    ('{"scale": 2, "experiment": 6.0}', "'experiment' must be an integer, not 6.0"),
    ('{"scale": 0, "experiment": 6}', "'scale' must be at least 1"),
    ('{"scale": 2, "experiment": 9}', "'experiment' must be 1..8, not 9"),
    ('{"scale": 2, "experiment": 6, "seed": 1}', "unknown key 'seed'"),
])
def test_invalid_kriging_model_is_one_message_exit_2_and_creates_nothing(work, tmp_path, model,
                                                                         expected):
    preset = model_preset(tmp_path, model)
    result = work.run("--preset", str(preset), "--suites", "kriging", suites="kriging")
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert f"{preset.resolve()}:5: suites.kriging.model: {expected}" in result.stderr
    assert not work.root.exists() and not work.run_calls() and not krige_calls(work)


@pytest.mark.parametrize("name", sorted(p.stem for p in (REPO / "harness" / "presets").glob("*.json")))
def test_every_preset_of_the_preset_folder_is_accepted_by_name(work, name):
    """`make reproduce PRESET=paper-full` (or compare): run.py takes its preset names from the
    binary's registry (`layoutbench suites --json`), not from a list of its own; the model
    step, also from the registry, runs for the presets whose kriging suite asks for it."""
    work.preset_dir = REPO / "harness" / "presets"
    named = {p.stem: p for p in work.preset_dir.glob("*.json")}
    preset = read_preset(named[name], named).document  # with what it extends (compare: paper)
    result = work.run("--preset", name, suites=",".join(preset["suites"]))
    assert result.returncode == 0, result.stderr
    run_dir = work.the_run_dir()
    assert run_dir.name.endswith(f"_{name}")
    meta = json.loads((run_dir / "run.json").read_text())
    assert meta["args"]["preset"] == name and list(meta["plan"]) == list(preset["suites"])
    assert all(call["argv"][3:5] == ["--preset", name] for call in work.run_calls())
    assert all(p.exists() for p in model_files(run_dir, 0)) == ("model" in preset["suites"]["kriging"])


def test_unknown_preset_names_the_presets_of_the_registry(work):
    result = work.run("--preset", "nosuch")
    assert result.returncode == 2 and not work.root.exists()
    assert "unknown preset 'nosuch': use paper, quick or the path of a preset file" in result.stderr


def registry_with_steps(work, tmp_path, steps, suites=None):
    """The fake binary's registry with `steps` as suite idw's artifact steps (or `suites`,
    each {name, steps[, inputs]}, as its suites)."""
    suites = suites or [{"name": "idw", "steps": steps}]
    registry = {"suites": [{"section": "one_program", "programs": [], **suite} for suite in suites],
                "presets": [{"name": "quick", "file": str(work.preset_dir / "quick.json")}]}
    (tmp_path / "registry.json").write_text(json.dumps(registry))
    work.bin.write_text(f'#!/bin/sh\n[ "$1" = suites ] && exec cat "{tmp_path}/registry.json"\n'
                        f'exec "{sys.executable}" -S "{FAKE}" "$@"\n')


FRAME_STEP = {"name": "frame", "preset_key": "frame", "command": "krige", "figure": "Fig. 9",
              "description": "a suite's own artifact", "outputs": ["frame"],
              "parameters": [{"key": "scale", "min": 1}, {"key": "experiment", "min": 1, "max": 8}],
              "argv": ["krige", "--scale", "{scale}", "--experiment", "{experiment}", "--device",
                       "gpu", "--out", "{out:frame}"]}


def test_a_registry_step_naming_an_unknown_placeholder_is_one_message_exit_2(work, tmp_path):
    registry_with_steps(work, tmp_path, [dict(FRAME_STEP, argv=["krige", "--seed", "{seed}"])])
    result = work.run()
    assert result.returncode == 2 and not work.root.exists()
    assert len(result.stderr.strip().splitlines()) == 1
    assert ("step frame of suite idw: argv names {seed}, which is neither a parameter nor an "
            "output") in result.stderr


def test_a_suite_with_a_step_of_its_own_needs_no_python_change(work, tmp_path):
    """The step comes from the registry alone: its preset object checked against its
    parameters, its argv filled in, its files named after the suite and its outputs."""
    registry_with_steps(work, tmp_path, [FRAME_STEP])
    preset = tmp_path / "frame.json"
    preset.write_text('{"suites": {"idw": {"sizes": [1],\n "frame": {"scale": 3, "experiment": 9}}}}\n')
    result = work.run("--preset", str(preset))
    assert result.returncode == 2 and not work.root.exists()
    assert (f"{preset.resolve()}:2: suites.idw.frame: 'experiment' must be 1..8, not 9 (expected "
            '{"scale": S, "experiment": E}: S an integer >= 1, E one of 1..8)') in result.stderr
    preset.write_text('{"suites": {"idw": {"sizes": [1],\n "frame": {"scale": 3, "experiment": 2}}}}\n')
    result = work.run("--preset", str(preset))
    assert result.returncode == 0, result.stderr
    frame = work.the_run_dir().resolve() / "idw-frame.gpu0.csv"
    assert frame.read_text().startswith("x,y,surface0,surface1\n")
    assert krige_calls(work)[0]["argv"][1:] == ["--scale", "3", "--experiment", "2", "--device",
                                                 "gpu", "--out", str(frame)]


# A Python step's module in a copied checkout: writes the GPU of the results it read.
MAKE_MODULE = """import json, pathlib, sys
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
gpu = json.loads(pathlib.Path(args["--results"]).read_text())["context"]["lb"]["gpu"]
out = pathlib.Path(args["--out"])
out.parent.mkdir(parents=True, exist_ok=True)
out.write_text(json.dumps({"format": "made/1", "gpu": gpu}))
"""
MAKE_STEP = {"name": "make", "preset_key": "make", "command": "make_it", "figure": "the made file",
             "description": "a suite's own Python step", "outputs": ["made"], "runner": "python",
             "parameters": [{"key": "reuse", "min": 0, "max": 1}],
             "argv": ["make_it", "--results", "{results}", "--out", "{out:made}"],
             "committed": {"folder": "results/made", "format": "made/1", "reuse": "reuse"}}
TAKES_MADE = [{"name": "made-file", "description": "what alpha's step made",
               "from": {"suite": "alpha", "step": "make", "output": "made"}}]


@pytest.mark.parametrize("reuse", [0, 1])
def test_a_suite_taking_another_suites_step_output_needs_no_python_change(work, tmp_path,
                                                                          monkeypatch, reuse):
    """Suites alpha (a Python step with committed copies) and beta (an input from it) come
    from the registry alone: the step runs right after alpha, beta's run gets its output made
    on the same GPU; with "reuse" 1 and a committed copy for the GPU, alpha is left out and
    beta gets the copy."""
    repo = tmp_path / "repo"
    copy_orchestrator(repo)
    (repo / "make_it.py").write_text(MAKE_MODULE)
    committed = tmp_path / "committed"
    committed.mkdir()
    copy = committed / "nvidia-h100-80gb-hbm3.json"
    copy.write_text(json.dumps({"format": "made/1", "gpu": {"name": "NVIDIA H100 80GB HBM3"}}))
    monkeypatch.setenv("LB_COMMITTED_DIR", str(committed))
    registry_with_steps(work, tmp_path, None, [{"name": "alpha", "steps": [MAKE_STEP]},
                                               {"name": "beta", "steps": [], "inputs": TAKES_MADE}])
    preset = tmp_path / "made.json"
    preset.write_text(f'{{"suites": {{"alpha": {{"make": {{"reuse": {reuse}}}}}, "beta": {{}}}}}}\n')
    result = work.run("--preset", str(preset), script=repo / "harness" / "run.py",
                      suites="alpha,beta")
    assert result.returncode == 0, result.stdout + result.stderr
    run_dir = work.the_run_dir().resolve()
    runs = {c["argv"][c["argv"].index("--suite") + 1]: c["argv"] for c in work.run_calls()}
    made = run_dir / "alpha" / "made.gpu0.json"
    if reuse:
        assert list(runs) == ["beta"] and not made.exists()
        assert (f"[gpu 0] alpha: skipped: the committed made {copy} fits this GPU (the preset's "
                "make step has reuse 1)") in result.stdout
        assert runs["beta"][runs["beta"].index("--made-file") + 1] == str(copy)
    else:
        assert list(runs) == ["alpha", "beta"] and "--made-file" not in runs["alpha"]
        assert json.loads(made.read_text())["gpu"]["uuid"] == "GPU-fake-0"
        assert runs["beta"][runs["beta"].index("--made-file") + 1] == str(made)
        assert "alpha make gpu0: made.gpu0.json" in result.stdout


def test_an_input_from_no_python_step_of_an_earlier_suite_is_one_message_exit_2(work, tmp_path):
    registry_with_steps(work, tmp_path, None, [{"name": "beta", "steps": [], "inputs": TAKES_MADE},
                                               {"name": "alpha", "steps": [MAKE_STEP]}])
    result = work.run("--suites", "beta", suites="alpha,beta")
    assert result.returncode == 2 and not work.root.exists()
    assert ("input made-file of suite beta: from names no output made of a Python step make of "
            "a suite before it") in result.stderr


def test_a_binary_older_than_build_info_resumes_with_a_warning(work):
    """A run resumed with a binary built before `build-info` existed (the way to finish an
    older run is to build its own commit): the build cannot be checked, so the resume says so
    and goes on rather than refusing the one binary that can finish it."""
    run_dir = run_with_work_left(work)
    result = resume(work, run_dir, no_build_info=1)
    assert result.returncode == 0, result.stderr
    assert "predates `layoutbench build-info`" in result.stderr
    assert "0123456 (clean)" in result.stderr
    assert benchmark_names(load_google_benchmark_json(run_dir / "idw.gpu0.json")) == QUICK_PLAN


# --- CPU benchmarks once per host ------------------------------------------------------------

CPU_VERSIONS = "cpu-serial,cpu-omp"
# The fake binary's plan with CPU versions: each precision's layouts, then its CPU versions.
HOST_PLAN = [f"idw/shepard/{version}/{layout}/{precision}/p:2/size:1024/manual_time"
             for precision in ("float", "double")
             for version, layout in [*(("naive", layout) for layout in LAYOUTS),
                                     ("cpu-serial", "aos"), ("cpu-omp", "aos")]]
CPU_PLAN = [name for name in HOST_PLAN if "/cpu-" in name]
GPU_PLAN = [name for name in HOST_PLAN if "/cpu-" not in name]


def host_lock_spans(run_dir):
    """(name, from, to) of every CPU benchmark measured in the run's result files."""
    return [(e["run_name"], e["host_lock"]["held_from_unix_s"], e["host_lock"]["held_to_unix_s"])
            for path in sorted(run_dir.glob("idw.gpu*.json"))
            for e in load_google_benchmark_json(path)["benchmarks"] if "host_lock" in e]


@pytest.mark.parametrize("devices", ["0,1", "1,0"])
def test_two_devices_measure_the_cpu_benchmarks_once_on_the_first(work, devices):
    """A CPU benchmark depends on no GPU: the first selected device's process measures it for
    the host; the other skips it with the reason said (not failed, not missing), and no two
    CPU benchmarks overlap."""
    first, other = map(int, devices.split(","))
    result = work.run("--devices", devices, devices=2, cpu_versions=CPU_VERSIONS, delay=0.05)
    assert result.returncode == 0, result.stderr
    run_dir = work.the_run_dir()
    assert start_counts(run_dir / f"idw.gpu{first}.journal.jsonl") == Counter(HOST_PLAN)
    assert start_counts(run_dir / f"idw.gpu{other}.journal.jsonl") == Counter(GPU_PLAN)
    assert benchmark_names(load_google_benchmark_json(run_dir / f"idw.gpu{first}.json")) == HOST_PLAN
    assert benchmark_names(load_google_benchmark_json(run_dir / f"idw.gpu{other}.json")) == GPU_PLAN
    spans = sorted(host_lock_spans(run_dir), key=lambda s: s[1])
    assert sorted(name for name, *_ in spans) == sorted(CPU_PLAN)  # each exactly once
    assert all(a[2] <= b[1] for a, b in zip(spans, spans[1:]))  # one after another
    assert f"all {len(HOST_PLAN) + len(GPU_PLAN)} benchmarks done, 0 failed" in result.stdout
    assert (f"idw gpu{other}: {len(GPU_PLAN)}/{len(GPU_PLAN)} done -> idw.gpu{other}.json "
            f"({len(CPU_PLAN)} CPU benchmark(s) left to gpu{first}: once per host)") in result.stdout
    assert (f"[gpu {other}] idw: {len(CPU_PLAN)} CPU benchmark(s) not run here: measured once "
            f"per host, by gpu {first}") in (run_dir / "run.log").read_text()
    once = json.loads((run_dir / "run.json").read_text())["cpu_once_per_host"]
    assert (once["benchmarks"], once["measured_by"], once["skipped_by"]) == (
        {"idw": len(CPU_PLAN)}, [f"gpu{first}"], [f"gpu{other}"])

    # plots: every card reads the one measurement; the run is not incomplete
    from plots import compare, report
    from plots.load import load_results
    results = load_results([run_dir])
    assert len(results.devices) == 2
    for device in results.devices:
        host = [b for b in device.benchmarks if b.is_host]
        assert sorted(b.name + "/manual_time" for b in host) == sorted(CPU_PLAN)
        assert {b.source.name for b in host} == {f"idw.gpu{first}.json"}
    assert "Incomplete" not in report._header(results)
    (section,) = compare.group_sections(results.devices)
    assert (f"The {len(CPU_PLAN)} CPU baselines were measured once per host, by "
            f"{results.devices[0].label if first == 0 else results.devices[1].label} "
            f"(`idw.gpu{first}.json`)") in section.body


def test_a_resumed_two_device_run_measures_its_missing_cpu_benchmarks_once(work):
    proc = work.start(devices=2, cpu_versions=CPU_VERSIONS, delay=0.2)
    wait_for_done(_first_journal(work), 2)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=20)
    assert proc.returncode == 128 + signal.SIGINT, stderr
    run_dir = work.the_run_dir()
    journals = [run_dir / f"idw.gpu{k}.journal.jsonl" for k in (0, 1)]

    def done(journal):
        return Counter(r["name"] for r in records(journal) if r["type"] == "done")

    assert set(CPU_PLAN) - set(done(journals[0]))  # interrupted with CPU benchmarks left

    result = resume(work, run_dir, devices=2, cpu_versions=CPU_VERSIONS)
    assert result.returncode == 0, result.stderr
    assert done(journals[0]) == Counter(HOST_PLAN)  # each once, the CPU ones on gpu0
    assert done(journals[1]) == Counter(GPU_PLAN)
    assert not set(start_counts(journals[1])) & set(CPU_PLAN)
    assert sorted(name for name, *_ in host_lock_spans(run_dir)) == sorted(CPU_PLAN)
    assert f"all {len(HOST_PLAN) + len(GPU_PLAN)} benchmarks done" in result.stdout


def test_a_binary_older_than_plan_json_runs_the_cpu_benchmarks_on_every_device(work):
    result = work.run(devices=2, cpu_versions=CPU_VERSIONS, no_plan_json=1)
    assert result.returncode == 0, result.stderr
    assert "predates `layoutbench plan --json`" in result.stderr
    run_dir = work.the_run_dir()
    for k in (0, 1):
        assert benchmark_names(load_google_benchmark_json(run_dir / f"idw.gpu{k}.json")) == HOST_PLAN
    assert "cpu_once_per_host" not in json.loads((run_dir / "run.json").read_text())


def test_cpu_benchmarks_go_to_the_first_slot_of_each_task_unless_split():
    from orchestrator.shards import Shards, slurm_tasks
    tasks = slurm_tasks([None], 2, 2)  # two array tasks (hosts) of two GPUs each
    plan, cpu = ["a", "c", "b", "d"], {"idw": frozenset({"c", "d"})}
    shards = Shards(Path("/run"), tasks, False, frozenset(), cpu)
    assert [[shards.share("idw", plan, t, s) for s in t.slots] for t in tasks] == [
        [plan, ["a", "b"]], [plan, ["a", "b"]]]
    once = shards.cpu_once({"idw": plan})
    assert (once["measured_by"], once["skipped_by"]) == (["gpu0", "gpu2"], ["gpu1", "gpu3"])
    # split: every benchmark on one slot already; a suite run whole on each slot is not split
    split = Shards(Path("/run"), tasks, True, frozenset({"whole"}), {**cpu, "whole": cpu["idw"]})
    shares = [split.share("idw", plan, t, s) for t in tasks for s in t.slots]
    assert sorted(n for share in shares for n in share) == sorted(plan)
    assert split.share("whole", plan, tasks[0], tasks[0].slots[1]) == ["a", "b"]
    assert split.cpu_once({"idw": plan}) == {}
    assert Shards(Path("/run"), tasks, False).cpu_once({"idw": plan}) == {}

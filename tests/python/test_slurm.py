"""harness/run.py --slurm against a real one-node Slurm (22.05 from Debian's packages) that the
`slurm` fixture brings up on this machine: munged with a private socket and key, slurmctld and
slurmd in the foreground on free ports, stopped by pid at the end (also when a test fails).
The array tasks run the fake layoutbench (tests/python/fake_layoutbench.py) through the real
code path: sbatch, the task entry point, the collect job, REPORT.md, scancel and resume.

Where Slurm is missing it is installed with apt-get (root only); where that cannot be done the
tests are skipped with the reason (LB_REQUIRE_SLURM=1 turns the skip into a failure). One
cluster at a time: the tests share a group for pytest-xdist's loadgroup and a file lock.
"""
import fcntl
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RUN_PY = REPO / "harness" / "run.py"
FAKE = Path(__file__).with_name("fake_layoutbench.py")
PRESETS = Path(__file__).with_name("fixtures") / "presets"
PACKAGES = ("slurmctld", "slurmd", "slurm-client", "munge")
COMMANDS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "scancel", "sinfo")
PARTITIONS = ("cpu", "cpu2")
QUICK_PLAN = [f"idw/shepard/naive/{layout}/{precision}/p:2/size:1024/manual_time"
              for precision in ("float", "double") for layout in ("soa", "aos", "aoas")]
LOCK = Path("/tmp/layoutbench-test-slurm.lock")

pytestmark = pytest.mark.xdist_group("slurm")


def command(name):
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin")


def install_slurm():
    """None when Slurm's commands are there (installed now if missing and possible), else why not."""
    missing = [c for c in COMMANDS if not command(c)]
    if not missing:
        return None
    if os.geteuid() != 0:
        return f"Slurm is not installed ({', '.join(missing)} missing) and installing it needs root"
    if not shutil.which("apt-get"):
        return f"Slurm is not installed ({', '.join(missing)} missing) and there is no apt-get"
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    install = ["apt-get", "install", "-y", "-q", "--no-install-recommends", *PACKAGES]
    for attempt in (install, ["apt-get", "update", "-q"], install):
        proc = subprocess.run(attempt, env=env, capture_output=True, text=True, timeout=600)
        if attempt is install and proc.returncode == 0:
            break
    missing = [c for c in COMMANDS if not command(c)]
    if missing:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:]
        return f"apt-get could not install Slurm ({', '.join(missing)} missing): {tail}"
    return None


def free_ports(count):
    sockets = [socket.socket() for _ in range(count)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


class Cluster:
    """A one-node Slurm in `root`; every daemon it starts is stopped by pid in stop()."""

    def __init__(self, root):
        self.root = root
        self.procs = []
        self.conf = root / "slurm.conf"
        self.env = dict(os.environ, SLURM_CONF=str(self.conf))

    def start(self):
        root = self.root
        munge = root / "munge"
        munge.mkdir(mode=0o755)
        key = root / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o600)
        self.socket = munge / "socket"
        for folder in ("state", "spool"):
            (root / folder).mkdir()
        # A lost GPU: while the file lost-gpu names an array task, that task gets a
        # CUDA_VISIBLE_DEVICES naming no device (TaskProlog's `export` replaces what gres set),
        # as harness/slurm_gpu_round.sh does on real GPUs.
        self.lost_gpu = root / "lost-gpu"
        prolog = root / "task_prolog.sh"
        prolog.write_text("#!/bin/sh\n"
                          f'lost=$(cat "{self.lost_gpu}" 2>/dev/null)\n'
                          'if [ -n "$lost" ] && [ "$SLURM_ARRAY_TASK_ID" = "$lost" ]; then '
                          "echo export CUDA_VISIBLE_DEVICES=GPU-lost; fi\n")
        prolog.chmod(0o755)
        self.spawn("munged", [command("munged"), "-F", "--force", f"--socket={self.socket}",
                              f"--key-file={key}", f"--log-file={root / 'munged.log'}",
                              f"--pid-file={root / 'munged.pid'}",
                              f"--seed-file={root / 'munged.seed'}"])
        self.wait(lambda: self.socket.exists(), "munged's socket")
        ctld_port, slurmd_port = free_ports(2)
        partitions = "".join(
            f"PartitionName={p} Nodes=lbnode MaxTime=INFINITE State=UP"
            f"{' Default=YES' if p == PARTITIONS[0] else ''}\n" for p in PARTITIONS)
        # Four stand-in GPUs (Slurm counts a gpu per device file): jobs ask --gres=gpu:N as
        # on a real cluster, and get CUDA_VISIBLE_DEVICES.
        (root / "gres.conf").write_text("".join(f"NodeName=lbnode Name=gpu File=/dev/{name}\n"
                                                for name in ("null", "zero", "full", "urandom")))
        self.conf.write_text(f"""ClusterName=lbtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={self.socket}
CredType=cred/munge
StateSaveLocation={root / 'state'}
SlurmdSpoolDir={root / 'spool'}
SlurmctldPidFile={root / 'slurmctld.pid'}
SlurmdPidFile={root / 'slurmd.pid'}
SlurmctldLogFile={root / 'slurmctld.log'}
SlurmdLogFile={root / 'slurmd.log'}
TaskProlog={prolog}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc={root / 'jobcomp.txt'}
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
GresTypes=gpu
MpiDefault=none
ReturnToService=2
MinJobAge=3600
KillWait=2
InactiveLimit=0
NodeName=lbnode NodeAddr=127.0.0.1 CPUs=8 Gres=gpu:4 State=UNKNOWN
{partitions}""")
        self.spawn("slurmctld", [command("slurmctld"), "-D", "-i", "-f", str(self.conf)])
        # slurmd registers once at start and, where slurmctld does not answer yet (a busy
        # machine), only at its next retry: 14-22 s later in the full test run, not 1 s.
        self.wait(self.controller_up, "slurmctld to answer")
        self.spawn("slurmd", [command("slurmd"), "-D", "-N", "lbnode", "-f", str(self.conf)])
        self.wait(lambda: self.node_state() == "idle", "the node to be idle", timeout=30)

    def spawn(self, name, argv):
        log = open(self.root / f"{name}.out", "w")
        self.procs.append((name, subprocess.Popen(argv, env=self.env, stdout=log,
                                                  stderr=subprocess.STDOUT,
                                                  stdin=subprocess.DEVNULL)))
        log.close()

    def controller_up(self):
        proc = subprocess.run(["scontrol", "ping"], env=self.env, capture_output=True, text=True)
        return proc.returncode == 0 and "is UP" in proc.stdout

    def node_state(self):
        proc = subprocess.run(["sinfo", "-h", "-N", "-o", "%T"], env=self.env,
                              capture_output=True, text=True)
        return proc.stdout.split()[0] if proc.returncode == 0 and proc.stdout.split() else None

    def wait(self, ready, what, timeout=15.0):
        deadline = time.monotonic() + timeout
        while not ready():
            for name, proc in self.procs:
                if proc.poll() is not None:
                    raise RuntimeError(f"{name} exited with {proc.returncode} while waiting for "
                                       f"{what}: {self.logs()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"timed out waiting for {what}: {self.logs()}")
            time.sleep(0.1)

    def logs(self):
        return " | ".join(f"{p.name}: {p.read_text()[-400:]}" for p in sorted(self.root.glob("*.out")))

    def slurm(self, *argv, check=True):
        proc = subprocess.run(list(argv), env=self.env, capture_output=True, text=True, timeout=30)
        if check:
            assert proc.returncode == 0, f"{argv}: {proc.stderr}"
        return proc

    def state(self, job):
        proc = self.slurm("scontrol", "show", "job", "-o", str(job))
        return dict(item.split("=", 1) for item in proc.stdout.split() if "=" in item)

    def wait_job(self, job, timeout=60.0):
        """Waits for a job to end; returns its JobState."""
        ended = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY"}
        self.wait(lambda: self.state(job).get("JobState") in ended, f"job {job} to end", timeout)
        return self.state(job)["JobState"]

    def stop(self):
        if any(proc.poll() is None for name, proc in self.procs if name == "slurmctld"):
            self.slurm("scancel", "--full", "--user", str(os.getuid()), check=False)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and self.slurm(
                    "squeue", "-h", "--states=RUNNING,COMPLETING,PENDING", check=False).stdout.strip():
                time.sleep(0.2)
        for name, proc in reversed(self.procs):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    reason = install_slurm()
    if reason is None and os.geteuid() != 0:
        reason = "a one-node Slurm needs root (slurmd starts jobs as their user)"
    if reason:
        if os.environ.get("LB_REQUIRE_SLURM") == "1":
            pytest.fail(f"LB_REQUIRE_SLURM=1 but {reason}")
        pytest.skip(reason)
    with open(LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one cluster at a time, whatever runs the tests
        cluster = Cluster(tmp_path_factory.mktemp("slurm"))
        try:
            cluster.start()
            yield cluster
        finally:
            cluster.stop()


class Work:
    """A results root, the fake layoutbench behind a wrapper, harness/run.py's command line."""

    def __init__(self, tmp_path, env):
        self.root = tmp_path / "runs"
        self.bin = tmp_path / "layoutbench"
        # LB_TEST_FAILING_TASK: that array task's layoutbench fails before any benchmark.
        self.bin.write_text(
            "#!/bin/sh\n"
            'if [ -n "$LB_TEST_FAILING_TASK" ] && [ "$SLURM_ARRAY_TASK_ID" = "$LB_TEST_FAILING_TASK" ]; '
            "then export FAKE_LB_STARTUP_EXIT=2; fi\n"
            f'exec "{sys.executable}" -S "{FAKE}" "$@"\n')
        self.bin.chmod(0o755)
        self.env = {k: v for k, v in env.items()
                    if not k.startswith(("FAKE_LB_", "SLURM_JOB", "SLURM_ARRAY", "LB_TEST_"))
                    and k != "CUDA_VISIBLE_DEVICES"}
        self.env["LB_PRESET_DIR"] = str(PRESETS)
        self.env["FAKE_LB_DEVICES"] = "4"  # the node's four stand-in GPUs, as CUDA numbers them

    def run(self, *args, **env):
        return subprocess.run([sys.executable, str(RUN_PY), "--bin", str(self.bin),
                               "--results-root", str(self.root), *args],
                              env={**self.env, **env}, capture_output=True, text=True, timeout=60)

    def the_run_dir(self):
        (run_dir,) = sorted(self.root.iterdir())
        return run_dir


def records(journal):
    return [json.loads(line) for line in journal.read_text().splitlines() if line.strip()]


def done_names(journal):
    return [r["name"] for r in records(journal) if r["type"] == "done"] if journal.exists() else []


def submissions(run_dir):
    return json.loads((run_dir / "run.json").read_text())["slurm"]["submissions"]


def slurm_section(report):
    text = report.read_text()
    assert "## Slurm tasks" in text, text
    return text[text.index("## Slurm tasks"):]


def task_row(section, task):
    (row,) = [line for line in section.splitlines() if line.startswith(f"| {task} |")]
    return [cell.strip() for cell in row.strip("|").split("|")]


def result_names(path):
    document = json.loads(path.read_text())
    return list(dict.fromkeys(e["run_name"] for e in document["benchmarks"]))


def test_two_partitions_collect_scancel_and_resume(slurm, tmp_path):
    """One task per partition, a cross-partition report; one task scancelled mid-run loses only
    its unfinished benchmark, and resume resubmits that task alone."""
    work = Work(tmp_path, slurm.env)
    submitted = work.run("--slurm", "--partition", ",".join(PARTITIONS), FAKE_LB_DELAY="0.4")
    assert submitted.returncode == 0, submitted.stderr
    run_dir = work.the_run_dir()
    assert run_dir.name.endswith("_slurm-cpu-cpu2_quick")
    (first,) = submissions(run_dir)
    arrays = {a["partition"]: a for a in first["arrays"]}
    assert {p: a["tasks"] for p, a in arrays.items()} == {"cpu": [0], "cpu2": [1]}
    script = (REPO / arrays["cpu2"]["script"]) if not Path(arrays["cpu2"]["script"]).is_absolute() \
        else Path(arrays["cpu2"]["script"])
    assert "#SBATCH --partition=cpu2\n#SBATCH --array=1\n" in script.read_text()
    assert "#SBATCH --gres=gpu:1\n" in script.read_text()

    killed = run_dir / "cpu2" / "idw.gpu0.journal.jsonl"
    slurm.wait(lambda: len(done_names(killed)) >= 2, "task 1 to finish two benchmarks", 30)
    slurm.slurm("scancel", f"{arrays['cpu2']['job']}_1")
    assert slurm.wait_job(first["collect"]["job"]) == "FAILED"  # exit 1: a task is incomplete
    kept = done_names(killed)
    assert 2 <= len(kept) < len(QUICK_PLAN)

    assert result_names(run_dir / "cpu" / "idw.gpu0.json") == QUICK_PLAN
    assert result_names(run_dir / "cpu2" / "idw.gpu0.json") == kept  # assembled by the collect job
    report = run_dir / "REPORT.md"
    assert report.read_text().startswith("# Layout benchmark report")  # plots' report, extended
    assert "## GPU comparison" in report.read_text() or "## Devices" in report.read_text()
    section = slurm_section(report)
    array = arrays["cpu2"]["job"]
    assert task_row(section, 0)[1] == "cpu" and task_row(section, 0)[5:7] == ["completed", "6/6"]
    row = task_row(section, 1)
    assert row[1] == "cpu2" and row[3].startswith(f"{array}_1") and row[4] == "lbnode"
    assert row[5].startswith("CANCELLED") and row[6] == f"{len(kept)}/6"
    log = run_dir / "slurm" / f"{array}_1.log"
    assert row[7] == f"`{log}`" and log.is_file() and "CANCELLED" in log.read_text()

    redrawn = subprocess.run([sys.executable, "-m", "plots", "--report-only", "--out", str(run_dir),
                              str(run_dir / "cpu"), str(run_dir / "cpu2")],
                             cwd=REPO, capture_output=True, text=True)
    assert redrawn.returncode == 0, redrawn.stdout + redrawn.stderr
    assert slurm_section(report) == section  # `make figures` later keeps the tasks' section

    before = (run_dir / "cpu" / "idw.gpu0.journal.jsonl").read_bytes()
    resumed = work.run("--resume", str(run_dir), "--no-figures", FAKE_LB_DELAY="0")  # figures: once
    assert resumed.returncode == 0, resumed.stderr
    second = submissions(run_dir)[-1]
    assert second["tasks"] == [1] and [a["partition"] for a in second["arrays"]] == ["cpu2"]
    assert slurm.wait_job(second["collect"]["job"]) == "COMPLETED"
    assert (run_dir / "cpu" / "idw.gpu0.journal.jsonl").read_bytes() == before
    starts = Counter(r["name"] for r in records(killed) if r["type"] == "start")
    assert all(starts[name] == 1 for name in kept)  # finished before scancel: not rerun
    assert sum(n > 1 for n in starts.values()) <= 1  # only the one scancel interrupted ran twice
    assert sorted(done_names(killed)) == sorted(QUICK_PLAN)
    assert result_names(run_dir / "cpu2" / "idw.gpu0.json") == QUICK_PLAN
    section = slurm_section(report)
    assert task_row(section, 1)[5:7] == ["completed", "6/6"]
    assert task_row(section, 1)[3].startswith(f"{second['arrays'][0]['job']}_1")
    assert "Failed or incomplete" not in section
    # Slurm gave the resumed task the first free GPU, not the one its first attempt had
    assert "ran on several cards" in section and "- task 1: GPU-fake-0, GPU-fake-1" in section


def test_failed_tasks_are_reported_the_others_results_stand_and_resume_reruns_them(slurm, tmp_path):
    """Task 1's layoutbench cannot start; task 2's GPU is lost (CUDA_VISIBLE_DEVICES names no
    device): both FAILED with job id, node and log in REPORT.md; resume reruns only them."""
    work = Work(tmp_path, slurm.env)
    slurm.lost_gpu.write_text("2")
    try:
        submitted = work.run("--slurm", "--tasks", "3", "--split", "--no-figures",
                             LB_TEST_FAILING_TASK="1")
        assert submitted.returncode == 0, submitted.stderr
        run_dir = work.the_run_dir()
        (first,) = submissions(run_dir)
        slurm.wait_job(first["collect"]["job"])
    finally:
        slurm.lost_gpu.unlink()
    array = first["arrays"][0]["job"]
    assert [slurm.state(f"{array}_{t}")["JobState"] for t in (1, 2)] == ["FAILED", "FAILED"]
    assert result_names(run_dir / "idw.gpu0.json") == QUICK_PLAN[0::3]  # task 0's share
    report = (run_dir / "REPORT.md").read_text()
    assert report.startswith("# Layout benchmark report\n\nNo figures: --no-figures.\n")
    section = slurm_section(run_dir / "REPORT.md")
    assert task_row(section, 0)[5:7] == ["completed", "2/2"]
    for task, exit_code in ((1, "1:0"), (2, "2:0")):
        row = task_row(section, task)
        assert row[3].startswith(f"{array}_{task}") and row[4] == "lbnode"
        assert row[5] == f"FAILED, exit code {exit_code}" and row[6] == "0/2"
        assert row[7] == f"`{run_dir / 'slurm' / f'{array}_{task}.log'}`"
    failures = {line[len("- task "):][0]: line for line in section.splitlines()
                if line.startswith("- task ")}
    assert "layoutbench exited with code 2 before finishing any benchmark" in failures["1"]
    assert (f"job {array}_2" in failures["2"] and "node lbnode" in failures["2"]
            and "task 2 needs 1 device(s) and sees 0 on lbnode (layoutbench list-devices, "
                "CUDA_VISIBLE_DEVICES=GPU-lost)" in failures["2"]), failures["2"]

    resumed = work.run("--resume", str(run_dir), "--no-figures")
    assert resumed.returncode == 0, resumed.stderr
    second = submissions(run_dir)[-1]
    assert second["tasks"] == [1, 2]
    assert slurm.wait_job(second["collect"]["job"]) == "COMPLETED"
    for index, task in ((1, 1), (2, 2)):
        assert result_names(run_dir / f"idw.gpu{index}.json") == QUICK_PLAN[task::3]
        assert task_row(slurm_section(run_dir / "REPORT.md"), task)[5:7] == ["completed", "2/2"]


def test_no_gres_when_a_task_asks_for_no_gpu(tmp_path):
    work = Work(tmp_path, os.environ)
    result = work.run("--slurm", "--gpus-per-task", "0", "--dry-run")
    assert result.returncode == 0, result.stderr
    ((_, script), _) = dry_run_scripts(result.stdout)
    assert "--gres" not in script and "#SBATCH --array=0\n" in script


def dry_run_scripts(output):
    """The dry run's output as (sbatch command, script) pairs."""
    parts = re.split(r"^# sbatch (.*)\n", output, flags=re.M)
    assert parts[0] == ""
    return list(zip(parts[1::2], parts[2::2]))


def directives(script):
    lines = script.rstrip("\n").splitlines()  # the dry run prints a blank line after each
    assert lines[0] == "#!/bin/bash"
    found = {}
    for line in lines:
        if line.startswith("#SBATCH "):
            key, value = re.fullmatch(r"#SBATCH --([a-z-]+)=(\S+)", line).groups()
            assert key not in found
            found[key] = value
    return found, lines[-1]


def paper_dry_run(tmp_path, env):
    """The `paper` preset (every suite of it, the real preset file) across two partitions."""
    work = Work(tmp_path, env)
    work.env.pop("LB_PRESET_DIR")
    result = work.run("--slurm", "--preset", "paper", "--partition", "cpu", "--partition", "cpu2",
                      "--tasks", "2", "--split", "--time", "01:00:00", "--dry-run",
                      FAKE_LB_SUITES="idw,kriging,kofler-tree,kofler,inner")
    assert result.returncode == 0, result.stderr
    assert not work.root.exists()  # nothing created
    return dry_run_scripts(result.stdout)


def test_dry_run_prints_a_job_array_per_partition_for_the_paper_preset(tmp_path):
    scripts = paper_dry_run(tmp_path, os.environ)
    assert len(scripts) == 3
    arrays, (collect_command, collect) = scripts[:2], scripts[2]
    for (sbatch, script), partition, ids in zip(arrays, ("cpu", "cpu2"), ("0-1", "2-3")):
        options, last = directives(script)
        assert sbatch.startswith("--parsable ") and sbatch.endswith(f"/slurm/1-{partition}.sbatch")
        assert options["partition"] == partition and options["array"] == ids
        assert options["gres"] == "gpu:1" and options["time"] == "01:00:00"
        assert options["output"].endswith("/slurm/%A_%a.log") and options["chdir"] == str(REPO)
        assert re.fullmatch(r'exec \S+ harness/run.py --slurm-task \S+_slurm-cpu-cpu2_paper '
                            r'"\$SLURM_ARRAY_TASK_ID"', last), last
    options, last = directives(collect)
    assert "--dependency=afterany:" in collect_command and "array" not in options
    assert "gres" not in options and last.endswith("_slurm-cpu-cpu2_paper")


def test_dry_run_scripts_pass_sbatch_test_only(slurm, tmp_path):
    for _, script in paper_dry_run(tmp_path, slurm.env):
        path = tmp_path / "job.sbatch"
        path.write_text(script)
        proc = slurm.slurm("sbatch", "--test-only", str(path), check=False)
        assert proc.returncode == 0 and "to start at" in proc.stderr, proc.stderr


@pytest.mark.parametrize("args, expected", [
    (["--partition", "cpu"], "--partition needs --slurm"),
    (["--slurm", "--devices", "0"], "--devices picks GPUs of this host"),
    (["--slurm", "--time", "an hour"], "bad --time 'an hour'"),
    (["--slurm", "--partition", "a b"], "bad --partition 'a b'"),
    (["--slurm", "--partition", "a,a"], "names a partition twice"),
    (["--slurm", "--tasks", "0"], "bad --tasks 0"),
    (["--slurm", "--split"], "--split needs two or more GPUs per partition"),
    (["--slurm", "--account", "x'y"], "bad --account"),
])
def test_bad_slurm_options_are_one_message_exit_2_and_create_nothing(tmp_path, args, expected):
    work = Work(tmp_path, os.environ)
    result = work.run(*args)
    assert result.returncode == 2 and expected in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and not work.root.exists()


def test_a_refused_submission_leaves_no_run_folder(tmp_path):
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    (fake_bin / "sbatch").write_text(
        "#!/bin/sh\necho 'sbatch: error: invalid partition specified: nope' >&2\nexit 1\n")
    (fake_bin / "sbatch").chmod(0o755)
    work = Work(tmp_path, os.environ)
    result = work.run("--slurm", "--partition", "nope",
                      PATH=f"{fake_bin}{os.pathsep}{os.environ['PATH']}")
    assert result.returncode == 2, result.stderr
    assert "invalid partition specified: nope" in result.stderr
    assert list(work.root.iterdir()) == []

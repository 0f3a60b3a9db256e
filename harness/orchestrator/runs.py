"""A run as every executor sees it (folder, binary, selection, plans, shards) and what they
share after the benchmarks: run.json, the tally of the journals, the figures."""
from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from orchestrator.binary import describe_exit
from orchestrator.common import REPO_ROOT, UsageError, repo_path
from orchestrator.console import Console
from orchestrator.journal import error_message, outcomes, read_journal
from orchestrator.locks import RunLock
from orchestrator.inputs import SuiteInput
from orchestrator.presets import ArtifactSpec, Selection
from orchestrator.shards import Shards, Slot, Task


class StopRequest:
    """Set by the signal handlers; workers stop their children and record nothing."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.signum: int | None = None
        self.count = 0

    def handle(self, signum, _frame) -> None:
        self.count += 1
        self.signum = self.signum or signum
        self.event.set()


@dataclass
class Run:
    dir: Path
    binary: str
    selection: Selection
    devices: list[dict]
    plans: dict[str, list[str]]
    console: Console
    shards: Shards
    # The artifact steps each device makes, in run order: a Python step right after its
    # suite, a layoutbench step after all the suites (ArtifactSpec.python)
    steps: list[ArtifactSpec] = field(default_factory=list)
    inputs: dict[str, list[SuiteInput]] = field(default_factory=dict)  # suite -> the inputs it takes
    stop: StopRequest = field(default_factory=StopRequest)
    lock: RunLock | None = None
    started: float = field(default_factory=time.monotonic)
    meta: dict = field(default_factory=dict)  # run.json


def steps_after(run: Run, suite: str) -> list[ArtifactSpec]:
    """The Python steps each device makes right after `suite`."""
    return [s for s in run.steps if s.python and s.suite == suite]


def end_steps(run: Run) -> list[ArtifactSpec]:
    """The layoutbench steps each device makes after all its suites."""
    return [s for s in run.steps if not s.python]


def expect(value, kind: type, what: str):
    """`value` when it is a `kind` (a JSON object, list, string), else ValueError naming `what`."""
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        names = {dict: "an object", list: "a list", str: "a string", int: "an integer"}
        raise ValueError(f"{what} is not {names[kind]}")
    return value


def check_slurm_block(meta: dict) -> None:
    """A Slurm run's tasks (at least one) and its "slurm" block: the options and each
    submission's array and collect jobs, as slurm.py reads them."""
    if not expect(meta["tasks"], list, '"tasks"'):
        raise ValueError('"tasks" names no task')
    block = expect(meta["slurm"], dict, '"slurm"')
    options = expect(block["options"], dict, '"slurm" "options"')
    if options:  # {} until the first submission is recorded
        expect(options["partitions"], list, '"slurm" "options" "partitions"')
        for key in ("tasks", "gpus_per_task"):
            expect(options[key], int, f'"slurm" "options" "{key}"')
    for k, submission in enumerate(expect(block["submissions"], list, '"slurm" "submissions"')):
        where = f'"slurm" "submissions" {k + 1}'
        expect(submission, dict, where)
        for array in expect(submission["arrays"], list, f'{where} "arrays"'):
            expect(array, dict, f'{where}: an array')
            for task in expect(array["tasks"], list, f'{where}: an array\'s "tasks"'):
                expect(task, int, f'{where}: a task id')
        expect(submission["collect"], dict, f'{where} "collect"')["job"]


def load_run_json(run_dir: Path) -> dict:
    """run.json, every part of it a run reads checked first: UsageError "<file>: malformed
    run.json (<what is wrong>)", one line, for any other shape."""
    path = run_dir / "run.json"
    if run_dir.exists() and not run_dir.is_dir():
        raise UsageError(f"{run_dir} is a file, not a run folder")
    if not path.is_file():
        raise UsageError(f"{run_dir} is not a run folder (no run.json)")
    try:
        meta = expect(json.loads(path.read_text()), dict, "the file")
        Selection(**expect(meta["args"], dict, '"args"'))
        expect(meta["bin"], str, '"bin"')
        for device in expect(meta["devices"], list, '"devices"'):
            expect(expect(device, dict, "a device")["index"], int, "a device's index")
        for key, kind in (("plan", dict), ("resumed", list), ("executor", str)):
            if key in meta:
                expect(meta[key], kind, f'"{key}"')
        for task in expect(meta.get("tasks", []), list, '"tasks"'):
            Task.from_json(task)
        if meta.get("executor") == "slurm":
            check_slurm_block(meta)
    except KeyError as e:
        raise UsageError(f"{path}: malformed run.json (no key {e})")
    except (ValueError, TypeError, OSError) as e:
        raise UsageError(f"{path}: malformed run.json ({e})")
    return meta


@dataclass
class SlotTally:
    """A slot's results in its journals: planned and done benchmarks, failed ones with their
    messages, per suite."""
    suite: str
    task: Task
    slot: Slot
    planned: int
    done: int
    failed: list[tuple[str, str]]


def tally(run: Run, task: Task, slot: Slot, suite: str) -> SlotTally:
    """Reads the slot's journal of `suite` (JournalError when a line before the last is
    corrupt)."""
    plan = run.shards.share(suite, run.plans[suite], task, slot)
    finished = outcomes(read_journal(run.shards.journal(task, slot, suite)).records)
    return SlotTally(suite, task, slot, len(plan), sum(name in finished for name in plan),
                     [(name, error_message(finished[name])) for name in plan
                      if name in finished and not finished[name].ok])


def result_folders(run: Run) -> list[Path]:
    """The run's results folders that hold a result file (one per partition on Slurm)."""
    return [f for f in run.shards.folders() if any(f.glob("*.gpu*.json"))]


def make_figures(run: Run) -> bool:
    """`python3 -m plots` over the run's results folders (several: one per partition, compared
    side by side), into the run folder."""
    folders = [repo_path(f) for f in result_folders(run)] or [repo_path(run.dir)]
    return draw_figures(run.console, run.dir, folders)


def draw_figures(console: Console, out_dir: Path, folders: list[str]) -> bool:
    """`python3 -m plots` over `folders` into `out_dir`; False (said on the console) when it
    failed."""
    argv = folders if folders == [repo_path(out_dir)] else ["--out", repo_path(out_dir), *folders]
    console.info(f"figures: python3 -m plots {' '.join(argv)}")
    try:
        proc = subprocess.Popen([sys.executable, "-m", "plots", *argv], cwd=REPO_ROOT,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
    except OSError as e:
        console.error(f"figures failed: {e}; the results are kept")
        return False
    for raw in proc.stdout:
        console.info("[plots] " + raw.decode(errors="replace").rstrip("\r\n"))
    returncode = proc.wait()
    if returncode != 0:
        console.error(f"figures failed (python3 -m plots {describe_exit(returncode)}); the "
                      f"results are kept in {repo_path(out_dir)}; run `make figures` once plots/ "
                      "is fixed")
        return False
    return True

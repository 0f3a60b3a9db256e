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
from orchestrator.presets import ModelSpec, Selection
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
    model: ModelSpec | None = None  # the Fig. 4 kriging model each device makes at the end
    # Python steps by suite (kofler-tree's fit), each made on each device right after its suite
    suite_steps: dict[str, ModelSpec] = field(default_factory=dict)
    stop: StopRequest = field(default_factory=StopRequest)
    lock: RunLock | None = None
    started: float = field(default_factory=time.monotonic)
    meta: dict = field(default_factory=dict)  # run.json


def load_run_json(run_dir: Path) -> dict:
    path = run_dir / "run.json"
    if not path.is_file():
        raise UsageError(f"{run_dir} is not a run folder (no run.json)")
    try:
        meta = json.loads(path.read_text())
        Selection(**meta["args"])
        if not isinstance(meta["bin"], str) or not isinstance(meta["devices"], list):
            raise ValueError('"bin" or "devices" missing')
        for task in meta.get("tasks", []):
            Task.from_json(task)
    except (ValueError, KeyError, TypeError) as e:
        raise UsageError(f"{path}: malformed run.json ({e!r})")
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

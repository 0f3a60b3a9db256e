"""One thread per device: runs its suites, restarts layoutbench after a death in a benchmark,
makes the artifact steps' files (a Python step right after its suite, a layoutbench step at
the end) and gives each suite the inputs it takes, as found for the device's GPU
(orchestrator/inputs.py)."""
from __future__ import annotations

import os
import shlex
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from orchestrator.binary import cuda_visible_devices, describe_exit
from orchestrator.common import REPO_ROOT, repo_path
from orchestrator.journal import (RECORDED_BY, Journal, JournalError, JournalTail,
                                  append_records, assemble, failure_records, outcomes,
                                  repair_journal, unfinished_starts)
from orchestrator.progress import Progress
from orchestrator.inputs import input_args, recorded_gpu
from orchestrator.runs import end_steps, steps_after, tally
from orchestrator.shards import Slot, Task

if TYPE_CHECKING:
    from orchestrator.runs import Run

STEP_OUTPUT_LINES = 5       # lines of a failed step's output quoted in the warning
POLL_S = 0.2                # how often a worker looks at its child and its journal
TERM_GRACE_S = 10.0         # SIGTERM, then SIGKILL after this long


@dataclass
class SuiteResult:
    planned: int
    done: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)  # (name, error message)
    error: str | None = None
    json_path: Path | None = None
    cpu_left: int = 0  # CPU benchmarks left to the task's first device (once per host)


class DeviceWorker(threading.Thread):
    """Runs every suite on one slot (one device of its task), restarting layoutbench after a
    death in a benchmark."""

    def __init__(self, task: Task, slot: Slot, run: "Run") -> None:
        super().__init__(name=f"gpu{slot.index}", daemon=True)
        self.task, self.slot, self.index = task, slot, slot.index
        self.folder = run.shards.folder(task)
        self.run_ = run
        self.prefix = f"[{task.folder + ' ' if task.folder else ''}gpu {self.index}]"
        self.results: dict[str, SuiteResult] = {}
        self.steps_made: dict[str, bool] = {}  # a step's title -> its files made (tried steps only)

    def run(self) -> None:
        console = self.run_.console
        for suite, whole_plan in self.run_.plans.items():
            if self.run_.stop.event.is_set():
                break
            plan = self.run_.shards.share(suite, whole_plan, self.task, self.slot)
            result = self.results[suite] = SuiteResult(planned=len(plan))
            result.cpu_left = len(self.run_.shards.left_to_first(suite, whole_plan, self.task,
                                                                 self.slot))
            if result.cpu_left:
                console.info(f"{self.prefix} {suite}: {result.cpu_left} CPU benchmark(s) not "
                             f"run here: measured once per host, by gpu "
                             f"{self.task.slots[0].index}")
            journal_path = self.run_.shards.journal(self.task, self.slot, suite)
            try:
                self.run_suite(suite, plan, journal_path, result)
            except (JournalError, OSError) as e:
                result.error = str(e)
            except Exception as e:  # a bug here must not leave the run hanging silently
                result.error = f"internal error: {e!r}"
            if result.error:
                console.error(f"{self.prefix} {suite}: {result.error}")
            if journal_path.exists():
                try:
                    counted = tally(self.run_, self.task, self.slot, suite)
                    result.done, result.failed = counted.done, counted.failed
                    result.json_path = journal_path.with_name(f"{suite}.gpu{self.index}.json")
                    assemble(journal_path, result.json_path, plan, console)
                except (JournalError, OSError) as e:
                    result.json_path = None
                    result.error = result.error or str(e)
                    console.error(f"{self.prefix} {suite}: {e}")
            for step in steps_after(self.run_, suite):
                if not self.run_.stop.event.is_set():
                    self.steps_made[step.title] = self.try_step(step)
        for step in end_steps(self.run_):
            if not self.run_.stop.event.is_set():
                self.steps_made[step.title] = self.try_step(step)

    def try_step(self, step) -> bool:
        """make_step, a failure to start it (or a bug there) a warning: the run goes on."""
        try:
            return self.make_step(step)
        except Exception as e:
            self.run_.console.warn(f"{self.prefix} {step.title} ({step.step['figure']}) not made: {e!r}")
            return False

    def gpu(self, suite: str) -> tuple[str | None, str | None]:
        """This slot's GPU (name, uuid): from the devices the run listed, else (Slurm) from
        what this slot's steps that `suite`'s inputs come from recorded."""
        for device in self.run_.devices:
            if device.get("index") == self.slot.device:
                return device.get("name"), device.get("uuid")
        sources = [given.source for given in self.run_.inputs.get(suite, ())]
        return recorded_gpu(sources, self.folder, self.index)

    def run_suite(self, suite: str, plan: list[str], journal_path: Path,
                  result: SuiteResult) -> None:
        run, console = self.run_, self.run_.console
        skip_path = self.folder / f".skip.{suite}.gpu{self.index}"
        progress = Progress(self, suite, plan)
        max_attempts = len(plan) + 2
        attempts, restart_reason = 0, None
        while True:
            journal = repair_journal(journal_path, console)
            finished = outcomes(journal.records)
            progress.update(finished)
            remaining = [name for name in plan if name not in finished]
            if not remaining:
                skip_path.unlink(missing_ok=True)
                return
            if run.stop.event.is_set():
                return
            if attempts == max_attempts:
                result.error = (f"gave up after {attempts} starts of layoutbench; "
                                f"{len(remaining)} benchmarks have no result")
                return
            if restart_reason:
                console.info(f"{self.prefix} {suite}: layoutbench {restart_reason}; "
                             f"restarting for the remaining {len(remaining)}")
            attempts += 1
            # Everything but the remaining share: done ones and, with --split, other devices'.
            skip_path.write_text("".join(name + "\n" for name in run.plans[suite]
                                         if name not in remaining))
            returncode = self.run_child(suite, journal_path, skip_path, journal, progress)
            if run.stop.event.is_set():
                return  # interrupted: the unfinished benchmark runs again on --resume
            after = repair_journal(journal_path, console)
            new = after.records[len(journal.records):]
            if returncode == 0:
                missing = [n for n in plan if n not in outcomes(after.records)]
                if missing:
                    result.error = (f"layoutbench exited with 0 but {len(missing)} planned "
                                    f"benchmarks have no result (first: {missing[0]})")
                    return
                continue
            restart_reason = describe_exit(returncode)
            blamed = unfinished_starts(new)
            for name in blamed:
                message = (f"layoutbench {restart_reason} during this benchmark "
                           f"(recorded as failed by {RECORDED_BY}; the run went on)")
                append_records(journal_path, failure_records(name, message))
                console.warn(f"{self.prefix} {suite}: {name} failed: layoutbench {restart_reason}")
            if not blamed and not any(r["type"] == "done" for r in new):
                result.error = (f"layoutbench {restart_reason} before finishing any benchmark; "
                                "giving up on this suite on this device (see its output above)")
                return

    def run_child(self, suite: str, journal_path: Path, skip_path: Path, journal: Journal,
                  progress: "Progress") -> int:
        inputs = self.run_.inputs.get(suite, [])
        argv = [repo_path(self.run_.binary), "run", *self.run_.selection.binary_args(suite),
                *(input_args(inputs, self.folder, *self.gpu(suite)) if inputs else []),
                "--journal", repo_path(journal_path), "--skip-file", repo_path(skip_path)]
        tail = JournalTail(journal_path, journal.valid_end)
        return self.supervise(argv, self.print_line, lambda: progress.follow(tail.new_records()))

    def make_step(self, step) -> bool:
        """An artifact step of this device (an ArtifactSpec of run.steps): skipped when all
        its files exist (a resumed run); a failure is a warning naming the exit status and the
        output's tail. True if its files are there."""
        run, console = self.run_, self.run_.console
        files = step.files(self.folder, self.index)
        what = f"{step.title} ({step.step['figure']})"
        if all(p.exists() for p in files):
            console.info(f"{self.prefix} {step.title}: {' and '.join(p.name for p in files)} exist, kept")
            return True
        output: list[str] = []
        returncode = self.supervise(step.argv(repo_path(run.binary), self.folder, self.index), output.append)
        if run.stop.event.is_set():
            return False  # interrupted: --resume makes it
        missing = [p.name for p in files if not p.exists()]
        if returncode == 0 and not missing:
            for line in output[-1:]:
                console.info(f"{self.prefix} {line}")
            return True
        problem = (describe_exit(returncode) if returncode != 0
                   else f"exited with 0 but did not write {' and '.join(missing)}")
        tail = [line for line in output if line.strip()][-STEP_OUTPUT_LINES:]
        console.warn(f"{self.prefix} {what} not made: {step.runner} {step.step['command']} "
                     f"{problem}; the run goes on without it"
                     + "".join(f"\n{self.prefix}   {line}" for line in tail))
        return False

    def supervise(self, argv: list[str], on_line, on_poll=None) -> int:
        """Runs argv with this device as the only visible one until it exits, passing each
        output line to on_line and calling on_poll every POLL_S; stops it when the run is
        stopped (SIGTERM, then SIGKILL). Returns its exit status."""
        run, console = self.run_, self.run_.console
        visible = cuda_visible_devices(self.slot.device)
        console.info(f"{self.prefix} $ CUDA_VISIBLE_DEVICES={visible} {shlex.join(argv)}")
        # A new session: a Ctrl-C in the terminal reaches only the orchestrator, which then
        # stops the child itself (and records nothing as failed).
        proc = subprocess.Popen(argv, env=dict(os.environ, CUDA_VISIBLE_DEVICES=visible),
                                cwd=REPO_ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True)
        run.lock.set_child(f"gpu{self.index}", proc.pid, argv)
        reader = threading.Thread(target=self.read_output, args=(proc, on_line), daemon=True)
        reader.start()
        terminated_at = None
        while True:
            try:
                returncode = proc.wait(timeout=POLL_S)
                break
            except subprocess.TimeoutExpired:
                pass
            if on_poll:
                on_poll()
            if run.stop.event.is_set():
                if terminated_at is None:
                    terminated_at = time.monotonic()
                    self.signal_child(proc, signal.SIGTERM)
                elif run.stop.count > 1 or time.monotonic() - terminated_at > TERM_GRACE_S:
                    self.signal_child(proc, signal.SIGKILL)
        reader.join(timeout=5)
        run.lock.clear_child(f"gpu{self.index}")
        return returncode

    @staticmethod
    def signal_child(proc: subprocess.Popen, signum: int) -> None:
        try:
            os.killpg(proc.pid, signum)
        except (ProcessLookupError, PermissionError):
            pass

    @staticmethod
    def read_output(proc: subprocess.Popen, on_line) -> None:
        for raw in proc.stdout:
            on_line(raw.decode(errors="replace").rstrip("\r\n"))
        proc.stdout.close()

    def print_line(self, line: str) -> None:
        self.run_.console.info(f"{self.prefix} {line}")

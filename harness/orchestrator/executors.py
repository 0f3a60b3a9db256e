"""Where a run's tasks run. An executor takes a prepared Run (its shards: tasks of device
slots, orchestrator/shards.py) and runs it: LocalExecutor here, as one process per GPU of
this host; SlurmExecutor (orchestrator/slurm.py) as a job array whose tasks each run
`run_task` below on their node. Journals, resume, the tally and the figures are the same."""
from __future__ import annotations

import signal
import time

from orchestrator.common import EXIT_FIGURES, EXIT_INCOMPLETE, EXIT_OK, RUN_PY, repo_path
from orchestrator.console import format_duration, now_iso
from orchestrator.locks import RunLock
from orchestrator.runs import Run, end_steps, make_figures
from orchestrator.shards import Task
from orchestrator.workers import POLL_S, DeviceWorker


class Executor:
    """Runs (or submits) a prepared run; returns the exit status of harness/run.py."""

    def execute(self, run: Run, args) -> int:
        raise NotImplementedError


def catch_signals(run: Run) -> None:
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, run.stop.handle)


def run_task(run: Run, task: Task) -> tuple[int, list[DeviceWorker]]:
    """Runs one task's slots (one worker thread each) to their end and prints the summary;
    returns the exit status (0 done, 1 incomplete, 128+N interrupted) and the workers. The
    local run is one such task; so is each Slurm array task."""
    console = run.console
    run.shards.folder(task).mkdir(exist_ok=True)
    workers = [DeviceWorker(task, slot, run) for slot in task.slots]
    for worker in workers:
        worker.start()
    announced = False
    while any(worker.is_alive() for worker in workers):
        for worker in workers:
            worker.join(timeout=POLL_S)
        if run.stop.signum and not announced:
            announced = True
            console.info(f"interrupted ({signal.Signals(run.stop.signum).name}): stopping "
                         "layoutbench; nothing is recorded as failed")

    planned = sum(len(run.shards.share(suite, plan, task, worker.slot))
                  for suite, plan in run.plans.items() for worker in workers)
    done = 0
    failures: list[tuple[int, str, str]] = []
    console.info(f"summary ({format_duration(time.monotonic() - run.started)}):")
    for worker in workers:
        for suite, result in worker.results.items():
            done += result.done
            failures += [(worker.index, name, message) for name, message in result.failed]
            where = f" -> {result.json_path.name}" if result.json_path else ""
            failed = f", {len(result.failed)} failed" if result.failed else ""
            left = (f" ({result.cpu_left} CPU benchmark(s) left to gpu{task.slots[0].index}: "
                    "once per host)" if result.cpu_left else "")
            console.info(f"  {suite} gpu{worker.index}: {result.done}/{result.planned} "
                         f"done{failed}{where}{left}")
    for index, name, message in failures:
        console.info(f"  failed on gpu{index}: {name}: {message}")
    # A Python step's outputs feed what follows; a layoutbench step's are a figure's data.
    for step in (s for s in run.steps if s.python):
        for worker in workers:
            if step.title in worker.steps_made:
                files = step.files(worker.folder, worker.index)
                made = (", ".join(p.name for p in files) if worker.steps_made[step.title] else
                        f"not made (see the warning above): {step.step['figure']} is missing")
                console.info(f"  {step.title} gpu{worker.index}: {made}")
    for step in (end_steps(run) if not run.stop.signum else []):
        for worker in workers:
            files = step.files(worker.folder, worker.index)
            made = (", ".join(p.name for p in files) if worker.steps_made.get(step.title) else
                    f"not made (see the warning above): {step.step['figure']} is not drawn")
            console.info(f"  {step.title} gpu{worker.index} ({step.summary()}): {made}")

    resume_hint = f"python3 {repo_path(RUN_PY)} --resume {repo_path(run.dir)}"
    if run.stop.signum:
        console.info(f"interrupted: {done}/{planned} benchmarks done; resume with: {resume_hint}")
        return 128 + run.stop.signum, workers
    if done < planned or any(r.error for w in workers for r in w.results.values()):
        console.error(f"incomplete: {done}/{planned} benchmarks done; after fixing the cause, "
                      f"resume with: {resume_hint}")
        return EXIT_INCOMPLETE, workers
    console.info(f"all {planned} benchmarks done, {len(failures)} failed"
                 + (" (recorded with error_occurred in the JSON)" if failures else ""))
    return EXIT_OK, workers


class LocalExecutor(Executor):
    """One layoutbench process per selected GPU of this host, supervised by this process."""

    def execute(self, run: Run, args) -> int:
        catch_signals(run)
        run.lock = RunLock(run.dir)
        run.lock.acquire()
        try:
            return self.execute_locked(run, args)
        finally:
            run.lock.release()
            run.console.close()

    def execute_locked(self, run: Run, args) -> int:
        console, selection = run.console, run.selection
        whole = [suite for suite in run.plans if suite in run.shards.whole]
        console.info(f"{'resuming' if args.resume else 'run'} {repo_path(run.dir)} ({now_iso()})")
        console.info(f"preset {selection.preset}; suites: " + ", ".join(
            f"{suite} ({len(plan)} benchmarks)" for suite, plan in run.plans.items())
            + (f"; filter {selection.filter}" if selection.filter else "")
            + (f"; split across {len(run.devices)} devices" if selection.split else "")
            + (f" ({', '.join(whole)} whole on each: its results feed a per-device step)"
               if selection.split and whole else ""))
        for device in run.devices:
            console.info(f"[gpu {device['index']}] {device['name']} ({device.get('uuid', '?')})")
        (task,) = run.shards.tasks
        code, _ = run_task(run, task)
        if code == EXIT_OK and not args.no_figures and not make_figures(run):
            code = EXIT_FIGURES
        if run.stop.signum:
            code = 128 + run.stop.signum
        console.info(f"run folder: {repo_path(run.dir)}")
        return code

"""The Slurm executor: a run's tasks as sbatch job arrays (one per partition), each array task
running `harness/run.py --slurm-task DIR T` on its node (the same workers, journals and
`layoutbench run` as a local run), and a job depending on them all (`afterany`) running
`harness/run.py --slurm-collect DIR`: the tally, the figures and REPORT.md with a section on
the tasks (job id, node, state, log). Slurm's commands are called as subprocesses (sbatch,
squeue, scontrol); no accounting database is needed. See docs/cluster.md."""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from orchestrator.common import (EXIT_FIGURES, EXIT_INCOMPLETE, EXIT_OK, EXIT_USAGE, REPO_ROOT,
                                 RUN_PY, UsageError, repo_path)
from orchestrator.console import now_iso
from orchestrator.executors import Executor, catch_signals, run_task
from orchestrator.journal import (JournalError, assemble, read_journal, write_json_atomic,
                                  write_text_atomic)
from orchestrator.binary import list_devices
from orchestrator.locks import RunLock
from orchestrator.presets import preset_label
from orchestrator.runs import Run, make_figures, result_folders, tally
from orchestrator.shards import Task

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")   # a partition: also its results folder's name
TIME = re.compile(r"(\d+-)?\d+(:\d+){0,2}|INFINITE|UNLIMITED")  # sbatch --time's formats
WORD = re.compile(r"[^\s'\"\\]+")                  # one #SBATCH value: no blanks or quotes
PLAIN = re.compile(r"[A-Za-z0-9_.,:/=%@+-]+")      # a directive value sbatch reads as written
CONTROL = re.compile(r"[\x00-\x1f\x7f]")           # no line of a script can carry these
ACTIVE = {"PENDING", "RUNNING", "SUSPENDED", "COMPLETING", "CONFIGURING", "REQUEUED",
          "REQUEUE_HOLD", "REQUEUE_FED", "RESIZING", "SIGNALING", "STAGE_OUT"}
REPORT_HEADER = "# Layout benchmark report"
# Array task ids run from 0 to MaxArraySize - 1: Slurm's default MaxArraySize, 1001, bounds
# the tasks of a run (every partition's together); no node has more GPUs than this.
MAX_ARRAY_SIZE = 1001
MAX_GPUS_PER_TASK = 64


@dataclass
class SlurmOptions:
    """The sbatch options of a run (run.json "slurm" "options"). partitions, tasks and
    gpus_per_task fix the tasks; the others may change when a run is resumed."""
    partitions: list[str | None]
    tasks: int = 1              # tasks per partition (with --split: shards of each plan)
    gpus_per_task: int = 1      # 0: request no GPU (the CPU device, or GPUs given per partition)
    constraint: str | None = None
    time: str | None = None
    account: str | None = None
    qos: str | None = None

    def directives(self) -> list[tuple[str, str]]:
        """The #SBATCH options every job of the run shares (not the partition)."""
        return [(f"--{key}", value) for key, value in
                (("constraint", self.constraint), ("time", self.time),
                 ("account", self.account), ("qos", self.qos)) if value]


def parse_options(args, recorded: dict | None) -> SlurmOptions:
    """--partition (repeated or comma-separated), --tasks, --gpus-per-task, --constraint,
    --time, --account, --qos; on resume the recorded ones, the fixed ones checked."""
    # Every comma-separated part is a name: '' or 'a,,b' is refused, never the default partition.
    given_partitions = [p.strip() for value in args.partition or [] for p in value.split(",")]
    for name in given_partitions:
        if not NAME.fullmatch(name):
            raise UsageError(f"bad --partition '{name}': a partition name (letters, digits, "
                             "'_', '.', '-')")
    if len(set(given_partitions)) != len(given_partitions):
        raise UsageError(f"--partition names a partition twice ({', '.join(given_partitions)})")
    for flag, value, low, high in (("--tasks", args.tasks, 1, MAX_ARRAY_SIZE),
                                   ("--gpus-per-task", args.gpus_per_task, 0, MAX_GPUS_PER_TASK)):
        if value is not None and not low <= value <= high:
            raise UsageError(f"bad {flag} {value}: a whole number from {low} to {high}")
    if args.tasks is not None and len(given_partitions or [None]) * args.tasks > MAX_ARRAY_SIZE:
        raise UsageError(f"--tasks {args.tasks} on {len(given_partitions)} partitions makes "
                         f"{len(given_partitions) * args.tasks} array tasks; Slurm's default "
                         f"MaxArraySize takes at most {MAX_ARRAY_SIZE} (task ids 0 to "
                         f"{MAX_ARRAY_SIZE - 1})")
    if args.time is not None and not TIME.fullmatch(args.time):
        raise UsageError(f"bad --time '{args.time}': minutes, [D-]HH:MM:SS or UNLIMITED, as sbatch takes it")
    for flag, value in (("--constraint", args.constraint), ("--account", args.account),
                        ("--qos", args.qos)):
        if value is not None and not WORD.fullmatch(value):
            raise UsageError(f"bad {flag} '{value}': one word without blanks or quotes")
    changeable = {"constraint": args.constraint, "time": args.time, "account": args.account,
                  "qos": args.qos}
    if recorded is None:
        return SlurmOptions(given_partitions or [None], args.tasks or 1,
                            1 if args.gpus_per_task is None else args.gpus_per_task,
                            **changeable)
    options = SlurmOptions(**recorded)
    fixed = {"--partition": (given_partitions or None, options.partitions),
             "--tasks": (args.tasks, options.tasks),
             "--gpus-per-task": (args.gpus_per_task, options.gpus_per_task)}
    for flag, (value, was) in fixed.items():
        if value is not None and value != was:
            said = ",".join(p or "(default)" for p in value) if isinstance(value, list) else value
            was = ",".join(p or "(default)" for p in was) if isinstance(was, list) else was
            raise UsageError(f"{flag} {said} differs from the run being resumed ({was}); its "
                             "tasks are fixed; --time, --constraint, --account and --qos may change")
    for key, value in changeable.items():
        if value is not None:
            setattr(options, key, value)
    return options


def slurm_command(argv: list[str], what: str) -> subprocess.CompletedProcess:
    if shutil.which(argv[0]) is None:
        raise UsageError(f"{argv[0]} not found: {what} needs Slurm's commands on PATH")
    return subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          cwd=REPO_ROOT)


def job_ids(meta: dict) -> list[str]:
    """Every job of the run's last submission (arrays and the collect job)."""
    submissions = meta["slurm"]["submissions"]
    if not submissions:
        return []
    last = submissions[-1]
    return [str(a["job"]) for a in last["arrays"]] + [str(last["collect"]["job"])]


def active_jobs(meta: dict) -> list[str]:
    """The jobs (array tasks as <job>_<task>) of the last submission still queued or running."""
    ids = job_ids(meta)
    if not ids:
        return []
    proc = slurm_command(["squeue", "-h", "--states=all", "-o", "%i %T", "-j", ",".join(ids)],
                         "resuming a Slurm run")
    if proc.returncode != 0:
        if "Invalid job id" in proc.stderr:
            return []  # purged after MinJobAge: long finished
        raise UsageError(f"squeue failed: {proc.stderr.strip() or proc.returncode}")
    return [job for job, state in (line.split()[:2] for line in proc.stdout.splitlines()
                                   if len(line.split()) >= 2) if state in ACTIVE]


def job_fields(job: str) -> dict[str, str]:
    """`scontrol show job -o JOB` as key=value fields ({} once Slurm has forgotten the job)."""
    if shutil.which("scontrol") is None:
        return {}
    proc = subprocess.run(["scontrol", "show", "job", "-o", job], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        return {}
    return dict(item.split("=", 1) for item in proc.stdout.split() if "=" in item)


def array_ranges(ids: list[int]) -> str:
    """0,1,2,5 -> "0-2,5" (sbatch --array)."""
    parts, start = [], None
    for k, value in enumerate(ids):
        if start is None:
            start = value
        if k + 1 == len(ids) or ids[k + 1] != value + 1:
            parts.append(str(start) if start == value else f"{start}-{value}")
            start = None
    return ",".join(parts)


def slurm_dir(run: Run) -> Path:
    return run.dir / "slurm"


def task_log(run: Run, array_job, task_id: int) -> Path:
    return slurm_dir(run) / f"{array_job}_{task_id}.log"


def directive_value(option: str, value: str) -> str:
    """`value` as one argument of an #SBATCH line, read back by sbatch as it is: plain text as
    written, anything else in double quotes (sbatch's script parser splits at blanks, takes
    an unquoted '#' as a comment and a backslash as an escape). A control character (a
    newline would end the directive and start a command of the script) cannot be written:
    UsageError naming the option."""
    if CONTROL.search(value):
        raise UsageError(f"{option} {value!r} holds a control character (a newline, tab, ...), which "
                         "a Slurm job script cannot carry: choose a path or name without one")
    if PLAIN.fullmatch(value):
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def check_script_path(option: str, path: Path | str) -> None:
    """Before anything is made: a path the job scripts will name (the run folder under
    `option`'s value, the checkout) can be written into them (directive_value)."""
    for value, what in ((str(path), option), (str(REPO_ROOT), "the checkout's path")):
        if CONTROL.search(value):
            raise UsageError(f"{what} {value!r} holds a control character (a newline, tab, ...), "
                             "which a Slurm job script cannot carry: choose a path without one")


def job_script(run: Run, options: SlurmOptions, name: str, partition: str | None,
               extra: list[tuple[str, str]], command: str, comment: str) -> str:
    """One sbatch script; paths relative to the repository root, the job's --chdir. Every
    directive's value passes directive_value; the command is quoted for bash (shlex) and the
    comment's lines each start with '#'."""
    directives = [("--job-name", name)] + ([("--partition", partition)] if partition else [])
    directives += extra + options.directives()
    directives += [("--chdir", str(REPO_ROOT))]
    return ("#!/bin/bash\n" + "".join(f"# {line}\n" for line in comment.splitlines())
            + "".join(f"#SBATCH {key}={directive_value(key, value)}\n" for key, value in directives)
            + f"exec {command}\n")


def array_script(run: Run, options: SlurmOptions, partition: str | None, ids: list[int]) -> str:
    label = preset_label(run.selection.preset)
    gres = [("--gres", f"gpu:{options.gpus_per_task}")] if options.gpus_per_task else []
    extra = [("--array", array_ranges(ids)), ("--ntasks", "1"), *gres,
             ("--output", f"{repo_path(slurm_dir(run))}/%A_%a.log"), ("--open-mode", "append")]
    command = shlex.join([sys.executable, repo_path(RUN_PY), "--slurm-task", repo_path(run.dir)])
    comment = (f"layoutbench, preset {run.selection.preset}: array tasks {array_ranges(ids)} of "
               f"{repo_path(run.dir)}" + (f" on partition {partition}" if partition else "")
               + "\nWritten by harness/run.py --slurm; each task runs `layoutbench run` on its "
                 "GPU(s): docs/cluster.md.")
    return job_script(run, options, f"layoutbench-{label}", partition, extra,
                      command + ' "$SLURM_ARRAY_TASK_ID"', comment)


def collect_script(run: Run, options: SlurmOptions, figures: bool) -> str:
    label = preset_label(run.selection.preset)
    command = shlex.join([sys.executable, repo_path(RUN_PY), "--slurm-collect", repo_path(run.dir),
                          *([] if figures else ["--no-figures"])])
    return job_script(run, options, f"layoutbench-{label}-collect", options.partitions[0],
                      [("--ntasks", "1"), ("--output", f"{repo_path(slurm_dir(run))}/collect-%j.log")],
                      command, f"layoutbench: figures and REPORT.md of {repo_path(run.dir)} once "
                               "its array jobs have ended (afterany).")


def sbatch(argv: list[str]) -> str:
    proc = slurm_command(["sbatch", "--parsable", *argv], "--slurm")
    if proc.returncode != 0:
        raise UsageError(f"sbatch {shlex.join(argv)} failed: "
                         f"{proc.stderr.strip() or proc.returncode}")
    return proc.stdout.strip().split(";")[0]


class SlurmExecutor(Executor):
    """Writes and submits the job arrays of the tasks that have benchmarks left (all of them
    for a new run) and the collect job; --dry-run prints them instead."""

    def __init__(self, options: SlurmOptions, dry_run: bool, created: bool, figures: bool) -> None:
        self.options, self.dry_run, self.created = options, dry_run, created
        self.figures = figures

    def execute(self, run: Run, args) -> int:
        console, meta = run.console, run.meta
        try:
            pending = [t for t in run.shards.tasks if run.shards.missing(run.plans, t)]
        except JournalError as e:
            console.error(str(e))
            return EXIT_USAGE
        groups: dict[str | None, list[int]] = {}
        for task in pending:
            groups.setdefault(task.partition, []).append(task.id)
        number = len(meta["slurm"]["submissions"]) + 1
        scripts = [(slurm_dir(run) / f"{number}-{p or 'default'}.sbatch",
                    array_script(run, self.options, p, ids), p, ids) for p, ids in groups.items()]
        collect = (slurm_dir(run) / f"{number}-collect.sbatch", collect_script(run, self.options, self.figures))
        if self.dry_run:
            for path, text, _, _ in scripts:
                print(f"# sbatch --parsable {repo_path(path)}\n{text}")
            print(f"# sbatch --parsable --dependency=afterany:<the job ids above> "
                  f"{repo_path(collect[0])}\n{collect[1]}", end="")
            return EXIT_OK
        if not pending:
            console.info("every planned benchmark has a result: submitting the collect job only")
        slurm_dir(run).mkdir(exist_ok=True)
        submitted: list[str] = []
        try:
            arrays = []
            for path, text, partition, ids in scripts:
                write_text_atomic(path, text)
                submitted.append(sbatch([repo_path(path)]))
                arrays.append({"job": submitted[-1], "partition": partition, "tasks": ids,
                               "script": repo_path(path)})
            write_text_atomic(collect[0], collect[1])
            dependency = [f"--dependency=afterany:{':'.join(submitted)}"] if submitted else []
            collect_job = sbatch([*dependency, repo_path(collect[0])])
        except UsageError as e:
            if submitted:
                subprocess.run(["scancel", *submitted], capture_output=True)
            for path in [p for p, *_ in scripts] + [collect[0]]:
                path.unlink(missing_ok=True)
            if self.created:
                shutil.rmtree(run.dir, ignore_errors=True)
            console.close()
            print(f"harness/run.py: {e}", file=sys.stderr)
            return EXIT_USAGE
        meta["slurm"]["options"] = asdict(self.options)
        meta["slurm"]["submissions"].append({
            "at": now_iso(), "command": sys.argv, "tasks": [t.id for t in pending],
            "arrays": arrays, "collect": {"job": collect_job, "script": repo_path(collect[0])}})
        write_json_atomic(run.dir / "run.json", meta)
        for array in arrays:
            console.info(f"submitted job array {array['job']} (tasks "
                         f"{array_ranges(array['tasks'])}"
                         + (f", partition {array['partition']}" if array["partition"] else "")
                         + f"): {array['script']}")
        console.info(f"submitted collect job {collect_job}{' (afterany)' if submitted else ''}: "
                     "figures and REPORT.md; "
                     f"logs in {repo_path(slurm_dir(run))}/")
        console.info(f"watch: squeue -j {','.join([*submitted, collect_job])}")
        console.info(f"run folder: {repo_path(run.dir)}")
        console.close()
        return EXIT_OK


def status_path(run: Run, task_id: int) -> Path:
    return slurm_dir(run) / f"task-{task_id}.json"


def run_array_task(run: Run, task_id: int) -> int:
    """One array task on its node: records where it runs (slurm/task-T.json), runs its slots
    as a local run does, records how it ended. No figures: the collect job draws them."""
    console = run.console
    tasks = {t.id: t for t in run.shards.tasks}
    if task_id not in tasks:
        raise UsageError(f"{run.dir} has no task {task_id} (tasks {array_ranges(sorted(tasks))})")
    task = tasks[task_id]
    array_job = os.environ.get("SLURM_ARRAY_JOB_ID") or os.environ.get("SLURM_JOB_ID") or "?"
    status = {"task": task_id, "job": os.environ.get("SLURM_JOB_ID"), "array_job": array_job,
              "node": os.environ.get("SLURMD_NODENAME") or socket.gethostname(),
              "log": repo_path(task_log(run, array_job, task_id)), "started": now_iso(),
              # what Slurm gave the task (gres): a GPU lost since shows as a value nothing matches
              "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
              "devices": [], "errors": []}
    path = status_path(run, task_id)
    slurm_dir(run).mkdir(exist_ok=True)
    write_json_atomic(path, status)
    catch_signals(run)
    try:
        visible = list_devices(run.binary)
        if len(visible) < len(task.slots):
            given = status["cuda_visible_devices"]
            raise UsageError(f"task {task_id} needs {len(task.slots)} device(s) and sees "
                             f"{len(visible)} on {status['node']} (layoutbench list-devices"
                             + (f", CUDA_VISIBLE_DEVICES={given}" if given is not None else "")
                             + ")")
        status["devices"] = [{k: d.get(k) for k in ("index", "name", "uuid")}
                             for d in visible[:len(task.slots)]]
        write_json_atomic(path, status)
        console.info(f"task {task_id} on {status['node']} (job {status['job']}): " + ", ".join(
            f"gpu{slot.index} = {d['name']} ({d.get('uuid')})"
            for slot, d in zip(task.slots, status["devices"])))
        run.lock = RunLock(run.dir, f".lock.task{task_id}")
        run.lock.acquire()
        try:
            code, workers = run_task(run, task)
        finally:
            run.lock.release()
        status["errors"] = [f"{suite} gpu{w.index}: {r.error}" for w in workers
                            for suite, r in w.results.items() if r.error]
    except UsageError as e:
        console.error(str(e))
        status["errors"], code = [str(e)], EXIT_USAGE
    status.update(ended=now_iso(), exit=code)
    write_json_atomic(path, status)
    return code


@dataclass
class TaskRow:
    task: Task
    job: str             # <array job>_<task>, or "" when it was never submitted
    node: str
    log: str
    state: str
    planned: int
    done: int
    failed: int          # benchmarks recorded as failed (results, not a failed task)
    complete: bool
    problem: str         # why the task failed, when it did
    cards: list[str]     # the GPUs (UUIDs) its journals' runs had: two once a resume got another


def latest_array_job(meta: dict, task_id: int) -> str:
    for submission in reversed(meta["slurm"]["submissions"]):
        for array in submission["arrays"]:
            if task_id in array["tasks"]:
                return str(array["job"])
    return ""


def read_status(run: Run, task_id: int) -> dict:
    try:
        return json.loads(status_path(run, task_id).read_text())
    except (OSError, ValueError):
        return {}


def task_row(run: Run, task: Task) -> TaskRow:
    """A task's results (its journals, assembled again: a killed task could not) and how its
    latest attempt ended, from Slurm (scontrol) and its own record."""
    planned = done = failed = 0
    cards: set[str] = set()
    for suite, plan in run.plans.items():
        for slot in task.slots:
            journal = run.shards.journal(task, slot, suite)
            share = run.shards.share(suite, plan, task, slot)
            if journal.exists():
                assemble(journal, journal.with_name(f"{suite}.gpu{slot.index}.json"), share,
                         run.console)
                cards |= {((r["context"].get("lb") or {}).get("gpu") or {}).get("uuid")
                          for r in read_journal(journal).records if r["type"] == "context"}
            counted = tally(run, task, slot, suite)
            planned, done, failed = (planned + counted.planned, done + counted.done,
                                     failed + len(counted.failed))
    array_job = latest_array_job(run.meta, task.id)
    status = read_status(run, task.id)
    if str(status.get("array_job")) != array_job:
        status = {}  # a record of an earlier attempt
    fields = job_fields(f"{array_job}_{task.id}") if array_job else {}
    job = f"{array_job}_{task.id}" if array_job else ""
    if fields.get("JobId"):
        job += f" (job {fields['JobId']})"
    elif status.get("job"):
        job += f" (job {status['job']})"
    node = status.get("node") or fields.get("NodeList", "").replace("(null)", "")
    log = status.get("log") or (repo_path(task_log(run, array_job, task.id)) if array_job else "")
    complete = done == planned
    problems = list(status.get("errors", []))
    if complete:
        state = "completed"
    elif fields.get("JobState"):
        state = fields["JobState"]
        if fields.get("ExitCode", "0:0") != "0:0":
            state += f", exit code {fields['ExitCode']}"
    elif "exit" in status:
        state = f"exited with code {status['exit']}"
    elif status:
        state = "ended without recording its end (killed)"
    else:
        state = "never started" if array_job else "never submitted"
    return TaskRow(task, job, node, log, state, planned, done, failed, complete,
                   "; ".join(problems), sorted(cards - {None}))


def tasks_section(run: Run, rows: list[TaskRow]) -> str:
    gpus = {}
    for row in rows:
        status = read_status(run, row.task.id)
        gpus[row.task.id] = ", ".join(d.get("name") or "?" for d in status.get("devices", []))
    lines = ["## Slurm tasks", "",
             f"{len(rows)} array task(s) of `{repo_path(run.dir)}`; {len(run.meta['slurm']['submissions'])} "
             "submission(s) (run.json). A task's journals keep every benchmark it finished; "
             "a task that failed or was killed lost only its unfinished one.", "",
             "| task | partition | GPU | job | node | state | benchmarks done | log |",
             "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        failed = f" ({row.failed} failed)" if row.failed else ""
        lines.append(f"| {row.task.id} | {row.task.partition or 'default'} | "
                     f"{gpus[row.task.id] or '—'} | {row.job or '—'} | {row.node or '—'} | "
                     f"{row.state} | {row.done}/{row.planned}{failed} | "
                     f"{'`' + row.log + '`' if row.log else '—'} |")
    mixed = [row for row in rows if len(row.cards) > 1]
    if mixed:  # a resume given another GPU: the result file names the latest card for all
        lines += ["", "Tasks whose benchmarks ran on several cards (a resume was given another GPU; "
                      "each result file names its latest card: docs/cluster.md):", ""]
        lines += [f"- task {row.task.id}: {', '.join(row.cards)}" for row in mixed]
    bad = [row for row in rows if not row.complete]
    if bad:
        lines += ["", "Failed or incomplete tasks (the others' results stand):", ""]
        for row in bad:
            lines.append(f"- task {row.task.id}: {row.state}; job {row.job or '—'}, node "
                         f"{row.node or '—'}, log `{row.log or '—'}`"
                         + (f": {row.problem}" if row.problem else ""))
        lines += ["", f"Resume with `python3 {repo_path(RUN_PY)} --resume {repo_path(run.dir)}`: "
                      "it resubmits only these tasks, for their missing benchmarks."]
    return "\n".join(lines) + "\n"


def collect(run: Run, figures: bool = True) -> int:
    """The collect job: every task's results assembled and tallied, the figures over the
    results folders, REPORT.md with the tasks' section. Exit 0 complete, 1 a task is
    incomplete, 3 the figures failed."""
    console = run.console
    try:
        rows = [task_row(run, task) for task in run.shards.tasks]
    except JournalError as e:
        console.error(str(e))
        return EXIT_INCOMPLETE
    console.info(f"collect {repo_path(run.dir)} ({now_iso()}):")
    for row in rows:
        console.info(f"  task {row.task.id} ({row.task.partition or 'default'}): {row.state}, "
                     f"{row.done}/{row.planned} benchmarks done, job {row.job or '—'}, "
                     f"node {row.node or '—'}, log {row.log or '—'}")
    report = run.dir / "REPORT.md"
    # The section lives beside the results, where plots' report picks it up (plots/report.py),
    # so redrawing the figures later keeps it.
    section = tasks_section(run, rows)
    write_text_atomic(run.dir / "slurm" / "tasks.md", section)
    drawn = bool(result_folders(run)) and figures and make_figures(run)
    if not (drawn and report.exists()):
        reason = ("no task has a result yet" if not result_folders(run)
                  else "no figures: --no-figures" if not figures
                  else "the figures were not drawn (see the collect job's log)")
        write_text_atomic(report, f"{REPORT_HEADER}\n\n{reason[0].upper() + reason[1:]}.\n\n"
                          + section)
    console.info(f"wrote {repo_path(report)}")
    if not all(row.complete for row in rows):
        return EXIT_INCOMPLETE
    return EXIT_OK if drawn or not figures else EXIT_FIGURES

"""The command line: options, validation before anything is created, the run, its summary."""
from __future__ import annotations

import argparse
import os
import signal
import sys
from dataclasses import asdict
from pathlib import Path

from orchestrator.binary import (Registry, build_info, has_subcommand, list_devices, plan_lists_where,
                                 read_registry)
from orchestrator.common import EXIT_USAGE, REPO_ROOT, UsageError, repo_path
from orchestrator.console import Console, now_iso
from orchestrator.executors import Executor, LocalExecutor
from orchestrator.journal import recorded_build, write_json_atomic
from orchestrator.locks import RunLock
from orchestrator.inputs import skip_reused_suites, suite_inputs
from orchestrator.presets import (Selection, create_run_dir, parse_devices, parse_preset,
                                  parse_suites, plan_suite, plan_suite_where, preset_suites,
                                  run_steps)
from orchestrator.runs import Run, load_run_json
from orchestrator.shards import Shards, Task, local_tasks, slurm_tasks
from orchestrator import merge, slurm

DEFAULT_BIN = REPO_ROOT / "build" / "layoutbench"
DEFAULT_RESULTS_ROOT = REPO_ROOT / "results" / "runs"
SLURM_ONLY = ("partition", "tasks", "gpus_per_task", "constraint", "time", "account", "qos",
              "dry_run")


MERGE_EXCLUDES = ("preset", "suites", "devices", "filter", "sizes", "precision", "bin",
                  "results_root", "resume", "split", "slurm", "slurm_task", "slurm_collect",
                  *SLURM_ONLY)


class ArgumentParser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"{message} (see --help)")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = ArgumentParser(
        prog="harness/run.py",
        description="Run layoutbench suites on the GPUs and assemble Google Benchmark JSON "
                    "(see results/README.md); then draw the figures.",
        epilog="Exit status: 0 all planned benchmarks done (some may have failed: they are "
               "recorded results); 1 incomplete; 2 bad input or no GPU; 3 figures failed; "
               "128+N interrupted by signal N.")
    parser.add_argument("--preset", help="a named preset (quick, paper, ...: `layoutbench suites` "
                                         "lists them) or a preset file (default quick)")
    parser.add_argument("--suites", help="comma-separated suites (default: every suite the preset "
                                         "configures; `layoutbench suites` lists them)")
    parser.add_argument("--devices", help="all, or device indices like 0,1 (default all)")
    parser.add_argument("--filter", metavar="RE", help="only benchmarks whose name matches RE")
    parser.add_argument("--sizes", help="override the preset's sizes, e.g. 1024,4096")
    parser.add_argument("--precision", help="float, double or float,double")
    parser.add_argument("--bin", metavar="PATH", help=f"layoutbench binary (default {DEFAULT_BIN})")
    parser.add_argument("--results-root", metavar="DIR", type=Path,
                        help=f"where new run folders go (default {DEFAULT_RESULTS_ROOT})")
    parser.add_argument("--resume", metavar="DIR", type=Path,
                        help="continue the run in DIR: runs only what is missing, with the "
                             "selection recorded in DIR/run.json and a binary of the build "
                             "its results came from (layoutbench build-info)")
    parser.add_argument("--split", action="store_true",
                        help="split each suite's benchmarks across the devices (identical GPUs "
                             "of one host) instead of running all of them on every device; a "
                             "suite feeding a per-device Python step (`layoutbench suites` "
                             "lists the steps) runs whole on each")
    parser.add_argument("--no-figures", action="store_true", help="skip python3 -m plots")
    parser.add_argument("--merge", nargs="+", metavar="RUN", type=Path,
                        help="merge these run folders (one GPU model, one commit, no benchmark "
                             "in two of them) into the new folder --out, with one run.json and "
                             "report (`make merge`)")
    parser.add_argument("--out", metavar="DIR", type=Path, help="the folder --merge writes")
    cluster = parser.add_argument_group(
        "Slurm", "run on a Slurm cluster instead of this host's GPUs (docs/cluster.md): a job "
                 "array per partition, one task per GPU or shard, and a job after them "
                 "(afterany) that draws the figures and writes REPORT.md")
    cluster.add_argument("--slurm", action="store_true",
                         help="submit the run as sbatch job arrays (a Slurm run resumes on Slurm)")
    cluster.add_argument("--partition", action="append", metavar="P",
                         help="partition(s), comma-separated or repeated; one GPU model each: "
                              "the run compares them (default: the cluster's default)")
    cluster.add_argument("--tasks", type=int, metavar="N",
                         help="array tasks per partition (default 1); with --split they share "
                              "each suite's benchmarks, else each runs all of them")
    cluster.add_argument("--gpus-per-task", type=int, metavar="N",
                         help="GPUs each task requests (--gres=gpu:N; default 1; 0 requests none)")
    cluster.add_argument("--constraint", metavar="C", help="sbatch --constraint")
    cluster.add_argument("--time", metavar="T", help="sbatch --time (each task's limit)")
    cluster.add_argument("--account", metavar="A", help="sbatch --account")
    cluster.add_argument("--qos", metavar="Q", help="sbatch --qos")
    cluster.add_argument("--dry-run", action="store_true",
                         help="print the sbatch scripts and commands; create and submit nothing")
    cluster.add_argument("--slurm-task", metavar="DIR", type=Path,
                         help="(the job scripts' command) run array task $SLURM_ARRAY_TASK_ID "
                              "of the Slurm run in DIR, given as the last argument")
    cluster.add_argument("--slurm-collect", metavar="DIR", type=Path,
                         help="(the collect job's command) assemble, draw and report the Slurm "
                              "run in DIR")
    cluster.add_argument("task_id", nargs="?", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if (args.task_id is None) != (args.slurm_task is None):
        raise UsageError("--slurm-task DIR takes the array task id after it (see --help)")
    if (args.merge is None) != (args.out is None):
        raise UsageError("--merge RUN RUN... and --out DIR go together (see --help)")
    if args.merge is not None:
        given = [f"--{key.replace('_', '-')}" for key in MERGE_EXCLUDES if getattr(args, key)]
        if given:
            raise UsageError(f"--merge takes run folders, --out and --no-figures; not {given[0]}")
        return args
    if not args.slurm and not args.resume:
        given = [f"--{key.replace('_', '-')}" for key in SLURM_ONLY if getattr(args, key)]
        if given:
            raise UsageError(f"{given[0]} needs --slurm")
    return args


def binary_path(value: str) -> str:
    return os.path.abspath(value) if os.sep in value else value

def resumed_selection(args, meta: dict, registry: Registry) -> Selection:
    """The recorded selection; options given again must agree with it (--devices is checked
    by check_resumed_devices, once the visible devices are known)."""
    recorded = Selection(**meta["args"])
    given = {"preset": args.preset and parse_preset(args.preset, registry),
             "suites": args.suites and parse_suites(args.suites),
             "filter": args.filter, "sizes": args.sizes, "precision": args.precision,
             "split": args.split or None}
    for key, value in given.items():
        if value is not None and value != getattr(recorded, key):
            raise UsageError(f"--{key} {value} differs from the run being resumed "
                             f"({getattr(recorded, key)}); --resume continues {args.resume} "
                             "with the selection recorded in its run.json")
    return recorded


def check_resumed_devices(args, meta: dict, visible: list[dict], recorded: Selection) -> None:
    """The devices of the run being resumed are the ones visible now (and --devices, given
    again, names them)."""
    devices = args.devices and parse_devices(args.devices, visible)
    if devices is not None and devices != recorded.devices:
        raise UsageError(f"--devices {devices} differs from the run being resumed "
                         f"({recorded.devices}); --resume continues {args.resume} "
                         "with the selection recorded in its run.json")
    by_index = {d["index"]: d for d in visible}
    for device in meta["devices"]:
        now = by_index.get(device["index"])
        if now is None:
            raise UsageError(f"device {device['index']} ({device['name']}) of {args.resume} "
                             "is not visible now")
        if now.get("uuid") != device.get("uuid"):
            raise UsageError(f"device {device['index']} is now {now['name']} ({now.get('uuid')}) "
                             f"but {args.resume} ran on {device['name']} ({device.get('uuid')}): "
                             "resuming would mix GPUs in one result file")


def describe_build(build: dict) -> str:
    dirty = build.get("git_dirty")
    return build["git_commit"][:7] + ("" if dirty is None else " (dirty)" if dirty else " (clean)")


def check_resumed_build(run_dir: Path, binary: str) -> None:
    """The binary appending to a run's journals is of the build their results are: each result
    file carries its journal's latest context, so another commit (or a dirty build where the
    results came from a clean one, or the reverse) would label the earlier results as its own.
    A journal whose context names no commit (an older run) is not checked."""
    recorded = {}
    for path in sorted(run_dir.rglob("*.gpu*.journal.jsonl")):
        build = recorded_build(path)
        if build:
            recorded.setdefault((build["git_commit"], build.get("git_dirty")), build)
    if not recorded:
        return
    if not has_subcommand(binary, "build-info"):  # built before the check existed: say so, go on
        print(f"run.py: warning: {repo_path(binary)} predates `layoutbench build-info`, so it "
              f"cannot be checked against the build of {repo_path(run_dir)}'s results "
              f"({', '.join(map(describe_build, recorded.values()))}); resuming as asked",
              file=sys.stderr)
        return
    now = build_info(binary)
    if all(commit == now["git_commit"] and dirty in (None, now["git_dirty"])
           for commit, dirty in recorded):
        return
    (only, *others) = recorded.values()
    commit = only["git_commit"][:7]
    if others:
        advice = "Its journals come from several builds: start a new run."
    elif only.get("git_dirty"):
        advice = (f"Build {commit} with the uncommitted changes it was built with to resume, "
                  "or start a new run.")
    else:
        advice = (f"Build {commit} to resume (git checkout {commit} && make build), or start "
                  "a new run.")
    raise UsageError(f"{repo_path(run_dir)} holds results of layoutbench built from commit"
                     f"{'s' if others else ''} {', '.join(map(describe_build, recorded.values()))}; "
                     f"{repo_path(binary)} is {describe_build(now)}: resuming would label those "
                     f"results as this build's. {advice}")


def prepare(args, console: Console) -> tuple[Run, Executor]:
    """Validates everything before creating anything."""
    meta = None
    if args.resume:
        meta = load_run_json(args.resume)
        if meta.get("merged"):
            raise UsageError(f"{args.resume} was merged from run folders (--merge): resume "
                             "those, then merge them again")
        on_slurm = meta.get("executor") == "slurm"
        if args.slurm and not on_slurm:
            raise UsageError(f"{args.resume} ran on this host's GPUs, not on Slurm: resume it "
                             "without --slurm")
        if not on_slurm:
            given = [f"--{key.replace('_', '-')}" for key in SLURM_ONLY if getattr(args, key)]
            if given:
                raise UsageError(f"{given[0]} needs --slurm, and {args.resume} ran on this host")
        args.slurm = on_slurm
        writers = RunLock.live_writers(args.resume)
        if writers:
            raise UsageError(f"{args.resume} is still being written by {', '.join(writers)}; "
                             "stop it or let it finish first")
    if args.slurm and args.devices:
        raise UsageError("--devices picks GPUs of this host; on Slurm, --tasks and "
                         "--gpus-per-task say how many GPUs the run takes")
    if args.slurm:
        slurm.check_script_path(*(("--resume", args.resume) if args.resume else
                                  ("--results-root", args.results_root or DEFAULT_RESULTS_ROOT)))
    binary, registry, selection, plans, steps, cpu = selection_and_plans(args, meta)
    if args.slurm:
        options = slurm.parse_options(args, meta and meta["slurm"]["options"])
        if meta:
            active = slurm.active_jobs(meta)
            if active:
                raise UsageError(f"{args.resume} still has jobs queued or running "
                                 f"({', '.join(active)}): wait for them, or scancel them first")
        devices: list[dict] = []
        tasks = ([Task.from_json(t) for t in meta["tasks"]] if meta else
                 slurm_tasks(options.partitions, options.tasks, options.gpus_per_task))
        slots = len(tasks[0].slots) * options.tasks
        where, listing = "GPUs per partition", "(--tasks N, --gpus-per-task N)"
    else:
        visible = list_devices(binary)
        if not visible:
            raise UsageError("no CUDA GPU visible (layoutbench list-devices found none): nothing "
                             "to benchmark here; `make figures` works without a GPU; "
                             "harness/run.py --slurm submits to a cluster")
        if meta:
            check_resumed_devices(args, meta, visible, selection)
        else:
            selection.devices = parse_devices(args.devices or "all", visible)
        devices = [d for index in selection.devices for d in visible if d["index"] == index]
        tasks, slots, where = local_tasks(selection.devices), len(devices), "devices"
        listing = f"(selected: {', '.join(str(d['index']) for d in devices)})"
    if not meta and not args.slurm and not args.suites:
        skip_reused_suites(selection, plans, steps, devices, console)
    if selection.split and slots < 2:
        raise UsageError(f"--split needs two or more {where} to split the benchmarks across "
                         + listing)

    created = False
    if meta:
        run_dir = args.resume
        for suite, plan in plans.items():
            if meta.get("plan", {}).get(suite) not in (None, len(plan)):
                console.warn(f"suite {suite} now plans {len(plan)} benchmarks, "
                             f"{meta['plan'][suite]} when the run started")
        meta.setdefault("resumed", []).append({"at": now_iso(), "command": sys.argv})
        meta["bin"], meta["plan"] = repo_path(binary), {s: len(p) for s, p in plans.items()}
    else:
        label = (devices[0]["name"] if devices else
                 "slurm-" + "-".join(p or "default" for p in options.partitions))
        run_dir = create_run_dir(args.results_root or DEFAULT_RESULTS_ROOT, label,
                                 selection.preset, create=not args.dry_run)
        created = not args.dry_run
        meta = {"format": 1, "started": now_iso(), "command": sys.argv,
                "args": selection.as_json(), "bin": repo_path(binary),
                "devices": [{k: d.get(k) for k in ("index", "name", "uuid")} for d in devices],
                "plan": {s: len(p) for s, p in plans.items()}, "resumed": []}
        if args.slurm:
            meta.update(executor="slurm", tasks=[t.as_json() for t in tasks],
                        slurm={"options": {}, "submissions": []})
    shards = Shards(run_dir.resolve(), tasks, selection.split, whole_suites(steps), cpu or {})
    if cpu is None and not selection.split and any(len(t.slots) > 1 for t in tasks):
        print(f"run.py: warning: {repo_path(binary)} predates `layoutbench plan --json`, so its "
              "CPU benchmarks cannot be told apart: every device runs them (once per host "
              "needs a newer build)", file=sys.stderr)
    meta.pop("cpu_once_per_host", None)  # recomputed on resume: the same tasks, the same plan
    if once := shards.cpu_once(plans):
        meta["cpu_once_per_host"] = once
    run = Run(run_dir.resolve(), binary, selection, devices, plans, console, shards, steps,
              suite_inputs(registry), meta=meta)
    if args.slurm:
        meta["slurm"]["options"] = asdict(options)
        executor: Executor = slurm.SlurmExecutor(options, args.dry_run, created,
                                                 figures=not args.no_figures)
        if args.dry_run:
            return run, executor
    else:
        executor = LocalExecutor()
    console.attach(run_dir / "run.log")
    write_json_atomic(run_dir / "run.json", meta)
    return run, executor


def whole_suites(steps) -> frozenset[str]:
    """The suites each device runs whole even with --split: a Python step of theirs reads
    all of the device's results."""
    return frozenset(s.suite for s in steps if s.python)


def selection_and_plans(args, meta: dict | None, check_build: bool = True):
    """The binary, its registry, the selection (new or recorded), each suite's plan and the
    artifact steps: everything that needs no GPU, so a mistake is reported as such anywhere.
    Every resume and every Slurm task passes here with `meta`: the binary must be of the build
    the run's results are (check_resumed_build; not checked for the collect job, which runs no
    benchmark). Last, each suite's CPU benchmarks (None where the binary predates
    `plan --json`)."""
    if args.bin:
        binary = binary_path(args.bin)
    elif meta:  # recorded relative to the repository root when inside it
        binary = str(REPO_ROOT / meta["bin"]) if os.sep in meta["bin"] else meta["bin"]
    else:
        binary = str(DEFAULT_BIN)
    registry = read_registry(binary)
    if meta and check_build:
        check_resumed_build(args.resume, binary)
    if meta:
        selection = resumed_selection(args, meta, registry)
    else:
        preset = parse_preset(args.preset or "quick", registry)
        selection = Selection(preset=preset,
                              suites=(parse_suites(args.suites) if args.suites
                                      else preset_suites(preset, registry)),
                              devices=[], filter=args.filter, sizes=args.sizes,
                              precision=args.precision, split=args.split)
        if not args.suites and args.filter:
            # Every suite of the preset by default: a filter may leave some of them empty.
            kept = [s for s in selection.suites if plan_suite(binary, selection, s, allow_empty=True)]
            if not kept:
                raise UsageError("nothing to run: the filter matches no benchmark of any suite "
                                 f"({', '.join(selection.suites)})")
            selection.suites = kept
    plans, cpu = {}, None
    if plan_lists_where(binary):
        cpu = {}
        for suite in selection.suites:
            plans[suite], cpu[suite] = plan_suite_where(binary, selection, suite)
    else:
        plans = {suite: plan_suite(binary, selection, suite) for suite in selection.suites}
    steps = run_steps(selection.preset, registry, selection.suites)
    return binary, registry, selection, plans, steps, cpu


def recorded_run(run_dir: Path, console: Console, collect: bool = False) -> Run:
    """A Slurm run as its array tasks and its collect job see it: everything from run.json."""
    meta = load_run_json(run_dir)
    if meta.get("executor") != "slurm":
        raise UsageError(f"{run_dir} is not a Slurm run (run.json has no Slurm tasks)")
    args = argparse.Namespace(bin=None, preset=None, suites=None, filter=None, sizes=None,
                              precision=None, split=False, resume=run_dir)
    binary, registry, selection, plans, steps, cpu = selection_and_plans(
        args, meta, check_build=not collect)
    tasks = [Task.from_json(t) for t in meta["tasks"]]
    return Run(run_dir.resolve(), binary, selection, [], plans, console,
               Shards(run_dir.resolve(), tasks, selection.split, whole_suites(steps), cpu or {}),
               steps, suite_inputs(registry), meta=meta)


def main(argv: list[str] | None = None) -> int:
    sys.stdout.reconfigure(errors="replace")
    sys.stderr.reconfigure(errors="replace")
    console = Console()
    try:
        args = parse_args(argv)
        if args.merge:
            return merge.merge_runs(args.merge, args.out, not args.no_figures, console)
        if args.slurm_task:
            return slurm.run_array_task(recorded_run(args.slurm_task, console), args.task_id)
        if args.slurm_collect:
            run = recorded_run(args.slurm_collect, console, collect=True)
            console.attach(run.dir / "run.log")
            try:
                return slurm.collect(run, figures=not args.no_figures)
            finally:
                console.close()
        run, executor = prepare(args, console)
    except UsageError as e:
        print(f"harness/run.py: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 128 + signal.SIGINT
    return executor.execute(run, args)

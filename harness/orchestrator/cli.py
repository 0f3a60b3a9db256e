"""The command line: options, validation before anything is created, the run, its summary."""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from orchestrator.binary import Registry, describe_exit, list_devices, read_registry
from orchestrator.common import (EXIT_FIGURES, EXIT_INCOMPLETE, EXIT_OK, EXIT_USAGE, REPO_ROOT,
                                 RUN_PY, UsageError, repo_path)
from orchestrator.console import Console, format_duration, now_iso
from orchestrator.journal import write_json_atomic
from orchestrator.locks import RunLock
from orchestrator.presets import (ModelSpec, Selection, create_run_dir, model_spec, parse_devices,
                                  parse_preset, parse_suites, plan_suite, preset_suites)
from orchestrator.workers import POLL_S, DeviceWorker, StopRequest

DEFAULT_BIN = REPO_ROOT / "build" / "layoutbench"
DEFAULT_RESULTS_ROOT = REPO_ROOT / "results" / "runs"


@dataclass
class Run:
    dir: Path
    binary: str
    selection: Selection
    devices: list[dict]
    plans: dict[str, list[str]]
    console: Console
    model: ModelSpec | None = None  # the Fig. 4 kriging model each device makes at the end
    stop: StopRequest = field(default_factory=StopRequest)
    lock: RunLock | None = None
    started: float = field(default_factory=time.monotonic)

    def share(self, plan: list[str], device_index: int) -> list[str]:
        """The part of a suite's plan one device runs: all of it, or with --split every n-th
        benchmark from the device's position, so sizes interleave and the devices finish
        together; the plan and the device list come from run.json, so a resume splits alike."""
        if not self.selection.split:
            return plan
        position = [d["index"] for d in self.devices].index(device_index)
        return plan[position::len(self.devices)]


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
                                         "configures, e.g. idw,kriging)")
    parser.add_argument("--devices", help="all, or device indices like 0,1 (default all)")
    parser.add_argument("--filter", metavar="RE", help="only benchmarks whose name matches RE")
    parser.add_argument("--sizes", help="override the preset's sizes, e.g. 1024,4096")
    parser.add_argument("--precision", help="float, double or float,double")
    parser.add_argument("--bin", metavar="PATH", help=f"layoutbench binary (default {DEFAULT_BIN})")
    parser.add_argument("--results-root", metavar="DIR", type=Path,
                        help=f"where new run folders go (default {DEFAULT_RESULTS_ROOT})")
    parser.add_argument("--resume", metavar="DIR", type=Path,
                        help="continue the run in DIR: runs only what is missing, with the "
                             "selection recorded in DIR/run.json")
    parser.add_argument("--split", action="store_true",
                        help="split each suite's benchmarks across the devices (identical GPUs "
                             "of one host) instead of running all of them on every device")
    parser.add_argument("--no-figures", action="store_true", help="skip python3 -m plots")
    return parser.parse_args(argv)


def binary_path(value: str) -> str:
    return os.path.abspath(value) if os.sep in value else value

def load_run_json(run_dir: Path) -> dict:
    path = run_dir / "run.json"
    if not path.is_file():
        raise UsageError(f"{run_dir} is not a run folder (no run.json)")
    try:
        meta = json.loads(path.read_text())
        Selection(**meta["args"])
        if not isinstance(meta["bin"], str) or not isinstance(meta["devices"], list):
            raise ValueError('"bin" or "devices" missing')
    except (ValueError, KeyError, TypeError) as e:
        raise UsageError(f"{path}: malformed run.json ({e!r})")
    return meta


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


def prepare(args, console: Console) -> Run:
    """Validates everything before creating anything."""
    meta = None
    if args.resume:
        meta = load_run_json(args.resume)
        writers = RunLock.live_writers(args.resume)
        if writers:
            raise UsageError(f"{args.resume} is still being written by {', '.join(writers)}; "
                             "stop it or let it finish first")
    if args.bin:
        binary = binary_path(args.bin)
    elif meta:  # recorded relative to the repository root when inside it
        binary = str(REPO_ROOT / meta["bin"]) if os.sep in meta["bin"] else meta["bin"]
    else:
        binary = str(DEFAULT_BIN)
    # Everything that needs no GPU first (the preset, the suites, the plans): a mistake in
    # them is reported as such, also on a machine without a GPU.
    registry = read_registry(binary)
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
    plans = {suite: plan_suite(binary, selection, suite) for suite in selection.suites}
    model = model_spec(selection.preset, registry)  # checked even when its suite is not run
    if model and model.suite not in selection.suites:
        model = None
    visible = list_devices(binary)
    if not visible:
        raise UsageError("no CUDA GPU visible (layoutbench list-devices found none): nothing to "
                         "benchmark here; `make figures` works without a GPU")
    if meta:
        check_resumed_devices(args, meta, visible, selection)
    else:
        selection.devices = parse_devices(args.devices or "all", visible)
    devices = [d for index in selection.devices for d in visible if d["index"] == index]
    if selection.split and len(devices) < 2:
        raise UsageError("--split needs two or more devices to split the benchmarks across "
                         f"(selected: {', '.join(str(d['index']) for d in devices)})")

    if meta:
        run_dir = args.resume
        console.attach(run_dir / "run.log")
        for suite, plan in plans.items():
            if meta.get("plan", {}).get(suite) not in (None, len(plan)):
                console.warn(f"suite {suite} now plans {len(plan)} benchmarks, "
                             f"{meta['plan'][suite]} when the run started")
        meta.setdefault("resumed", []).append({"at": now_iso(), "command": sys.argv})
        meta["bin"], meta["plan"] = repo_path(binary), {s: len(p) for s, p in plans.items()}
    else:
        run_dir = create_run_dir(args.results_root or DEFAULT_RESULTS_ROOT,
                                 devices[0]["name"], selection.preset)
        console.attach(run_dir / "run.log")
        meta = {"format": 1, "started": now_iso(), "command": sys.argv,
                "args": selection.as_json(), "bin": repo_path(binary),
                "devices": [{k: d.get(k) for k in ("index", "name", "uuid")} for d in devices],
                "plan": {s: len(p) for s, p in plans.items()}, "resumed": []}
    write_json_atomic(run_dir / "run.json", meta)
    return Run(run_dir.resolve(), binary, selection, devices, plans, console, model)


def make_figures(run: Run) -> bool:
    console = run.console
    console.info(f"figures: python3 -m plots {repo_path(run.dir)}")
    try:
        proc = subprocess.Popen([sys.executable, "-m", "plots", repo_path(run.dir)], cwd=REPO_ROOT,
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
                      f"results are kept in {repo_path(run.dir)}; run `make figures` once plots/ "
                      "is fixed")
        return False
    return True


def execute(run: Run, args) -> int:
    console = run.console
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, run.stop.handle)
    run.lock = RunLock(run.dir)
    run.lock.acquire()
    try:
        return execute_locked(run, args)
    finally:
        run.lock.release()
        console.close()


def execute_locked(run: Run, args) -> int:
    console, selection = run.console, run.selection
    console.info(f"{'resuming' if args.resume else 'run'} {repo_path(run.dir)} ({now_iso()})")
    console.info(f"preset {selection.preset}; suites: " + ", ".join(
        f"{suite} ({len(plan)} benchmarks)" for suite, plan in run.plans.items())
        + (f"; filter {selection.filter}" if selection.filter else "")
        + (f"; split across {len(run.devices)} devices" if selection.split else ""))
    for device in run.devices:
        console.info(f"[gpu {device['index']}] {device['name']} ({device.get('uuid', '?')})")

    workers = [DeviceWorker(device, run) for device in run.devices]
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

    planned = sum(len(run.share(plan, worker.index))
                  for plan in run.plans.values() for worker in workers)
    done = 0
    failures: list[tuple[int, str, str]] = []
    console.info(f"summary ({format_duration(time.monotonic() - run.started)}):")
    for worker in workers:
        for suite, result in worker.results.items():
            done += result.done
            failures += [(worker.index, name, message) for name, message in result.failed]
            where = f" -> {result.json_path.name}" if result.json_path else ""
            failed = f", {len(result.failed)} failed" if result.failed else ""
            console.info(f"  {suite} gpu{worker.index}: {result.done}/{result.planned} "
                         f"done{failed}{where}")
    for index, name, message in failures:
        console.info(f"  failed on gpu{index}: {name}: {message}")
    if run.model and not run.stop.signum:
        for worker in workers:
            files = run.model.files(run.dir, worker.index)
            made = (", ".join(p.name for p in files) if worker.model_made else
                    f"not made (see the warning above): {run.model.step['figure']} is not drawn")
            console.info(f"  {run.model.title} gpu{worker.index} ({run.model.summary()}): {made}")

    resume_hint = f"python3 {repo_path(RUN_PY)} --resume {repo_path(run.dir)}"
    if run.stop.signum:
        console.info(f"interrupted: {done}/{planned} benchmarks done; resume with: {resume_hint}")
        code = 128 + run.stop.signum
    elif done < planned or any(r.error for w in workers for r in w.results.values()):
        console.error(f"incomplete: {done}/{planned} benchmarks done; after fixing the cause, "
                      f"resume with: {resume_hint}")
        code = EXIT_INCOMPLETE
    else:
        console.info(f"all {planned} benchmarks done, {len(failures)} failed"
                     + (" (recorded with error_occurred in the JSON)" if failures else ""))
        code = EXIT_OK
        if not args.no_figures and not make_figures(run):
            code = EXIT_FIGURES
        if run.stop.signum:
            code = 128 + run.stop.signum
    console.info(f"run folder: {repo_path(run.dir)}")
    return code


def main(argv: list[str] | None = None) -> int:
    sys.stdout.reconfigure(errors="replace")
    sys.stderr.reconfigure(errors="replace")
    console = Console()
    try:
        args = parse_args(argv)
        run = prepare(args, console)
    except UsageError as e:
        print(f"harness/run.py: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 128 + signal.SIGINT
    return execute(run, args)

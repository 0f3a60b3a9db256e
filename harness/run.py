#!/usr/bin/env python3
"""Run the layoutbench suites on every selected GPU and assemble Google Benchmark JSON.

The orchestrator behind `make reproduce`. It plans each suite with `layoutbench plan`, then
runs one `layoutbench run` process per device (CUDA_VISIBLE_DEVICES = that device), each
appending to a crash-safe journal per suite. When a process dies in a benchmark (sticky CUDA
error, segfault, ...), that benchmark is recorded as failed and the process restarts for the
rest; when the orchestrator itself is interrupted, nothing is recorded as failed and
`--resume DIR` later runs only what is missing. Each journal is assembled into
`<suite>.gpu<k>.json` (Google Benchmark JSON, see results/README.md), then `python3 -m plots`
draws the figures. The suites, their order, their artifact steps and the named presets come
from the binary's registry (`layoutbench suites --json`), read once. The one step kind is a
`layoutbench krige` step (kriging's "model"): when the suite runs and its preset object has
the step's key, `{"scale": S, "experiment": E}`, each device kriges the generated case at
scale S with experiment E into `<suite>-model.gpu<k>.csv` and `<suite>-wells.gpu<k>.csv`, the
data of the geological-model figure (Fig. 4); a failure there is a warning, not an error.
Paths inside the repository are named relative to its root in everything the run records
(run.json, run.log, the children's command lines, the report), so committed results name no
one's checkout; children run from that root. Paths outside it are named absolute.

Exit status: 0 every planned benchmark is done (failed benchmarks are results, not errors);
1 the run is incomplete; 2 bad input or no GPU (nothing is created); 3 the figures failed
(results kept); 128+N interrupted by signal N (resume with --resume).
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BIN = REPO_ROOT / "build" / "layoutbench"
DEFAULT_RESULTS_ROOT = REPO_ROOT / "results" / "runs"
MODEL_COMMAND = "krige"     # the artifact step this script runs (kriging's Fig. 4 model)
MODEL_OUTPUT_LINES = 5      # lines of a failed `layoutbench krige`'s output quoted in the warning
SUITE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")

EXIT_OK, EXIT_INCOMPLETE, EXIT_USAGE, EXIT_FIGURES = 0, 1, 2, 3
STICKY_CUDA_ERROR_EXIT = 3  # layoutbench: the CUDA context broke; start again to continue
POLL_S = 0.2                # how often a worker looks at its child and its journal
TERM_GRACE_S = 10.0         # SIGTERM, then SIGKILL after this long
RECORDED_BY = "harness/run.py"  # "by" key of the journal records this script writes


class UsageError(Exception):
    """Bad input: one message, exit 2, nothing created."""


class JournalError(Exception):
    """A journal line that is not the last one is unreadable (message names file:line)."""


# --------------------------------------------------------------------------- console

class Console:
    """Prints lines and tees them to run.log; one lock keeps lines from several threads whole."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._log = None

    def attach(self, path: Path) -> None:
        with self._lock:
            self._log = open(path, "a", encoding="utf-8")

    def close(self) -> None:
        with self._lock:
            if self._log:
                self._log.close()
                self._log = None

    def info(self, text: str) -> None:
        self._emit(text, sys.stdout)

    def warn(self, text: str) -> None:
        self._emit(f"warning: {text}", sys.stderr)

    def error(self, text: str) -> None:
        self._emit(f"error: {text}", sys.stderr)

    def _emit(self, text: str, stream) -> None:
        with self._lock:
            for line in text.splitlines() or [""]:
                print(line, file=stream, flush=True)
                if self._log:
                    self._log.write(line + "\n")
                    self._log.flush()


def format_duration(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def now_iso() -> str:
    return datetime.datetime.now().astimezone().isoformat(timespec="seconds")


def write_json_atomic(path: Path, document) -> None:
    """Readers see the old file or the new one, never half of one."""
    temporary = path.with_name(f".{path.name}.tmp")
    with open(temporary, "w", encoding="utf-8") as f:
        json.dump(document, f, indent=2)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(temporary, path)


# --------------------------------------------------------------------------- journal

@dataclass
class Journal:
    """The readable part of a journal file."""
    path: Path
    records: list[dict]
    valid_end: int               # byte offset just past the last readable line
    torn_line: int | None        # line number of an unreadable last line (cut off by a kill)
    missing_newline: bool        # the last readable line has no '\n' yet


@dataclass
class Outcome:
    """How one benchmark ended: its done record's flag and the run entries of that attempt."""
    ok: bool
    runs: list[dict]


def _parse_record(raw: bytes) -> tuple[dict | None, str | None]:
    try:
        record = json.loads(raw)
    except ValueError as e:  # includes UnicodeDecodeError
        return None, f"not JSON ({e})"
    if not isinstance(record, dict) or not isinstance(record.get("type"), str):
        return None, 'not a journal record (no "type")'
    kind = record["type"]
    if kind in ("start", "run", "done") and not isinstance(record.get("name"), str):
        return None, f'"{kind}" record without a "name"'
    if kind == "run" and not isinstance(record.get("run"), dict):
        return None, '"run" record without a "run" object'
    if kind == "done" and not isinstance(record.get("ok"), bool):
        return None, '"done" record without a boolean "ok"'
    if kind == "context" and not isinstance(record.get("context"), dict):
        return None, '"context" record without a "context" object'
    return record, None


def read_journal(path: Path) -> Journal:
    """Parses a journal. An unreadable last line (a write cut off by a kill) is left out and
    reported in torn_line; an unreadable line before others raises JournalError."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        data = b""
    lines = data.splitlines(keepends=True)
    last = max((i for i, raw in enumerate(lines) if raw.strip()), default=-1)
    records, offset, valid_end, torn_line = [], 0, 0, None
    for i, raw in enumerate(lines):
        offset += len(raw)
        if not raw.strip():
            valid_end = offset
            continue
        record, problem = _parse_record(raw)
        if problem:
            if i == last:
                torn_line = i + 1
                break
            raise JournalError(f"{path}:{i + 1}: corrupt journal line: {problem}")
        records.append(record)
        valid_end = offset
    missing_newline = torn_line is None and bool(data) and not data.endswith(b"\n")
    return Journal(path, records, valid_end, torn_line, missing_newline)


def repair_journal(path: Path, console: Console) -> Journal:
    """Makes the journal safe to append to: drops a cut-off last line, ends the last line."""
    journal = read_journal(path)
    if journal.torn_line is not None:
        console.warn(f"{path}:{journal.torn_line}: dropping an incomplete last journal line "
                     "(a write cut off by a kill)")
        with open(path, "r+b") as f:
            f.truncate(journal.valid_end)
        journal.torn_line = None
    elif journal.missing_newline:
        with open(path, "ab") as f:
            f.write(b"\n")
        journal.missing_newline = False
    return journal


def outcomes(records: list[dict]) -> dict[str, Outcome]:
    """Benchmarks with a done record. Only the run entries of the attempt that finished count:
    a start drops entries of an earlier, interrupted attempt, and a failure recorded by this
    script replaces the partial entries of the attempt that died."""
    attempt: dict[str, list[dict]] = {}
    finished: dict[str, Outcome] = {}
    for record in records:
        kind, name = record["type"], record.get("name")
        if kind == "start":
            attempt[name] = []
        elif kind == "run":
            if record.get("by") == RECORDED_BY:
                attempt[name] = [record["run"]]
            else:
                attempt.setdefault(name, []).append(record["run"])
        elif kind == "done":
            finished[name] = Outcome(record["ok"], attempt.pop(name, []))
    return finished


def latest_context(records: list[dict]) -> dict:
    contexts = [r["context"] for r in records if r["type"] == "context"]
    return contexts[-1] if contexts else {}


def unfinished_starts(records: list[dict]) -> list[str]:
    """Names started and not done, in start order."""
    started: dict[str, None] = {}
    for record in records:
        if record["type"] == "start":
            started[record["name"]] = None
        elif record["type"] == "done":
            started.pop(record["name"], None)
    return list(started)


def error_message(outcome: Outcome) -> str:
    for run in outcome.runs:
        if run.get("error_occurred"):
            return str(run.get("error_message", ""))
    return ""


def failure_records(name: str, message: str) -> list[dict]:
    """A failed benchmark, shaped as layoutbench journals one: error_occurred and zero times
    (as Google Benchmark writes them; never plotted)."""
    run = {"name": name, "run_name": name, "run_type": "iteration", "repetitions": 1,
           "repetition_index": 0, "threads": 1, "error_occurred": True, "error_message": message,
           "iterations": 0, "real_time": 0, "cpu_time": 0, "time_unit": "ms"}
    return [{"type": "run", "name": name, "run": run, "by": RECORDED_BY},
            {"type": "done", "name": name, "ok": False, "by": RECORDED_BY}]


def append_records(path: Path, records: list[dict]) -> None:
    with open(path, "a", encoding="utf-8") as f:
        f.write("".join(json.dumps(r) + "\n" for r in records))
        f.flush()
        os.fsync(f.fileno())


def assemble(journal_path: Path, json_path: Path, plan: list[str], console: Console) -> None:
    """Writes <suite>.gpu<k>.json: the latest context and the run entries of every planned
    benchmark that has a done record, in plan order."""
    journal = read_journal(journal_path)
    if journal.torn_line is not None:
        console.warn(f"{journal_path}:{journal.torn_line}: ignoring an incomplete last journal "
                     "line (a write cut off by a kill)")
    finished = outcomes(journal.records)
    benchmarks = [run for name in plan if name in finished for run in finished[name].runs]
    write_json_atomic(json_path, {"context": latest_context(journal.records),
                                  "benchmarks": benchmarks})


class JournalTail:
    """Follows a journal a child is appending to; for progress only (it skips what it cannot
    parse; read_journal is the authority)."""

    def __init__(self, path: Path, offset: int) -> None:
        self.path, self.offset, self.pending = path, offset, b""

    def new_records(self) -> list[dict]:
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                chunk = f.read()
        except FileNotFoundError:
            return []
        self.offset += len(chunk)
        *lines, self.pending = (self.pending + chunk).split(b"\n")
        records = []
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict):
                records.append(record)
        return records


# --------------------------------------------------------------------------- the binary

def call_binary(binary: str, args: list[str]) -> str:
    """Runs a short layoutbench command; its failure is bad input (UsageError)."""
    try:
        proc = subprocess.run([binary, *args], capture_output=True, text=True,
                              cwd=REPO_ROOT, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise UsageError(f"layoutbench not found at {binary}: build it first, or pass --bin")
    except PermissionError:
        raise UsageError(f"{binary} is not executable")
    if proc.returncode != 0:  # the message is the first line (CLI11 adds a --help hint)
        lines = [line.strip() for line in proc.stderr.splitlines() if line.strip()]
        detail = lines[0] if lines else f"exit code {proc.returncode}"
        raise UsageError(f"{shlex.join(['layoutbench', *args])} failed: {detail}")
    return proc.stdout


def list_devices(binary: str) -> list[dict]:
    output = call_binary(binary, ["list-devices"])
    try:
        devices = json.loads(output)
        if not isinstance(devices, list) or not all(
                isinstance(d, dict) and isinstance(d.get("index"), int)
                and isinstance(d.get("name"), str) for d in devices):
            raise ValueError("expected an array of {index, name, uuid}")
    except ValueError as e:
        raise UsageError(f"layoutbench list-devices printed unexpected output ({e}): "
                         f"{output.strip()[:200]!r}")
    return devices


@dataclass(frozen=True)
class Registry:
    """`layoutbench suites --json`: the suites in run order, each one's artifact steps, and the
    named presets (name -> file)."""
    suites: list[str]
    steps: dict[str, list[dict]]
    presets: dict[str, Path]

    def model_step(self) -> tuple[str, str] | None:
        """(suite, preset key) of the step that runs `layoutbench krige`, if any suite has one."""
        return next(((suite, step["preset_key"]) for suite, steps in self.steps.items()
                     for step in steps if step["command"] == MODEL_COMMAND), None)


def read_registry(binary: str) -> Registry:
    output = call_binary(binary, ["suites", "--json"])
    try:
        document = json.loads(output)
        suites, presets = document["suites"], document["presets"]
        steps = {s["name"]: s["steps"] for s in suites}
        if not all(isinstance(name, str) and SUITE_NAME.fullmatch(name) for name in steps):
            raise ValueError("a suite name is not a name")
        for suite, listed in steps.items():
            for step in listed:
                if not all(isinstance(step.get(k), str) for k in ("name", "preset_key", "command")):
                    raise ValueError(f"a step of suite {suite} lacks a name, preset_key or command")
                if step["command"] != MODEL_COMMAND:
                    raise ValueError(f"step {step['name']} of suite {suite} runs `layoutbench "
                                     f"{step['command']}`, which this script cannot run")
        named = {p["name"]: Path(p["file"]) for p in presets}
        if not all(isinstance(name, str) for name in named):
            raise ValueError("a preset name is not a string")
    except (ValueError, KeyError, TypeError) as e:
        raise UsageError(f"layoutbench suites --json printed unexpected output ({e}): "
                         f"{output.strip()[:200]!r}")
    return Registry(list(steps), steps, named)


def describe_exit(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"was killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"was killed by signal {-returncode}"
    if returncode == STICKY_CUDA_ERROR_EXIT:
        return f"exited with code {returncode} (CUDA context broken)"
    return f"exited with code {returncode}"


def cuda_visible_devices(index: int) -> str:
    """The CUDA_VISIBLE_DEVICES value selecting list-devices' device `index`, also when the
    orchestrator itself was started with a CUDA_VISIBLE_DEVICES list."""
    inherited = os.environ.get("CUDA_VISIBLE_DEVICES", "").strip()
    entries = [e.strip() for e in inherited.split(",")] if inherited else []
    return entries[index] if index < len(entries) else str(index)


# --------------------------------------------------------------------------- selection

@dataclass
class Selection:
    """What to run; stored in run.json so that --resume continues with the same."""
    preset: str                  # a named preset (quick, paper, ...) or a preset file's path
    suites: list[str]
    devices: list[int]
    filter: str | None = None
    sizes: str | None = None
    precision: str | None = None
    split: bool = False          # each device runs its share of every suite (--split)

    def binary_args(self, suite: str) -> list[str]:
        args = ["--suite", suite, "--preset", self.preset]
        for flag, value in (("--filter", self.filter), ("--sizes", self.sizes),
                            ("--precision", self.precision)):
            if value is not None:
                args += [flag, value]
        return args

    def as_json(self) -> dict:
        return {"preset": self.preset, "suites": self.suites, "devices": self.devices,
                "filter": self.filter, "sizes": self.sizes, "precision": self.precision,
                "split": self.split}


def parse_preset(value: str, registry: Registry) -> str:
    if value in registry.presets:
        return value
    if Path(value).is_file():
        return repo_path(Path(value).resolve())
    raise UsageError(f"unknown preset '{value}': use {', '.join(registry.presets)} or the path "
                     "of a preset file")


@dataclass
class ModelSpec:
    """The kriging model a run makes per device for Fig. 4 (`layoutbench krige`)."""
    suite: str
    scale: int
    experiment: int

    def files(self, run_dir: Path, index: int) -> tuple[Path, Path]:
        return (run_dir / f"{self.suite}-model.gpu{index}.csv",
                run_dir / f"{self.suite}-wells.gpu{index}.csv")


def preset_file(preset: str, registry: Registry) -> Path:
    """The JSON file behind a preset: a named one's (from the registry) or a path (as
    parse_preset leaves it: relative to the repository root when inside it)."""
    return registry.presets.get(preset) or REPO_ROOT / preset


def model_spec(preset: str, registry: Registry) -> ModelSpec | None:
    """The preset's object for the registry's model step (suites.kriging.model), checked:
    {"scale": int >= 1, "experiment": 1..7}."""
    step = registry.model_step()
    if step is None:
        return None
    suite_name, step_key = step
    path = preset_file(preset, registry)
    try:
        text = path.read_text(encoding="utf-8")
        document = json.loads(text)
    except OSError as e:
        raise UsageError(f"{path}: cannot read preset ({e.strerror or e})")
    except ValueError as e:
        line = getattr(e, "lineno", 1)
        raise UsageError(f"{path}:{line}: malformed JSON ({e})")
    suites = document.get("suites") if isinstance(document, dict) else None
    suite = suites.get(suite_name) if isinstance(suites, dict) else None
    if not isinstance(suite, dict) or step_key not in suite:
        return None
    line = next((i for i, raw in enumerate(text.splitlines(), 1) if f'"{step_key}"' in raw), 1)

    def bad(problem: str) -> UsageError:
        return UsageError(f"{path}:{line}: suites.{suite_name}.{step_key}: {problem} (expected "
                          '{"scale": S, "experiment": E}: S an integer >= 1, E one of 1..7)')

    model = suite[step_key]
    if not isinstance(model, dict):
        raise bad(f"must be an object, not {json.dumps(model)}")
    unknown = sorted(set(model) - {"scale", "experiment"})
    if unknown:
        raise bad(f"unknown key '{unknown[0]}'")
    for key in ("scale", "experiment"):
        if key not in model:
            raise bad(f"missing '{key}'")
        value = model[key]
        if not isinstance(value, int) or isinstance(value, bool):
            raise bad(f"'{key}' must be an integer, not {json.dumps(value)}")
    if model["scale"] < 1:
        raise bad(f"'scale' must be at least 1, not {model['scale']}")
    if not 1 <= model["experiment"] <= 7:
        raise bad(f"'experiment' must be 1..7, not {model['experiment']}")
    return ModelSpec(suite=suite_name, scale=model["scale"], experiment=model["experiment"])


def preset_suites(preset: str, registry: Registry) -> list[str]:
    """The suites a preset configures, in its order (every registered suite when the file
    cannot be read: planning them reports the problem)."""
    path = preset_file(preset, registry)
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return registry.suites  # the binary reports an unreadable preset itself
    suites = document.get("suites") if isinstance(document, dict) else None
    names = [name for name in suites if SUITE_NAME.fullmatch(name)] if isinstance(suites, dict) else []
    return names or registry.suites


def parse_suites(value: str) -> list[str]:
    suites = list(dict.fromkeys(s.strip() for s in value.split(",") if s.strip()))
    if not suites:
        raise UsageError("--suites names no suite")
    for suite in suites:
        if not SUITE_NAME.fullmatch(suite):
            raise UsageError(f"bad suite name '{suite}'")
    return suites


def parse_devices(value: str, visible: list[dict]) -> list[int]:
    indices = [d["index"] for d in visible]
    if value.strip() == "all":
        return indices
    selected = []
    for item in filter(None, (s.strip() for s in value.split(","))):
        if not item.isdigit():
            raise UsageError(f"bad --devices '{value}': use all or device indices like 0,1")
        if int(item) not in indices:
            listing = ", ".join(f"{d['index']} ({d['name']})" for d in visible)
            raise UsageError(f"unknown device index {item}: visible devices are {listing}")
        selected.append(int(item))
    if not selected:
        raise UsageError(f"bad --devices '{value}': use all or device indices like 0,1")
    return list(dict.fromkeys(selected))


def plan_suite(binary: str, selection: Selection, suite: str, allow_empty: bool = False) -> list[str]:
    output = call_binary(binary, ["plan", *selection.binary_args(suite)])
    names = [line.strip() for line in output.splitlines() if line.strip()]
    if not names and not allow_empty:
        raise UsageError(f"nothing to run: suite {suite} plans no benchmark for this selection")
    return list(dict.fromkeys(names))


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "gpu"


def create_run_dir(root: Path, device_name: str, preset: str) -> Path:
    label = re.sub(r"[^A-Za-z0-9_.-]+", "-", Path(preset).stem)  # a named preset's stem is its name
    base = f"{datetime.date.today().isoformat()}_{slug(device_name)}_{label}"
    root.mkdir(parents=True, exist_ok=True)
    attempt = 1
    while True:
        path = root / (base if attempt == 1 else f"{base}_{attempt}")
        try:
            path.mkdir()
            return path
        except FileExistsError:
            attempt += 1


# --------------------------------------------------------------------------- run lock

def process_cmdline(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return [part.decode(errors="replace") for part in raw.split(b"\0")[:-1]]


def process_alive(pid: int, argv_tail: list[str]) -> bool:
    """Whether `pid` is alive and is the process that was recorded (its argv ends with
    argv_tail), so that a reused pid does not count."""
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    if not Path("/proc/self/cmdline").exists():
        return True  # no /proc: cannot tell a reused pid apart
    cmdline = process_cmdline(pid)
    return bool(cmdline) and cmdline[-len(argv_tail):] == argv_tail


class RunLock:
    """`.lock` in the run folder names the orchestrator and its children while they write to
    it, so a --resume started meanwhile (or after a SIGKILL that left children behind) refuses
    rather than mixing two writers in one journal."""

    def __init__(self, run_dir: Path) -> None:
        self.path = run_dir / ".lock"
        self._mutex = threading.Lock()
        self._state = {"pid": os.getpid(),
                       "argv": process_cmdline(os.getpid()) or [sys.executable, *sys.argv],
                       "children": {}}

    @staticmethod
    def live_writers(run_dir: Path) -> list[str]:
        try:
            state = json.loads((run_dir / ".lock").read_text())
            writers = [(state["pid"], state["argv"], "the orchestrator")]
            writers += [(c["pid"], c["argv"][1:], f"layoutbench ({key})")
                        for key, c in state.get("children", {}).items()]
        except (OSError, ValueError, KeyError, TypeError):
            return []
        return [f"{what} pid {pid}" for pid, argv, what in writers if process_alive(pid, argv)]

    def acquire(self) -> None:
        self._write()

    def set_child(self, key: str, pid: int, argv: list[str]) -> None:
        with self._mutex:
            self._state["children"][key] = {"pid": pid, "argv": argv}
        self._write()

    def clear_child(self, key: str) -> None:
        with self._mutex:
            self._state["children"].pop(key, None)
        self._write()

    def release(self) -> None:
        with self._mutex:
            self.path.unlink(missing_ok=True)

    def _write(self) -> None:
        with self._mutex:
            write_json_atomic(self.path, self._state)


# --------------------------------------------------------------------------- workers

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
class SuiteResult:
    planned: int
    done: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)  # (name, error message)
    error: str | None = None
    json_path: Path | None = None


class DeviceWorker(threading.Thread):
    """Runs every suite on one device, restarting layoutbench after a death in a benchmark."""

    def __init__(self, device: dict, run: "Run") -> None:
        super().__init__(name=f"gpu{device['index']}", daemon=True)
        self.index = device["index"]
        self.run_ = run
        self.prefix = f"[gpu {self.index}]"
        self.results: dict[str, SuiteResult] = {}
        self.model_made = False

    def run(self) -> None:
        console = self.run_.console
        for suite, whole_plan in self.run_.plans.items():
            if self.run_.stop.event.is_set():
                break
            plan = self.run_.share(whole_plan, self.index)
            result = self.results[suite] = SuiteResult(planned=len(plan))
            journal_path = self.run_.dir / f"{suite}.gpu{self.index}.journal.jsonl"
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
                    self.tally(journal_path, plan, result)
                    result.json_path = journal_path.with_name(f"{suite}.gpu{self.index}.json")
                    assemble(journal_path, result.json_path, plan, console)
                except (JournalError, OSError) as e:
                    result.json_path = None
                    result.error = result.error or str(e)
                    console.error(f"{self.prefix} {suite}: {e}")
        if self.run_.model and not self.run_.stop.event.is_set():
            try:
                self.make_model()
            except Exception as e:  # OSError starting it, or a bug here: Fig. 4 only
                console.warn(f"{self.prefix} kriging model (Fig. 4) not made: {e!r}")

    def tally(self, journal_path: Path, plan: list[str], result: SuiteResult) -> None:
        finished = outcomes(read_journal(journal_path).records)
        result.done = sum(name in finished for name in plan)
        result.failed = [(name, error_message(finished[name])) for name in plan
                         if name in finished and not finished[name].ok]

    def run_suite(self, suite: str, plan: list[str], journal_path: Path,
                  result: SuiteResult) -> None:
        run, console = self.run_, self.run_.console
        skip_path = run.dir / f".skip.{suite}.gpu{self.index}"
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
        argv = [repo_path(self.run_.binary), "run", *self.run_.selection.binary_args(suite),
                "--journal", repo_path(journal_path), "--skip-file", repo_path(skip_path)]
        tail = JournalTail(journal_path, journal.valid_end)
        return self.supervise(argv, self.print_line, lambda: progress.follow(tail.new_records()))

    def make_model(self) -> None:
        """The Fig. 4 model of this device (run.model): skipped when both files exist (a
        resumed run); a failure is a warning naming the exit status and the output's tail."""
        run, console = self.run_, self.run_.console
        model = run.model
        out, wells = model.files(run.dir, self.index)
        if out.exists() and wells.exists():
            console.info(f"{self.prefix} kriging model: {out.name} and {wells.name} exist, kept")
            self.model_made = True
            return
        argv = [repo_path(run.binary), "krige", "--scale", str(model.scale),
                "--experiment", str(model.experiment), "--device", "gpu",
                "--out", repo_path(out), "--wells-out", repo_path(wells)]
        output: list[str] = []
        returncode = self.supervise(argv, output.append)
        if run.stop.event.is_set():
            return  # interrupted: --resume makes it
        missing = [p.name for p in (out, wells) if not p.exists()]
        if returncode == 0 and not missing:
            self.model_made = True
            for line in output[-1:]:
                console.info(f"{self.prefix} {line}")
            return
        problem = (describe_exit(returncode) if returncode != 0
                   else f"exited with 0 but did not write {' and '.join(missing)}")
        tail = [line for line in output if line.strip()][-MODEL_OUTPUT_LINES:]
        console.warn(f"{self.prefix} kriging model (Fig. 4) not made: layoutbench krige "
                     f"{problem}; the run goes on without it"
                     + "".join(f"\n{self.prefix}   {line}" for line in tail))

    def supervise(self, argv: list[str], on_line, on_poll=None) -> int:
        """Runs argv with this device as the only visible one until it exits, passing each
        output line to on_line and calling on_poll every POLL_S; stops it when the run is
        stopped (SIGTERM, then SIGKILL). Returns its exit status."""
        run, console = self.run_, self.run_.console
        visible = cuda_visible_devices(self.index)
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


class Progress:
    """Prints `[gpu k] suite: d/N benchmarks done, elapsed, time left` when d changes."""

    def __init__(self, worker: DeviceWorker, suite: str, plan: list[str]) -> None:
        self.worker, self.suite, self.plan = worker, suite, set(plan)
        self.total = len(plan)
        self.done: set[str] = set()
        self.failed: set[str] = set()
        self.started = time.monotonic()
        self.done_at_start: int | None = None
        self.printed = -1

    def update(self, finished: dict[str, Outcome]) -> None:
        self.done = {n for n in finished if n in self.plan}
        self.failed = {n for n in self.done if not finished[n].ok}
        self.report()

    def follow(self, records: list[dict]) -> None:
        for record in records:
            if record.get("type") == "done" and record.get("name") in self.plan:
                self.done.add(record["name"])
                if record.get("ok") is False:
                    self.failed.add(record["name"])
        self.report()

    def report(self) -> None:
        count = len(self.done)
        if self.done_at_start is None:
            self.done_at_start = count
        if count == self.printed:
            return
        self.printed = count
        now = time.monotonic()
        text = f"{self.worker.prefix} {self.suite}: {count}/{self.total} benchmarks done"
        if self.failed:
            text += f" ({len(self.failed)} failed)"
        text += f", {format_duration(now - self.worker.run_.started)} elapsed"
        finished_here = count - self.done_at_start
        if finished_here > 0 and count < self.total:
            left = (now - self.started) / finished_here * (self.total - count)
            text += f", ~{format_duration(left)} left"
        self.worker.run_.console.info(text)


# --------------------------------------------------------------------------- the run

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


def repo_path(path: Path | str) -> str:
    """`path` as the run records it: relative to the repository root when inside it, else
    absolute (a bare command name, looked up on PATH, stays as it is)."""
    if os.sep not in str(path):
        return str(path)
    absolute = Path(os.path.realpath(path))  # REPO_ROOT is resolved too
    return (str(absolute.relative_to(REPO_ROOT)) if absolute.is_relative_to(REPO_ROOT)
            else str(absolute))


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


def resumed_selection(args, meta: dict, visible: list[dict], registry: Registry) -> Selection:
    """The recorded selection; options given again must agree with it."""
    recorded = Selection(**meta["args"])
    given = {"preset": args.preset and parse_preset(args.preset, registry),
             "suites": args.suites and parse_suites(args.suites),
             "devices": args.devices and parse_devices(args.devices, visible),
             "filter": args.filter, "sizes": args.sizes, "precision": args.precision,
             "split": args.split or None}
    for key, value in given.items():
        if value is not None and value != getattr(recorded, key):
            raise UsageError(f"--{key} {value} differs from the run being resumed "
                             f"({getattr(recorded, key)}); --resume continues {args.resume} "
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
    return recorded


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
    visible = list_devices(binary)
    if not visible:
        raise UsageError("no CUDA GPU visible (layoutbench list-devices found none): nothing to "
                         "benchmark here; `make figures` works without a GPU")
    registry = read_registry(binary)
    if meta:
        selection = resumed_selection(args, meta, visible, registry)
    else:
        preset = parse_preset(args.preset or "quick", registry)
        selection = Selection(preset=preset,
                              suites=(parse_suites(args.suites) if args.suites
                                      else preset_suites(preset, registry)),
                              devices=parse_devices(args.devices or "all", visible),
                              filter=args.filter, sizes=args.sizes, precision=args.precision,
                              split=args.split)
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
            out, wells = run.model.files(run.dir, worker.index)
            made = (f"{out.name}, {wells.name}" if worker.model_made
                    else "not made (see the warning above): Fig. 4 is not drawn")
            console.info(f"  kriging model gpu{worker.index} (scale {run.model.scale}, "
                         f"experiment {run.model.experiment}): {made}")

    resume_hint = f"python3 {repo_path(Path(__file__).resolve())} --resume {repo_path(run.dir)}"
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


if __name__ == "__main__":
    sys.exit(main())

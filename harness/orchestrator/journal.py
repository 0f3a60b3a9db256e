"""The crash-safe journal a layoutbench run appends to, and its assembly into Google
Benchmark JSON."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from orchestrator.console import Console

RECORDED_BY = "harness/run.py"  # "by" key of the journal records this script writes


class JournalError(Exception):
    """A journal line that is not the last one is unreadable (message names file:line)."""



def write_text_atomic(path: Path, text: str) -> None:
    """Readers see the old file or the new one, never half of one."""
    temporary = path.with_name(f".{path.name}.tmp")
    with open(temporary, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temporary, path)


def write_json_atomic(path: Path, document) -> None:
    write_text_atomic(path, json.dumps(document, indent=2) + "\n")



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


def recorded_build(path: Path) -> dict | None:
    """The build block (lb.build) of the journal's latest context, the build its result file
    names; None where it names no commit: an older journal, a binary built without git ("unknown"),
    or a journal unreadable before its last line (its worker reports that)."""
    try:
        context = latest_context(read_journal(path).records)
    except JournalError:
        return None
    build = (context.get("lb") or {}).get("build") or {}
    return build if build.get("git_commit") not in (None, "", "unknown") else None


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

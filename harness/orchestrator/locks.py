"""The run folder's lock: who writes to it, so that a second writer refuses."""
from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

from orchestrator.journal import write_json_atomic


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

    def __init__(self, run_dir: Path, name: str = ".lock") -> None:
        self.path = run_dir / name  # a Slurm array task: .lock.task<T>, its own
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

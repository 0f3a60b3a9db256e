"""The console: lines to the terminal and run.log, whole even from several threads."""
from __future__ import annotations

import datetime
import sys
import threading
from pathlib import Path


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


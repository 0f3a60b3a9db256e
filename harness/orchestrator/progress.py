"""Progress lines: done/total, elapsed, time left."""
from __future__ import annotations

import time
from typing import TYPE_CHECKING

from orchestrator.journal import Outcome
from orchestrator.console import format_duration

if TYPE_CHECKING:
    from orchestrator.workers import DeviceWorker


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

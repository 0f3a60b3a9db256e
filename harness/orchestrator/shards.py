"""The shard description both executors run: tasks of device slots, each slot one journal per
suite, and which benchmarks of a suite's plan each slot runs.

A slot is one device's share of the run: its index k names its files (`<suite>.gpu<k>.journal.jsonl`,
`<suite>.gpu<k>.json`) in its task's results folder, its device is the index among the devices
its task sees. A task is what one executor starts at once: locally the one task of every
selected GPU; on Slurm one array task per GPU or shard. Where it runs is the executor's
business (orchestrator/executors.py: local, orchestrator/slurm.py: Slurm); what it runs,
resumes and collects is the same.

A CPU benchmark (`layoutbench plan --json`'s "where": "cpu") depends on no GPU: of a task's
slots, one host, only the first runs it, the others leave it to that one (without --split; a
split plan runs each benchmark on one slot anyway). Its share says so, so the skip file, the
tally, a resume and the Slurm collect job all count it on that slot alone.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from orchestrator.journal import outcomes, read_journal


@dataclass(frozen=True)
class Slot:
    index: int   # k of <suite>.gpu<k>.* in the task's folder
    device: int  # the device among those its task sees (list-devices' index)


@dataclass(frozen=True)
class Task:
    id: int                     # the Slurm array task id; 0 for a local run
    folder: str                 # the results folder inside the run folder ("" = the run folder)
    partition: str | None       # Slurm partition (None: the cluster's default, or local)
    slots: tuple[Slot, ...]

    def as_json(self) -> dict:
        return {"id": self.id, "folder": self.folder, "partition": self.partition,
                "slots": [[s.index, s.device] for s in self.slots]}

    @staticmethod
    def from_json(value: dict) -> "Task":
        return Task(int(value["id"]), str(value["folder"]), value["partition"],
                    tuple(Slot(int(k), int(d)) for k, d in value["slots"]))


def local_tasks(devices: list[int]) -> list[Task]:
    """A local run: one task, one slot per selected device, its files named by the device."""
    return [Task(0, "", None, tuple(Slot(d, d) for d in devices))]


def slurm_tasks(partitions: list[str | None], tasks_per_partition: int,
                gpus_per_task: int) -> list[Task]:
    """Array tasks in partition order: each partition's results in a folder of its own when
    there are several (one GPU model each: `python3 -m plots` compares the folders)."""
    tasks: list[Task] = []
    slots = max(gpus_per_task, 1)
    for partition in partitions:
        folder = partition if len(partitions) > 1 else ""
        for shard in range(tasks_per_partition):
            tasks.append(Task(len(tasks), folder, partition,
                              tuple(Slot(shard * slots + j, j) for j in range(slots))))
    return tasks


@dataclass
class Shards:
    """The tasks of a run and how they share each suite's plan."""
    run_dir: Path
    tasks: list[Task]
    split: bool   # the slots of one folder split each plan (every n-th), else each runs all
    # Suites every slot runs whole even with split: those whose results feed a per-device
    # Python step (each GPU's step reads that GPU's full results).
    whole: frozenset[str] = frozenset()
    # Each suite's CPU benchmarks: run once per task (one host), by its first slot.
    cpu: dict[str, frozenset[str]] = field(default_factory=dict)

    def folder(self, task: Task) -> Path:
        return self.run_dir / task.folder if task.folder else self.run_dir

    def folders(self) -> list[Path]:
        return [self.run_dir / f if f else self.run_dir
                for f in dict.fromkeys(t.folder for t in self.tasks)]

    def share(self, suite: str, plan: list[str], task: Task, slot: Slot) -> list[str]:
        """The part of a suite's plan one slot runs: all of it (less the CPU benchmarks left
        to its task's first slot), or with split every n-th benchmark from the slot's position
        among its folder's slots, so sizes interleave and the devices finish together. A suite
        of `whole` is never split: a per-device Python step reads its results (a fit on
        every n-th benchmark would be wrong). The tasks come from run.json,
        `whole` from the registry's steps and the CPU benchmarks from the binary's plan, so a
        resume and every Slurm task share alike."""
        if self.split and suite not in self.whole:
            peers = [s.index for t in self.tasks if t.folder == task.folder for s in t.slots]
            position = peers.index(slot.index)
            return plan[position::len(peers)]
        left = set(self.left_to_first(suite, plan, task, slot))
        return [name for name in plan if name not in left]

    def left_to_first(self, suite: str, plan: list[str], task: Task, slot: Slot) -> list[str]:
        """The CPU benchmarks of `plan` this slot leaves to its task's first slot, which
        measures them once for the host ([] for that slot, and with --split)."""
        if (self.split and suite not in self.whole) or slot == task.slots[0]:
            return []
        cpu = self.cpu.get(suite, frozenset())
        return [name for name in plan if name in cpu]

    def cpu_once(self, plans: dict[str, list[str]]) -> dict:
        """What run.json records of the CPU benchmarks left to a task's first slot: how many
        per suite, which slots measure them and which leave them ({} when none is left)."""
        suites, by, left = {}, [], []
        for task in self.tasks:
            for slot in task.slots:
                counts = {suite: len(self.left_to_first(suite, plan, task, slot))
                          for suite, plan in plans.items()}
                if any(counts.values()):
                    left.append(self.slot_name(task, slot))
                    by.append(self.slot_name(task, task.slots[0]))
                    suites.update({suite: n for suite, n in counts.items() if n})
        if not left:
            return {}
        return {"reason": "a CPU benchmark depends on no GPU: measured once per host, by the "
                          "first device of each task; the others skip it",
                "benchmarks": suites, "measured_by": list(dict.fromkeys(by)), "skipped_by": left}

    @staticmethod
    def slot_name(task: Task, slot: Slot) -> str:
        return f"{task.folder + '/' if task.folder else ''}gpu{slot.index}"

    def journal(self, task: Task, slot: Slot, suite: str) -> Path:
        return self.folder(task) / f"{suite}.gpu{slot.index}.journal.jsonl"

    def missing(self, plans: dict[str, list[str]], task: Task) -> int:
        """How many benchmarks of the task's shares have no result in its journals."""
        count = 0
        for suite, plan in plans.items():
            for slot in task.slots:
                finished = outcomes(read_journal(self.journal(task, slot, suite)).records)
                count += sum(name not in finished for name in self.share(suite, plan, task, slot))
        return count

"""The committed reference runs by GPU name: `make compare A=<run> B=h100`.

A reference is one GPU model: every folder under results/reference/ whose result files
(`<suite>.gpu<k>.json`) name that GPU (`context.lb.gpu.name`) is part of it. Per suite it
takes the folder that holds the suite; where several do, the newest run by the date its
result file records (Google Benchmark's `context.date`; a file without a readable date is
older than any with one, and of two equal dates the folder whose name sorts last wins).

A name picks a reference when it is, ignoring case, the GPU's name, its slug (lower case,
words joined by `-`: `nvidia-h100-80gb-hbm3`) or one of its folders' names, or else a part
of exactly one reference's GPU name, slug or folder names (`h100`, `h200`). No match, or
several, is one error that lists the references.
"""

import json
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from plots.load import RESULT_FILE, ResultsError, read_json_text

ROOT = Path(__file__).resolve().parents[1] / "results" / "reference"
_OLDEST = datetime.min.replace(tzinfo=timezone.utc)


@dataclass(frozen=True)
class Suite:
    name: str
    folder: Path
    date: str  # as recorded ("" when absent)
    paths: tuple  # the suite's result files of this GPU in that folder


@dataclass(frozen=True)
class Reference:
    gpu: str
    folders: tuple  # every folder holding a result file of this GPU, by name
    suites: tuple  # Suite per suite name, by name

    @property
    def slug(self):
        return gpu_slug(self.gpu)

    def names(self):
        """What a name is matched against: the GPU name, its slug, the folders' names."""
        return [self.gpu, self.slug] + [f.name for f in self.folders]

    def describe(self):
        """One line: the GPU and where each suite comes from."""
        suites = ", ".join(f"{s.name} from `{s.folder.name}` ({s.date or 'no date'})"
                           for s in self.suites)
        return f"{self.slug}: {self.gpu} — {suites}"


def gpu_slug(name):
    return "-".join(re.findall(r"[0-9a-z]+", name.lower()))


def references(root=ROOT):
    """Every reference GPU under `root`, by GPU name; raises ResultsError on a result file
    whose context cannot be read."""
    root = Path(root)
    found = {}  # gpu -> {suite: [(date, folder name, folder, path)]}
    folders = {}
    for path in sorted(root.glob("*/*.json*")) if root.is_dir() else ():
        match = RESULT_FILE.match(path.name)
        if not match:
            continue
        gpu, date = _context(path)
        found.setdefault(gpu, {}).setdefault(match["suite"], []).append(
            (_when(date), path.parent.name, date, path))
        folders.setdefault(gpu, set()).add(path.parent)
    out = []
    for gpu, suites in sorted(found.items()):
        chosen = []
        for suite, candidates in sorted(suites.items()):
            newest = max(candidates, key=lambda c: c[:2])
            paths = tuple(c[3] for c in candidates if c[3].parent == newest[3].parent)
            chosen.append(Suite(suite, newest[3].parent, newest[2], paths))
        out.append(Reference(gpu, tuple(sorted(folders[gpu], key=lambda f: f.name)),
                             tuple(chosen)))
    return out


def resolve(name, root=ROOT):
    """The reference `name` picks (module docstring); ResultsError naming the references
    when it picks none or several."""
    refs = references(root)
    wanted = name.lower()
    exact = [r for r in refs if wanted in (n.lower() for n in r.names())]
    partial = [r for r in refs if any(wanted in n.lower() for n in r.names())]
    matches = exact or partial
    if len(matches) == 1:
        return matches[0]
    listing = "".join(f"\n  - {r.describe()}" for r in refs) or f" none under {root}"
    if not matches:
        raise ResultsError(f"'{name}' is neither a results folder nor the name of a reference "
                           f"GPU under {root}; the references:{listing}")
    raise ResultsError(f"'{name}' names {len(matches)} references ("
                       + ", ".join(r.gpu for r in matches)
                       + f"): give more of the GPU's name; the references:{listing}")


def is_folder_argument(text):
    """A compare side names a folder when it exists or looks like a path; else a reference."""
    path = Path(text)
    return path.is_dir() or len(path.parts) > 1 or str(text).startswith(".")


def _context(path):
    """(GPU name, recorded date) of one result file."""
    try:
        doc = json.loads(read_json_text(path))
    except (OSError, EOFError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ResultsError(f"{path}: cannot read the reference's result file: {error}") from None
    context = doc.get("context") if isinstance(doc, dict) else None
    context = context if isinstance(context, dict) else {}
    lb = context.get("lb") if isinstance(context.get("lb"), dict) else {}
    gpu = lb.get("gpu") if isinstance(lb.get("gpu"), dict) else {}
    date = context.get("date")
    return str(gpu.get("name") or "unknown"), date if isinstance(date, str) else ""


def _when(date):
    try:
        when = datetime.fromisoformat(date)
    except ValueError:
        return _OLDEST
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)

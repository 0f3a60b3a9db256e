"""Run folders merged into one (`harness/run.py --merge A B ... --out DIR`, `make merge`): the
results of one GPU model from one commit that ran as separate runs (different suites, or the
rest of a suite on another card) as one folder with one run.json and one report.

Every per-device file of a source (`<suite>.gpu<k>.json`, its journal, a layoutbench step's
`<suite>-<output>.gpu<k>.csv`, a Python step's `<suite>/<output>.gpu<k>.json`; gzip-compressed
ones too) is copied unchanged but for its device index k, renumbered so that no two cards share one. Refused with one line, before
anything is written, where the sources' results name different commits (or one is dirty and
another clean), GPU models or presets, or a benchmark is in two sources. The folder is written
beside OUT and renamed to it when complete; then `python3 -m plots` draws the report, which
reads the merged cards as one GPU (plots/load.py: run.json's "merged")."""
from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from orchestrator.common import EXIT_FIGURES, EXIT_OK, UsageError, repo_path
from orchestrator.console import Console, now_iso
from orchestrator.journal import write_json_atomic
from orchestrator.runs import draw_figures

# <stem>.gpu<k>.<ext>[.gz]: a result file (<suite>.gpu<k>.json), its journal, a step's CSV, and
# in a subfolder (a Python step's, named after its suite) the step's JSON
PER_DEVICE = re.compile(r"(?P<stem>.+)\.gpu(?P<index>\d+)(?P<ext>\.json|\.journal\.jsonl|\.csv)(?P<gz>\.gz)?")


@dataclass
class Source:
    folder: Path
    meta: dict                       # its run.json ({} where there is none)
    files: list[Path] = field(default_factory=list)      # per-device files, relative to folder
    results: dict[int, list[dict]] = field(default_factory=dict)  # k -> its result files' {suite, context, names}

    def label(self) -> str:
        return repo_path(self.folder)


def read_json(path: Path):
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def read_source(folder: Path) -> Source:
    if not folder.is_dir():
        raise UsageError(f"cannot merge {folder}: not a folder")
    try:
        meta = json.loads((folder / "run.json").read_text()) if (folder / "run.json").is_file() else {}
    except ValueError as e:
        raise UsageError(f"cannot merge {folder}: malformed run.json ({e})")
    source = Source(folder, meta if isinstance(meta, dict) else {})
    candidates = [p for p in folder.iterdir() if p.is_file()]
    candidates += [p for sub in folder.iterdir() if sub.is_dir()
                   for p in sub.iterdir() if p.is_file()]
    for path in sorted(candidates):
        match = PER_DEVICE.fullmatch(path.name)
        if not match:
            continue
        source.files.append(path.relative_to(folder))
        if match["ext"] != ".json" or path.parent != folder:
            continue
        try:
            document = read_json(path)
            context, benchmarks = document["context"], document["benchmarks"]
            names = {entry["run_name"] for entry in benchmarks}
        except (OSError, EOFError, ValueError, KeyError, TypeError) as e:
            raise UsageError(f"cannot merge {path}: not a readable result file ({e!r})")
        source.results.setdefault(int(match["index"]), []).append(
            {"suite": match["stem"], "context": context, "names": names, "path": path})
    if not source.results:
        raise UsageError(f"cannot merge {folder}: no <suite>.gpu<k>.json result files in it")
    return source


def lb_block(result: dict, key: str) -> dict:
    value = (result["context"].get("lb") or {}).get(key)
    return value if isinstance(value, dict) else {}


def only_one(sources: list[Source], what: str, value_of, advice: str) -> str:
    """The one value every result file of every source has (value_of(result)); else the
    refusal naming the first two sources that differ."""
    seen: dict[str, Source] = {}
    for source in sources:
        for results in source.results.values():
            for result in results:
                value = value_of(result)
                if value is None:
                    raise UsageError(f"cannot merge: {repo_path(result['path'])} names no {what}")
                seen.setdefault(value, source)
    if len(seen) > 1:
        (a, first), (b, second) = list(seen.items())[:2]
        where = (f"{first.label()} holds {a} and {b}" if first is second
                 else f"{first.label()} has {a}, {second.label()} {b}")
        raise UsageError(f"cannot merge: {where}; {advice}")
    return next(iter(seen))


def build_of(result: dict) -> str | None:
    build = lb_block(result, "build")
    commit, dirty = build.get("git_commit"), build.get("git_dirty")
    if not isinstance(commit, str) or not commit:
        return None
    return f"commit {commit[:7]}" + (" (dirty)" if dirty else "")


def check_overlap(sources: list[Source]) -> None:
    owner: dict[str, Source] = {}
    for source in sources:
        names = {n for results in source.results.values() for r in results for n in r["names"]}
        for name in sorted(names):
            if name in owner:
                both = [n for n in sorted(names) if n in owner and owner[n] is owner[name]]
                raise UsageError(f"cannot merge: {len(both)} benchmark(s) are in both "
                                 f"{owner[name].label()} and {source.label()} (first: {name}); "
                                 "each benchmark must come from one run folder")
        owner.update(dict.fromkeys(names, source))


def merged_meta(sources: list[Source], numbering: list[dict[int, int]], preset: str) -> dict:
    suites, plan, devices = [], {}, []
    for source, new_index in zip(sources, numbering):
        for old, new in new_index.items():
            gpu = lb_block(source.results[old][0], "gpu") if old in source.results else {}
            devices.append({"index": new, "name": gpu.get("name"), "uuid": gpu.get("uuid")})
        for results in source.results.values():
            for result in results:
                if result["suite"] not in suites:
                    suites.append(result["suite"])
        # A suite's plan: the largest any source planned (a rest run on another card plans a part)
        for suite, count in (source.meta.get("plan") or {}).items():
            if isinstance(count, int):
                plan[suite] = max(plan.get(suite, 0), count)
    first = sources[0].meta
    return {"format": 1, "started": now_iso(), "command": sys.argv,
            "args": {"preset": preset, "suites": suites, "devices": [d["index"] for d in devices],
                     "filter": None, "sizes": None, "precision": None, "split": False},
            "bin": first.get("bin", ""), "devices": devices, "plan": plan, "resumed": [],
            "merged": [{"folder": s.label(), "devices": {str(k): v for k, v in n.items()},
                        **{key: s.meta.get(key) for key in ("started", "command", "args", "resumed")
                           if key in s.meta}} for s, n in zip(sources, numbering)]}


def merge_runs(folders: list[Path], out: Path, figures: bool, console: Console) -> int:
    if len(folders) < 2:
        raise UsageError("--merge takes two or more run folders")
    if out is None:
        raise UsageError("--merge needs --out DIR, the new folder")
    if out.exists():
        raise UsageError(f"--out {out} exists: --merge writes a new folder")
    resolved = [f.resolve() for f in folders]
    if len(set(resolved)) < len(resolved):
        raise UsageError("--merge names one run folder twice")
    sources = [read_source(f) for f in folders]
    only_one(sources, "commit (lb.build.git_commit)", build_of,
             "run folders of one commit only (a build from another commit may time differently)")
    only_one(sources, "GPU (lb.gpu.name)", lambda r: lb_block(r, "gpu").get("name"),
             "run folders of one GPU model only (`make compare` compares two)")
    preset = only_one(sources, "preset (lb.run.preset)", lambda r: lb_block(r, "run").get("preset"),
                      "run folders of one preset only")
    check_overlap(sources)

    numbering, next_index = [], 0
    for source in sources:
        indices = sorted({int(PER_DEVICE.fullmatch(p.name)["index"]) for p in source.files})
        numbering.append({old: next_index + k for k, old in enumerate(indices)})
        next_index += len(indices)
    staging = out.parent / f".{out.name}.merging-{os.getpid()}"
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        staging.mkdir()
        for source, new_index in zip(sources, numbering):
            for relative in source.files:
                match = PER_DEVICE.fullmatch(relative.name)
                name = (f"{match['stem']}.gpu{new_index[int(match['index'])]}{match['ext']}"
                        f"{match['gz'] or ''}")
                target = staging / relative.parent / name
                target.parent.mkdir(exist_ok=True)
                shutil.copy2(source.folder / relative, target)
        write_json_atomic(staging / "run.json", merged_meta(sources, numbering, preset))
        staging.rename(out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    console.attach(out / "run.log")
    try:
        for source, new_index in zip(sources, numbering):
            console.info(f"merged {source.label()}: device(s) "
                         + ", ".join(f"gpu{old} -> gpu{new}" for old, new in new_index.items()))
        console.info(f"run folder: {repo_path(out)}")
        if figures and not draw_figures(console, out, [repo_path(out)]):
            return EXIT_FIGURES
        return EXIT_OK
    finally:
        console.close()

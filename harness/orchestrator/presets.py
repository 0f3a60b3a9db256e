"""The selection: preset, suites, devices; an artifact step's preset object; the run folder."""
from __future__ import annotations

import datetime
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from orchestrator.binary import RESULTS_PLACEHOLDER, SUITE_NAME, Registry, call_binary
from orchestrator.common import REPO_ROOT, UsageError, repo_path


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


def step_output(run_dir: Path, suite: str, output: str, index: int) -> Path:
    """Where a Python step of `suite` writes `output` on device `index`: in a folder of the
    suite's (<suite>-<output>.gpu<k>.json beside the results would read as a result file)."""
    return run_dir / suite / f"{output}.gpu{index}.json"


@dataclass
class ArtifactSpec:
    """An artifact step a run makes per device (the registry's step of `suite`) with the
    values the preset gives its parameters."""
    suite: str
    step: dict
    values: dict

    @property
    def title(self) -> str:
        return f"{self.suite} {self.step['name']}"

    @property
    def python(self) -> bool:
        """A Python step: runs right after its suite, writes JSON (binary.RUNNERS)."""
        return self.step.get("runner") == "python"

    @property
    def runner(self) -> str:
        return "python3 -m" if self.python else "layoutbench"

    def files(self, run_dir: Path, index: int) -> tuple[Path, ...]:
        """The files the step writes on device `index`, in the step's order of outputs."""
        if self.python:
            return tuple(step_output(run_dir, self.suite, o, index) for o in self.step["outputs"])
        return tuple(run_dir / f"{self.suite}-{o}.gpu{index}.csv" for o in self.step["outputs"])

    def argv(self, binary: str, run_dir: Path, index: int) -> list[str]:
        """`layoutbench <argv>` (or `python3 -m <argv>`) of the step on device `index`, its
        placeholders filled in."""
        filled = {f"{{{key}}}": str(value) for key, value in self.values.items()}
        filled.update({f"{{out:{o}}}": repo_path(path) for o, path
                       in zip(self.step["outputs"], self.files(run_dir, index))})
        filled[RESULTS_PLACEHOLDER] = repo_path(run_dir / f"{self.suite}.gpu{index}.json")
        command = [sys.executable, "-m"] if self.python else [binary]
        return [*command, *(filled.get(arg, arg) for arg in self.step["argv"])]

    def summary(self) -> str:
        """The parameters as a run's summary says them: "scale 2, experiment 6"."""
        return ", ".join(f"{key} {value}" for key, value in self.values.items())


@dataclass
class PresetDocument:
    """A preset file with the presets it extends merged in: `document`, the merged JSON;
    `files`, (path, text) of the file and of those it extends, the file itself first."""
    document: object
    files: list[tuple[Path, str]]

    def file_with(self, key: str) -> tuple[Path, str]:
        """The first file that has `key` (where an error about it points), else the preset's own."""
        return next((f for f in self.files if f'"{key}"' in f[1]), self.files[0])


def merge_preset(parent: dict, child: dict) -> dict:
    """`child` over `parent`, the rule of "extends" (harness/preset.cpp's merge_preset): objects
    merge key by key, any other value replaces; nothing removes a key."""
    merged = dict(parent)
    for key, value in child.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge_preset(merged[key], value)
        else:
            merged[key] = value
    return merged


def read_preset(path: Path, named: dict[str, Path]) -> PresetDocument:
    """The preset file `path` and the chain of named presets it extends (`named`: the
    registry's presets), merged. One UsageError naming the file for what cannot be read, is not
    JSON, or extends no named preset or goes round in a circle (the binary checks the rest)."""
    files, documents = [], []
    while True:
        try:
            text = path.read_text(encoding="utf-8")
            document = json.loads(text)
        except OSError as e:
            raise UsageError(f"{path}: cannot read preset ({e.strerror or e})")
        except ValueError as e:
            raise UsageError(f"{path}:{getattr(e, 'lineno', 1)}: malformed JSON ({e})")
        files.append((path, text))
        documents.append(document)
        if not (isinstance(document, dict) and "extends" in document):
            break
        parent = document["extends"]
        if not isinstance(parent, str) or parent not in named:
            raise UsageError(f"{path}: 'extends' must name a preset of the preset folder "
                             f"({', '.join(named)}); got {json.dumps(parent)}")
        chain = [f for f, _ in files]
        path = named[parent]
        if any(path.resolve() == f.resolve() for f in chain):
            raise UsageError(f"{chain[-1]}: 'extends' goes round in a circle: "
                             + " extends ".join(map(str, [*chain, path])))
    merged = documents.pop()
    for document in reversed(documents):
        merged = merge_preset(merged, document) if isinstance(merged, dict) else document
    if isinstance(merged, dict):
        merged.pop("extends", None)
    return PresetDocument(merged, files)


def preset_file(preset: str, registry: Registry) -> Path:
    """The JSON file behind a preset: a named one's (from the registry) or a path (as
    parse_preset leaves it: relative to the repository root when inside it)."""
    return registry.presets.get(preset) or REPO_ROOT / preset


def run_steps(preset: str, registry: Registry, suites: list[str]) -> list[ArtifactSpec]:
    """The steps a run of `suites` makes on each device: those whose preset object the
    preset's suite has, in run order; every step of the preset is checked, run or not."""
    return [s for s in artifact_specs(preset, registry) if s.suite in suites]


def artifact_specs(preset: str, registry: Registry) -> list[ArtifactSpec]:
    """Every registry step whose preset object the preset's suite has, in run order, each
    checked against its parameters (one UsageError at the object's line)."""
    steps = registry.artifact_steps()
    if not steps:
        return []
    preset_document = read_preset(preset_file(preset, registry), registry.presets)
    document = preset_document.document
    suites = document.get("suites") if isinstance(document, dict) else None
    specs = []
    for suite_name, step in steps:
        suite = suites.get(suite_name) if isinstance(suites, dict) else None
        if isinstance(suite, dict) and step["preset_key"] in suite:
            path, text = preset_document.file_with(step["preset_key"])
            specs.append(ArtifactSpec(suite_name, step, step_values(path, text, suite_name, step,
                                                                    suite[step["preset_key"]])))
    return specs


def step_values(path: Path, text: str, suite_name: str, step: dict, given) -> dict:
    """The preset's object for `step`, checked against the step's parameters (integers from
    min, to max where given): one UsageError at its line naming what the step expects."""
    step_key, parameters = step["preset_key"], step["parameters"]
    line = next((i for i, raw in enumerate(text.splitlines(), 1) if f'"{step_key}"' in raw), 1)
    letters = {p["key"]: p["key"][0].upper() for p in parameters}
    expected = ("{" + ", ".join(f'"{k}": {v}' for k, v in letters.items()) + "}: " + ", ".join(
        f"{letters[p['key']]} " + (f"one of {p['min']}..{p['max']}" if "max" in p
                                   else f"an integer >= {p['min']}") for p in parameters))

    def bad(problem: str) -> UsageError:
        return UsageError(f"{path}:{line}: suites.{suite_name}.{step_key}: {problem} "
                          f"(expected {expected})")

    if not isinstance(given, dict):
        raise bad(f"must be an object, not {json.dumps(given)}")
    unknown = sorted(set(given) - set(letters))
    if unknown:
        raise bad(f"unknown key '{unknown[0]}'")
    for p in parameters:
        key = p["key"]
        if key not in given:
            raise bad(f"missing '{key}'")
        value = given[key]
        if not isinstance(value, int) or isinstance(value, bool):
            raise bad(f"'{key}' must be an integer, not {json.dumps(value)}")
    for p in parameters:
        key, value = p["key"], given[p["key"]]
        if "max" in p and not p["min"] <= value <= p["max"]:
            raise bad(f"'{key}' must be {p['min']}..{p['max']}, not {value}")
        if value < p["min"]:
            raise bad(f"'{key}' must be at least {p['min']}, not {value}")
    return {p["key"]: given[p["key"]] for p in parameters}


def preset_suites(preset: str, registry: Registry) -> list[str]:
    """The suites a preset configures, in its order (every registered suite when the file
    cannot be read: planning them reports the problem)."""
    try:
        document = read_preset(preset_file(preset, registry), registry.presets).document
    except UsageError:
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
    return checked_plan(suite, names, allow_empty)


def checked_plan(suite: str, names: list[str], allow_empty: bool = False) -> list[str]:
    if not names and not allow_empty:
        raise UsageError(f"nothing to run: suite {suite} plans no benchmark for this selection")
    return list(dict.fromkeys(names))


def plan_suite_where(binary: str, selection: Selection, suite: str) -> tuple[list[str], frozenset[str]]:
    """The suite's plan and its CPU benchmarks (`layoutbench plan --json`: where each runs)."""
    output = call_binary(binary, ["plan", "--json", *selection.binary_args(suite)])
    try:
        planned = json.loads(output)
        if not (isinstance(planned, list) and all(
                isinstance(b, dict) and isinstance(b.get("name"), str)
                and b.get("where") in ("gpu", "cpu") for b in planned)):
            raise ValueError('expected an array of {name, where: "gpu" | "cpu"}')
    except ValueError as e:
        raise UsageError(f"layoutbench plan --json printed unexpected output ({e}): "
                         f"{output.strip()[:200]!r}")
    names = checked_plan(suite, [b["name"] for b in planned])
    return names, frozenset(b["name"] for b in planned if b["where"] == "cpu")


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "gpu"


def preset_label(preset: str) -> str:
    """The preset as run folders and Slurm job names carry it: its file's stem with anything
    but letters, digits, '_', '.' and '-' made '-' (a named preset's stem is its name)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", Path(preset).stem)


def create_run_dir(root: Path, device_name: str, preset: str, create: bool = True) -> Path:
    """<root>/<date>_<device>_<preset>[_n], made; without create, the name it would have."""
    label = preset_label(preset)
    base = f"{datetime.date.today().isoformat()}_{slug(device_name)}_{label}"
    # A results root that is a file, or lies under one, is the user's mistake: said so, before
    # anything is made (also for a dry run, which makes nothing).
    for folder in (root, *root.parents):
        if folder.exists():
            if not folder.is_dir():
                raise UsageError(f"results root {root}: {folder} is a file, not a folder")
            break
    if create:
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise UsageError(f"results root {root}: cannot make it ({e.strerror})")
    attempt = 1
    while True:
        path = root / (base if attempt == 1 else f"{base}_{attempt}")
        try:
            if not create:
                if path.exists():
                    raise FileExistsError(path)
                return path
            path.mkdir()
            return path
        except FileExistsError:
            attempt += 1
        except OSError as e:
            raise UsageError(f"results root {root}: cannot make {path.name} in it ({e.strerror})")

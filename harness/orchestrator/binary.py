"""Short layoutbench commands (list-devices, suites, plan) and how a child's exit reads."""
from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from orchestrator.common import REPO_ROOT, UsageError

SUITE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
STICKY_CUDA_ERROR_EXIT = 3
# How a step's argv runs: `layoutbench <argv>` (at the end of the device's suites, CSV
# outputs) or `python3 -m <argv>` (right after its suite, JSON outputs, "{results}" = the
# device's results of the suite).
RUNNERS = ("layoutbench", "python")
RESULTS_PLACEHOLDER = "{results}"  # layoutbench: the CUDA context broke; start again to continue


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


def has_subcommand(binary: str, name: str) -> bool:
    """Whether `layoutbench --help` lists the subcommand (a binary built before it was added
    does not)."""
    return any(line.split()[:1] == [name] for line in call_binary(binary, ["--help"]).splitlines())


def plan_lists_where(binary: str) -> bool:
    """Whether `layoutbench plan --help` lists --json (each planned name with where it runs);
    a binary built before it was added does not."""
    return any(line.split()[:1] == ["--json"] for line in
               call_binary(binary, ["plan", "--help"]).splitlines())


def build_info(binary: str) -> dict:
    """`layoutbench build-info`: how the binary was built, the build block (lb.build) of the
    context each run of it journals (git_commit, git_dirty, compilers, flags)."""
    output = call_binary(binary, ["build-info"])
    try:
        build = json.loads(output)
        if not (isinstance(build, dict) and isinstance(build.get("git_commit"), str)
                and isinstance(build.get("git_dirty"), bool)):
            raise ValueError("expected an object with git_commit and git_dirty")
    except ValueError as e:
        raise UsageError(f"layoutbench build-info printed unexpected output ({e}): "
                         f"{output.strip()[:200]!r}")
    return build


@dataclass(frozen=True)
class Registry:
    """`layoutbench suites --json`: the suites in run order, each one's artifact steps and
    inputs, and the named presets (name -> file). A step: {name, preset_key, command, figure,
    description, parameters: [{key, min[, max]}], argv: [command, "--n", "{n}", ...,
    "{out:data}"], outputs: ["data", ...], runner: "layoutbench" | "python"[, committed:
    {folder, format, reuse}]}; an input: {name, description[, from: {suite, step, output}]}
    (lb/harness/suite.hpp's ArtifactStep and SuiteInput; benches/suites.cpp declares them)."""
    suites: list[str]
    steps: dict[str, list[dict]]
    presets: dict[str, Path]
    inputs: dict[str, list[dict]] = field(default_factory=dict)

    def artifact_steps(self) -> list[tuple[str, dict]]:
        """(suite, step) of every suite's artifact steps, in run order."""
        return [(suite, step) for suite, steps in self.steps.items() for step in steps]

    def step(self, suite: str, name: str) -> dict | None:
        return next((s for s in self.steps.get(suite, ()) if s["name"] == name), None)


def check_step(suite: str, step: dict) -> None:
    """Raises ValueError unless `step` is a step this script can run: its argv names only its
    parameters and outputs."""
    if not all(isinstance(step.get(k), str) for k in ("name", "preset_key", "command", "figure")):
        raise ValueError(f"a step of suite {suite} lacks a name, preset_key, command or figure")
    parameters, argv, outputs = step.get("parameters"), step.get("argv"), step.get("outputs")
    if not (isinstance(parameters, list) and all(
            isinstance(p, dict) and isinstance(p.get("key"), str) and isinstance(p.get("min"), int)
            and isinstance(p.get("max", 0), int) for p in parameters)):
        raise ValueError(f"step {step['name']} of suite {suite}: parameters must be "
                         "[{key, min[, max]}]")
    if not (isinstance(outputs, list) and all(isinstance(o, str) and SUITE_NAME.fullmatch(o)
                                              for o in outputs)):
        raise ValueError(f"step {step['name']} of suite {suite}: outputs must be names")
    if not (isinstance(argv, list) and argv and argv[0] == step["command"]
            and all(isinstance(a, str) for a in argv)):
        raise ValueError(f"step {step['name']} of suite {suite}: argv must start with its command")
    runner = step.setdefault("runner", "layoutbench")
    if runner not in RUNNERS:
        raise ValueError(f"step {step['name']} of suite {suite}: unknown runner {runner!r}")
    known = {f"{{{p['key']}}}" for p in parameters} | {f"{{out:{o}}}" for o in outputs}
    if runner == "python":
        known.add(RESULTS_PLACEHOLDER)
    unknown = [a for a in argv if a.startswith("{") and a not in known]
    if unknown:
        raise ValueError(f"step {step['name']} of suite {suite}: argv names {unknown[0]}, "
                         "which is neither a parameter nor an output")
    if "committed" in step:
        check_committed(suite, step)


def check_committed(suite: str, step: dict) -> None:
    """A step's committed copies: a Python step of one output, a folder inside the repository,
    the format its JSON carries, and a reuse key that is one of its parameters (or "")."""
    committed, where = step["committed"], f"step {step['name']} of suite {suite}"
    if not (isinstance(committed, dict)
            and all(isinstance(committed.get(k), str) for k in ("folder", "format", "reuse"))):
        raise ValueError(f"{where}: committed must be {{folder, format, reuse}}")
    folder = PurePosixPath(committed["folder"])
    if not committed["folder"] or folder.is_absolute() or ".." in folder.parts:
        raise ValueError(f"{where}: committed folder must lie inside the repository")
    if step["runner"] != "python" or len(step["outputs"]) != 1 or not committed["format"]:
        raise ValueError(f"{where}: only a Python step of one output with a format has "
                         "committed copies")
    if committed["reuse"] and committed["reuse"] not in {p["key"] for p in step["parameters"]}:
        raise ValueError(f"{where}: committed reuse names {committed['reuse']}, which is not "
                         "a parameter")


def check_inputs(suite: str, inputs, steps: dict[str, list[dict]]) -> None:
    """Raises ValueError unless each input of `suite` is a name and its "from" (where given)
    names an output of a Python step of a suite before it (run right after that suite, so its
    files exist when `suite` runs)."""
    if not isinstance(inputs, list):
        raise ValueError(f"the inputs of suite {suite} are not a list")
    earlier = list(steps)[:list(steps).index(suite)]
    for given in inputs:
        if not (isinstance(given, dict) and isinstance(given.get("name"), str)
                and SUITE_NAME.fullmatch(given["name"])):
            raise ValueError(f"an input of suite {suite} has no name")
        source = given.get("from")
        if source is None:
            continue
        where = f"input {given['name']} of suite {suite}"
        if not (isinstance(source, dict)
                and all(isinstance(source.get(k), str) for k in ("suite", "step", "output"))):
            raise ValueError(f"{where}: from must be {{suite, step, output}}")
        step = next((s for s in steps.get(source["suite"], ()) if s["name"] == source["step"]),
                    None) if source["suite"] in earlier else None
        if step is None or step["runner"] != "python" or source["output"] not in step["outputs"]:
            raise ValueError(f"{where}: from names no output {source['output']} of a Python "
                             f"step {source['step']} of a suite before it")


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
                check_step(suite, step)
        # A binary that predates the suites' inputs lists none.
        inputs = {s["name"]: s.get("inputs", []) for s in suites}
        for suite, listed in inputs.items():
            check_inputs(suite, listed, steps)
        named = {p["name"]: Path(p["file"]) for p in presets}
        if not all(isinstance(name, str) for name in named):
            raise ValueError("a preset name is not a string")
    except (ValueError, KeyError, TypeError) as e:
        raise UsageError(f"layoutbench suites --json printed unexpected output ({e}): "
                         f"{output.strip()[:200]!r}")
    return Registry(list(steps), steps, named, inputs)


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

"""Short layoutbench commands (list-devices, suites, plan) and how a child's exit reads."""
from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

from orchestrator.common import REPO_ROOT, UsageError

MODEL_COMMAND = "krige"     # the artifact step this script runs (kriging's Fig. 4 model)
SUITE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
STICKY_CUDA_ERROR_EXIT = 3  # layoutbench: the CUDA context broke; start again to continue


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

"""Whether the Python GPU tests run, skip or fail: the rules of tests/cpp/gpu_available.hpp.

They skip (visibly) only where no GPU is present: the binary sees no CUDA GPU
(`layoutbench list-devices` lists none) and the machine shows no sign of NVIDIA hardware (no
/dev/nvidia<N>, no /dev/dxg, no nvidia-smi on PATH). They fail where a GPU should be there
but is not usable: hardware present that the binary cannot use, `list-devices` itself failing
(a broken runtime or driver), or no GPU while LB_REQUIRE_GPU=1 says one is expected (the GPU
machine's round script sets it). Every Python GPU test asks here (the `gpu` fixture of
conftest.py, or `require_gpu()`), so one rule decides for all of them.

One difference from the C++ rule: the binary's `list-devices` does not say which CUDA error
hid the devices, so a broken runtime on a machine with no NVIDIA device node and no
nvidia-smi skips here; the C++ GPU tests of the same `make test` fail on it."""

import functools
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "build" / "layoutbench"

RUN, SKIP, FAIL = "run", "skip", "fail"
REQUIRE_VARIABLE = "LB_REQUIRE_GPU"


@dataclass(frozen=True)
class Decision:
    action: str  # RUN, SKIP or FAIL
    reason: str = ""  # why it skips or fails ("" when the tests run)


def decide(devices, binary_error, hardware_sign, required):
    """The decision from what the binary said (`devices` it lists; `binary_error` "" or why
    `list-devices` failed), the first sign of NVIDIA hardware ("" = none) and whether
    LB_REQUIRE_GPU=1 is set."""
    if binary_error:
        return Decision(FAIL, f"`layoutbench list-devices` failed ({binary_error}): "
                              "the CUDA runtime or driver is broken on this machine")
    if devices:
        return Decision(RUN)
    said = "layoutbench list-devices sees no CUDA GPU"
    if hardware_sign:
        return Decision(FAIL, f"{said} but this machine has an NVIDIA GPU ({hardware_sign}): "
                              "the driver or the device is not usable")
    if required:
        return Decision(FAIL, f"{said} and {REQUIRE_VARIABLE}=1 expects a GPU here")
    return Decision(SKIP, f"no CUDA GPU visible ({said})")


def nvidia_hardware_sign(dev=Path("/dev"), path=None):
    """The first sign of NVIDIA hardware on this machine, or "" when there is none."""
    try:
        names = sorted(entry.name for entry in dev.iterdir())
    except OSError:
        names = []
    for name in names:
        if (name.startswith("nvidia") and name[6:].isdigit()) or name == "dxg":
            return str(dev / name)
    smi = shutil.which("nvidia-smi", path=path if path is not None else os.environ.get("PATH", ""))
    return smi or ""


def required():
    return os.environ.get(REQUIRE_VARIABLE) == "1"


def ask_binary(binary):
    """(devices, error): the GPUs `binary list-devices` lists, or why it could not say."""
    try:
        r = subprocess.run([str(binary), "list-devices"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as error:
        return [], str(error)
    if r.returncode != 0:
        return [], f"exit code {r.returncode}: {r.stderr.strip()}"
    try:
        devices = json.loads(r.stdout)
    except ValueError:
        return [], f"not JSON: {r.stdout.strip()!r}"
    return (devices, "") if isinstance(devices, list) else ([], f"not a list: {r.stdout.strip()!r}")


@functools.lru_cache(maxsize=None)
def gpu_decision(binary=BIN):
    """The decision for this process, asked once per binary."""
    devices, error = ask_binary(binary)
    return decide(devices, error, nvidia_hardware_sign(), required())


def gpu_visible(binary=BIN):
    """True where the GPU tests run (the binary sees a GPU)."""
    return gpu_decision(binary).action == RUN


def require_gpu(binary=BIN):
    """Returns where the GPU tests run; otherwise a visible skip or, where a GPU should be
    usable, a failure naming the reason."""
    decision = gpu_decision(binary)
    if decision.action == FAIL:
        pytest.fail(f"GPU expected: {decision.reason}", pytrace=False)
    if decision.action == SKIP:
        pytest.skip(decision.reason)


def skip_or_fail(reason):
    """A GPU-side check that cannot run here (absent tools or build): a visible skip, or a
    failure where LB_REQUIRE_GPU=1 says this machine is meant to run every GPU-side check."""
    if required():
        pytest.fail(f"{reason} ({REQUIRE_VARIABLE}=1: this check must run here)", pytrace=False)
    pytest.skip(reason)

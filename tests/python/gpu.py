"""Whether the Python GPU tests run, skip or fail: the binary's answer.

`layoutbench gpu-decision` applies the one rule the C++ GPU tests apply too
(harness/lb/harness/gpu_presence.hpp): skip (visibly) only where no GPU is present; fail where
NVIDIA hardware is present but unusable, where the CUDA runtime or driver is broken, or where
LB_REQUIRE_GPU=1 says a GPU is expected (the GPU machine's round script sets it). A binary that
cannot answer fails too. Every Python GPU test asks here (the `gpu` fixture of conftest.py, or
`require_gpu()`)."""

import functools
import json
import os
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


def required():
    return os.environ.get(REQUIRE_VARIABLE) == "1"


def ask_binary(binary):
    """The Decision `binary gpu-decision` gives (LB_REQUIRE_GPU passes through the
    environment), or FAIL naming why the binary could not say."""
    def cannot(why):
        return Decision(FAIL, f"`layoutbench gpu-decision` failed ({why}): cannot tell whether a GPU is usable")
    try:
        r = subprocess.run([str(binary), "gpu-decision"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as error:
        return cannot(error)
    if r.returncode != 0:
        return cannot(f"exit code {r.returncode}: {r.stderr.strip()}")
    try:
        answer = json.loads(r.stdout)
    except ValueError:
        return cannot(f"not JSON: {r.stdout.strip()!r}")
    if not isinstance(answer, dict) or answer.get("action") not in (RUN, SKIP, FAIL) \
            or not isinstance(answer.get("reason"), str):
        return cannot(f"not an action and a reason: {r.stdout.strip()!r}")
    return Decision(answer["action"], answer["reason"])


@functools.lru_cache(maxsize=None)
def gpu_decision(binary=BIN):
    """The decision for this process, asked once per binary."""
    return ask_binary(binary)


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

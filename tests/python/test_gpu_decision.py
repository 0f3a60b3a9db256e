"""The Python GPU tests obey the binary's decision (tests/python/gpu.py asks `layoutbench
gpu-decision`, the rule the C++ GPU tests apply: harness/lb/harness/gpu_presence.hpp, its
table tested in tests/cpp/test_gpu_available.cpp); a binary that cannot answer fails them."""

import json
import stat
import subprocess

import pytest

from tests.python import gpu
from tests.python.gpu import BIN, FAIL, RUN, SKIP


def fake_binary(tmp_path, body):
    path = tmp_path / "layoutbench"
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def answering(tmp_path, action, reason=""):
    return fake_binary(tmp_path, "echo '%s'" % json.dumps({"action": action, "reason": reason}))


@pytest.mark.parametrize("body, action, says", [
    ("""echo '{"action": "run", "reason": ""}'""", RUN, ""),
    ("""echo '{"action": "skip", "reason": "no CUDA GPU visible"}'""", SKIP, "no CUDA GPU visible"),
    ("""echo '{"action": "fail", "reason": "LB_REQUIRE_GPU=1 expects a GPU"}'""", FAIL, "LB_REQUIRE_GPU=1"),
    ("echo 'layoutbench: error: cudaErrorUnknown' >&2; exit 1", FAIL, "cudaErrorUnknown"),
    ("echo 'no json'", FAIL, "not JSON"),
    ("""echo '{"action": "maybe", "reason": ""}'""", FAIL, "not an action and a reason"),
    ("echo '[]'", FAIL, "not an action and a reason"),
])
def test_the_binary_decides(tmp_path, body, action, says):
    d = gpu.ask_binary(fake_binary(tmp_path, body))
    assert d.action == action
    assert says in d.reason


def test_a_missing_binary_fails():
    assert gpu.ask_binary("/nonexistent/layoutbench").action == FAIL


@pytest.mark.parametrize("action, outcome", [(SKIP, pytest.skip.Exception), (FAIL, pytest.fail.Exception)])
def test_skip_and_fail_reach_the_test(tmp_path, action, outcome):
    binary = answering(tmp_path, action, "because")
    with pytest.raises(outcome, match="because"):
        gpu.require_gpu(binary)
    assert not gpu.gpu_visible(binary)


def test_a_visible_gpu_runs(tmp_path):
    binary = answering(tmp_path, RUN)
    gpu.require_gpu(binary)  # returns: no skip, no failure
    assert gpu.gpu_visible(binary)


@pytest.mark.parametrize("require, outcome", [("1", pytest.fail.Exception), ("0", pytest.skip.Exception),
                                              (None, pytest.skip.Exception)])
def test_a_check_without_its_tools_skips_unless_required(monkeypatch, require, outcome):
    if require is None:
        monkeypatch.delenv("LB_REQUIRE_GPU", raising=False)
    else:
        monkeypatch.setenv("LB_REQUIRE_GPU", require)
    with pytest.raises(outcome):
        gpu.skip_or_fail("needs cuobjdump")


@pytest.mark.skipif(not BIN.exists(), reason=f"needs the built binary {BIN}")
def test_the_real_binary_never_skips_where_a_gpu_is_required():
    """LB_REQUIRE_GPU=1 reaches the binary's rule: run where a GPU is usable, fail elsewhere."""
    r = subprocess.run([str(BIN), "gpu-decision"], capture_output=True, text=True, timeout=120,
                       env={"LB_REQUIRE_GPU": "1", "PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stderr
    answer = json.loads(r.stdout)
    assert answer["action"] in (RUN, FAIL), answer
    assert (answer["action"] == RUN) == (answer["reason"] == ""), answer

"""When the Python GPU tests run, skip and fail (tests/python/gpu.py): the rules of
tests/cpp/gpu_available.hpp. Only a machine with no GPU at all skips."""

import os
import stat

import pytest

from tests.python import gpu
from tests.python.gpu import FAIL, RUN, SKIP, decide

ONE = [{"index": 0, "name": "NVIDIA H100", "uuid": "GPU-0"}]


@pytest.mark.parametrize("devices, error, sign, required, action, says", [
    (ONE, "", "/dev/nvidia0", False, RUN, ""),
    (ONE, "", "", True, RUN, ""),
    ([], "", "", False, SKIP, "no CUDA GPU visible"),
    ([], "", "/dev/nvidia0", False, FAIL, "/dev/nvidia0"),
    ([], "", "/dev/dxg", False, FAIL, "/dev/dxg"),
    ([], "", "/usr/bin/nvidia-smi", True, FAIL, "/usr/bin/nvidia-smi"),
    ([], "", "", True, FAIL, "LB_REQUIRE_GPU=1"),
    ([], "exit code 1: cudaErrorUnknown", "", False, FAIL, "cudaErrorUnknown"),
    (ONE, "exit code 1: cudaErrorUnknown", "/dev/nvidia0", False, FAIL, "broken"),
])
def test_decision_table(devices, error, sign, required, action, says):
    d = decide(devices, error, sign, required)
    assert d.action == action
    assert says in d.reason


def test_hardware_signs(tmp_path):
    dev, bin_dir = tmp_path / "dev", tmp_path / "bin"
    dev.mkdir()
    bin_dir.mkdir()
    for name in ["nvidiactl", "nvidia-uvm", "nvidia-modeset", "null", "nvidia"]:
        (dev / name).touch()
    assert gpu.nvidia_hardware_sign(dev, path=str(bin_dir)) == ""
    (dev / "nvidia3").touch()
    assert gpu.nvidia_hardware_sign(dev, path=str(bin_dir)) == str(dev / "nvidia3")
    (dev / "nvidia3").unlink()
    (dev / "dxg").touch()
    assert gpu.nvidia_hardware_sign(dev, path=str(bin_dir)) == str(dev / "dxg")
    (dev / "dxg").unlink()
    smi = bin_dir / "nvidia-smi"
    smi.write_text("#!/bin/sh\n")
    smi.chmod(smi.stat().st_mode | stat.S_IXUSR)
    assert gpu.nvidia_hardware_sign(dev, path=str(bin_dir)) == str(smi)


def fake_binary(tmp_path, body):
    path = tmp_path / "layoutbench"
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.mark.parametrize("body, devices, error", [
    ("echo '[]'", [], ""),
    ("echo '[{\"index\": 0}]'", [{"index": 0}], ""),
    ("echo 'layoutbench: error: cudaErrorUnknown' >&2; exit 1", [], "exit code 1: layoutbench: error: cudaErrorUnknown"),
    ("echo 'no json'", [], "not JSON: 'no json'"),
    ("echo '{}'", [], "not a list: '{}'"),
])
def test_the_binary_is_asked(tmp_path, body, devices, error):
    assert gpu.ask_binary(fake_binary(tmp_path, body)) == (devices, error)
    assert gpu.ask_binary(tmp_path / "absent")[1]


@pytest.mark.parametrize("require, outcome", [("1", pytest.fail.Exception), ("0", pytest.skip.Exception),
                                              (None, pytest.skip.Exception)])
def test_no_gpu_skips_unless_required(tmp_path, monkeypatch, require, outcome):
    if require is None:
        monkeypatch.delenv("LB_REQUIRE_GPU", raising=False)
    else:
        monkeypatch.setenv("LB_REQUIRE_GPU", require)
    monkeypatch.setattr(gpu, "nvidia_hardware_sign", lambda: "")
    binary = fake_binary(tmp_path, "echo '[]'")
    with pytest.raises(outcome):
        gpu.require_gpu(binary)
    with pytest.raises(outcome):
        gpu.skip_or_fail("needs cuobjdump")
    assert not gpu.gpu_visible(binary)


def test_a_visible_gpu_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("LB_REQUIRE_GPU", "1")
    binary = fake_binary(tmp_path, "echo '[{\"index\": 0}]'")
    gpu.require_gpu(binary)  # returns: no skip, no failure
    assert gpu.gpu_visible(binary)

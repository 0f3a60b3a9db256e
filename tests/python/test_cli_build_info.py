"""`layoutbench build-info`: the binary's build block (the lb.build of every run's context) as
JSON, which harness/run.py --resume compares with the run's journals. Skipped when the binary
has not been built."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "build" / "layoutbench"

pytestmark = pytest.mark.skipif(not BIN.exists(), reason=f"needs the built binary {BIN}")

sys.path.insert(0, str(ROOT / "harness"))  # harness/run.py's parts, as run.py finds them
from orchestrator.binary import build_info  # noqa: E402


def test_build_info_is_the_build_block_as_json():
    result = subprocess.run([str(BIN), "build-info"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stderr == ""
    build = json.loads(result.stdout)
    assert re.fullmatch(r"[0-9a-f]{40}|unknown", build["git_commit"])
    assert isinstance(build["git_dirty"], bool) and build["build_type"]
    assert build_info(str(BIN)) == build  # what the orchestrator reads


def test_the_orchestrator_sees_that_the_binary_has_build_info():
    from orchestrator.binary import has_subcommand
    assert has_subcommand(str(BIN), "build-info")
    assert not has_subcommand(str(BIN), "no-such-subcommand")

"""Shared fixtures of the Python tests."""

import os
import tempfile

import pytest

from tests.python.gpu import require_gpu


@pytest.fixture
def gpu():
    """A test that needs a usable GPU (tests/python/gpu.py decides: run, skip, or fail where a
    GPU should be usable, LB_REQUIRE_GPU=1 included)."""
    require_gpu()


# The committed decision trees (results/trees/) are the repository's state, not the tests': a
# run whose preset reuses a committed tree ({"reuse": 1}, quick) would drop the training suite
# wherever the fake GPU's name matches one. Every test sees an empty trees folder unless it
# names its own (LB_TREES_DIR, as test_kofler_tree.py's do); the orchestrator's subprocesses
# inherit it.
os.environ.setdefault("LB_TREES_DIR", tempfile.mkdtemp(prefix="lb-no-trees-"))

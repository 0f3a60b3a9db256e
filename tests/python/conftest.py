"""Shared fixtures of the Python tests."""

import pytest

from tests.python.gpu import require_gpu


@pytest.fixture
def gpu():
    """A test that needs a usable GPU (tests/python/gpu.py decides: run, skip, or fail where a
    GPU should be usable, LB_REQUIRE_GPU=1 included)."""
    require_gpu()

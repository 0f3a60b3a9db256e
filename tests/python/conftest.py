"""Shared fixtures of the Python tests."""

import os
import tempfile

import matplotlib
import pytest

import plots.figures

from tests.python.gpu import require_gpu


@pytest.fixture
def gpu():
    """A test that needs a usable GPU (tests/python/gpu.py decides: run, skip, or fail where a
    GPU should be usable, LB_REQUIRE_GPU=1 included)."""
    require_gpu()


# The steps' committed copies (results/trees/: the decision trees) are the repository's state,
# not the tests': a run whose preset reuses them ({"reuse": 1}, quick) would drop the training
# suite wherever the fake GPU's name matches one. Every test sees an empty folder of committed
# copies unless it names its own (LB_COMMITTED_DIR, as test_kofler_tree.py's do); the
# orchestrator's subprocesses inherit it.
os.environ.setdefault("LB_COMMITTED_DIR", tempfile.mkdtemp(prefix="lb-no-committed-"))


# The figures' PNGs at the figures' own resolution (matplotlib's figure.dpi, 100) instead of
# the reports' SAVED_DPI (120): save_figure's checks (texts outside, readability) lay every
# text out at the figure's dpi, and a PNG at that dpi reuses that layout instead of laying
# every text out again (~15 % of drawing a report; docs/tests.md, "Test time"). The checks
# are the same (they run at the figure's dpi whatever the PNG's); no test reads a PNG's pixels.
plots.figures.SAVED_DPI = matplotlib.rcParams["figure.dpi"]

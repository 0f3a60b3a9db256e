"""What every part of the orchestrator shares: the repository root, exit codes, bad input,
how paths are recorded."""
from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
RUN_PY = REPO_ROOT / "harness" / "run.py"
EXIT_OK, EXIT_INCOMPLETE, EXIT_USAGE, EXIT_FIGURES = 0, 1, 2, 3


class UsageError(Exception):
    """Bad input: one message, exit 2, nothing created."""


def repo_path(path: Path | str) -> str:
    """`path` as the run records it: relative to the repository root when inside it, else
    absolute (a bare command name, looked up on PATH, stays as it is)."""
    if os.sep not in str(path):
        return str(path)
    absolute = Path(os.path.realpath(path))  # REPO_ROOT is resolved too
    return (str(absolute.relative_to(REPO_ROOT)) if absolute.is_relative_to(REPO_ROOT)
            else str(absolute))


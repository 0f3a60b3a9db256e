"""Checks shared by the plot tests: a report folder holds each figure as PNG and SVG; a
fixture generator (tests/python/fixtures/make_<paper>_fixture.py) loaded by name; the reports
several test files read, drawn once per session, with their figures kept for the tests that
read them (test_figures_readable.py)."""

import contextlib
import importlib.util
import io
import shutil
import warnings
from pathlib import Path

import pytest

from plots.__main__ import main
from plots.figures import TextOutsideFigure, UnreadableFigure, inspecting

FIXTURES = Path(__file__).parent / "fixtures"


def load_fixture_generator(paper):
    path = FIXTURES / f"make_{paper}_fixture.py"
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def assert_figures_written(report, stems):
    for stem in stems:
        png, svg = report / "figures" / f"{stem}.png", report / "figures" / f"{stem}.svg"
        assert png.read_bytes().startswith(b"\x89PNG"), stem
        assert "<svg" in svg.read_text()[:500], stem
    assert not list(report.rglob("*.tmp")), "temporary files left behind"


def report_of(fixture, folder):
    """The CLI run on a copy of `fixture` in `folder` (output lands there); a text leaving a
    figure or an unreadable figure fails it."""
    shutil.copytree(fixture, folder)
    with warnings.catch_warnings():
        warnings.simplefilter("error", TextOutsideFigure)
        warnings.simplefilter("error", UnreadableFigure)
        with contextlib.redirect_stdout(io.StringIO()):
            assert main([str(folder)]) == 0
    return folder


_RENDERED = {}
_FIGURES = {}
# What rendered_once draws: a fixture folder, committed or written by its generator
# (fixtures/make_<paper>_fixture.py), or several (several GPUs side by side).
GENERATED = ("kriging_quick", "kofler_quick", "inner_quick")
SEVERAL_GPUS = "idw_three_gpus"  # idw_quick beside a derived host of two identical cards


def rendered_once(name, tmp_path_factory):
    """(folder, stdout) of one CLI run on a copy of a fixture: `idw_quick` (committed),
    `kriging_quick`, `kofler_quick`, `inner_quick` (generated), or SEVERAL_GPUS (idw_quick
    and a derived two-card host, with --out: three GPUs and their comparison). Drawn once
    per test session (per xdist worker) and shared by every test file that reads it:
    drawing a report is most of the Python tests' time. Readers must not change the folder.
    A text leaving a figure fails the run; unreadable figures are left to figures_of's
    readers, which name each problem."""
    if name not in _RENDERED:
        base = tmp_path_factory.mktemp(f"shared_{name}")
        folder = base / "run"
        if name == SEVERAL_GPUS:
            sources = [base / "a", base / "cards"]
            shutil.copytree(FIXTURES / "idw_quick", sources[0])
            load_fixture_generator("compare").derive(sources[0], sources[1], cards=2)
            arguments = ["--out", str(folder), *map(str, sources)]
        else:
            source = FIXTURES / name
            if name in GENERATED:
                source = base / "fixture" / name
                load_fixture_generator(name.removesuffix("_quick")).write_fixture(source)
            shutil.copytree(source, folder)
            arguments = [str(folder)]
        stdout, figures = io.StringIO(), {}

        def keep(stem, fig, problems):
            figures[stem] = (fig, problems)

        with warnings.catch_warnings():
            warnings.simplefilter("error", TextOutsideFigure)
            warnings.simplefilter("ignore", UnreadableFigure)
            with contextlib.redirect_stdout(stdout), \
                    inspecting(keep):
                assert main(arguments) == 0
        _RENDERED[name] = (folder, stdout.getvalue())
        _FIGURES[name] = figures
    return _RENDERED[name]


def one_worker(name):
    """The mark that sends a test reading rendered_once(name) to the xdist worker of every other
    test so marked (`--dist loadgroup`): the report is drawn there once, not once per worker."""
    return pytest.mark.xdist_group(f"report_{name}")


def figures_of(name, tmp_path_factory):
    """{stem: (matplotlib Figure as saved (closed: its artists still readable), its
    readability problems [(check, message)])} of rendered_once(name)."""
    rendered_once(name, tmp_path_factory)
    return _FIGURES[name]


def claim_rows(text):
    """[(claim id, its table row and its footnote (`id`, quote, note) as one line)] of every
    claims table of a report, in order (a claim once per GPU)."""
    import re
    notes = dict(re.findall(r"^\[\^([^\]\s]+)\]: (.*)$", text, re.M))
    rows = []
    for line in text.splitlines():
        reference = re.search(r"\[\^([^\]\s]+)\] \|", line)
        if line.startswith("| ") and reference and reference.group(1) in notes:
            note = notes[reference.group(1)]
            rows.append((re.match(r"`([^`]+)`", note).group(1), f"{line} {note}"))
    return rows


def claim_row(text, claim_id):
    """The one row (with its footnote) of `claim_id` in a one-GPU report."""
    (row,) = [row for cid, row in claim_rows(text) if cid == claim_id]
    return row

"""Checks shared by the plot tests: a report folder holds each figure as PNG and SVG; a
fixture generator (tests/python/fixtures/make_<paper>_fixture.py) loaded by name; the reports
several test files read, drawn once per session."""

import contextlib
import importlib.util
import io
import shutil
import warnings
from pathlib import Path

from plots.__main__ import main
from plots.figures import TextOutsideFigure

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
    figure fails it."""
    shutil.copytree(fixture, folder)
    with warnings.catch_warnings():
        warnings.simplefilter("error", TextOutsideFigure)
        with contextlib.redirect_stdout(io.StringIO()):
            assert main([str(folder)]) == 0
    return folder


_RENDERED = {}


def rendered_once(name, tmp_path_factory):
    """(folder, stdout) of one CLI run, without --out, on a copy of a fixture: `idw_quick`
    (committed) or `kriging_quick` (generated). Drawn once per test session (per xdist
    worker) and shared by every test file that reads it: drawing a report is most of the
    Python tests' time. Readers must not change the folder."""
    if name not in _RENDERED:
        base = tmp_path_factory.mktemp(f"shared_{name}")
        if name == "kriging_quick":
            source = load_fixture_generator("kriging").write_fixture(base / "fixture" / name)
        else:
            source = FIXTURES / name
        folder = base / "run"
        shutil.copytree(source, folder)
        stdout = io.StringIO()
        with warnings.catch_warnings():
            warnings.simplefilter("error", TextOutsideFigure)
            with contextlib.redirect_stdout(stdout):
                assert main([str(folder)]) == 0
        _RENDERED[name] = (folder, stdout.getvalue())
    return _RENDERED[name]

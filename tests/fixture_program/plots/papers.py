"""The fixture's paper entry: what plots/papers.py's PAPERS holds for a shipped paper
(tests/python/test_fixture_program.py adds it to PAPERS while it draws and judges)."""

import importlib.util
from pathlib import Path

from plots.papers import Paper

HERE = Path(__file__).resolve().parent

# The figure module, plots/fixture.py here: loaded by its path, as this folder is no package.
_spec = importlib.util.spec_from_file_location("fixture_program_figures", HERE / "fixture.py")
fixture = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fixture)

PAPERS = {
    "fixture": Paper("fixture", "The fixture program (docs/adding-a-program.md)", fixture.INTRO,
                     fixture.render, HERE / "claims" / "fixture.json", {}, {}, fixture.CLAIMS_INTRO),
}

"""Every committed report under results/ is what today's `plots` writes from its own JSON.

Each reference folder's REPORT.md is redrawn (`python3 -m plots --report-only`: the text, no
figure files) into a temporary folder, each compare folder's COMPARE.md likewise from the two
folders its first line names; a report that differs is stale (regenerate it with
`python3 -m plots <folder>` or `make compare A=... B=...`). No line is exempt."""

import difflib
import re
from pathlib import Path

import pytest

from plots.__main__ import main as plots_main
from plots.compare import write_comparison
from plots.figures import report_only

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = sorted(p.parent.relative_to(ROOT) for p in (ROOT / "results" / "reference").glob("*/REPORT.md"))
COMPARE = sorted(p.parent.relative_to(ROOT) for p in (ROOT / "results" / "compare").glob("*/COMPARE.md"))


def expect_same(committed, redrawn):
    want, got = committed.read_text(encoding="utf-8"), redrawn.read_text(encoding="utf-8")
    if want != got:
        diff = "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True), str(committed),
                                            "redrawn", n=1))
        pytest.fail(f"{committed} is stale: today's plots writes otherwise from its JSON\n{diff[:4000]}",
                    pytrace=False)


def test_the_committed_reports_are_found():
    assert len(REFERENCE) >= 3 and len(COMPARE) >= 1


@pytest.mark.parametrize("folder", REFERENCE, ids=str)
def test_reference_report_is_what_plots_draws_from_its_json(folder, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)  # the report names its folders as given: relative to the root
    assert plots_main(["--report-only", "--out", str(tmp_path), str(folder)]) == 0, capsys.readouterr().err
    assert not (tmp_path / "figures").exists()
    expect_same(ROOT / folder / "REPORT.md", tmp_path / "REPORT.md")


@pytest.mark.parametrize("folder", COMPARE, ids=str)
def test_compare_report_is_what_plots_draws_from_its_json(folder, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    committed = ROOT / folder / "COMPARE.md"
    a, b = re.search(r"A = `([^`]+)`.*?B = `([^`]+)`", committed.read_text(encoding="utf-8")).groups()
    with report_only():
        write_comparison(Path(a), Path(b), tmp_path)
    expect_same(committed, tmp_path / "COMPARE.md")


def test_report_only_writes_the_same_text_as_a_full_run(tmp_path, monkeypatch):
    """The fast mode above is the real report: one small folder drawn both ways."""
    monkeypatch.chdir(ROOT)
    folder = "results/reference/nvidia-h100-80gb-hbm3-naive-tiled-p3"
    assert plots_main(["--out", str(tmp_path / "full"), folder]) == 0
    assert plots_main(["--report-only", "--out", str(tmp_path / "text"), folder]) == 0
    assert any((tmp_path / "full" / "figures").glob("*.png"))
    assert (tmp_path / "full" / "REPORT.md").read_text() == (tmp_path / "text" / "REPORT.md").read_text()

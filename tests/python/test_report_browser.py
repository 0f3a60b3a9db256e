"""report.html in a real browser: headless Chromium (tests/python/browser.py, the DevTools
protocol over a pipe) opens the report of a fixture run (idw_quick beside two derived cards:
figures, claims, device context and a GPU comparison) and finds no console error, no request
for anything outside the file, every figure drawn at a non-zero size, every #link and every
SVG reference resolving, no id twice, no page wider than the 1280 px screen. The page is kept
as a screenshot at 1280 px: build/test-artifacts/report_html_1280.png (the path is printed).

Where Chromium is not installed (.ci/deps.sh installs Debian's `chromium` where it can) or
does not start, the tests skip and say why; LB_REQUIRE_BROWSER=1 makes that a failure.
A page built with each fault proves the checks can fail.

The answer first (issue 36), at 1280 × 900: a report's summary verdict table lies wholly in
the first screen, a comparison's per-suite answer starts there and ends within 1.5 screens,
and every figure's text is drawn at 8 px or more (the figure's font size times the scale the
page draws it at). Checked on the fixture's report and comparison; LB_REPORT_PAGES=<page>:<page>
checks other pages the same way (e.g. the committed references' report.html, written by `make
figures` / `make compare` into a temporary folder: docs/reports.md), a page beside a
COMPARE.md read as a comparison; without it that test skips, saying so.
"""

import os
import shutil
from pathlib import Path

import pytest

from plots import compare
from tests.python.browser import HEIGHT, WIDTH, BrowserUnavailable, Chromium, find_chromium
from tests.python.report_checks import SEVERAL_GPUS, one_worker, rendered_once

ARTIFACTS = Path(__file__).resolve().parents[2] / "build" / "test-artifacts"

# Printed, the "↑ contents" links go, tables stop scrolling and none is wider than the page.
PRINTED = """({
  backLinks: getComputedStyle(document.querySelector('a.back')).display,
  tableScroll: getComputedStyle(document.querySelector('.table-wrap')).overflowX,
  wideTables: [...document.querySelectorAll('table')].filter(
      t => t.getBoundingClientRect().right > document.documentElement.clientWidth + 1).length,
})"""
BROKEN_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>faults</title></head>
<body><a href="#nowhere">a link to no section</a><p id="twice"></p><p id="twice"></p>
<figure id="empty"><svg width="0" height="0"></svg></figure>
<figure id="clipped"><svg width="10" height="10"><path clip-path="url(#gone)" d="M0 0L9 9"/></svg></figure>
<img src="http://127.0.0.1:9/outside.png" alt="">
<script>console.error("boom");</script></body></html>
"""


def unavailable(reason):
    if os.environ.get("LB_REQUIRE_BROWSER") == "1":
        pytest.fail(f"LB_REQUIRE_BROWSER=1 but {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    executable = find_chromium()
    if executable is None:
        unavailable(f"no browser: {os.environ.get('LB_CHROMIUM') or 'chromium'} is not an "
                    "installed executable (`.ci/deps.sh browser` installs Debian's `chromium` "
                    "where apt can; LB_CHROMIUM names another)")
    try:
        with Chromium(executable, tmp_path_factory.mktemp("chromium")) as chromium:
            yield chromium
    except BrowserUnavailable as error:
        unavailable(f"{executable} does not start: {error}")


@one_worker(SEVERAL_GPUS)
def test_the_report_loads_cleanly_draws_every_figure_and_resolves_every_link(
        browser, tmp_path_factory):
    folder, _ = rendered_once(SEVERAL_GPUS, tmp_path_factory)
    page = folder / "report.html"
    markdown_figures = (folder / "REPORT.md").read_text(encoding="utf-8").count("\n![")
    url = page.resolve().as_uri()
    facts = browser.open(url)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = browser.screenshot(ARTIFACTS / "report_html_1280.png")
    print(f"screenshot of {page} at {WIDTH} px: {shot}")

    assert browser.problems(url) == []
    assert facts["title"] == "Layout benchmark report — NVIDIA H100 80GB HBM3, NVIDIA H200 (synthetic)"
    assert len(facts["figures"]) == markdown_figures > 0
    for figure in facts["figures"]:
        assert figure["kind"] == "svg", figure
        assert figure["width"] > 100 and figure["height"] > 100 and figure["marks"] > 10, figure
        assert figure["width"] <= WIDTH, figure
    assert facts["links"] > 10 and facts["brokenLinks"] == []
    assert facts["svgReferences"] > 0 and facts["brokenSvgReferences"] == []
    assert facts["duplicates"] == []
    assert facts["pageWidth"] <= facts["viewWidth"], "the page scrolls sideways at 1280 px"
    assert shot.stat().st_size > 10_000
    printed = browser.as_printed(PRINTED)
    assert printed == {"backLinks": "none", "tableScroll": "visible", "wideTables": 0}, printed


def test_each_fault_of_a_page_is_found(browser, tmp_path):
    page = tmp_path / "broken.html"
    page.write_text(BROKEN_PAGE, encoding="utf-8")
    url = page.as_uri()
    facts = browser.open(url)
    problems = "\n".join(browser.problems(url))

    assert "console.error: boom" in problems
    assert "request for another resource: http://127.0.0.1:9/outside.png" in problems
    assert "browser error (network)" in problems  # the refused connection
    assert facts["brokenLinks"] == ["#nowhere"]
    assert facts["brokenSvgReferences"] == ["gone"]
    assert facts["duplicates"] == ["twice"]
    empty = next(f for f in facts["figures"] if f["id"] == "empty")
    assert empty["width"] == 0 and empty["height"] == 0


# ---------------------------------------------------------------------------- the answer first

def answer_first_problems(screen, kind):
    """What breaks "the answer first" on a page of `kind` ("report" or "comparison"), from
    Chromium.first_screen(): [problem]."""
    problems = []
    if kind == "report":
        table = screen["summaryTable"]
        if table is None:
            problems.append("no summary verdict table (a table under the heading #summary)")
        elif table["bottom"] > HEIGHT:
            problems.append(f"the summary's verdict table ends at {table['bottom']:.0f} px, below "
                            f"the first {HEIGHT} px screen")
    else:
        answer = screen["answer"]
        if answer is None:
            problems.append("no per-suite answer (a list under the heading \"The answer…\")")
        elif answer["top"] > HEIGHT or answer["bottom"] > 1.5 * HEIGHT:
            problems.append(f"the per-suite answer lies at {answer['top']:.0f}–"
                            f"{answer['bottom']:.0f} px, not within the first 1.5 screens")
    problems += [f"figure text under 8 px: {text}" for text in screen["smallTexts"]]
    return problems


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    """The comparison page of the fixture: idw_quick against a derived B."""
    from tests.python.report_checks import FIXTURES, load_fixture_generator
    root = tmp_path_factory.mktemp("compared")
    shutil.copytree(FIXTURES / "idw_quick", root / "a")
    load_fixture_generator("compare").derive(FIXTURES / "idw_quick", root / "b")
    assert compare.main([str(root / "a"), str(root / "b"), "--out", str(root / "out")]) == 0
    return root / "out" / "report.html"


@one_worker(SEVERAL_GPUS)
def test_the_answer_comes_first_and_every_figure_reads_in_the_page(browser, tmp_path_factory,
                                                                   compared):
    folder, _ = rendered_once(SEVERAL_GPUS, tmp_path_factory)
    for page, kind in ((folder / "report.html", "report"), (compared, "comparison")):
        browser.open(page.resolve().as_uri())
        screen = browser.first_screen()
        assert screen["texts"] > 20, page
        assert answer_first_problems(screen, kind) == [], page


def test_each_answer_first_fault_is_found():
    late = {"summaryTable": {"top": 700, "bottom": 1400}, "answer": None, "texts": 9,
            "smallTexts": ["figure-1 (x): a label at 6.0 px"]}
    assert answer_first_problems(late, "report") == [
        "the summary's verdict table ends at 1400 px, below the first 900 px screen",
        "figure text under 8 px: figure-1 (x): a label at 6.0 px"]
    assert answer_first_problems(late, "comparison")[0].startswith("no per-suite answer")
    deep = {"summaryTable": None, "answer": {"top": 3100, "bottom": 3400}, "texts": 9,
            "smallTexts": []}
    assert answer_first_problems(deep, "comparison") == [
        "the per-suite answer lies at 3100–3400 px, not within the first 1.5 screens"]


def given_pages():
    return [Path(p) for p in os.environ.get("LB_REPORT_PAGES", "").split(os.pathsep) if p]


@pytest.mark.parametrize("page", given_pages() or [None], ids=str)
def test_given_pages_answer_first(browser, page):
    """LB_REPORT_PAGES' pages (the committed references' report.html, drawn elsewhere)."""
    if page is None:
        pytest.skip("LB_REPORT_PAGES names no page (e.g. the references' report.html drawn by "
                    "make figures/compare into a temporary folder)")
    kind = "comparison" if (page.parent / "COMPARE.md").is_file() else "report"
    browser.open(page.resolve().as_uri())
    assert answer_first_problems(browser.first_screen(), kind) == [], page

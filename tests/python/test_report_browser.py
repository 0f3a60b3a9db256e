"""report.html in a real browser: headless Chromium (tests/python/browser.py, the DevTools
protocol over a pipe) opens the report of a fixture run (idw_quick beside two derived cards:
figures, claims, device context and a GPU comparison) and finds no console error, no request
for anything outside the file, every figure drawn at a non-zero size, every #link and every
SVG reference resolving, no id twice, no page wider than the 1280 px screen. The page is kept
as a screenshot at 1280 px: build/test-artifacts/report_html_1280.png (the path is printed).

Where Chromium is not installed (.ci/deps.sh installs Debian's `chromium` where it can) or
does not start, the tests skip and say why; LB_REQUIRE_BROWSER=1 makes that a failure.
A page built with each fault proves the checks can fail.
"""

import os
from pathlib import Path

import pytest

from tests.python.browser import WIDTH, BrowserUnavailable, Chromium, find_chromium
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
    assert facts["title"] == "Layout benchmark report"
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

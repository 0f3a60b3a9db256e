"""report.html (plots/html.py): converted from the Markdown report's own text, self-contained.

The converter's constructs one by one (tables, escapes, verdict cells, anchors and the
contents list, figures inline as SVG with their ids kept apart, the PNG and missing-figure
fallbacks), then a whole fixture report: every heading, table row and figure of REPORT.md is
in the page, nothing outside the file is referenced, tags balance. tests/python/
test_report_browser.py opens the page in a real browser.
"""

import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

from plots import html as report_html
from plots.__main__ import main as plots_main
from tests.python.report_checks import FIXTURES, SEVERAL_GPUS, one_worker, rendered_once

SVG = ('<?xml version="1.0" encoding="utf-8" standalone="no"?>\n<!DOCTYPE svg PUBLIC "-//W3C//DTD '
       'SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n<svg xmlns:xlink='
       '"http://www.w3.org/1999/xlink" width="100pt" height="50pt" viewBox="0 0 100 50" '
       'xmlns="http://www.w3.org/2000/svg" version="1.1">\n<metadata>m</metadata>\n<defs>'
       '<style type="text/css">*{stroke-linejoin: round}</style></defs>\n<defs><clipPath id="p1">'
       '<rect x="0" y="0" width="9" height="9"/></clipPath><path id="m2" d="M0 0"/></defs>\n'
       '<g clip-path="url(#p1)"><use xlink:href="#m2" x="1" y="1"/></g>\n</svg>\n')
VOID = {"br", "meta", "img", "hr", "input", "link"}
SVG_LEAVES = {"rect", "path", "use", "line", "polyline", "circle", "stop"}


class Tags(HTMLParser):
    """Every start tag with its attributes; an error on a tag closed out of order."""

    def __init__(self):
        super().__init__()
        self.open, self.starts, self.errors = [], [], []

    def handle_starttag(self, tag, attrs):
        self.starts.append((tag, dict(attrs)))
        if tag not in VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.starts.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if not self.open or self.open[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.open[-1:]} ")
        else:
            self.open.pop()


def parsed(page):
    tags = Tags()
    tags.feed(page)
    tags.close()
    assert tags.errors == [] and [t for t in tags.open if t not in SVG_LEAVES] == []
    return tags


def test_a_table_keeps_escaped_bars_line_breaks_and_marks_verdicts():
    _, _, body = report_html.markdown_to_html(
        "| claim | verdict |\n|---|---|\n| a \\| b<br>l.3: “q” | not reproduced |\n"
        "| `x\\|y` | reproduced |\n", Path("."))
    assert "<td>a | b<br>l.3: “q”</td>" in body
    assert '<td class="verdict v-not-reproduced">not reproduced</td>' in body
    assert '<td class="verdict v-reproduced">reproduced</td>' in body
    assert body.count("<tr>") == 3 and "<code>x|y</code>" in body


def test_other_html_in_the_text_is_escaped_and_inline_marks_convert():
    _, _, body = report_html.markdown_to_html(
        "An <script>alert(1)</script> error, **bold**, *clear*, `a*b*c`, [link](#x).\n", Path("."))
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body and "<script" not in body
    assert "<strong>bold</strong>" in body and "<em>clear</em>" in body
    assert "<code>a*b*c</code>" in body and '<a href="#x">link</a>' in body


def test_headings_get_githubs_anchors_and_the_contents_list_links_each():
    title, contents, body = report_html.markdown_to_html(
        "# Report — A & B\n\n## Claims — A\n\n### Claims — A\n\n#### `file.json`\n\n"
        "## Claims — A\n", Path("."))
    assert title == "Report — A & B"
    # GitHub's: punctuation dropped, spaces as hyphens, the second "x" is "x-1"
    assert re.findall(r'<h\d id="([^"]+)"', body) == ["claims--a", "claims--a-1", "filejson",
                                                     "claims--a-2"]
    assert re.findall(r'href="#([^"]+)"', contents) == ["claims--a", "claims--a-1", "claims--a-2"]
    assert body.count('href="#contents"') == 3  # h2 and h3 link back; h4 does not
    assert report_html.slug("IDW interpolation layouts (Mei & Tian 2016)") == \
        "idw-interpolation-layouts-mei--tian-2016"
    parsed(contents)


def test_the_contents_follow_the_summary_and_footnotes_and_details_open_in_place():
    page = report_html.render_page(
        "# R\n\n## Summary\n\nthe answer\n\n## Next\n\n| claim | verdict |\n|---|---|\n"
        "| a claim[^idw-a] | reproduced |\n\n[^idw-a]: `a`. l.3: “the quote”\n\n<details>\n"
        "<summary>2 rows</summary>\n\n| x |\n|---|\n| 1 |\n\n</details>\n", Path("."))
    assert page.index('id="summary"') < page.index('id="contents"') < page.index('id="next"')
    assert ('<td>a claim<details class="note"><summary>source and note</summary><code>a</code>. '
            "l.3: “the quote”</details></td>") in page
    assert "[^idw-a]" not in page
    assert '<details class="section">\n<summary>2 rows</summary>' in page and "</details>" in page
    parsed(page)


def test_a_figure_goes_inline_as_svg_with_its_ids_its_own(tmp_path):
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "a.svg").write_text(SVG)
    text = ("![Fig. 1 — a](figures/a.png) ([SVG](figures/a.svg))\n\n"
            "![Fig. 2 — the same drawing](figures/a.png) ([SVG](figures/a.svg))\n")
    _, _, body = report_html.markdown_to_html(text, tmp_path)
    assert "<?xml" not in body and "DOCTYPE" not in body and "<style" not in body
    assert 'id="f1-p1"' in body and 'url(#f1-p1)' in body and 'href="#f1-m2"' in body
    assert 'id="f2-p1"' in body and 'url(#f2-p1)' in body and 'href="#f2-m2"' in body
    assert 'aria-label="Fig. 1 — a"' in body and "<figcaption>Fig. 2 — the same drawing" in body
    ids = [attrs["id"] for _, attrs in parsed(body).starts if "id" in attrs]
    assert len(ids) == len(set(ids)) == 6


def test_a_figure_without_svg_is_a_png_data_uri_and_without_either_says_so(tmp_path):
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "b.png").write_bytes(b"\x89PNG\r\n\x1a\nfake")
    _, _, body = report_html.markdown_to_html(
        "![B](figures/b.png) ([SVG](figures/b.svg))\n\n![C](figures/c.png) ([SVG](figures/c.svg))\n",
        tmp_path)
    assert '<img alt="B" src="data:image/png;base64,iVBORw0KGgpmYWtl">' in body
    assert '<p class="missing">figure not drawn: <code>figures/c.png</code></p>' in body


@one_worker(SEVERAL_GPUS)
def test_the_report_page_holds_every_heading_row_and_figure_of_report_md(tmp_path_factory):
    folder, stdout = rendered_once(SEVERAL_GPUS, tmp_path_factory)
    markdown = (folder / "REPORT.md").read_text(encoding="utf-8")
    page = (folder / "report.html").read_text(encoding="utf-8")
    assert f"wrote {folder / 'report.html'}" in stdout

    tags = parsed(page)
    names = [tag for tag, _ in tags.starts]
    headings = re.findall(r"^#{2,6} ", markdown, re.M)
    assert sum(n in ("h2", "h3", "h4", "h5", "h6") for n in names) == len(headings) + 1  # + Contents
    rows = [line for line in markdown.splitlines() if line.startswith("|")
            and not re.match(r"^\|(-{3,}\|)+$", line)]
    assert names.count("tr") == len(rows)
    assert names.count("figure") == markdown.count("\n![") > 0
    assert names.count("svg") == names.count("figure")
    # Self-contained: no script, no style sheet, font or image from anywhere else.
    assert "script" not in names and "link" not in names and "iframe" not in names
    for tag, attrs in tags.starts:
        for key in ("src", "href", "xlink:href"):
            if key in attrs:
                assert attrs[key].startswith(("#", "data:")), (tag, attrs)
    assert not re.search(r"url\((?!#)", page) and "@import" not in page
    assert "@media print" in page and "max-width" in page


def test_report_only_writes_no_page(tmp_path):
    folder = tmp_path / "run"
    shutil.copytree(FIXTURES / "idw_quick", folder)
    assert plots_main(["--report-only", str(folder)]) == 0
    assert (folder / "REPORT.md").is_file() and not (folder / "report.html").exists()


@pytest.mark.parametrize("text", ["", "plain words only\n", "## Heading without a title\n",
                                  "### A section before any part\n\n## A part\n"])
def test_a_page_without_a_title_still_has_its_contents_and_a_title(text):
    page = report_html.render_page(text, Path("."))
    assert "<title>Layout benchmark report</title>" in page and 'id="contents"' in page
    tags = parsed(page)
    nested = [n for n, _ in tags.starts if n in ("ul", "li")]
    assert all(a != "ul" or b != "ul" for a, b in zip(nested, nested[1:]))  # a list in an item

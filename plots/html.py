"""report.html: the Markdown report (REPORT.md, COMPARE.md) as one self-contained page to send.

The page is converted from the very text the Markdown report writes (no second source of
truth), by a small converter for the subset plots/ writes: ATX headings, paragraphs, `- `
lists, pipe tables (`\\|` escapes a bar, `<br>` breaks a cell's line), inline code, bold,
italic, links, footnotes (`[^label]` in the text and `[^label]: note` on a line of its
own: in the page, a block that opens where the reference stands), collapsed sections (the
lines `<details>`, `<summary>text</summary>` and `</details>` alone), and figures (`![title](figures/x.png) ([SVG](figures/x.svg))`), which go
inline as SVG (their ids prefixed per figure, so two figures never share one), or as a
base64 PNG where only the PNG exists. Any other HTML in the text is escaped. The page loads
nothing (no script, font, style sheet or image from elsewhere); a contents list, placed
after the first section (the summary), links every section, each section links back; anchors
are GitHub's (a Markdown link `#anchor` in the report works there and in the page); it reads on a laptop screen (a bounded width,
tables that scroll sideways) and prints (print CSS: no scrolling, figures kept whole).
"""

import base64
import html
import re
from dataclasses import dataclass, field
from pathlib import Path

from plots.claims.verdicts import VERDICTS

TOC_LEVELS = (2, 3)  # the headings the contents list names
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FIGURE = re.compile(r"^!\[(?P<title>[^\]]*)\]\((?P<png>[^)\s]+)\)(?:\s*\(\[SVG\]\((?P<svg>[^)\s]+)\)\))?$")
_TABLE_RULE = re.compile(r"^\|(\s*:?-{3,}:?\s*\|)+$")
_CODE = re.compile(r"`([^`]+)`")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
_BOLD = re.compile(r"\*\*(?!\s)(.+?)(?<!\s)\*\*")
_ITALIC = re.compile(r"(?<![\w*])\*(?![\s*])([^*]+?)(?<![\s*])\*(?![\w*])")
_SVG_ID = re.compile(r'\bid="([^"]+)"')
_FOOTNOTE_DEFINITION = re.compile(r"^\[\^([^\]\s]+)\]:\s*(.*)$")
_FOOTNOTE = re.compile(r"\[\^([^\]\s]+)\]")
_SUMMARY = re.compile(r"^<summary>(.*)</summary>$")
_PLACEHOLDER = "\x00{}\x00"

STYLE = """
:root { color-scheme: light; --ink: #1b1f24; --muted: #57606a; --rule: #d0d7de;
        --band: #f6f8fa; --accent: #0b57d0; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #fff; line-height: 1.5;
       font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
.page { max-width: 72rem; margin: 0 auto; padding: 1rem 1.5rem 4rem; }
h1 { font-size: 1.8rem; margin: 0.5rem 0 1rem; }
h2 { font-size: 1.4rem; margin-top: 2.5rem; padding-top: 0.5rem; border-top: 2px solid var(--rule); }
h3 { font-size: 1.15rem; margin-top: 2rem; }
h4 { font-size: 1rem; margin-top: 1.5rem; }
a { color: var(--accent); }
a.back { font-size: 0.8rem; font-weight: normal; margin-left: 0.75rem; text-decoration: none; }
code { font: 0.85em/1.4 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace;
       background: var(--band); padding: 0.05em 0.3em; border-radius: 3px; overflow-wrap: anywhere; }
nav.toc { background: var(--band); border: 1px solid var(--rule); border-radius: 6px;
          padding: 0.5rem 1rem; margin: 1rem 0 2rem; }
nav.toc h2 { border: 0; margin: 0.5rem 0; padding: 0; font-size: 1.1rem; }
nav.toc ul { margin: 0.2rem 0; padding-left: 1.2rem; }
nav.toc > ul { columns: 2 22rem; }
nav.toc li { break-inside: avoid; }
.table-wrap { overflow-x: auto; margin: 1rem 0; border: 1px solid var(--rule); border-radius: 6px; }
table { border-collapse: collapse; font-size: 0.85rem; min-width: 100%; }
th, td { border-bottom: 1px solid var(--rule); padding: 0.3rem 0.5rem; text-align: left;
         vertical-align: top; }
th { background: var(--band); position: sticky; top: 0; }
tr:nth-child(even) td { background: #fbfcfd; }
td { min-width: 5rem; }
td:first-child { min-width: 14rem; }  /* the claim, the benchmark: what a row is about */
td.verdict { font-weight: 600; white-space: nowrap; }
td.v-reproduced { color: #116329; }
td.v-not-reproduced { color: #a40e26; }
td.v-inconclusive { color: #7d4e00; }
td.v-not-transferable { color: #4b3a8c; }
td.v-not-measured { color: var(--muted); }
details.note { font-size: 0.8rem; color: var(--muted); margin-top: 0.2rem; }
details.note > summary { cursor: pointer; }
details.section { margin: 1rem 0; }
details.section > summary { cursor: pointer; font-weight: 600; }
figure { margin: 1.5rem 0; text-align: center; }
figure svg, figure img { display: block; margin: 0 auto; max-width: 100%; height: auto; }
figure svg * { stroke-linejoin: round; stroke-linecap: butt; }
figcaption { color: var(--muted); font-size: 0.9rem; margin-top: 0.3rem; }
p.missing { color: #a40e26; }
@media (max-width: 40rem) { .page { padding: 0.5rem; } nav.toc > ul { columns: 1; } }
@media print {
  body { font-size: 10pt; }
  .page { max-width: none; padding: 0; }
  a { color: inherit; text-decoration: none; }
  a.back { display: none; }
  nav.toc { break-after: page; border: 0; }
  .table-wrap { overflow: visible; border: 0; }
  table { font-size: 7.5pt; }
  th { position: static; }
  td, th { overflow-wrap: anywhere; }
  td, td:first-child { min-width: 0; }
  tr, figure { break-inside: avoid; }
  h2, h3, h4 { break-after: avoid; }
  figure svg, figure img { max-height: 24cm; width: auto; }
}
"""


@dataclass
class _Page:
    """What the converter collects while it walks the text."""

    figures_root: Path
    ids: dict = field(default_factory=dict)  # anchor -> times used
    toc: list = field(default_factory=list)  # (level, anchor, title html)
    figure_count: int = 0
    title: str = ""
    h2_count: int = 0
    notes: dict = field(default_factory=dict)  # footnote label -> its text


def markdown_to_html(text, figures_root):
    """(title, contents list html, body html) of the Markdown `text`; figure links are read
    relative to `figures_root` (the folder the Markdown report is in)."""
    page = _Page(Path(figures_root))
    blocks, lines = [], []
    for line in text.splitlines():  # footnotes open where they are referenced
        definition = _FOOTNOTE_DEFINITION.match(line)
        if definition:
            page.notes[definition.group(1)] = definition.group(2)
        else:
            lines.append(line)
    k = 0
    while k < len(lines):
        line = lines[k]
        if not line.strip():
            k += 1
            continue
        heading = _HEADING.match(line)
        figure = _FIGURE.match(line.strip())
        if line.strip() in ("<details>", "</details>") or _SUMMARY.match(line.strip()):
            blocks.append(_details_line(page, line.strip()))
            k += 1
        elif heading:
            blocks.append(_heading(page, len(heading.group(1)), heading.group(2)))
            k += 1
        elif figure:
            blocks.append(_figure(page, figure["title"], figure["png"], figure["svg"]))
            k += 1
        elif _is_table_start(lines, k):
            end = k + 2
            while end < len(lines) and lines[end].lstrip().startswith("|"):
                end += 1
            blocks.append(_table(lines[k], lines[k + 2:end], page.notes))
            k = end
        elif line.startswith("- "):
            items = []
            while k < len(lines) and (lines[k].startswith("- ") or
                                      (items and lines[k].startswith("  ") and lines[k].strip())):
                if lines[k].startswith("- "):
                    items.append(lines[k][2:])
                else:
                    items[-1] += " " + lines[k].strip()
                k += 1
            blocks.append("<ul>\n" + "\n".join(f"<li>{inline(i, page.notes)}</li>" for i in items)
                          + "\n</ul>")
        else:
            paragraph = []
            while k < len(lines) and lines[k].strip() and not _starts_block(lines, k):
                paragraph.append(lines[k].strip())
                k += 1
            blocks.append(f"<p>{inline(' '.join(paragraph), page.notes)}</p>")
    return page.title, _contents(page), "\n".join(blocks)


def render_page(text, figures_root):
    """The whole self-contained document of the Markdown `text`."""
    title, contents, body = markdown_to_html(text, figures_root)
    marker = _PLACEHOLDER.format("toc")
    body = body.replace(marker, contents, 1) if marker in body else contents + "\n" + body
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{html.escape(title or 'Layout benchmark report')}</title>\n"
            f"<style>{STYLE}</style>\n</head>\n<body>\n<div class=\"page\">\n"
            f"{body}\n</div>\n</body>\n</html>\n")


def write_html(text, out_dir, write_atomically, name="report.html"):
    """Write `<out_dir>/<name>` from the Markdown text written beside it; return its path."""
    page = render_page(text, out_dir)
    return write_atomically(Path(out_dir) / name,
                            lambda temp: Path(temp).write_text(page, encoding="utf-8"))


def inline(text, notes=None):
    """One line of Markdown as HTML: code spans kept literal, then links, bold, italic;
    everything else escaped (a `<br>` the tables write is kept as a line break); a footnote
    reference whose text `notes` holds becomes a block that opens to it."""
    stash = []

    def keep(fragment):
        stash.append(fragment)
        return _PLACEHOLDER.format(len(stash) - 1)

    if notes:
        text = _FOOTNOTE.sub(lambda m: keep(_note(notes[m.group(1)])) if m.group(1) in notes
                             else m.group(0), text)
    text = _CODE.sub(lambda m: keep(f"<code>{html.escape(m.group(1))}</code>"), text)
    text = html.escape(text).replace("&lt;br&gt;", "<br>")
    text = text.replace("\\|", "|")
    text = _LINK.sub(lambda m: keep(f'<a href="{m.group(2)}">{m.group(1)}</a>'), text)
    text = _BOLD.sub(r"<strong>\1</strong>", text)
    text = _ITALIC.sub(r"<em>\1</em>", text)
    return re.sub("\x00(\\d+)\x00", lambda m: stash[int(m.group(1))], text)


def _note(text):
    return (f'<details class="note"><summary>source and note</summary>{inline(text)}'
            "</details>")


def _details_line(page, line):
    """A collapsed section's own lines: `<details>`, `<summary>…</summary>`, `</details>`."""
    summary = _SUMMARY.match(line)
    if summary:
        return f"<summary>{inline(summary.group(1), page.notes)}</summary>"
    return '<details class="section">' if line == "<details>" else "</details>"


def slug(text):
    """A heading's anchor as GitHub makes it (so a Markdown link `#anchor` of the report works
    on GitHub and in the page): the plain text in lower case, every character but letters,
    digits, `_`, `-` and spaces dropped, spaces as hyphens."""
    plain = html.unescape(re.sub(r"<[^>]+>", "", text)).strip().lower()
    return re.sub(r"[^\w\- ]", "", plain).replace(" ", "-") or "section"


def _heading(page, level, text):
    body = inline(text)
    if level == 1:
        page.title = page.title or html.unescape(re.sub(r"<[^>]+>", "", body))
        return f"<h1>{body}</h1>"
    anchor = slug(body)
    page.ids[anchor] = page.ids.get(anchor, 0) + 1
    if page.ids[anchor] > 1:  # GitHub's: the second "x" is "x-1"
        anchor = f"{anchor}-{page.ids[anchor] - 1}"
    contents = ""
    if level == 2:
        page.h2_count += 1
        if page.h2_count == 2:  # the contents list follows the first section (the summary)
            contents = _PLACEHOLDER.format("toc") + "\n"
    back = ' <a class="back" href="#contents" title="back to the contents">↑ contents</a>' \
        if level in TOC_LEVELS else ""
    if level in TOC_LEVELS:
        page.toc.append((level, anchor, body))
    return f'{contents}<h{level} id="{anchor}">{body}{back}</h{level}>'


def _contents(page):
    if not page.toc:
        return '<nav class="toc" id="contents"></nav>'
    out, depth = ['<nav class="toc" id="contents">', "<h2>Contents</h2>"], 0
    for level, anchor, body in page.toc:
        rank = TOC_LEVELS.index(level) + 1
        if rank > depth:  # a level skipped (an h3 before any h2) still sits in an item
            out += ["<ul>"] + ["<li><ul>"] * (rank - depth - 1)
        elif rank < depth:
            out += ["</li></ul>"] * (depth - rank) + ["</li>"]
        else:
            out.append("</li>")
        depth = rank
        out.append(f'<li><a href="#{anchor}">{_strip_links(body)}</a>')
    out += ["</li></ul>"] * depth + ["</nav>"]
    return "\n".join(out)


def _strip_links(body):
    return re.sub(r"</?a\b[^>]*>", "", body)


def _figure(page, title, png, svg):
    page.figure_count += 1
    number = page.figure_count
    caption = f"<figcaption>{inline(title)}</figcaption>"
    svg_path = page.figures_root / (svg or str(Path(png).with_suffix(".svg")))
    png_path = page.figures_root / png
    if svg_path.is_file():
        drawing = inline_svg(svg_path.read_text(encoding="utf-8"), f"f{number}-",
                             html.escape(title))
    elif png_path.is_file():
        data = base64.b64encode(png_path.read_bytes()).decode("ascii")
        drawing = f'<img alt="{html.escape(title)}" src="data:image/png;base64,{data}">'
    else:
        return (f'<figure id="figure-{number}"><p class="missing">figure not drawn: '
                f"<code>{html.escape(png)}</code></p>{caption}</figure>")
    return f'<figure id="figure-{number}">\n{drawing}\n{caption}</figure>'


def inline_svg(svg, prefix, title):
    """Matplotlib's SVG file as an element of the page: no XML prologue, its ids (clip
    paths, markers) and their references prefixed so figures cannot capture each other's,
    its own style sheet dropped (the page's applies the same to every figure), a title."""
    svg = svg[svg.index("<svg"):]
    svg = re.sub(r"<style[^>]*>.*?</style>", "", svg, flags=re.S)
    svg = re.sub(r"<metadata>.*?</metadata>", "", svg, flags=re.S)
    for name in dict.fromkeys(_SVG_ID.findall(svg)):
        svg = (svg.replace(f'id="{name}"', f'id="{prefix}{name}"')
               .replace(f"url(#{name})", f"url(#{prefix}{name})")
               .replace(f'href="#{name}"', f'href="#{prefix}{name}"'))
    return re.sub(r"<svg\b([^>]*)>", lambda m: f'<svg{m.group(1)} role="img" aria-label="{title}">',
                  svg, count=1).strip()


def _is_table_start(lines, k):
    return (lines[k].lstrip().startswith("|") and k + 1 < len(lines)
            and bool(_TABLE_RULE.match(lines[k + 1].strip())))


def _starts_block(lines, k):
    line = lines[k]
    return bool(_HEADING.match(line) or _FIGURE.match(line.strip()) or line.startswith("- ")
                or _is_table_start(lines, k))


def table_cells(row):
    """A pipe table row's cells; `\\|` is a bar inside a cell, not a border."""
    row = row.strip()
    row = row[1:] if row.startswith("|") else row
    row = row[:-1] if row.endswith("|") and not row.endswith("\\|") else row
    return [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", row)]


def _table(header, rows, notes=None):
    head = "".join(f"<th>{inline(c)}</th>" for c in table_cells(header))
    body = []
    for row in rows:
        cells = []
        for cell in table_cells(row):
            verdict = cell if cell in VERDICTS else None
            css = f' class="verdict v-{verdict.replace(" ", "-")}"' if verdict else ""
            cells.append(f"<td{css}>{inline(cell, notes)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return ('<div class="table-wrap"><table>\n<thead><tr>' + head + "</tr></thead>\n<tbody>\n"
            + "\n".join(body) + "\n</tbody></table></div>")

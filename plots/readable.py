"""Checks that a laid-out figure reads: every text at least MIN_FONT_PT at the saved size,
no two tick labels of one axis on top of each other (or closer than 2 pt), every legend entry in its own style,
every time and speedup plot with error bars (from the repetitions: figures.time_errorbar
and figures.ratio_errorbar draw them), every tick of an irregular axis labelled and no legend
over data.

save_figure runs them on every figure it writes and warns (UnreadableFigure) for each
problem; the tests turn the warning into a failure. Each check takes a figure that has been
drawn (fig.draw_without_rendering()) and returns [(check, message)].
"""

import itertools
import math
import re

import matplotlib.text
from matplotlib.collections import Collection
from matplotlib.colors import to_rgba
from matplotlib.container import BarContainer, ErrorbarContainer
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FixedLocator
from matplotlib.transforms import Bbox

MIN_FONT_PT = 8  # points at the figure's saved size (a point is 1/72 in whatever the dpi)
# report.html shows a figure at most this wide (CSS px: its column at a 1280 px screen,
# plots/html.py's .page, 72rem less 2 × 1.5rem padding), scaling a wider one down; its text
# must still be MIN_PAGE_PX there (tests/python/test_report_browser.py measures it).
PAGE_COLUMN_PX = 1104
MIN_PAGE_PX = 8.0
CSS_PX_PER_IN = 96
# Tick labels closer than this run together ("4096K32768K") even where they do not overlap.
MIN_TICK_GAP_PT = 2.0
# A time axis says so in its label: "time (ms)", "computing time (s)", "time per element (ps)";
# a speedup axis too ("speedup over AoS (×)"). Both draw medians of repetitions: whiskers due.
TIME_LABEL = re.compile(r"\btime\b[^/]*\((s|ms|µs|ns|ps)\)\s*$|\bspeedup\b")

SMALL_TEXT = "text under 8 pt"
SMALL_IN_PAGE = "text under 8 px in report.html"
OVERLAPPING_TICKS = "overlapping tick labels"
LEGEND_STYLES = "legend entries sharing a style"
NO_ERROR_BARS = "time or speedup plot without error bars"
UNLABELLED_TICKS = "unlabelled tick on an irregular axis"
LEGEND_OVER_DATA = "legend over data"
CHECKS = (SMALL_TEXT, SMALL_IN_PAGE, OVERLAPPING_TICKS, LEGEND_STYLES, NO_ERROR_BARS,
          UNLABELLED_TICKS, LEGEND_OVER_DATA)
# Ticks whose gaps differ by more than this share of their mean are irregular.
EVEN_TICKS = 0.01


class UnreadableFigure(UserWarning):
    """A figure breaks one of the readability checks (tests turn this warning into an error)."""


def problems(fig):
    """Every check's problems of a drawn figure: [(check, message)]."""
    return (small_texts(fig) + small_in_page(fig) + overlapping_ticks(fig) + shared_legend_styles(fig)
            + time_plots_without_error_bars(fig) + unlabelled_irregular_ticks(fig)
            + legends_over_data(fig))


def drawn_texts(fig):
    """The visible, non-empty texts draw() puts on the figure (spare and out-of-view tick
    labels left out)."""
    skipped = {id(label) for ax in fig.axes for labels in undrawn_tick_labels(ax)
               for label in labels}
    return [t for t in fig.findobj(matplotlib.text.Text)
            if t.get_visible() and t.get_text().strip() and id(t) not in skipped]


def small_texts(fig):
    return [(SMALL_TEXT, f"{t.get_text()!r} at {t.get_fontsize():g} pt")
            for t in drawn_texts(fig) if t.get_fontsize() < MIN_FONT_PT - 1e-9]


def page_scale(fig):
    """The factor report.html draws the figure at: 1, or less where it is wider than the column."""
    return min(1.0, PAGE_COLUMN_PX / (fig.get_figwidth() * CSS_PX_PER_IN))


def small_in_page(fig):
    """Texts under MIN_PAGE_PX as report.html draws them (a wide figure is scaled down); one
    problem per figure, naming its smallest text."""
    scale = page_scale(fig) * CSS_PX_PER_IN / 72  # CSS px per point in the page
    small = [(t.get_fontsize() * scale, t.get_text()) for t in drawn_texts(fig)
             if t.get_fontsize() * scale < MIN_PAGE_PX - 1e-9]
    if not small:
        return []
    size, text = min(small)
    return [(SMALL_IN_PAGE, f"{len(small)} text(s), the smallest {text!r} at {size:.1f} px: the "
             f"figure is {fig.get_figwidth():.1f} in wide, drawn at {page_scale(fig):.0%} in "
             f"the page's {PAGE_COLUMN_PX} px")]


def overlapping_ticks(fig):
    renderer = fig.canvas.get_renderer()
    found = []
    for ax in fig.axes:
        if ax.name == "3d":  # placed by the projection at draw time; 2-D extents mislead
            continue
        for name, axis in ax._axis_map.items():
            labels = [label for tick in axis._update_ticks()
                      for label in (tick.label1, tick.label2)
                      if label.get_visible() and label.get_text().strip()]
            boxes = [(label.get_text(), label.get_window_extent(renderer)) for label in labels]
            gap = MIN_TICK_GAP_PT * fig.dpi / 72  # extents are in pixels at the figure's dpi
            for (a, box_a), (b, box_b) in itertools.combinations(boxes, 2):
                if _overlap(box_a, box_b, gap):
                    found.append((OVERLAPPING_TICKS, f"{name} axis of {_axes_name(ax)}: "
                                  f"{a!r} and {b!r}"))
    return found


def shared_legend_styles(fig):
    found = []
    for legend in _legends(fig):
        seen = {}
        for label, handle in _legend_entries(legend):
            style = style_of(handle)
            if style in seen:
                found.append((LEGEND_STYLES, f"{seen[style]!r} and {label!r} both drawn as "
                              f"{_style_text(style)}"))
            else:
                seen[style] = label
    return found


def time_plots_without_error_bars(fig):
    """Each line of data on an axis labelled as a time or a speedup must be an error bar's
    line."""
    found = []
    for ax in fig.axes:
        if ax.name == "3d" or not TIME_LABEL.search(ax.get_ylabel()):
            continue
        with_bars, caps = set(), set()
        for container in ax.containers:
            if isinstance(container, ErrorbarContainer):
                data_line, cap_lines, _ = container.lines
                if container.has_yerr:
                    with_bars.add(id(data_line))
                caps.update(id(c) for c in cap_lines)
        for line in ax.lines:
            if (line.get_transform() is ax.transData and len(line.get_xdata())
                    and id(line) not in with_bars and id(line) not in caps):
                found.append((NO_ERROR_BARS, f"{_axes_name(ax)}: line "
                              f"{line.get_label()!r} ({len(line.get_xdata())} points)"))
    return found


def unlabelled_irregular_ticks(fig):
    """A tick without a label on an axis whose ticks are placed by hand (at measured sizes)
    and not evenly spaced: a reader cannot tell what the unlabelled one stands for."""
    found = []
    for ax in fig.axes:
        if ax.name == "3d":
            continue
        for name, axis in ax._axis_map.items():
            if not isinstance(axis.get_major_locator(), FixedLocator):
                continue
            ticks = [t for t in axis._update_ticks() if t in axis.get_major_ticks()
                     and t.label1.get_visible()]
            if len(ticks) < 3 or not any(t.label1.get_text().strip() for t in ticks):
                continue
            where = sorted(axis.get_transform().transform([t.get_loc() for t in ticks]))
            gaps = [b - a for a, b in zip(where, where[1:])]
            mean = sum(gaps) / len(gaps)
            if all(abs(g - mean) <= EVEN_TICKS * abs(mean) for g in gaps):
                continue
            bare = [t.get_loc() for t in ticks if not t.label1.get_text().strip()]
            if bare:
                found.append((UNLABELLED_TICKS, f"{name} axis of {_axes_name(ax)}: "
                              f"{', '.join(f'{v:g}' for v in bare)} without a label"))
    return found


def legends_over_data(fig):
    """A legend drawn over a data line, marker or bar of the axes it sits in (or, for a
    figure's legend, of any axes)."""
    return [(LEGEND_OVER_DATA, f"the legend of {_axes_name(ax)} covers "
             f"{', '.join(map(repr, dict.fromkeys(covered)))}")
            for _, ax, covered in covering_legends(fig)]


def covering_legends(fig):
    """[(legend, axes, labels of the data it covers)] of a laid-out figure."""
    renderer = fig.canvas.get_renderer()
    found = []
    for legend in _legends(fig):
        box = legend.get_window_extent(renderer)
        for ax in [legend.parent] if legend.parent in fig.axes else fig.axes:
            covered = [label for label, points, bars in _data_of(ax)
                       if any(box.x0 < x < box.x1 and box.y0 < y < box.y1 for x, y in points)
                       or any(_overlap(box, bar, 0) for bar in bars)]
            if covered:
                found.append((legend, ax, covered))
    return found


def _data_of(ax, step_px=2.0):
    """(label, [(x, y) px], [bar boxes]) of each data line of `ax` (its markers, and its
    segments sampled every `step_px`, within the axes) and each group of bars."""
    for line in ax.lines:
        if line.get_transform() is not ax.transData or not len(line.get_xdata()):
            continue
        xy = [p for p in line.get_transform().transform(line.get_xydata())
              if all(map(math.isfinite, p))]
        points = list(map(tuple, xy))
        if line.get_linestyle() not in ("None", "", " "):
            for (x0, y0), (x1, y1) in zip(xy, xy[1:]):
                steps = max(1, int(math.hypot(x1 - x0, y1 - y0) / step_px))
                points += [(x0 + (x1 - x0) * k / steps, y0 + (y1 - y0) * k / steps)
                           for k in range(1, steps)]
        inside = ax.bbox
        yield _label_of(line, ax), [(x, y) for x, y in points if inside.x0 <= x <= inside.x1
                                 and inside.y0 <= y <= inside.y1], []
    for container in ax.containers:
        if isinstance(container, BarContainer):
            boxes = [Bbox.intersection(patch.get_window_extent(), ax.bbox)
                     for patch in container.patches]
            yield container.get_label(), [], [b for b in boxes
                                              if b is not None and b.width > 0 and b.height > 0]


def _label_of(line, ax):
    """A line's legend label, or that of the error bar it draws."""
    for container in ax.containers:
        if isinstance(container, ErrorbarContainer) and container.lines[0] is line:
            return container.get_label()
    return line.get_label()


def style_of(handle):
    """(colour, marker, line style) a legend entry shows; for a patch (bars) its face,
    edge and hatch."""
    if isinstance(handle, ErrorbarContainer):
        handle = handle.lines[0]
    elif isinstance(handle, BarContainer):
        handle = handle.patches[0]
    if isinstance(handle, Line2D):
        marker = handle.get_marker()
        marker = None if marker in ("", "None", " ", None) else (
            marker, handle.get_fillstyle(), to_rgba(handle.get_markerfacecolor()))
        line = handle.get_linestyle()
        line = None if line in ("None", "", " ") else line
        return ("line", to_rgba(handle.get_color()), marker, line)
    if isinstance(handle, Patch):
        return ("patch", to_rgba(handle.get_facecolor()), to_rgba(handle.get_edgecolor()),
                handle.get_hatch())
    if isinstance(handle, Collection):
        return ("collection", tuple(map(tuple, handle.get_facecolor())),
                tuple(map(tuple, handle.get_edgecolor())), tuple(handle.get_paths()[:1]))
    return ("other", id(handle))


def _legends(fig):
    return [ax.get_legend() for ax in fig.axes if ax.get_legend()] + list(fig.legends)


def _legend_entries(legend):
    """(label, the artist it stands for): the plotted artists when the legend was made from
    its axes' labels (an error bar's legend artist is its bar, not its line), else the
    legend's own handles."""
    labels = [t.get_text() for t in legend.get_texts()]
    parent = legend.parent
    if hasattr(parent, "get_legend_handles_labels"):
        handles, own = parent.get_legend_handles_labels()
        if own == labels:
            return list(zip(labels, handles))
    return list(zip(labels, legend.legend_handles))


def undrawn_tick_labels(ax):
    """(label1, label2) of each tick draw() skips: spare Tick objects, ticks out of view."""
    for axis in ax._axis_map.values():
        drawn = axis._update_ticks()
        for tick in axis.get_major_ticks() + axis.get_minor_ticks():
            if tick not in drawn:
                yield (tick.label1, tick.label2)


def _overlap(a, b, gap):
    """Whether two boxes overlap or come closer than `gap` (px) side by side."""
    return (a.x0 < b.x1 + gap and b.x0 < a.x1 + gap
            and a.y0 < b.y1 + gap and b.y0 < a.y1 + gap)


def _axes_name(ax):
    return repr(ax.get_title() or ax.get_label() or "axes")


def _style_text(style):
    kind, *rest = style
    if kind == "line":
        colour, marker, line = rest
        return (f"colour {colour}, marker {marker[0] if marker else 'none'}"
                f"{' ' + marker[1] if marker else ''}, line {line or 'none'}")
    return f"{kind} {rest[:2]}"

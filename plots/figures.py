"""Shared figure plumbing: atomic PNG+SVG files, "not measured" panels, size axes, sections.

Paper modules draw; this module makes sure a figure is either fully written or not at all,
that every paper's figures look alike (size axis, units, missing-data panels, points that
did not run) and that they read: time axes in one unit (linear below a decade, plain log
labels above), ratio axes of at least 1 ± RATIO_MIN_SPAN, whiskers from the repetitions,
tick labels kept apart, text of at least SMALL points; save_figure warns (UnreadableFigure)
where a figure still breaks one of plots/readable.py's checks.
"""

import contextlib
import math
import os
import tempfile
import textwrap
import warnings
import weakref
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
import matplotlib.text  # noqa: E402
import matplotlib.ticker  # noqa: E402
from matplotlib.transforms import ScaledTranslation, blended_transform_factory  # noqa: E402

from plots import readable  # noqa: E402
from plots.estimates import time_bounds  # noqa: E402
from plots.text import TIME_UNITS, does_not_run, size_label, time_unit  # noqa: E402

FORMATS = ("png", "svg")
SAVED_DPI = 120  # the PNG's; text sizes are in points, the same at any dpi
_drawing = [True]  # False inside report_only(): figures are laid out but never drawn or written
_inspectors = []  # inspecting(): callbacks given each figure save_figure writes
# What the drawing helpers leave on a figure or panel for save_figure and figure_section:
_not_measured = weakref.WeakKeyDictionary()  # panel -> why mark_not_measured emptied it
_notes = weakref.WeakKeyDictionary()  # figure -> the notes written under it (figure_note)
_staggered_in = weakref.WeakKeyDictionary()  # panel -> inches its tick labels' second line adds
plt.rcParams["svg.hashsalt"] = "layout-bench"  # stable SVG ids: reruns diff cleanly
plt.rcParams["svg.fonttype"] = "none"  # text stays text: smaller, searchable SVGs
SMALL = readable.MIN_FONT_PT  # legends, cell texts, dense tick labels: the smallest allowed
plt.rcParams["legend.fontsize"] = SMALL
plt.rcParams["legend.title_fontsize"] = SMALL
# A ratio axis always shows 1 ± RATIO_MIN_SPAN at least (and a time axis its middle ± as
# much): autoscaled to the data, a 1 % difference would fill the panel and read as a large one.
RATIO_MIN_SPAN = 0.05
# A time axis is linear while its data spans less than this factor (about a decade): one
# unit (µs, ms) and plain numbers read better than a log axis's 4.4×10⁻¹.
LINEAR_TIME_RANGE = 10.0
AXIS_TIME_UNITS = TIME_UNITS + (("ps", 1e-12),)  # a time per element can be picoseconds
# The widest figure whose SMALL text report.html still draws at readable.MIN_PAGE_PX (15.3 in).
PAGE_WIDTH_IN = (readable.PAGE_COLUMN_PX / readable.CSS_PX_PER_IN
                 / (readable.MIN_PAGE_PX / (SMALL * readable.CSS_PX_PER_IN / 72)))


@dataclass(frozen=True)
class Section:
    """A part of the report a paper module produced: text/tables plus its figures.

    `figures` are PNG paths; each has an SVG sibling. The report embeds them relative to
    itself, so paper modules need not know where the report lives.
    """

    heading: str
    body: str
    figures: tuple = ()


def write_atomically(path, write):
    """Call write(temp_path) next to `path`, then rename: no half-written file survives."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(handle)
    try:
        write(temp)
        os.chmod(temp, 0o644)  # mkstemp makes it private; results are meant to be shared
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise
    return path


UnreadableFigure = readable.UnreadableFigure


class TextOutsideFigure(UserWarning):
    """A figure's text runs past its edge (tests turn this warning into an error)."""


def texts_outside(fig, tolerance_px=1.0):
    """The drawn, non-empty texts of `fig` whose extent leaves the figure: [(text, bbox)]."""
    fig.draw_without_rendering()  # lays every text out; rendering pixels would only cost
    renderer = fig.canvas.get_renderer()
    unchecked = _unchecked_tick_labels(fig)
    edge = fig.bbox
    outside = []
    for text in fig.findobj(matplotlib.text.Text):
        if (not text.get_visible() or not text.get_text().strip() or id(text) in unchecked
                or _clipped_or_3d(text)):
            continue
        box = text.get_window_extent(renderer)
        if (box.x0 < edge.x0 - tolerance_px or box.y0 < edge.y0 - tolerance_px
                or box.x1 > edge.x1 + tolerance_px or box.y1 > edge.y1 + tolerance_px):
            outside.append((text.get_text(), box))
    return outside


def _unchecked_tick_labels(fig):
    """ids of tick labels not to check: those draw() skips (an axis keeps spare Tick
    objects, and ticks beyond its view limits, undrawn) and those of 3-D axes (placed by
    the projection at draw time; their 2-D extent is not where they are drawn)."""
    unchecked = set()
    for ax in fig.axes:
        undrawn = {id(label) for labels in readable.undrawn_tick_labels(ax) for label in labels}
        for axis in ax._axis_map.values():
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                for label in (tick.label1, tick.label2):
                    if ax.name == "3d" or id(label) in undrawn or not label.get_visible():
                        unchecked.add(id(label))
    return unchecked


def _clipped_or_3d(text):
    """A clipped text stays inside its axes; a 3-D text's 2-D extent is not where it is drawn."""
    clipped = text.get_clip_on() and text.get_clip_box() is not None
    return clipped or type(text).__name__ == "Text3D"


def drawing():
    """False inside report_only(): no figure (nor anything built from them) is written."""
    return _drawing[-1]


@contextlib.contextmanager
def report_only():
    """Inside: save_figure writes no file (and draws nothing), only returns the path it
    would write, so a report's text comes out without the cost of its figures."""
    _drawing.append(False)
    try:
        yield
    finally:
        _drawing.pop()


@contextlib.contextmanager
def inspecting(inspect):
    """Inside: save_figure hands each figure it writes, as saved, and its readability
    problems [(check, message)] to inspect(stem, fig, problems) (the tests read them)."""
    _inspectors.append(inspect)
    try:
        yield
    finally:
        _inspectors.remove(inspect)


def save_figure(fig, figures_dir, stem):
    """Write `<stem>.png` and `<stem>.svg`; close the figure; return the PNG path.

    Warns (TextOutsideFigure) when a text runs past the figure's edge and (UnreadableFigure)
    for each readability problem (plots/readable.py). Inside report_only() only closes the
    figure."""
    try:
        if not _drawing[-1]:
            return Path(figures_dir) / f"{stem}.png"
        for title in [fig._suptitle] + [ax.title for ax in fig.axes]:
            if title is not None:
                title.set_wrap(True)  # a long device list wraps instead of leaving the figure
        footer = (0, _add_footer(fig), 1, 1)
        fig.tight_layout(rect=footer)
        if _move_legends_off_data(fig):
            fig.tight_layout(rect=footer)
        # Laid out once: without an engine left on the figure, savefig does not lay it out
        # (one whole draw) again for each format.
        fig.set_layout_engine(None)
        for text, box in texts_outside(fig):
            warnings.warn(f"{stem}: text {text!r} runs outside the figure ({box.x0:.0f}, "
                          f"{box.y0:.0f})-({box.x1:.0f}, {box.y1:.0f}) px, figure "
                          f"{fig.bbox.width:.0f} × {fig.bbox.height:.0f} px",
                          TextOutsideFigure, stacklevel=2)
        unreadable = readable.problems(fig)  # texts_outside drew the figure
        for check, problem in unreadable:
            warnings.warn(UnreadableFigure(f"{stem}: {check}: {problem}"), stacklevel=2)
        for fmt in FORMATS:
            metadata = {"Date": None} if fmt == "svg" else None
            write_atomically(Path(figures_dir) / f"{stem}.{fmt}",
                             lambda temp: fig.savefig(temp, format=fmt, dpi=SAVED_DPI,
                                                      metadata=metadata))
        for inspect in _inspectors:
            inspect(stem, fig, unreadable)
    finally:
        plt.close(fig)
    return Path(figures_dir) / f"{stem}.png"


def panel_grid(rows, columns, width=4.6, height=3.6):
    """A figure with a rows × columns grid of axes (always 2-D)."""
    return plt.subplots(rows, columns, squeeze=False,
                        figsize=(width * columns, height * rows + 0.6))


def panel_title(what, device, devices):
    """A panel's title; the GPU is named under it when several GPUs sit side by side."""
    return what if len(devices) == 1 else f"{what}\n{device.label}"


def devices_text(devices):
    """The GPUs of a figure and their presets, for its title."""
    return "; ".join(f"{d.label} (preset {d.preset})" for d in devices)


def figure_section(fig, figures_dir, stem, title, heading, body, devices=None, below=""):
    """Title the figure (its GPUs on the line under `title` when `devices` are given, then
    `below`), save it as `stem` and return it as a report Section. A figure whose every
    panel is "not measured" is not written: the section says so in a line instead."""
    empty = [_not_measured.get(ax, "") for ax in fig.axes if ax.get_visible()]
    if empty and all(empty):
        plt.close(fig)
        line = f"No figure ({stem}): nothing measured ({'; '.join(dict.fromkeys(empty))})."
        return Section(heading, f"{body}\n\n{line}" if body else line)
    fig.suptitle(title + ("" if devices is None else f"\n{devices_text(devices)}") + below)
    return Section(heading, body, (save_figure(fig, figures_dir, stem),))


def mark_not_measured(ax, reason):
    """Turn an empty panel into an explicit "not measured" note instead of a blank plot."""
    ax.text(0.5, 0.5, f"not measured\n({reason})", ha="center", va="center",
            transform=ax.transAxes, fontsize=10, color="0.35", wrap=True)
    ax.set_xticks([])
    ax.set_yticks([])
    _not_measured[ax] = reason  # figure_section writes no figure of such panels alone


def mark_does_not_run(ax, x, reason, color="0.25", slot=0):
    """A point that was tried and failed (an errored benchmark): an × on the panel's floor at
    x, "does not run (k)" beside it and, under the figure, note k: the whole reason, never a
    silently missing point nor a reason cut short or struck through by the axis.

    Call it after the axis scales are set; `slot` stacks several marks at one x.
    """
    floor = blended_transform_factory(ax.transData, ax.transAxes)
    y = 0.06 + 0.1 * slot
    ax.plot([x], [y], transform=floor, marker="x", color=color, markersize=9,
            markeredgewidth=2, linestyle="none", clip_on=False)
    left_half = ax.transAxes.inverted().transform(floor.transform((x, y)))[0] < 0.5
    ax.annotate(f"does not run ({figure_note(ax.figure, does_not_run(reason))})", xy=(x, y),
                xycoords=floor, xytext=(7 if left_half else -7, 0), textcoords="offset points",
                ha="left" if left_half else "right", va="center", fontsize=SMALL, color=color)


def figure_note(fig, text):
    """The number of `text` among the notes save_figure writes under the figure (the same
    text keeps its number)."""
    notes = _notes.setdefault(fig, [])
    if text not in notes:
        notes.append(text)
    return notes.index(text) + 1


def figure_notes(fig):
    """The notes save_figure writes under `fig`, in their numbers' order."""
    return list(_notes.get(fig, []))


def figure_legend(fig, axes=None):
    """One legend for the whole figure, under its panels (save_figure makes the room): each
    label once, from every panel (or those of `axes`). Where the panels share their series,
    a legend per panel repeats itself and, inside a panel, covers data."""
    entries = {}
    for ax in fig.axes if axes is None else axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            entries.setdefault(label, handle)
    if entries:
        fig.legend(entries.values(), entries.keys(), loc="upper center",
                   ncols=min(4, len(entries)))


def _add_footer(fig):
    """Grow the figure at its bottom by its figure legend and its notes (figure_note), place
    them there, and return the share of the height they take (the panels' layout starts
    above it)."""
    notes = _notes.get(fig, [])
    if not fig.legends and not notes:
        return 0.0
    width_chars = int(fig.get_figwidth() * 72 / (0.6 * SMALL))
    lines = [textwrap.fill(f"({k}) {note}", width_chars, subsequent_indent="    ")
             for k, note in enumerate(notes, 1)]
    notes_in = sum(line.count("\n") + 1 for line in lines) * SMALL * 1.3 / 72
    renderer = fig.canvas.get_renderer()
    legend_in = sum(legend.get_window_extent(renderer).height for legend in fig.legends) / fig.dpi
    room = legend_in + notes_in + 0.15
    fig.set_figheight(fig.get_figheight() + room)
    height = fig.get_figheight()
    top = room
    for legend in fig.legends:
        legend.set_bbox_to_anchor((0.5, top / height), transform=fig.transFigure)
        top -= legend.get_window_extent(renderer).height / fig.dpi
    if lines:
        fig.text(0.01, top / height, "\n".join(lines), va="top", ha="left", fontsize=SMALL,
                 color="0.25")
    return room / height


def size_axis(ax, sizes, label="m = n (data points = prediction points)", tick_label=None):
    """Log-scale problem-size axis with ticks at the measured sizes (K = 1024 unless
    `tick_label` formats them otherwise)."""
    ax.set_xscale("log")
    ax.minorticks_off()
    thinned_tick_labels(ax, sizes, tick_label or size_label)
    ax.set_xlabel(label)


def _move_legends_off_data(fig):
    """Put each panel's legend that covers its data under the panel (as legend() does for a
    long one); True where one moved."""
    moved = False
    for legend_, ax, _ in readable.covering_legends(fig):
        if legend_.parent is ax:
            legend_.set_loc("upper center")
            legend_.set_bbox_to_anchor((0.5, 0), transform=_below(ax, 0.75))
            moved = True
    return moved


def _below(ax, below_in):
    """The transform of a point `below_in` inches under the panel's frame (more where its
    tick labels take two lines): where a legend under it starts."""
    below_in += _staggered_in.get(ax, 0.0)
    return ax.transAxes + ScaledTranslation(0, -below_in, ax.figure.dpi_scale_trans)


def legend(ax, inside=5, below_in=0.75):
    """The axes' legend: inside where it has `inside` entries or fewer (save_figure moves it
    under the panel where it covers data), else in two columns under the panel, `below_in`
    inches below its frame (clear of two-line tick labels and the axis label), where it
    covers no curve."""
    _, labels = ax.get_legend_handles_labels()
    if len(labels) <= inside:
        return ax.legend()
    return ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0),
                     bbox_transform=_below(ax, below_in), ncols=2)


def time_errorbar(ax, xs, benchmarks, scale=1.0, value=None, bounds=time_bounds, **style):
    """Times of `benchmarks` at `xs` (in units of `scale` seconds) with whiskers from the
    fastest to the slowest repetition: a median alone hides a spread of 20 %.

    `value(b)` and `bounds(b)` -> (low, high) give another quantity in seconds (a counter,
    a time per element) when the benchmark's own time is not the one drawn."""
    seconds = [value(b) if value else b.time_s for b in benchmarks]
    ranges = [bounds(b) for b in benchmarks]
    below = [max(0.0, v - low) / scale for v, (low, _) in zip(seconds, ranges)]
    above = [max(0.0, high - v) / scale for v, (_, high) in zip(seconds, ranges)]
    return ax.errorbar(list(xs), [v / scale for v in seconds], yerr=[below, above],
                       **{"capsize": 3, "elinewidth": 1.0, **style})


def ratio_errorbar(ax, xs, estimates, **style):
    """Ratios (plots/estimates.py's Estimates: a speedup, its interval from the
    repetitions' extremes) at xs, whiskers from their intervals."""
    values = [e.value for e in estimates]
    return ax.errorbar(list(xs), values,
                       yerr=[[max(0.0, v - e.low) for v, e in zip(values, estimates)],
                             [max(0.0, e.high - v) for v, e in zip(values, estimates)]],
                       **{"capsize": 3, "elinewidth": 1.0, **style})


def span_at_least(low, high, middle, fraction):
    """(low, high) widened to middle·(1 ± fraction) where narrower."""
    return min(low, middle * (1 - fraction)), max(high, middle * (1 + fraction))


def padded(low, high, margin=0.06):
    pad = (high - low) * margin
    return low - pad, high + pad


def ratio_axis(ax, values, reference=1.0, axis="y"):
    """Limits of a linear ratio axis: the data (interval ends included), the reference and
    reference · (1 ± RATIO_MIN_SPAN), with a margin, so a difference of a percent or two
    reads as small as it is."""
    values = [v for v in values if v is not None and math.isfinite(v)] or [reference]
    low, high = span_at_least(min(values + [reference]), max(values + [reference]),
                              reference, RATIO_MIN_SPAN)
    (ax.set_ylim if axis == "y" else ax.set_xlim)(*padded(low, high))


def time_axis(ax, seconds, label="time", unit=None):
    """(name, seconds per unit) for drawing `seconds` (every value and interval end that the
    axis shows) on a y axis labelled "<label> (<unit>)": the unit of the largest (or `unit`,
    (name, seconds per unit), one for a whole figure); linear while the values span less
    than LINEAR_TIME_RANGE (middle ± RATIO_MIN_SPAN at least), else log with plain numbers.
    Call it before drawing, draw in the unit it returns."""
    seconds = [s for s in seconds if s is not None and s > 0 and math.isfinite(s)] or [1.0]
    unit, scale = unit or time_unit(max(seconds), AXIS_TIME_UNITS)
    low, high = min(seconds) / scale, max(seconds) / scale
    ax.set_ylabel(f"{label} ({unit})")
    if high / low < LINEAR_TIME_RANGE:
        plain_linear_axis(ax.yaxis)
        ax.set_ylim(*padded(*span_at_least(low, high, (low + high) / 2, RATIO_MIN_SPAN)))
    else:
        ax.set_yscale("log")
        plain_log_axis(ax.yaxis)
        ax.set_ylim(low / 1.15, high * 1.15)
    return unit, scale


def plain_linear_axis(axis):
    """Plain tick labels: no offset (+4.6e3) or scientific factor above the axis."""
    formatter = matplotlib.ticker.ScalarFormatter(useOffset=False)
    formatter.set_scientific(False)
    axis.set_major_formatter(formatter)


def plain_log_axis(axis):
    """A log axis labelled with plain numbers (0.2, 0.5, 1, 2, 5, 10) instead of 2×10⁻¹,
    minor ticks unlabelled; as many ticks a decade as its length has room for."""
    axis.set_major_locator(RoomyLogLocator())
    axis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: log_tick(v)))
    axis.set_minor_formatter(matplotlib.ticker.NullFormatter())


class RoomyLogLocator(matplotlib.ticker.LogLocator):
    """Ticks at 1-2-5, 1-3 or 1 of each decade: the most the axis's drawn length (inches a
    decade) has room for, decided at draw time."""

    ROOM_IN = {"x": (1.6, 0.9), "y": (0.9, 0.5)}  # inches a decade for 1-2-5, for 1-3

    def __init__(self):
        super().__init__(base=10, subs=(1.0,))

    def tick_values(self, vmin, vmax):
        if self.axis is not None and vmin > 0 and vmax > 0:
            ax = self.axis.axes
            horizontal = self.axis is ax.xaxis
            length = (ax.bbox.width if horizontal else ax.bbox.height) / ax.figure.dpi
            per_decade = length / max(abs(math.log10(vmax / vmin)), 0.3)
            three, two = self.ROOM_IN["x" if horizontal else "y"]
            self.set_params(subs=(1.0, 2.0, 5.0) if per_decade >= three else
                            (1.0, 3.0) if per_decade >= two else (1.0,))
        return super().tick_values(vmin, vmax)


def log_tick(value):
    """A log axis's tick: plain from 0.001 to 99999 (0.02, 500), else 10⁻⁶ or 2×10⁻⁶."""
    if value <= 0 or 1e-3 <= value < 1e5:
        return f"{value:g}"
    exponent = math.floor(math.log10(value) + 1e-9)
    mantissa = value / 10**exponent
    power = f"10^{{{exponent}}}"
    return f"${power}$" if abs(mantissa - 1) < 1e-6 else f"${mantissa:g}\\times{power}$"


def thinned_tick_labels(ax, values, label=str, axis="x"):
    """Ticks at every value (on a log or linear axis, as set). On an irregular axis (ticks
    not evenly spaced: IDW's 10K, 50K, 100K, 500K, 1000K) every tick is labelled, a reader
    cannot interpolate a missing one: in SMALL type where the default crowds, every other
    label a line lower where that still crowds. On an even axis labels only where they keep
    clear of each other: the largest value always labelled, then leftwards every label that
    keeps a gap to the last one kept."""
    values = sorted(values)
    scale = (ax.get_xscale() if axis == "x" else ax.get_yscale())
    where = [math.log(v) if scale == "log" and v > 0 else v for v in values]
    span = (max(where) - min(where)) or 1.0
    size = ax.get_position().width * ax.figure.get_figwidth() if axis == "x" else \
        ax.get_position().height * ax.figure.get_figheight()
    inches = [0.9 * size * (w - min(where)) / span for w in where]  # 5 % margin each side
    texts = [label(v) for v in values]
    set_ticks = ax.set_xticks if axis == "x" else ax.set_yticks
    if not evenly_spaced(where):
        for points in (None, SMALL):
            if not _crowded(texts, inches, axis, points):
                break
        set_ticks(values, texts, **({} if points is None else {"fontsize": points}))
        if axis == "x" and _crowded(texts, inches, axis, points):
            lines = max(t.count("\n") + 1 for t in texts)
            ticks = ax.xaxis.get_major_ticks(len(values))
            drop_pt = lines * (points or 10) * 1.25 + readable.MIN_TICK_GAP_PT + 1
            for k in range(len(values) - 2, -1, -2):  # the largest stays on the first line
                ticks[k].set_pad(ticks[k].get_pad() + drop_pt)
            _staggered_in[ax] = drop_pt / 72  # legend() puts a legend below that much lower
        return
    kept, last = [], None
    for k in reversed(range(len(values))):
        half = _label_inches(texts[k], axis) / 2
        if last is None or inches[last] - _label_inches(texts[last], axis) / 2 - \
                (inches[k] + half) >= LABEL_GAP_IN:
            kept.append(k)
            last = k
    set_ticks(values, [texts[k] if k in kept else "" for k in range(len(values))])


def evenly_spaced(positions, tolerance=0.01):
    """Whether ticks at `positions` (in the axis's scale: logs on a log axis) are evenly
    spaced, within `tolerance` of the mean gap."""
    gaps = [b - a for a, b in zip(positions, positions[1:])]
    if len(gaps) < 2:
        return True
    mean = sum(gaps) / len(gaps)
    return all(abs(g - mean) <= tolerance * abs(mean) for g in gaps)


def _crowded(texts, inches, axis, points=None):
    """Whether two neighbouring labels come closer than LABEL_GAP_IN (at `points`, default
    10 pt)."""
    factor = (points or 10) / 10
    return any(b - a - factor * (_label_inches(s, axis) + _label_inches(t, axis)) / 2
               < LABEL_GAP_IN for (a, s), (b, t) in zip(zip(inches, texts),
                                                       zip(inches[1:], texts[1:])))


LABEL_GAP_IN = 0.08  # between two tick labels of one axis
_CHAR_IN = 0.6 * 10 / 72  # a 10 pt character's width, wide estimate


def _label_inches(text, axis):
    """A tick label's extent along its axis (its longest line across; its lines up)."""
    lines = text.split("\n")
    return max(map(len, lines)) * _CHAR_IN if axis == "x" else len(lines) * 10 / 72 * 1.2

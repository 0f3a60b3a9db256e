"""Shared figure plumbing: atomic PNG+SVG files, "not measured" panels, size axes, sections.

Paper modules draw; this module makes sure a figure is either fully written or not at all,
and that every paper's figures look alike (size axis, units, missing-data panels, points
that did not run).
"""

import contextlib
import os
import tempfile
import textwrap
import warnings
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
import matplotlib.text  # noqa: E402
from matplotlib.transforms import blended_transform_factory  # noqa: E402

from plots.text import does_not_run, size_label  # noqa: E402

FORMATS = ("png", "svg")
_drawing = [True]  # False inside report_only(): figures are laid out but never drawn or written
plt.rcParams["svg.hashsalt"] = "layout-bench"  # stable SVG ids: reruns diff cleanly
plt.rcParams["svg.fonttype"] = "none"  # text stays text: smaller, searchable SVGs


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
        for axis in ax._axis_map.values():
            drawn = axis._update_ticks()  # the ticks Axis.draw() draws
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                for label in (tick.label1, tick.label2):
                    if ax.name == "3d" or tick not in drawn or not label.get_visible():
                        unchecked.add(id(label))
    return unchecked


def _clipped_or_3d(text):
    """A clipped text stays inside its axes; a 3-D text's 2-D extent is not where it is drawn."""
    clipped = text.get_clip_on() and text.get_clip_box() is not None
    return clipped or type(text).__name__ == "Text3D"


@contextlib.contextmanager
def report_only():
    """Inside: save_figure writes no file (and draws nothing), only returns the path it
    would write, so a report's text comes out without the cost of its figures."""
    _drawing.append(False)
    try:
        yield
    finally:
        _drawing.pop()


def save_figure(fig, figures_dir, stem):
    """Write `<stem>.png` and `<stem>.svg`; close the figure; return the PNG path.

    Warns (TextOutsideFigure) when a text runs past the figure's edge. Inside report_only()
    only closes the figure."""
    try:
        if not _drawing[-1]:
            return Path(figures_dir) / f"{stem}.png"
        for title in [fig._suptitle] + [ax.title for ax in fig.axes]:
            if title is not None:
                title.set_wrap(True)  # a long device list wraps instead of leaving the figure
        fig.tight_layout()
        # Laid out once: without an engine left on the figure, savefig does not lay it out
        # (one whole draw) again for each format.
        fig.set_layout_engine(None)
        for text, box in texts_outside(fig):
            warnings.warn(f"{stem}: text {text!r} runs outside the figure ({box.x0:.0f}, "
                          f"{box.y0:.0f})-({box.x1:.0f}, {box.y1:.0f}) px, figure "
                          f"{fig.bbox.width:.0f} × {fig.bbox.height:.0f} px",
                          TextOutsideFigure, stacklevel=2)
        for fmt in FORMATS:
            metadata = {"Date": None} if fmt == "svg" else None
            write_atomically(Path(figures_dir) / f"{stem}.{fmt}",
                             lambda temp: fig.savefig(temp, format=fmt, dpi=120,
                                                      metadata=metadata))
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
    `below`), save it as `stem` and return it as a report Section."""
    fig.suptitle(title + ("" if devices is None else f"\n{devices_text(devices)}") + below)
    return Section(heading, body, (save_figure(fig, figures_dir, stem),))


def mark_not_measured(ax, reason):
    """Turn an empty panel into an explicit "not measured" note instead of a blank plot."""
    ax.text(0.5, 0.5, f"not measured\n({reason})", ha="center", va="center",
            transform=ax.transAxes, fontsize=10, color="0.35", wrap=True)
    ax.set_xticks([])
    ax.set_yticks([])


def mark_does_not_run(ax, x, reason, color="0.25", slot=0):
    """A point that was tried and failed (an errored benchmark): an × on the panel's floor at
    x, with "does not run" and the start of the reason, never a silently missing point.

    Call it after the axis scales are set; `slot` stacks several marks at one x.
    """
    floor = blended_transform_factory(ax.transData, ax.transAxes)
    y = 0.06 + 0.13 * slot
    ax.plot([x], [y], transform=floor, marker="x", color=color, markersize=9,
            markeredgewidth=2, linestyle="none", clip_on=False)
    left_half = ax.transAxes.inverted().transform(floor.transform((x, y)))[0] < 0.5
    text = textwrap.fill(textwrap.shorten(does_not_run(reason), 90, placeholder=" …"), 32)
    ax.annotate(text, xy=(x, y), xycoords=floor, xytext=(7 if left_half else -7, 0),
                textcoords="offset points", ha="left" if left_half else "right",
                va="center", fontsize=6.5, color=color)


def size_axis(ax, sizes, label="m = n (data points = prediction points)", tick_label=None):
    """Log-scale problem-size axis with ticks at the measured sizes (K = 1024 unless
    `tick_label` formats them otherwise)."""
    ax.set_xscale("log")
    ax.set_xticks(sizes)
    ax.set_xticklabels([(tick_label or size_label)(s) for s in sizes], rotation=0)
    ax.minorticks_off()
    ax.set_xlabel(label)

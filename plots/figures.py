"""Shared figure plumbing: atomic PNG+SVG files, "not measured" panels, size axes, sections.

Paper modules draw; this module makes sure a figure is either fully written or not at all,
and that every paper's figures look alike (size axis, units, missing-data panels).
"""

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)

FORMATS = ("png", "svg")
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


def save_figure(fig, figures_dir, stem):
    """Write `<stem>.png` and `<stem>.svg`; close the figure; return the PNG path."""
    try:
        fig.tight_layout()
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


def mark_not_measured(ax, reason):
    """Turn an empty panel into an explicit "not measured" note instead of a blank plot."""
    ax.text(0.5, 0.5, f"not measured\n({reason})", ha="center", va="center",
            transform=ax.transAxes, fontsize=10, color="0.35", wrap=True)
    ax.set_xticks([])
    ax.set_yticks([])


def size_axis(ax, sizes, label="m = n (data points = prediction points)"):
    """Log-scale problem-size axis with ticks at the measured sizes (K = 1024)."""
    ax.set_xscale("log")
    ax.set_xticks(sizes)
    ax.set_xticklabels([size_label(s) for s in sizes], rotation=0)
    ax.minorticks_off()
    ax.set_xlabel(label)


def size_label(size):
    return f"{size // 1024}K" if size % 1024 == 0 and size >= 1024 else str(size)


def format_seconds(seconds):
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"

"""The fixture program's figure (tests/fixture_program; docs/adding-a-program.md): the time per
element of y = a·x against the size, one line per layout and precision, from the repetitions'
fastest to their slowest."""

from plots.estimates import time_bounds
from plots.figures import (figure_section, legend, mark_not_measured, panel_grid, panel_title,
                           size_axis, time_axis, time_errorbar)

INTRO = ("The fixture program of docs/adding-a-program.md, not shipped: y = a·x over a record "
         "{x, y}, on the host through the layout library's mappings.")
CLAIMS_INTRO = "Claims beyond any paper: what the fixture's arithmetic guarantees."


def render(devices, figures_dir):
    fig, axes = panel_grid(1, len(devices))
    for ax, device in zip(axes[0], devices):
        rows = [b for b in device.benchmarks if b.app == "scale" and b.time_s]
        ax.set_title(panel_title("y = a·x", device, devices))
        if not rows:
            mark_not_measured(ax, "no scale benchmark timed")
            continue
        per_element = [b.time_s / b.params["size"] for b in rows]
        bounds = [t / b.params["size"] for b in rows for t in time_bounds(b)]
        _, scale = time_axis(ax, per_element + bounds, "time per element")
        for layout, precision in sorted({(b.layout, b.precision) for b in rows}):
            line = sorted((b for b in rows if (b.layout, b.precision) == (layout, precision)),
                          key=lambda b: b.params["size"])
            time_errorbar(ax, [b.params["size"] for b in line], line, scale,
                          value=lambda b: b.time_s / b.params["size"],
                          bounds=lambda b: tuple(t / b.params["size"] for t in time_bounds(b)),
                          marker="o", label=f"{layout} {precision}")
        size_axis(ax, sorted({b.params["size"] for b in rows}), label="elements")
        legend(ax)
    return [figure_section(fig, figures_dir, "fixture_scale", "The fixture program: y = a·x",
                           "The fixture program", INTRO, devices)]

"""Fig. 4: the interpolated geological model, 3D surfaces, a map of the top surface and two
vertical sections with the wells near them."""

import numpy as np

from plots.figures import SMALL, Section, plt, save_figure
from plots.kriging.data import PAPER
from plots.kriging.model_files import model_files, read_model, read_wells
from plots.text import markdown_table

SECTION_BAND_M = 1000  # wells this close to a cross-section are projected onto it


def fig4_section(devices, figures_dir):
    """Fig. 4 from the first device with a model: 3D surfaces, top-surface map, two sections."""
    heading = "Fig. 4 — the interpolated geological model"
    reasons = []
    for device in devices:
        for model_path, wells_path in model_files(device):
            missing = [p.name for p in (model_path, wells_path) if not p.is_file()]
            if missing:
                reasons.append(f"{' and '.join(missing)} not in `{model_path.parent}`")
                continue
            model = read_model(model_path)
            wells = read_wells(wells_path, model.surfaces)
            png = draw_model(model, wells, figures_dir, device, devices)
            return Section(heading, model_text(model, wells), (png,))
    return Section(heading, "Fig. 4 not drawn: " + ("; ".join(reasons) or "no kriging results")
                   + " (the run writes the CUDA model output for Fig. 4 as "
                   "`kriging-model.gpu<k>.csv` and its input wells as `kriging-wells.gpu<k>.csv`).")


def model_text(model, wells):
    crossing = int(np.sum(np.diff(model.depth, axis=0) < 0))
    order = ("surfaces are ordered (none cross) at every mesh point" if not crossing else
             f"**surfaces cross at {crossing} (surface, mesh point) pairs**")
    rows = [[f"W{k + 1}", f"{x:.0f}", f"{y:.0f}", f"{d[0]:.1f}", f"{d[-1]:.1f}"]
            for k, (x, y, d) in enumerate(zip(wells.x, wells.y, wells.depth.T))]
    return (f"From `{model.source.name}` and `{wells.source.name}`: {len(model.surfaces)} "
            f"surfaces bounding {len(model.surfaces) - 1} strata on a {len(model.x)} × "
            f"{len(model.y)} mesh ({_km(model.x)} × {_km(model.y)} km), {len(wells.x)} wells; "
            f"{order}. Depths in metres, positive down. Sections: W–E through the middle row "
            f"(A–A′) and S–N through the middle column (B–B′); wells within "
            f"{SECTION_BAND_M / 1000:g} km of a section are projected onto it with their "
            f"surface depths (dots), so the model can be checked to honour them.\n\n"
            + markdown_table(["well", "x (m)", "y (m)", f"{model.surfaces[0]} (m)",
                              f"{model.surfaces[-1]} (m)"], rows))


def draw_model(model, wells, figures_dir, device, devices):
    fig = plt.figure(figsize=(14, 11.5))
    grid = fig.add_gridspec(2, 2, height_ratios=(1.15, 1))
    surface_colors = plt.get_cmap("viridis")(np.linspace(0, 0.95, len(model.surfaces)))
    strata_colors = plt.get_cmap("tab20")(np.arange(len(model.surfaces) - 1) % 20)
    _draw_3d(fig.add_subplot(grid[0, 0], projection="3d"), model, wells, surface_colors)
    middle_row, middle_col = len(model.y) // 2, len(model.x) // 2
    _draw_map(fig, fig.add_subplot(grid[0, 1]), model, wells, middle_row, middle_col)
    _draw_section(fig.add_subplot(grid[1, 0]), model, wells, strata_colors, "W–E", middle_row)
    section = fig.add_subplot(grid[1, 1])
    _draw_section(section, model, wells, strata_colors, "S–N", middle_col)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in strata_colors]
    section.legend(handles, [f"stratum {k + 1}" for k in range(len(strata_colors))],
                   loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8,
                   title="top to bottom", title_fontsize=8)
    shown = device.label if len(devices) == 1 else f"{device.label} (first GPU with a model)"
    fig.suptitle(f"{PAPER}, Fig. 4: the interpolated geological model ({len(model.surfaces)} "
                 f"surfaces, {len(wells.x)} wells)\nCUDA output `{model.source.name}`, "
                 f"{shown} (preset {device.preset})")
    return save_figure(fig, figures_dir, "kriging_fig4")


def _draw_3d(ax, model, wells, colors):
    xs, ys = np.meshgrid(model.x / 1000, model.y / 1000)
    stride = max(1, min(len(model.x), len(model.y)) // 25)
    for depth, color in zip(model.depth, colors):
        ax.plot_surface(xs, ys, depth, color=color, alpha=0.55, linewidth=0, shade=True,
                        rstride=stride, cstride=stride, rasterized=True)  # small SVG
    for k, (x, y, d) in enumerate(zip(wells.x / 1000, wells.y / 1000, wells.depth.T)):
        ax.plot([x, x], [y, y], [d.min() - 40, d.max() + 40], color="black", linewidth=1.4)
        ax.text(x, y, d.min() - 60, f"W{k + 1}", fontsize=SMALL)
    ax.set_box_aspect((np.ptp(model.x), np.ptp(model.y), 0.45 * np.ptp(model.y)))
    ax.invert_zaxis()
    ax.view_init(elev=22, azim=-58)
    exaggeration = 0.45 * np.ptp(model.y) / np.ptp(model.depth)
    ax.set(xlabel="x (km)", ylabel="y (km)", zlabel="depth (m)",
           title=f"(a) all surfaces, 3D (vertical exaggeration ≈ {exaggeration:.0f}×)")


def _draw_map(fig, ax, model, wells, middle_row, middle_col):
    xs, ys = model.x / 1000, model.y / 1000
    filled = ax.contourf(xs, ys, model.depth[0], levels=14, cmap="viridis")
    filled.set_rasterized(True)
    lines = ax.contour(xs, ys, model.depth[0], levels=filled.levels[::2], colors="white",
                       linewidths=0.6)
    ax.clabel(lines, fmt="%.0f", fontsize=SMALL)
    fig.colorbar(filled, ax=ax, label=f"depth of {model.surfaces[0]} (m)")
    ax.plot(wells.x / 1000, wells.y / 1000, "k^", markersize=7, markerfacecolor="white")
    for k, (x, y) in enumerate(zip(wells.x / 1000, wells.y / 1000)):
        ax.annotate(f"W{k + 1}", (x, y), xytext=(4, 4), textcoords="offset points",
                    fontsize=SMALL, color="white", weight="bold")
    y0, x0 = ys[middle_row], xs[middle_col]
    ax.plot([xs[0], xs[-1]], [y0, y0], "w--", linewidth=1.2)
    ax.plot([x0, x0], [ys[0], ys[-1]], "w--", linewidth=1.2)
    for text, at, offset, align in (("A", (xs[0], y0), (2, 3), "left"),
                                    ("A′", (xs[-1], y0), (-2, 3), "right"),
                                    ("B", (x0, ys[0]), (3, 2), "left"),
                                    ("B′", (x0, ys[-1]), (3, -12), "left")):
        ax.annotate(text, at, xytext=offset, textcoords="offset points", ha=align,
                    fontsize=9, color="white", weight="bold")
    ax.set_aspect("equal")
    ax.set(xlabel="x (km, east)", ylabel="y (km, north)",
           title=f"(b) map of the top surface ({model.surfaces[0]}) with wells and sections")


def _draw_section(ax, model, wells, colors, direction, index):
    """A vertical section: strata as filled bands between surfaces, nearby wells projected."""
    if direction == "W–E":
        along, depth, at, across = model.x, model.depth[:, index, :], model.y[index], "y"
        well_along, well_off = wells.x, wells.y - model.y[index]
        ends = ("A (W)", "A′ (E)")
    else:
        along, depth, at, across = model.y, model.depth[:, :, index], model.x[index], "x"
        well_along, well_off = wells.y, wells.x - model.x[index]
        ends = ("B (S)", "B′ (N)")
    km = along / 1000
    for top, bottom, color in zip(depth[:-1], depth[1:], colors):
        ax.fill_between(km, top, bottom, color=color, linewidth=0)
    for surface in depth:
        ax.plot(km, surface, color="0.15", linewidth=0.6)
    near = np.flatnonzero(np.abs(well_off) <= SECTION_BAND_M)
    for k in near:
        ax.plot([well_along[k] / 1000] * 2, [wells.depth[:, k].min() - 30,
                wells.depth[:, k].max() + 30], color="black", linewidth=1.5)
        ax.plot([well_along[k] / 1000] * len(wells.depth), wells.depth[:, k], "o", color="black",
                markersize=3.5)
        ax.annotate(f"W{k + 1}\n({abs(well_off[k]):.0f} m off)",
                    (well_along[k] / 1000, wells.depth[:, k].min() - 30), ha="center",
                    va="bottom", fontsize=SMALL)
    if not len(near):
        ax.text(0.5, 0.02, f"no well within {SECTION_BAND_M / 1000:g} km of this section",
                transform=ax.transAxes, ha="center", fontsize=8, color="0.3")
    ax.set_xlim(km[0], km[-1])
    ax.invert_yaxis()
    ax.margins(y=0.08)
    ax.set_xlabel(f"{'x' if direction == 'W–E' else 'y'} (km)   {ends[0]} → {ends[1]}")
    ax.set_ylabel("depth (m)")
    panel = "(c)" if direction == "W–E" else "(d)"
    ax.set_title(f"{panel} {direction} section at {across} = {at / 1000:.2f} km "
                 f"({ends[0][0]}–{ends[1][:2]})")



def _km(values):
    spacing = values[1] - values[0]
    return f"{(values[-1] - values[0] + spacing) / 1000:g}"


"""Kofler, Cosenza & Fahringer 2015 figures and tables: Table 2, the tile sweep per program,
Fig. 1 (SAMPO's optimisation space), Fig. 5 (speedup over AoS), run-time vs compile-time
tiles and partitions, bitonic sort vs CUB, % of bound, and the method's regret
(plots/kofler_method.py).

Every comparison is over AoS at the same program, version, precision and size. "Best tile" /
"best partition" is the fastest median time of the run-time sweep (`tiled`, `split`; the
compile-time `tiled-ct` / `split-ct` where the run-time one was not run) at that size: the
measured optimum. The method's layouts (`kdlg`, `tiled-tree`, `kdlg-tree`, docs/advisor.md)
are one benchmark each per size, their partition in the name and the tree's choice in the
label (plots/kofler_label.py). A section without data in the results is left out with a
one-line note.
"""

import math

import numpy as np

from plots import kofler_method
from plots.claims import INCONCLUSIVE, NOT_REPRODUCED, judge_band
from plots.estimates import ratio_estimate
from plots.figures import (PAGE_WIDTH_IN, RATIO_MIN_SPAN, SMALL, Section, figure_section,
                           legend, mark_does_not_run, mark_not_measured, panel_grid, panel_title,
                           ratio_axis, ratio_errorbar, thinned_tick_labels)
from plots.kofler_data import (KNOBS, METHOD, PROGRAMS, ROOFLINE_VERSIONS, RUN_TIME, SOA_TILE,
                               best, best_of, cases, compared, counter_of, method_layout_text,
                               speedup, tile_grid, timed, version_of)
from plots.kofler_label import method_choice
from plots.layout_kinds import KIND
from plots.text import count_label, format_seconds, markdown_table, size_label

PAPER = kofler_method.PAPER
INTRO = (
    "K. Kofler, B. Cosenza, T. Fahringer, *Automatic Data Layout Optimizations for GPUs*, "
    "Euro-Par 2015, LNCS 9233, pp. 263–274. The five programs (N-body, bitonic sort, SAMPO, "
    "BlackScholes, LavaMD) are this project's CUDA ports of the OpenCL originals; the paper "
    "measured an AMD FirePro S9000, an NVIDIA GeForce GTX 480 and a Tesla K20m, so absolute "
    "speedups are not expected to carry over. AoS is the baseline; the tiled layouts are a "
    "sweep over the tile size t (records per tile; t = 1 is AoS). The method is this "
    "project's implementation (docs/advisor.md): `kdlg` (the KDLG clusters, each AoS), "
    "`tiled-tree` (one cluster, the GPU's decision tree's layout) and `kdlg-tree` (the KDLG "
    "clusters, each as the tree says: the full method); a run without a tree for its GPU has "
    "`kdlg` only."
)
CLAIMS_INTRO = (
    "Each verbal claim is read through its word class (the band and reason in the note). "
    "Ratios are time over time at the same size, of code that differs in the layout alone: "
    "tiles and partitions are the compiled ones (`tiled-ct`, `split-ct`); a claim about every "
    "tile judges each compiled tile at its closest size, the tiling gain the best compiled tile "
    "at each size, and the run-time sweep is shown beside them, not judged. A comparison "
    "across mapping code (a method value on the run-time partition mapping against a "
    "compiled layout) is shown, not judged: inconclusive. Claims about the method read its "
    "layout values "
    "(`kdlg`, `tiled-tree`, `kdlg-tree`); those about the clusters it chose read the partition "
    "in their benchmark names and each cluster's layout in their labels (the tree's choice)."
)
SORT_LIBRARIES = ("cub-radix", "cub-merge")
FIG5_PROGRAMS = ("nbody", "bitonic", "sampo")
HEAT_MAP_PROGRAM = "sampo"
RUN_TIME_GOAL = 1.05  # issue 11: the run-time mapping at most 5 % slower
BOUND_COUNTERS = ("pct_of_bound", "pct_copy_bandwidth", "pct_compute_bound")
BOUND_GOALS = {  # issue 11's goals on the H100, for the best layout of the program
    "blackscholes": ("pct_copy_bandwidth", 85, "of measured copy bandwidth"),
    "nbody": ("pct_compute_bound", 70, "of its compute bound"),
}
# Beyond the paper: each roofline version's target (issue 38), judged by its claim
ROOFLINE_TARGETS = {"nbody": ("pct_of_bound", 85, "of its FP32 bound")}
ROOFLINE_CLAIMS = {"nbody": "nbody-roofline-within-85-percent-of-bound"}
TABLE2_COUNTERS = ("struct_bytes", "fields", "kernels")
TABLE2_LAYOUTS = (KIND.soa, KIND.tiled, KIND.split, METHOD)
# Fig. 5's bars: the paper's four versions (l.118)
BAR_LAYOUTS = (KIND.soa, KIND.kdlg, KIND.tiled_tree, METHOD)
BAR_COLORS = {KIND.soa: "C0", KIND.kdlg: "C2", KIND.tiled_tree: "C1", METHOD: "C3"}
BAR_LABELS = {KIND.soa: "SoA", KIND.kdlg: "KDLG", KIND.tiled_tree: "tiled (tree)",
              METHOD: "KDLG + tiled (tree)"}
SWEEP_COLUMNS = 3  # tile-sweep panels to a row: six programs side by side would be 30 in wide


def render(devices, figures_dir):
    """All Kofler sections for these devices; a section without data becomes a note."""
    sections, missing = [], []
    for build in (table2_section, tile_sweep_section, fig1_section, fig5_section,
                  kofler_method.regret_section, kofler_method.other_records_section,
                  run_time_section, sort_section, bound_section):
        section = build(devices, figures_dir)
        if isinstance(section, str):
            missing.append(section)
        else:
            sections.append(section)
    if missing:
        sections.append(Section("Sections without data", "\n".join(f"- {m}" for m in missing)))
    return sections


# --- Table 2 -------------------------------------------------------------------------------

# The paper's "loop bound approx." (Table 2, l.133; legend l.184: loops over all work-items of
# the NDRange n, over the work-group size g, with constant bounds c, unknown bounds u) of the
# loops around this project's CUDA kernels' accesses to the record in global memory, the
# loops memory distance is taken over (l.95). The paper's cells are not in its text
# (../shared/papers/source/kofler-2015.txt keeps the header and the legend only).
LOOP_BOUNDS = {
    "nbody": "n",  # nbody.cu: every body's position, in shared-memory tiles of the block
    "bitonic": "none",  # sort.cu: stages loop over shared memory; global passes have no loop
    "sampo": "n, u",  # sampo.cu: grid-stride loops over the agents; compaction's block chunks
    "blackscholes": "none",  # one option per thread
    "lavamd": "c",  # lavamd.cu: the 27 neighbour boxes (the 100 particles: shared memory)
}
SPEEDUP_COLUMNS = {KIND.soa: "× AoS: SoA", KIND.tiled: "× AoS: best tile",
                   KIND.split: "× AoS: best partition", METHOD: "× AoS: method (kdlg-tree)"}


def table2_section(devices, figures_dir):
    rows = []
    for device in devices:
        for app, version, precision, size, aos, others in compared(device):
            counters = [counter_of(cases(device)[app, version, precision], c)
                        for c in TABLE2_COUNTERS]
            rows.append([device.label, PROGRAMS[app], precision, count_label(size),
                         *(("not reported" if v is None else f"{v:g}") for v in counters),
                         LOOP_BOUNDS.get(app, "not classified"), format_seconds(aos.time_s),
                         *(_speedup_cell(aos, others.get(layout)) for layout in TABLE2_LAYOUTS),
                         _method_layout_cell(others.get(METHOD))])
    if not rows:
        return "Table 2: no program with a timed AoS benchmark."
    header = ["GPU", "program", "precision", "size", "struct bytes", "fields", "kernels",
              "loop bound approx.", "AoS time", *(SPEEDUP_COLUMNS[l] for l in TABLE2_LAYOUTS),
              "method's layout"]
    body = ("Per program at its largest size with an AoS time: struct bytes, fields and kernels "
            "as the program reports them (counters `struct_bytes`, `fields`, `kernels`). Loop "
            "bound approx.: the paper's classes (l.184: n loops over all work-items of the "
            "NDRange, g over the work-group size, c constant bounds, u unknown bounds; none: "
            "no loop) of the loops around our CUDA kernels' global accesses to the record; "
            "the paper's own cells are not in its text.\n\n"
            "The paper's \"speedup over AoS\" is the speedup of the layout its method chooses "
            "(l.118): here the column × AoS: method (kdlg-tree), time(AoS) / time(kdlg-tree), "
            "and the method's layout: the KDLG clusters its benchmark name carries, each with "
            "the tree's class its label records (`tiled-t`: tiles of t records); not "
            "measured where the run had no decision tree for its GPU. Beside it, time(AoS) / "
            "time of SoA, of the best tile and of the best partition of our sweep. Every speedup has the interval from the "
            "repetitions' extremes. Best tile / partition: the fastest of the sweep at that "
            "size, named in brackets (picked on the same data, so slightly optimistic).\n\n"
            + markdown_table(header, rows))
    return Section("Table 2 — the programs, and the speedup over AoS of the method's layout, "
                   "SoA, the best tile and the best partition", body)


def _method_layout_cell(chosen):
    return "not measured" if chosen is None else method_layout_text(chosen[2])


def _speedup_cell(aos, chosen):
    if chosen is None:
        return "not measured"
    layout, k, b = chosen
    est = speedup(aos, b)
    text = f"{_times(est.value)} [{est.low:.3g}–{est.high:.3g}]"
    if k is None:
        return text
    what = f"t = {k}" if KNOBS[layout] == "tile" else str(k)
    return f"{text} ({what}{', compile-time' if layout in RUN_TIME.values() else ''})"


# --- tile sweep ----------------------------------------------------------------------------

def sweep_curves(sizes):
    """{size: (AoS, SoA or None, {tile: run-time tiled}, {tile: compile-time tiled},
    [(tile, error)])} (Benchmarks, timed ones only) of the sizes with a timed AoS and some
    tiled benchmark."""
    curves = {}
    for size, variants in sorted(sizes.items()):
        aos = variants.get((KIND.aos, None))
        tiles = {k: b for (l, k), b in variants.items() if l == KIND.tiled}
        fixed = {k: b for (l, k), b in variants.items() if l == KIND.tiled_ct}
        if not timed(aos) or not (tiles or fixed):
            continue
        soa = variants.get((KIND.soa, None))
        curves[size] = (aos, soa if timed(soa) else None,
                        {k: b for k, b in tiles.items() if timed(b)},
                        {k: b for k, b in fixed.items() if timed(b)},
                        [(k, b.error) for k, b in {**tiles, **fixed}.items() if b.error])
    return curves


def tile_sweep_section(devices, figures_dir):
    """Speedup over AoS against the tile size, one panel per program (SWEEP_COLUMNS to a
    row), one line per size."""
    panels = list(dict.fromkeys(key for d in devices for key, sizes in cases(d).items()
                                if sweep_curves(sizes)))
    if not panels:
        return "Tile sweep: no tiled benchmark with an AoS time at its size."
    columns = min(SWEEP_COLUMNS, len(panels))
    rows = -(-len(panels) // columns)
    fig, axes = panel_grid(len(devices) * rows, columns, width=5.0, height=4.6)  # page-wide
    for row, device in enumerate(devices):
        own = cases(device)
        device_axes = [ax for line in axes[row * rows:(row + 1) * rows] for ax in line]
        for ax in device_axes[len(panels):]:
            ax.set_visible(False)
        for ax, key in zip(device_axes, panels):
            app, _, precision = key
            ax.set_title(panel_title(f"{PROGRAMS[app]} ({precision})", device, devices))
            curves = sweep_curves(own.get(key, {}))
            if not curves:
                mark_not_measured(ax, "no tiled benchmark with an AoS time")
                continue
            _plot_sweep(ax, curves, roofline_runs(device, app, precision))
    body = ("Speedup over AoS = time(AoS) / time(tiled, t) at the same size, one colour per "
            "size; dots: run-time tile (`tiled`), hollow squares: compile-time tile "
            "(`tiled-ct`); dashed: SoA at that size; dotted: the program's roofline version "
            "(beyond the paper: N-body's, on SoA) at that size; black line: AoS (1×); "
            "whiskers: the interval from the repetitions' extremes. Above 1 is faster than "
            f"AoS; the axis always spans 1 ± {RATIO_MIN_SPAN * 100:g} % at least, so a "
            "difference of a percent looks like one.")
    return figure_section(fig, figures_dir, "kofler_tile_sweep",
                          f"{PAPER}: tile sweep, speedup over AoS vs tile size t (records per "
                          "tile)", "Tile sweep per program", body, devices)


def roofline_runs(device, app, precision):
    """{size: timed Benchmark} of the program's roofline version (one layout), none without."""
    version = ROOFLINE_VERSIONS.get(app)
    sizes = cases(device, {app: (version,)}).get((app, version, precision), {}) if version else {}
    return {size: b for size, variants in sizes.items() for b in variants.values() if timed(b)}


def _plot_sweep(ax, curves, roofline=None):
    tiles, ratios, both = set(), [], False
    for k, (size, (aos, soa, run_time, fixed, errors)) in enumerate(curves.items()):
        color = f"C{k}"
        for variants, style in ((run_time, {"marker": "o", "label": f"size {count_label(size)}"}),
                                (fixed, {"marker": "s", "fillstyle": "none", "markersize": 9,
                                         "linestyle": "none", "label": None if run_time else
                                         f"size {count_label(size)} (compile-time)"})):
            if variants:
                xs = sorted(variants)
                estimates = [speedup(aos, variants[t]) for t in xs]
                ratio_errorbar(ax, xs, estimates, color=color, **style)
                ratios += [v for e in estimates for v in (e.low, e.high)]
        if soa:
            ax.axhline(aos.time_s / soa.time_s, color=color, linestyle="--", linewidth=1.1,
                       label=f"SoA, size {count_label(size)}")
            ratios.append(aos.time_s / soa.time_s)
        if roofline and size in roofline:
            ax.axhline(aos.time_s / roofline[size].time_s, color=color, linestyle=":",
                       linewidth=1.6, label=f"roofline version, size {count_label(size)}")
            ratios.append(aos.time_s / roofline[size].time_s)
        tiles.update(run_time, fixed, (t for t, _ in errors))
        both = both or bool(run_time and fixed)
    if both:  # a size's compile-time squares share its colour: their marker's own entry
        ax.plot([], [], marker="s", fillstyle="none", markersize=9, linestyle="none",
                color="0.3", label="compile-time tile (tiled-ct)")
    ax.axhline(1.0, color="black", linewidth=1.0, label="AoS")
    ratio_axis(ax, ratios)
    ax.set_xscale("log", base=2)
    ax.minorticks_off()
    thinned_tick_labels(ax, sorted(tiles), _tile_label)
    ax.set_xlabel("tile size t (records per tile, log2; K = 1024, M = 1024 K)")
    ax.set_ylabel("speedup over AoS (×)")
    for slot, (size, (_, _, _, _, errors)) in enumerate(curves.items()):
        for t, error in errors:
            mark_does_not_run(ax, t, f"size {count_label(size)}: {error}", slot=slot)
    legend(ax, inside=0, below_in=0.55)


def _tile_label(tile):
    """A power-of-two tile in K or M of 1024: 4194304 -> "4M", 2048 -> "2K"."""
    return f"{tile >> 20}M" if tile >= 2**20 and tile % 2**20 == 0 else size_label(tile)


# --- Fig. 1 --------------------------------------------------------------------------------

def heat_map_rows(sizes):
    """(columns, {size: [time or error text or None per column]}) of SAMPO's one-cluster
    layouts: AoS, every run-time tile, SoA (the paper's t = 1 … t = n)."""
    tiles = sorted({k for variants in sizes.values() for (l, k) in variants if l == KIND.tiled})
    columns = [(KIND.aos, None)] + [(KIND.tiled, t) for t in tiles] + [(KIND.soa, None)]
    rows = {}
    for size, variants in sorted(sizes.items()):
        if not any(l == KIND.tiled for l, _ in variants):
            continue
        cells = []
        for column in columns:
            b = variants.get(column)
            cells.append(None if b is None else b.time_s if timed(b) else "error")
        rows[size] = cells
    return columns, rows


def method_map_rows(sizes):
    """(columns, {size: [time or "error" or None per column]}) of SAMPO's chosen clustering:
    the KDLG clusters each AoS (`kdlg`) and each laid out as the tree says (`kdlg-tree`), at
    the sizes that ran either."""
    columns = [layout for layout in (KIND.kdlg, METHOD)
               if any((layout, None) in variants for variants in sizes.values())]
    rows = {}
    for size, variants in sorted(sizes.items()):
        cells = [variants.get((layout, None)) for layout in columns]
        if any(cells):
            rows[size] = [None if b is None else b.time_s if timed(b) else "error"
                          for b in cells]
    return columns, rows


def fig1_section(devices, figures_dir):
    """SAMPO's optimisation space: the one-cluster heat map (run time over the tile sizes,
    one row per size) above the clustering the method chose: the 2-D map of its two clusters
    of several fields' tiles (`kdlg-tiles`), one per size, with the method's own values
    marked; without that sweep, the measured points of `kdlg` and `kdlg-tree`. Every map is
    coloured by its size's fastest time over all of them."""
    maps = [(d, [(key, heat_map_rows(sizes), method_map_rows(sizes), _grids(sizes))
                 for key, sizes in cases(d).items()
                 if key[0] == HEAT_MAP_PROGRAM and heat_map_rows(sizes)[1]]) for d in devices]
    width = max((len(cols) for _, ms in maps for _, (cols, _), _, _ in ms), default=0)
    if not width:
        return "Fig. 1: no SAMPO tiled benchmarks."
    lower = [max(1, len(ms[0][3])) if ms else 1 for _, ms in maps]
    fig, axes = panel_grid(sum(1 + n for n in lower), 1, width=max(6.5, 0.6 * width + 2.5),
                           height=3.6)
    chosen, swept, row = [], [], 0
    for (device, device_maps), n_lower in zip(maps, lower):
        (top,), lows = axes[row], [ax for (ax,) in axes[row + 1:row + 1 + n_lower]]
        row += 1 + n_lower
        if not device_maps:
            for ax in (top, *lows):
                ax.set_title(panel_title("SAMPO", device, devices))
                mark_not_measured(ax, "no SAMPO tiled benchmarks")
            continue
        (_, _, precision), (columns, rows), (method_columns, method_rows), grids = \
            device_maps[0]
        fastest, vmax = _fig1_scale(rows, method_rows, grids)
        top.set_title(panel_title(f"SAMPO, one cluster of 12 fields ({precision})", device,
                                  devices))
        _draw_heat_map(fig, top, [{KIND.aos: "AoS", KIND.soa: "SoA"}.get(l, str(k))
                                  for l, k in columns], rows, fastest, vmax)
        top.set_xlabel("tile size t (records per tile)")
        sizes = cases(device)[device_maps[0][0]]
        chosen += _chosen_text(device, devices, sizes)
        if grids:
            for ax, (size, grid) in zip(lows, grids.items()):
                ax.set_title(panel_title(f"SAMPO, the KDLG clusters' tiles ({precision}, "
                                         f"{count_label(size)} initial eggs)", device, devices))
                _draw_tile_grid(fig, ax, grid, fastest[size], vmax)
                swept.append(_grid_text(device, devices, size, grid))
            continue
        low = lows[0]
        low.set_title(panel_title(f"SAMPO, the clustering the method chose ({precision})",
                                  device, devices))
        if not method_rows:
            mark_not_measured(low, "no kdlg, kdlg-tree or kdlg-tiles benchmark")
            continue
        _draw_heat_map(fig, low, [_METHOD_COLUMNS[c] for c in method_columns], method_rows,
                       fastest, vmax)
        low.set_xlabel("each KDLG cluster's layout")
    body = ("The paper's maps (l.35): top, the one-cluster grouping of all twelve fields over "
            "every tile size, from AoS (t = 1, left) to SoA (t = n, right); below, the "
            "clustering the method chose (the KDLG clusters) over the tiles of its clusters "
            "of several fields, every cluster of one field SoA (`kdlg-tiles`, one map per "
            "size). The paper's lower map varies the tiles of its chosen clustering's 2-field "
            "and 6-field structs, the other fields SoA, and finds tile 16 for the 2-field and "
            "24 for the 6-field struct the fastest. Our KDLG of SAMPO (docs/kdlg.md) has two "
            "clusters of several fields: isFemale + cumulativeSporogonicDevelopment, the "
            "paper's 2-field struct, and the seven fields availableEggs, cycleLength, "
            "humanBloodmealCount, delay, numEggBatches, ovipositionOrLarvalDelay and "
            "hoursInState, its 6-field struct plus hoursInState; dead, state and "
            "ageInHours are one field each. Marked on the map where their tiles are on it: "
            "`kdlg` (○, every cluster AoS: tile 1 of both; one field alone is stored "
            "contiguously, as SoA stores it) and `kdlg-tree` (☆, the tiles the GPU's decision "
            "tree chose; not measured without a tree); without the sweep the map shows those "
            "two points only. The paper's axes are tile sizes of one run; ours add one row "
            "per problem size (initial eggs) to the top map. Colour: time / the fastest time "
            "of its size over all maps (red fast, blue slow, as the paper); the cell text is "
            "that ratio, the size's fastest time is under its size. × = the benchmark errored "
            "(listed under Errored and flagged benchmarks); \"not run\" = not run at that size. "
            "Where the tree lays one of the two clusters out SoA (t = n, off the sweep), the "
            "map adds an SoA column (or row) for that point, its ☆ there."
            + ("\n\nThe fastest tiles of the KDLG clusters, and the method's points:\n\n"
               + "\n".join(swept) if swept else "")
            + ("\n\nThe method's clusters (from the benchmark names) and layouts (`kdlg`: "
               "AoS; `kdlg-tree`: the tree's choice, from the results' labels):\n\n"
               + "\n".join(chosen) if chosen else ""))
    return figure_section(fig, figures_dir, "kofler_fig1",
                          f"{PAPER}, Fig. 1: SAMPO run time over the tile size (one cluster) "
                          "and over the tiles of the method's clusters",
                          "Fig. 1 — SAMPO's optimisation space", body, devices)


_METHOD_COLUMNS = {KIND.kdlg: "KDLG,\neach AoS", METHOD: "KDLG +\ntree's layouts"}
NOT_RUN = "not\nrun"  # a heat map's cell of a layout not run at that size
_GRID_MARKS = {KIND.kdlg: ("o", "kdlg (every cluster AoS)"),
               METHOD: ("*", "kdlg-tree (the tree's choice)")}


def _grids(sizes):
    """{size: TileGrid} of the sizes with a kdlg-tiles sweep of two clusters."""
    grids = {size: tile_grid(variants) for size, variants in sorted(sizes.items())}
    return {size: grid for size, grid in grids.items() if grid}


def _fig1_scale(rows, method_rows, grids):
    """({size: the fastest time over every map of Fig. 1}, the colour scale's top)."""
    times = {}
    for table in (rows, method_rows):
        for size, cells in table.items():
            times.setdefault(size, []).extend(c for c in cells if isinstance(c, float))
    for size, grid in grids.items():
        times.setdefault(size, []).extend(
            b.time_s for b in [*grid.cells.values(), *(b for _, b in grid.beside.values())]
            if timed(b))
    fastest = {s: min(ts, default=math.nan) for s, ts in times.items()}
    vmax = max([1.01, *(t / fastest[s] for s, ts in times.items() for t in ts)])
    return fastest, vmax


def _grid_cluster_label(fields):
    """A cluster of several fields in a few words: "the 7-field cluster (availableEggs, …)"."""
    return f"the {len(fields)}-field cluster ({fields[0]}, …)"


def _draw_tile_grid(fig, ax, grid, fastest, vmax):
    """The 2-D map: the first cluster's tile across, the second's down, each cell time / the
    size's fastest, "not run" where nothing ran; the method's points marked, in an SoA
    column (row) of their own where the method laid a cluster out SoA."""
    first, second = (list(tiles) + ([SOA_TILE] if any(at[axis] == SOA_TILE for at, _ in
                                                      grid.beside.values()) else [])
                     for axis, tiles in enumerate(grid.tiles))
    cells = {**grid.cells, **{at: b for at, b in grid.beside.values()}}
    values = np.array([[cells[t1, t2].time_s / fastest if timed(cells.get((t1, t2)))
                        else np.nan for t1 in first] for t2 in second])
    image = ax.imshow(np.ma.masked_invalid(values), cmap="RdYlBu", aspect="auto", vmin=1.0,
                      vmax=vmax, origin="lower")
    _label_cells(ax, image, values, [[NOT_RUN if cells.get((t1, t2)) is None else
                                      "" if timed(cells[t1, t2]) else "×"
                                      for t1 in first] for t2 in second])
    marks = {**{layout: at for layout, at in grid.marks.items() if isinstance(at, tuple)},
             **{layout: at for layout, (at, _) in grid.beside.items()}}
    for layout, at in marks.items():
        marker, label = _GRID_MARKS[layout]
        ax.plot(first.index(at[0]), second.index(at[1]), marker=marker, markersize=22,
                markerfacecolor="none", markeredgecolor="black", markeredgewidth=1.5,
                linestyle="none", label=label)
    if marks:
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize=SMALL,
                  markerscale=0.5)
    ax.set_xticks(range(len(first)))
    ax.set_xticklabels(map(str, first), fontsize=SMALL)
    ax.set_yticks(range(len(second)))
    ax.set_yticklabels(map(str, second), fontsize=SMALL)
    ax.set_xlabel(f"tile of {_grid_cluster_label(grid.clusters[0])}, records per tile",
                  fontsize=SMALL)
    ax.set_ylabel(f"tile of\n{_grid_cluster_label(grid.clusters[1])}", fontsize=SMALL)
    fig.colorbar(image, ax=ax, label="time / size's fastest")


def _grid_text(device, devices, size, grid):
    """One line per size: the fastest tiles of the sweep, and the method's points on it."""
    where = f"{device.label}, " if len(devices) > 1 else ""
    runs = {k: b for k, b in grid.cells.items() if timed(b)}
    if not runs:
        return f"- {where}{count_label(size)} initial eggs: every kdlg-tiles benchmark errored"
    best_at = min(runs, key=lambda k: runs[k].time_s)
    names = ["+".join(c) for c in grid.clusters]
    marks = "; ".join(
        f"`{layout}`'s tiles {at[0]} and {at[1]}: that cell "
        f"{_times(runs[at].time_s / runs[best_at].time_s)} the fastest's time"
        if isinstance(at, tuple) and at in runs else
        f"`{layout}`: {at if isinstance(at, str) else 'its cell did not run'}"
        for layout, at in grid.marks.items())
    return (f"- {where}{count_label(size)} initial eggs: fastest with tile {best_at[0]} for "
            f"{names[0]} and {best_at[1]} for {names[1]} "
            f"({format_seconds(runs[best_at].time_s)}; {len(runs)} of "
            f"{len(grid.tiles[0]) * len(grid.tiles[1])} combinations timed)"
            + (f"; {marks}" if marks else ""))


def _chosen_text(device, devices, sizes):
    """One line per size and method layout: the clusters and each one's layout."""
    where = f"{device.label}, " if len(devices) > 1 else ""
    return [f"- {where}{count_label(size)} initial eggs, `{layout}`: "
            f"{method_layout_text(variants[layout, None])}"
            for size, variants in sorted(sizes.items()) for layout in (KIND.kdlg, METHOD)
            if (layout, None) in variants]


def _label_cells(ax, image, values, marks):
    """Each cell of a heat map its value (2 decimals, white on dark cells), or its mark
    where it has no value (× errored, NOT_RUN)."""
    for r, row in enumerate(values):
        for c, value in enumerate(row):
            shown = value == value  # not NaN
            red, green, blue, _ = image.to_rgba(value) if shown else (1, 1, 1, 1)
            dark = 0.299 * red + 0.587 * green + 0.114 * blue < 0.5
            ax.text(c, r, f"{value:.2f}" if shown else marks[r][c], ha="center", va="center",
                    fontsize=SMALL, color="white" if dark else "black")


def _draw_heat_map(fig, ax, labels, rows, fastest, vmax):
    sizes = list(rows)
    values = np.array([[c / fastest[s] if isinstance(c, float) else np.nan for c in rows[s]]
                       for s in sizes])
    image = ax.imshow(np.ma.masked_invalid(values), cmap="RdYlBu", aspect="auto",
                      vmin=1.0, vmax=vmax)
    _label_cells(ax, image, values, [["×" if cell == "error" else NOT_RUN if cell is None
                                      else "" for cell in rows[s]] for s in sizes])
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, fontsize=SMALL)
    ax.set_yticks(range(len(sizes)))
    ax.set_yticklabels([f"{count_label(s)}\nfastest\n{format_seconds(fastest[s])}"
                        if fastest[s] == fastest[s] else count_label(s) for s in sizes],
                       fontsize=SMALL)
    ax.set_ylabel("initial eggs")
    fig.colorbar(image, ax=ax, label="time / row's fastest")


# --- Fig. 5 --------------------------------------------------------------------------------

def fig5_section(devices, figures_dir):
    """Speedup over AoS of the paper's four versions (l.118): SoA, KDLG, tiled with the
    tree's tile, KDLG + the tree's layouts; panels (a) N-body, (b) bitonic sort, (c) SAMPO,
    each with a group of bars per GPU (and precision)."""
    groups = {app: [(device, r) for device in devices for r in compared(device)
                    if r[0] == app and r[5]] for app in FIG5_PROGRAMS}
    if not any(groups.values()):
        return "Fig. 5: no N-body, bitonic or SAMPO layout with an AoS time."
    width = max(4.6, 2.2 * max(len(g) for g in groups.values()) + 1.6)
    # side by side while that stays page-wide (8 pt text at 8 px in report.html), else stacked
    side_by_side = width * len(FIG5_PROGRAMS) <= PAGE_WIDTH_IN
    fig, axes = (panel_grid(1, len(FIG5_PROGRAMS), width=width, height=4.6) if side_by_side
                 else panel_grid(len(FIG5_PROGRAMS), 1, width=min(width, PAGE_WIDTH_IN), height=4.6))
    for ax, (letter, app) in zip([ax for row in axes for ax in row], zip("abc", FIG5_PROGRAMS)):
        ax.set_title(f"({letter}) {PROGRAMS[app]}")
        if not groups[app]:
            mark_not_measured(ax, f"no {PROGRAMS[app]} layout with an AoS time")
            continue
        _plot_bars(ax, groups[app], devices)
    body = ("Panels (a)–(c) as the paper's: one per program, bars: time(AoS) / time of SoA, "
            "KDLG (`kdlg`: the KDLG clusters, each AoS), tiled (tree) (`tiled-tree`: one "
            "cluster laid out as the GPU's decision tree says, its layout above the bar) and "
            "KDLG + tiled (tree) (`kdlg-tree`, the full method) at the program's largest size "
            "with an AoS time (Table 2), one group per GPU; whiskers: the interval from the "
            "repetitions' extremes. n/m: not measured in this run (the tree's two versions "
            "need a decision tree for the GPU). The best tile and partition of the sweep are "
            "in Table 2.")
    return figure_section(fig, figures_dir, "kofler_fig5",
                          f"{PAPER}, Fig. 5: speedup over AoS of SoA, KDLG, tiled (tree) and "
                          "KDLG + tiled (tree)", "Fig. 5 — speedup over AoS", body, devices)


def _plot_bars(ax, groups, devices):
    """One group of bars per (GPU, precision) row of compared(); tiled (tree)'s layout above
    its bar; n/m where a version was not measured."""
    width = 0.8 / len(BAR_LAYOUTS)
    top, labelled = 1.0, set()
    above, missing = [], []
    for g, (device, (app, _, precision, size, aos, others)) in enumerate(groups):
        for k, layout in enumerate(BAR_LAYOUTS):
            x = g + (k - (len(BAR_LAYOUTS) - 1) / 2) * width
            if layout not in others:
                missing.append(x)
                continue
            _, knob_value, b = others[layout]
            est = speedup(aos, b)
            ax.bar(x, est.value, width=width, color=BAR_COLORS[layout],
                   yerr=[[est.value - est.low], [est.high - est.value]], capsize=3,
                   label=BAR_LABELS[layout] if layout not in labelled else None)
            labelled.add(layout)
            choice = method_choice(b) if layout == KIND.tiled_tree else None
            if choice:
                above.append((x, est.high, "|".join(choice["cluster_layouts"])))
            top = max(top, est.high)
    for x, high, text in above:  # above the whisker: a short bar has no room inside
        ax.annotate(text, (x, high), xytext=(0, 3), textcoords="offset points", rotation=90,
                    ha="center", va="bottom", fontsize=SMALL)
    for x in missing:
        ax.text(x, 0.02, "n/m", rotation=90, ha="center", va="bottom", fontsize=SMALL,
                color="0.35", transform=ax.get_xaxis_transform())
    ax.axhline(1.0, color="black", linewidth=0.9)
    # room above the tallest bar for its label and the legend
    ax.set_ylim(0, top * 1.6)
    ax.set_xlim(-0.6, len(groups) - 0.4)  # bars clear of the frame
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([(f"{device.label}\n" if len(devices) > 1 else "")
                        + f"{precision}, size {count_label(size)}"
                        for device, (_, _, precision, size, *_) in groups])
    ax.set_ylabel("speedup over AoS (×)")
    if labelled:
        ax.legend(loc="upper left")


# --- run-time vs compile-time --------------------------------------------------------------

def run_time_rows(device):
    """(app, precision, size, run-time layout, knob, run-time B, compile-time B, is best) of
    every pair measured at the same tile / partition and size."""
    rows = []
    for (app, _, precision), sizes in cases(device).items():
        for size, variants in sizes.items():
            for run_layout, fixed_layout in RUN_TIME.items():
                fastest = best(variants, (run_layout,))
                for (layout, k), b in variants.items():
                    other = variants.get((fixed_layout, k))
                    if layout == run_layout and timed(b) and timed(other):
                        rows.append((app, precision, size, run_layout, k, b, other,
                                     fastest is not None and fastest[1] == k))
    return rows


def run_time_section(devices, figures_dir):
    rows = []
    for device in devices:
        for app, precision, size, layout, k, run, fixed, is_best in run_time_rows(device):
            est = ratio_estimate(run, fixed)
            verdict, _ = judge_band((est.low, est.high), (est.low, est.high), None,
                                    RUN_TIME_GOAL)
            rows.append([device.label, PROGRAMS[app], precision, count_label(size),
                         f"{layout} / {RUN_TIME[layout]}", f"{k}" + (" (best)" if is_best else ""),
                         format_seconds(run.time_s), format_seconds(fixed.time_s),
                         f"{est.value:.3f} [{est.low:.3g}–{est.high:.3g}]",
                         _GOAL_WORDS.get(verdict, "within 5 %")])
    if not rows:
        return ("Run-time vs compile-time: no tile or partition measured both at run time and "
                "at compile time.")
    body = ("Run-time mapping (tile or partition chosen at run time) against its compile-time "
            "twin at the same tile / partition and size: ratio = time(run-time) / "
            f"time(compile-time) with its interval; the goal (issue 11) is at most "
            f"{RUN_TIME_GOAL:g}× (5 % slower) at each program's best tile. `inconclusive`: the "
            "interval straddles 1.05; (best): the fastest run-time tile / partition at that "
            "size.\n\n"
            + markdown_table(["GPU", "program", "precision", "size", "pair", "tile / partition",
                              "run-time", "compile-time", "ratio [interval]", "goal ≤ 1.05"],
                             rows))
    return Section("Run-time vs compile-time tiles and partitions", body)


_GOAL_WORDS = {NOT_REPRODUCED: "misses", INCONCLUSIVE: "inconclusive"}


# --- sort vs CUB ---------------------------------------------------------------------------

def sort_section(devices, figures_dir):
    versions = {"bitonic": (version_of("bitonic"), *SORT_LIBRARIES)}
    rows = []
    for device in devices:
        grouped = {}
        for (app, version, precision), sizes in cases(device, versions).items():
            for size, variants in sizes.items():
                grouped.setdefault((precision, size), []).append((version, variants))
        for (precision, size), group in sorted(grouped.items()):
            library = [(v, l, b) for v, variants in group if v in SORT_LIBRARIES
                       for (l, _), b in variants.items() if timed(b)]
            if not library:
                continue
            fastest = min(library, key=lambda r: r[2].time_s)
            for version, variants in group:
                shown = (list(variants) if version in SORT_LIBRARIES else  # every CUB variant
                         [(KIND.aos, None), (KIND.soa, None), (KIND.tiled, None),
                          (KIND.split, None)])
                for layout, k in shown:
                    chosen = best_of(variants, layout) if k is None else (layout, k,
                                                                          variants[layout, k])
                    if chosen and timed(chosen[2]):
                        _, k, b = chosen
                        name = layout + ("" if k is None else f" ({k})")
                        rows.append([device.label, precision, count_label(size), version, name,
                                     format_seconds(b.time_s),
                                     f"{b.time_s / fastest[2].time_s:.2f}×"])
    if not rows:
        return "Sort vs CUB: no bitonic sort measured beside cub-radix or cub-merge."
    body = ("Bitonic sort's layouts beside CUB's `DeviceRadixSort::SortPairs` (key + index, then "
            "gather) and `DeviceMergeSort` in the same run: what a user would use instead. "
            "Relative time = time / the fastest CUB time at that size (above 1: slower than "
            "CUB); tiled and split show their best tile / partition.\n\n"
            + markdown_table(["GPU", "precision", "size", "version", "layout", "time",
                              "× fastest CUB"], rows))
    return Section("Bitonic sort vs CUB", body)


# --- % of bound ----------------------------------------------------------------------------

def bound_section(devices, figures_dir):
    versions = {app: (version_of(app), *(SORT_LIBRARIES if app == "bitonic" else ()),
                      *((ROOFLINE_VERSIONS[app],) if app in ROOFLINE_VERSIONS else ()))
                for app in PROGRAMS}
    rows, goals, targets = [], [], []
    for device in devices:
        for (app, version, precision), sizes in cases(device, versions).items():
            size = max(sizes)
            chosen = [c for c in (best_of(sizes[size], l) for l in
                                  (KIND.aos, KIND.soa, KIND.tiled, KIND.tiled_ct, KIND.split,
                                   KIND.split_ct))
                      if c and any(n in c[2].counters for n in BOUND_COUNTERS)]
            if not chosen:
                continue
            for layout, k, b in chosen:
                rows.append([device.label, PROGRAMS[app], version, precision,
                             count_label(size), layout + ("" if k is None else f" ({k})"),
                             *(_pct(b.counters.get(n)) for n in BOUND_COUNTERS)])
            if app in BOUND_GOALS and version == version_of(app):
                goals.append(_goal_line(device, PROGRAMS[app], size, chosen, BOUND_GOALS[app]))
            if version == ROOFLINE_VERSIONS.get(app):
                targets.append(_goal_line(device, f"{PROGRAMS[app]} {version} version", size, chosen,
                                          ROOFLINE_TARGETS[app], f" (claim `{ROOFLINE_CLAIMS[app]}`)"))
    if not rows:
        return "% of bound: no benchmark with pct_of_bound, pct_copy_bandwidth or " \
               "pct_compute_bound counters."
    body = ("Each layout at the program's largest size (tiled and split at their best tile / "
            "partition): `pct_of_bound` = 100 · bound_s / time, where bound_s is the larger of "
            "the memory bound (bytes at the measured copy bandwidth: `pct_copy_bandwidth`) and "
            "the compute bound (`pct_compute_bound`), from the ceilings measured at process "
            "start. Medians over the repetitions.\n\n"
            + markdown_table(["GPU", "program", "version", "precision", "size", "layout",
                              "% of bound", "% copy bandwidth", "% compute bound"], rows))
    if goals:
        body += "\n\nGoals (issue 11, on the H100, for the best layout):\n\n" + "\n".join(goals)
    if targets:
        body += ("\n\nBeyond the paper, the roofline versions' targets (issue 38), at their "
                 "largest size:\n\n" + "\n".join(targets))
    return Section("% of bound per program and layout", body)


def _goal_line(device, name, size, chosen, goal, where=""):
    """One goal's line: (counter, goal in %, what) read on the fastest of `chosen`."""
    counter, goal, what = goal
    layout, k, b = min(chosen, key=lambda c: c[2].time_s)
    value = b.counters.get(counter)
    layout_name = layout + ("" if k is None else f" ({k})")
    if value is None:
        return (f"- {device.label}, {name}: goal ≥ {goal} % {what}{where}: not measured "
                f"(its fastest layout, {layout_name}, has no `{counter}` counter)")
    return (f"- {device.label}, {name}: goal ≥ {goal} % {what}{where}; fastest layout "
            f"{layout_name} at size {count_label(size)}: {value:.1f} % — "
            f"{'met' if value >= goal else 'missed'}")


# --- small helpers -------------------------------------------------------------------------

def _pct(value):
    return "—" if value is None else f"{value:.1f} %"


def _times(value):
    return f"{value:.2f}×"




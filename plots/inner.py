"""Springer, Sun & Masuhara 2018 (inner array inlining) figures: Fig. 10a (synthetic), the
object-count sweep, Fig. 10b (BFS, when `inner/bfs/...` benchmarks are present), the memory
footprint per strategy and Fig. 11 (traffic, when `inner/traffic/...` benchmarks are present:
plots/inner_traffic.py).

Names: inner/<app>/<strategy>/<aos|soa>/int/inline:<N>/<objects:<n> | graph:<name>>, a BFS
beyond the paper with `/search:persistent` or `/search:queue` after them (every level in one
cooperative launch, scanning every vertex or over a frontier queue; the paper's search, a
launch per level, has no `search` in its name). Fig. 10's x-axis is the inlining size N:
partial inlining is a curve over N, no inlining a point at N = 0, full inlining and
array-as-object points at N = Max. One row of panels per device (Fig. 10b: the paper's
search, then each search beyond it that was run); a panel without data says "not measured";
an errored point is an × saying why.
"""

from plots import inner_traffic
from plots.estimates import time_bounds
from plots.figures import (figure_section, mark_not_measured, panel_grid, panel_title, plt,
                           size_axis, time_axis, time_errorbar)
from plots.inner_panels import (LABELS, LAYOUT_NAMES, LAYOUTS, PAPER, STRATEGIES, STYLE,
                                draw_inline_panel, is_timed)
from plots.select import matches
from plots.text import count_label, markdown_table, time_cell

INTRO = (
    "M. Springer, Y. Sun, H. Masuhara, *Inner Array Inlining for Structure of Arrays Layout*, "
    "ARRAY'18 (ACM). The paper's runs used Ikra-Cpp on a GeForce GTX 980 (Maxwell); this "
    "project reimplements the layouts (AoS and SoA × no / partial / full inlining / array as "
    "object) in its own layout library, so absolute times are not expected to carry over; "
    "the orderings and ratios between strategies are the claims."
)
SWEEP = "objects"  # the synthetic program's size; claims on BFS name their own sweep (graph)
# BFS's searches beyond the paper: their names' `search:` values (the paper's has none: None
# here), with what the figure's text says of them
PERSISTENT, QUEUE = "persistent", "queue"
BEYOND = {PERSISTENT: "persistent search (every level in one cooperative launch, grid-wide "
                      "barriers between levels, every vertex scanned)",
          QUEUE: "queue search (the same launch over a frontier queue: a level touches only "
                 "its frontier)"}
PREFER = {"search": None}  # where both searches match a claim's selection: the paper's
PAPER_OBJECTS = 262144
PARTIAL_MARKERS = ("o", "v", "P", "X", "h", "*", "<", ">")


def render(devices, figures_dir):
    """Every inner-array figure for these devices, as report sections."""
    sections = [fig10_section(devices, figures_dir, "synthetic", "Fig. 10a"),
                scaling_section(devices, figures_dir)]
    if any(b.app == "bfs" for d in devices for b in d.benchmarks):
        sections.append(fig10_section(devices, figures_dir, "bfs", "Fig. 10b"))
    sections.append(footprint_section(devices, figures_dir))
    if inner_traffic.has_traffic(devices):
        sections += inner_traffic.render(devices, figures_dir)
    return sections


def _select(device, **selector):
    return [b for b in device.benchmarks if matches(b, selector)]


def fig10_point(device, app):
    """The last parameter's value Fig. 10 is drawn at: 262,144 objects (the paper's) when run,
    else the most-run object count; for BFS the most-run graph. None when the app was not run."""
    key = "objects" if app == "synthetic" else "graph"
    counts = {}
    for b in _select(device, app=app):
        value = b.params.get(key)
        if value is not None:
            counts[value] = counts.get(value, 0) + 1
    if not counts:
        return key, None
    if app == "synthetic" and PAPER_OBJECTS in counts:
        return key, PAPER_OBJECTS
    return key, max(counts, key=lambda v: (counts[v], str(v)))


def inline_curves(device, app, layout, key, value, search=None):
    """{strategy: [(N, benchmark), ...] in N order} of one layout at one object count/graph,
    of one BFS search (None: the paper's)."""
    curves = {}
    for strategy in STRATEGIES:
        points = sorted(((b.params["inline"], b) for b in
                         _select(device, app=app, layout=layout, version=strategy, search=search,
                                 **{key: value})
                         if isinstance(b.params.get("inline"), int)), key=lambda p: p[0])
        if points:
            curves[strategy] = points
    return curves


def searches_drawn(devices, app):
    """The searches Fig. 10 draws a column of panels for: the paper's (None) and, for BFS,
    each search beyond it that was run."""
    run = {b.params.get("search") for d in devices for b in d.benchmarks if b.app == app} \
        if app == "bfs" else set()
    return [None] + [s for s in BEYOND if s in run]


def fig10_section(devices, figures_dir, app, figure):
    """Time per strategy and inlining size, AoS and SoA on one axis, one row per device; for
    BFS a column per search beyond the paper that was run."""
    searches = searches_drawn(devices, app)
    # several columns narrower than one: the page draws the figure at its width, texts with it
    fig, axes = panel_grid(len(devices), len(searches),
                           width={1: 8.0, 2: 5.4}.get(len(searches), 4.6), height=4.8)
    points = []
    for row, device in zip(axes, devices):
        key, value = fig10_point(device, app)
        where = f"{key} {_value_label(value)}" if value is not None else ""
        for ax, search in zip(row, searches):
            what = "" if len(searches) == 1 else \
                ("the paper's search (a launch per level), " if search is None
                 else f"{search} search (beyond the paper), ")
            ax.set_title(panel_title(f"{what}AoS and SoA, {where}", device, devices))
            layouts = {layout: inline_curves(device, app, layout, key, value, search)
                       for layout in LAYOUTS if value is not None}
            if not draw_inline_panel(ax, layouts):
                mark_not_measured(ax, f"no {app} benchmarks" if search is None
                                  else f"no {search} {app} benchmarks")
        if value is not None:
            points.append(f"{device.label}: {where}")
    what = "synthetic benchmark (add the value to every element)" if app == "synthetic" \
        else "frontier BFS"
    body = (f"Drawn at {'; '.join(points) or 'no point (not measured)'}. Partial inlining is a "
            "curve over N; no inlining sits at N = 0, full inlining and array as object at "
            "N = Max (drawn just beside those N so that no marker hides another). AoS hollow "
            "and dashed, SoA filled and solid, on one axis as in the paper; whiskers: the "
            "fastest to the slowest repetition. Lower is faster.")
    if app == "synthetic":
        body += "\n\n" + synthetic_table(devices)
    elif len(searches) > 1:
        body += ("\n\nRight of it, beyond the paper (kernels/bfs/gpu_search.cu), over the same "
                 "layouts and strategies: "
                 + "; ".join(f"the {BEYOND[s]}" for s in searches[1:])
                 + ". Each panel has its own time axis.\n\n" + bfs_level_table(devices))
    stem = "inner_fig10a" if app == "synthetic" else "inner_fig10b"
    return figure_section(fig, figures_dir, stem,
                          f"{PAPER}, {figure}: {what}, time per strategy and inlining size",
                          f"{figure} — {what}", body, devices)


def synthetic_table(devices):
    """Time, % of copy bandwidth and footprint of every synthetic benchmark at Fig. 10a's count."""
    rows = []
    for device in devices:
        key, value = fig10_point(device, "synthetic")
        if value is None:
            continue
        for layout in LAYOUTS:
            for strategy, points in inline_curves(device, "synthetic", layout, key, value).items():
                for n, b in points:
                    pct = b.counters.get("pct_copy_bandwidth")
                    footprint = b.counters.get("footprint_bytes")
                    rows.append((device.label, LAYOUT_NAMES[layout], strategy, n,
                                 b.error or time_cell(b.time_s),
                                 f"{pct:.0f} %" if isinstance(pct, (int, float)) else "—",
                                 _bytes_text(footprint)))
    if not rows:
        return "No synthetic benchmarks."
    return markdown_table(("GPU", "layout", "strategy", "N", "time", "% of copy bandwidth",
                           "footprint"), rows)


def bfs_level_table(devices):
    """Time and time per level of every BFS benchmark at Fig. 10b's graph, the paper's search
    beside each one beyond it that was run: a level is what the searches differ in (a launch
    and the host's wait, or a grid-wide barrier and a scan or a frontier)."""
    beyond = searches_drawn(devices, "bfs")[1:]
    rows = []
    for device in devices:
        key, value = fig10_point(device, "bfs")
        if value is None:
            continue
        for layout in LAYOUTS:
            curves = [inline_curves(device, "bfs", layout, key, value, search)
                      for search in [None, *beyond]]
            for strategy in STRATEGIES:
                points = [dict(c.get(strategy, ())) for c in curves]
                for n in sorted(set().union(*points)):
                    rows.append((device.label, LAYOUT_NAMES[layout], strategy, n,
                                 *(cell for p in points for cell in _level_cells(p.get(n)))))
    if not rows:
        return "No BFS benchmarks."
    return ("Time per level = the search's time / its levels (the `levels` counter; the "
            "benchmarks also record it as `level_s`).\n\n"
            + markdown_table(("GPU", "layout", "strategy", "N", "time (per level)", "µs a level",
                              *(h for s in beyond for h in (f"time ({s})", f"µs a level ({s})"))),
                             rows))


def _level_cells(benchmark):
    """(time, µs a level) cells of a BFS benchmark; dashes where it was not run or errored."""
    if benchmark is None:
        return "—", "—"
    levels = benchmark.counters.get("levels")
    if not is_timed(benchmark) or not isinstance(levels, (int, float)) or levels <= 0:
        return benchmark.error or time_cell(benchmark.time_s), "—"
    return time_cell(benchmark.time_s), f"{1e6 * benchmark.time_s / levels:.2f}"


def scaling_section(devices, figures_dir):
    """Time per element over the object counts, per layout x strategy (partial: each N run);
    AoS and SoA panels share their time axis."""
    fig, axes = panel_grid(len(devices), 2, width=5.6, height=4.4)
    for row, device in enumerate(devices):
        per_layout = {layout: scaling_series(device, layout) for layout in LAYOUTS}
        seconds = [t / b.counters["elements"] for series in per_layout.values()
                   for points in series.values() for _, b in points
                   for t in (b.time_s, *time_bounds(b))]
        for ax, layout in zip(axes[row], LAYOUTS):
            ax.set_title(panel_title(f"{LAYOUT_NAMES[layout]}, per object count", device,
                                     devices))
            series = per_layout[layout]
            if not series:
                mark_not_measured(ax, "fewer than two object counts")
                continue
            _, scale = time_axis(ax, seconds, "time per element")
            partial = [n for strategy, n in series if strategy == "partial"]
            for k, ((strategy, n), points) in enumerate(series.items()):
                label = LABELS[strategy].replace("(N)", f"N = {n}")
                style = (_partial_style(partial.index(n), len(partial))
                         if strategy == "partial" else STYLE[strategy])
                # each curve's markers a little smaller and above the ones before: a point
                # on top of another leaves the one below visible as a ring
                time_errorbar(ax, [objects for objects, _ in points], [b for _, b in points],
                              scale, value=_per_element(lambda b: b.time_s),
                              bounds=_per_element(time_bounds), label=label, linestyle="-",
                              markersize=max(4.0, 10.0 - 1.0 * k), zorder=2 + 0.1 * k,
                              **style)
            size_axis(ax, sorted({o for points in series.values() for o, _ in points}),
                      "objects", count_label)
            ax.legend()
    body = ("Time per array element over the object counts run (the paper's figure is at "
            "262,144 objects): small counts leave the GPU partly idle, large ones leave the "
            "caches. AoS and SoA share their time axis; whiskers: the fastest to the slowest "
            "repetition.")
    return figure_section(fig, figures_dir, "inner_scaling",
                          f"{PAPER}: synthetic benchmark over the object count",
                          "Synthetic benchmark — scaling with the object count", body, devices)


def scaling_series(device, layout):
    """{(strategy, N): [(objects, Benchmark)]} of the synthetic runs of one layout at two or
    more object counts, in STRATEGIES then N order."""
    series = {}
    for b in _select(device, app="synthetic", layout=layout):
        if is_timed(b) and b.counters.get("elements"):
            series.setdefault((b.version, b.params.get("inline")), []).append(
                (b.params["objects"], b))
    return {key: sorted(points, key=lambda p: p[0]) for key, points in
            sorted(series.items(), key=lambda s: (STRATEGIES.index(s[0][0]), s[0][1]))
            if len(points) > 1}


def _per_element(of):
    """A benchmark's quantity (a time, or its (fastest, slowest)) per array element."""
    def per_element(b):
        value = of(b)
        elements = b.counters["elements"]
        return tuple(v / elements for v in value) if isinstance(value, tuple) else \
            value / elements
    return per_element


def _partial_style(k, count):
    """The k-th of `count` partial-inlining curves: its own marker and shade of the
    partial colour, so N = 0, 32, 64 are told apart."""
    shade = 0.45 + 0.5 * k / max(count - 1, 1)
    return {"color": plt.get_cmap("Blues")(shade), "marker": PARTIAL_MARKERS[k % len(
        PARTIAL_MARKERS)]}


def footprint_rows(devices):
    """(app, layout, strategy, N, where, inline, arena, wasted) per distinct configuration:
    the footprint depends on the data, not on the GPU, so the first device that ran it gives it."""
    rows, seen = [], set()
    for device in devices:
        for app in ("synthetic", "bfs"):
            key, value = fig10_point(device, app)
            if value is None:
                continue
            for layout in LAYOUTS:
                for strategy, points in inline_curves(device, app, layout, key, value).items():
                    for n, b in points:
                        parts = [b.counters.get(f"footprint_{p}_bytes")
                                 for p in ("inline", "arena", "wasted")]
                        ident = (app, layout, strategy, n, value)
                        if ident in seen or not all(isinstance(p, (int, float)) for p in parts):
                            continue
                        seen.add(ident)
                        rows.append((app, layout, strategy, n, f"{key} {_value_label(value)}",
                                     *parts))
    return rows


def footprint_section(devices, figures_dir):
    """Stacked bars: inline part and arena per strategy and N, the wasted part hatched; one
    panel for AoS and SoA of a program where their bytes are the same (_footprint_panels)."""
    rows = footprint_rows(devices)
    apps = [app for app in ("synthetic", "bfs") if any(r[0] == app for r in rows)] or \
        ["synthetic"]
    panels = [(app, layouts) for app in apps for layouts in _footprint_panels(rows, app)]
    columns = max(sum(1 for a, _ in panels if a == app) for app in apps)
    fig, axes = panel_grid(len(apps), columns, width=6.0 if columns > 1 else 8.0)
    for row, app in enumerate(apps):
        own = [layouts for a, layouts in panels if a == app]
        for ax in axes[row][len(own):]:
            ax.set_visible(False)
        for ax, layouts in zip(axes[row], own):
            bars = sorted({r[2:4]: r for layout in reversed(layouts) for r in rows
                           if r[0] == app and r[1] == layout}.values(),
                          key=lambda r: (STRATEGIES.index(r[2]), r[3]))  # both layouts' bars
            names = " and ".join(LAYOUT_NAMES[layout] for layout in layouts)
            same = " (the same bytes)" if len(layouts) > 1 else ""
            ax.set_title(f"{app}, {names}{same}" + (f", {bars[0][4]}" if bars else ""))
            if not bars:
                mark_not_measured(ax, f"no {app} footprint counters")
                continue
            _footprint_bars(ax, bars)
    body = ("The footprint is the layout's, from the mapping (`footprint_inline_bytes`, "
            "`footprint_arena_bytes`, `footprint_wasted_bytes` counters): the same on every "
            "GPU. Wasted bytes (hatched, drawn over the inline part) are alignment padding "
            "and inline slots past an array's length. Where AoS and SoA hold the same bytes "
            "in every configuration both measured (records of 4-byte fields only: no "
            "padding between them to tell the two apart) one panel stands for both.")
    return figure_section(fig, figures_dir, "inner_footprint",
                          f"{PAPER}: memory footprint per strategy (inline part, arena, waste)",
                          "Memory footprint per strategy", body)


def _footprint_panels(rows, app):
    """The layouts of each panel of one program: [(AoS, SoA)] where both hold the same bytes
    in every configuration both measured (an errored one has no counters), else one panel
    each."""
    bars = {layout: {r[2:4]: r[5:] for r in rows if r[0] == app and r[1] == layout}
            for layout in LAYOUTS}
    aos, soa = (bars[layout] for layout in LAYOUTS)
    if set(aos) & set(soa) and all(aos[k] == soa[k] for k in set(aos) & set(soa)):
        return [tuple(LAYOUTS)]
    return [(layout,) for layout in LAYOUTS]


def _footprint_bars(ax, bars):
    xs = range(len(bars))
    inline = [r[5] / 2**20 for r in bars]
    arena = [r[6] / 2**20 for r in bars]
    wasted = [r[7] / 2**20 for r in bars]
    ax.bar(xs, inline, color="C0", label="inline (records)")
    ax.bar(xs, arena, bottom=inline, color="C1", label="arena")
    ax.bar(xs, wasted, color="none", edgecolor="black", hatch="//",
           label="wasted (padding, unused slots)")
    ax.set_xticks(list(xs))
    ax.set_xticklabels([f"{r[2]} {r[3]}" for r in bars], rotation=90)
    ax.set_ylabel("MiB")
    ax.margins(x=0.03)
    # room above the tallest bar for the legend: it never covers a bar
    ax.set_ylim(0, 1.35 * max(max(i + a, w) for i, a, w in zip(inline, arena, wasted)))
    ax.legend(loc="upper left", ncols=2)


def _value_label(value):
    return count_label(value) if isinstance(value, (int, float)) else str(value)


def _bytes_text(value):
    if not isinstance(value, (int, float)):
        return "—"
    return f"{value / 2**20:.1f} MiB"

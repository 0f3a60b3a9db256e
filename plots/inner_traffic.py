"""Springer, Sun & Masuhara 2018, Fig. 11: the traffic simulation (docs/traffic.md) over the
inner-array layouts, one array field swept at a time with the others fully inlined.

Names: inner/traffic/<strategy>/<aos|soa>/int/inline:<N>/field:<incoming|outgoing|path|none>/
network:<stem>/cars:<n>/steps:<k>. One column of panels per array field (Cell::incoming,
Cell::outgoing, Car::path): above, the time per strategy and inlining size, AoS and SoA on one
axis (as Fig. 10); in the middle, where the results carry the counters cars_s and controllers_s
(one untimed run, instrumented), that time split into the cars' kernels and the
controllers', stacked (results without them: the total only, said so); below, the field's bytes
(inline part and arena) per strategy, AoS (the paper's lower charts). The paper's GTX 980 values stand beside ours in a table (their scale and
ours differ by orders of magnitude: one axis would hide ours), and issue 23's speed goal is a
line of its own, not a paper claim. The layouts of Kofler's method beyond the paper (aosoa32,
and field cells: both cell arrays apart at once, SoA only) are not drawn here: the regret table
(plots/advisor_beyond.py) judges them.
"""

from plots.figures import (AXIS_TIME_UNITS, Section, figure_legend, figure_section,
                           mark_not_measured, panel_grid, panel_title)
from plots.inner_panels import LAYOUT_NAMES, LAYOUTS, PAPER, STRATEGIES, draw_inline_panel
from plots.select import matches
from plots.text import count_label, format_seconds, markdown_table, time_cell, time_unit

FIELDS = ("incoming", "outgoing", "path")
FIELD_NAMES = {"incoming": "Cell::incoming", "outgoing": "Cell::outgoing", "path": "Car::path"}
PAPER_CARS, PAPER_STEPS = 229376, 1000
# Issue 23's goal (not a paper claim): SoA, every array fully inlined, at the paper's scale,
# at most this many seconds for 1000 steps: at least 10x the GTX 980's 11.4 s.
GOAL_S, GTX980_SOA_FULL_S = 1.1, 11.377
# The authors' GTX 980 results (ms, cars / controllers / total; None: not published), from
# their repository (../shared/papers/inner-arrays.md, "Traffic: facts from the authors' code").
PAPER_TIMES = (
    ("SoA, every array full", 5278, 6099, 11377),
    ("AoS, every array full", 8862, 6688, 15551),
    ("SoA, every array as object", 6299, 6359, 12659),
    ("SoA, Car::path as object", 6326, None, None),
    ("SoA, Car::path full", 5277, None, None),
    ("SoA, Car::path partial N = 0", 6477, None, None),
    ("SoA, Car::path partial N = 6", 5224, None, None),
    ("SoA, Car::path partial N = 15", 5158, None, None),
)
# (what, paper's value, selector of ours, counters summed): the authors' footprints are their
# class's bytes (8-byte pointers, the Denver network); ours the field's share of the records.
PAPER_FOOTPRINTS = (
    ("every array full, all classes", "1.549 GB",
     {"field": "none", "version": "full"}, ("footprint_inline_bytes", "footprint_arena_bytes")),
    ("Cell::incoming N = 0: arena", "70.2 MB",
     {"field": "incoming", "version": "partial", "inline": 0}, ("incoming_arena_bytes",)),
    ("Cell::incoming N = 1: arena", "3.49 MB",
     {"field": "incoming", "version": "partial", "inline": 1}, ("incoming_arena_bytes",)),
    ("Cell::incoming N = 3: arena", "0.39 MB",
     {"field": "incoming", "version": "partial", "inline": 3}, ("incoming_arena_bytes",)),
    ("Car::path N = 0: inline + arena", "9.18 + 35.8 MB (the Car class)",
     {"field": "path", "version": "partial", "inline": 0}, ("path_inline_bytes",
                                                             "path_arena_bytes")),
    ("Car::path N = 15: inline + arena", "36.7 + 9.64 MB (the Car class)",
     {"field": "path", "version": "partial", "inline": 15}, ("path_inline_bytes",
                                                              "path_arena_bytes")),
)
SPLIT_NOTE = (
    "The paper splits each time into the cars' kernels and the controllers' kernels; our "
    "benchmark times the whole step (all seven kernels together, docs/traffic.md) and not each "
    "phase, so ours is the total only: no split is drawn or estimated for it.")
# The benchmark's split (benches/inner/traffic_bench.cpp): seconds of the whole run of K steps.
SPLIT_COUNTERS = ("cars_s", "controllers_s")
SPLIT_MEASURED_NOTE = (
    "Middle: as the paper, each time split into the cars' kernels (plan, claim, resolve, move, "
    "reactivate) and the controllers' (traffic lights, yield controllers), stacked, AoS and SoA "
    "side by side (`cars_s`, `controllers_s`). The split comes from one untimed run of the same "
    "steps, instrumented with CUDA events at every change between the two parts (the "
    "timed runs carry none): the two parts sum to about the total drawn above, a little more "
    "for the events.")


def has_traffic(devices):
    return any(b.app == "traffic" for d in devices for b in d.benchmarks)


def traffic_point(device):
    """(network, cars, steps) Fig. 11 is drawn at: the paper's cars and steps where run, else
    the most-run combination; None when the traffic program was not run."""
    counts = {}
    for b in device.benchmarks:
        if b.app == "traffic":
            key = tuple(b.params.get(k) for k in ("network", "cars", "steps"))
            counts[key] = counts.get(key, 0) + 1
    if not counts:
        return None
    return max(counts, key=lambda k: ((k[1], k[2]) == (PAPER_CARS, PAPER_STEPS), counts[k],
                                      str(k)))


def split_of(b):
    """(cars_s, controllers_s) of a benchmark that has both counters, else None."""
    values = tuple(b.counters.get(c) for c in SPLIT_COUNTERS)
    return values if all(isinstance(v, (int, float)) for v in values) else None


def has_split(device):
    """Whether the traffic runs at the point Fig. 11 is drawn at carry the split counters."""
    point = traffic_point(device)
    return point is not None and any(split_of(b) for b in device.benchmarks
                                     if matches(b, _at(point)))


def _at(point):
    return dict(zip(("app", "network", "cars", "steps"), ("traffic", *point)))


def _one(device, selector):
    found = [b for b in device.benchmarks if matches(b, selector)]
    return found[0] if len(found) == 1 else None


def field_curves(device, point, layout, field):
    """{strategy: [(N, benchmark), ...] in N order} of one swept field and layout."""
    curves = {}
    for strategy in STRATEGIES:
        points = sorted(((b.params["inline"], b) for b in device.benchmarks
                         if matches(b, {**_at(point), "field": field, "layout": layout,
                                        "version": strategy})
                         and isinstance(b.params.get("inline"), int)), key=lambda p: p[0])
        if points:
            curves[strategy] = points
    return curves


def _point_text(point):
    network, cars, steps = point
    return f"network {network}, {count_label(cars)} cars, {steps} steps"


def _footprint_panel(ax, field, curves):
    """The swept field's inline bytes and arena per strategy and N, stacked (MiB)."""
    bars = [(strategy, n, b) for strategy, points in curves.items() for n, b in points
            if all(isinstance(b.counters.get(f"{field}_{p}_bytes"), (int, float))
                   for p in ("inline", "arena"))]
    if not bars:
        mark_not_measured(ax, f"no {field} footprint counters")
        return
    xs = range(len(bars))
    inline = [b.counters[f"{field}_inline_bytes"] / 2**20 for _, _, b in bars]
    arena = [b.counters[f"{field}_arena_bytes"] / 2**20 for _, _, b in bars]
    ax.bar(xs, inline, color="0.85", edgecolor="0.3", label="inline (records)")
    ax.bar(xs, arena, bottom=inline, color="0.3", label="arena")
    ax.set_xticks(list(xs))
    ax.set_xticklabels([f"{s} {n}" for s, n, _ in bars], rotation=90)
    ax.set_ylabel(f"{FIELD_NAMES[field]}, MiB")
    ax.margins(x=0.03)
    ax.set_ylim(0, 1.35 * max(i + a for i, a in zip(inline, arena)))
    ax.legend(loc="upper left", ncols=2)


def _split_panel(ax, field, layouts, unit):
    """The time split into cars and controllers, stacked, per layout, strategy and N, in
    `unit` ((name, seconds per unit): the time panels')."""
    bars = [(layout, strategy, n, split_of(b)) for layout in LAYOUTS
            for strategy, points in layouts.get(layout, {}).items() for n, b in points
            if split_of(b)]
    if not bars:
        mark_not_measured(ax, f"no cars/controllers split for field {field}")
        return
    xs = range(len(bars))
    name, scale = unit
    cars = [split[0] / scale for *_, split in bars]
    controllers = [split[1] / scale for *_, split in bars]
    ax.bar(xs, cars, color="C0", edgecolor="0.3", label="cars' kernels")
    ax.bar(xs, controllers, bottom=cars, color="C1", edgecolor="0.3",
           label="controllers' kernels")
    ax.set_xticks(list(xs))
    # Short labels, so a sweep's two dozen bars stay apart (a full name per bar overlapped).
    ax.set_xticklabels([f"{LAYOUT_NAMES[layout][0]} {_short(strategy, n)}"
                        for layout, strategy, n, _ in bars], rotation=90, fontsize=8)
    ax.set_xlabel("A: AoS, S: SoA; pN: partial inlining of N, full, obj: array as object", fontsize=8)
    ax.set_ylabel(f"instrumented run ({name})")
    ax.margins(x=0.03)
    ax.set_ylim(0, 1.35 * max(a + b for a, b in zip(cars, controllers)))
    ax.legend(loc="upper left", ncols=2)


def figure_unit(devices):
    """(name, seconds per unit) of every time Fig. 11 draws: the unit of its largest (the
    whole run's time, or its instrumented cars and controllers), one for all its panels."""
    seconds = [t for d in devices if traffic_point(d) is not None for b in d.benchmarks
               if matches(b, _at(traffic_point(d)))
               for t in (b.time_s, sum(split_of(b) or (0,)))
               if isinstance(t, (int, float)) and t > 0]
    return time_unit(max(seconds, default=1.0), AXIS_TIME_UNITS)


def _short(strategy, n):
    return {"partial": f"p{n}", "object": "obj"}.get(strategy, strategy)


def split_note(devices):
    """What Fig. 11 says of the split: drawn where the counters are, else the total only."""
    with_split = [d for d in devices if has_split(d)]
    if not with_split:
        return SPLIT_NOTE
    without = [d.label for d in devices if traffic_point(d) is not None and not has_split(d)]
    return SPLIT_MEASURED_NOTE + ("" if not without else
                                  f" {', '.join(without)}: results without the split counters, "
                                  "the total only.")


def render(devices, figures_dir):
    """Fig. 11 and, apart from the paper's figure and claims, issue 23's speed goal."""
    return [fig11_section(devices, figures_dir),
            Section("Speed goal of issue 23 (not a paper claim)", speed_goal(devices))]


def fig11_section(devices, figures_dir):
    """Time (above) and the field's footprint (below) per strategy, one column per field."""
    split = any(has_split(d) for d in devices)  # a row for the split: where any GPU has it
    per_device = 3 if split else 2
    fig, axes = panel_grid(per_device * len(devices), len(FIELDS), width=5.0, height=4.2)  # page-wide
    points, unit = [], figure_unit(devices)
    for row, device in enumerate(devices):
        point = traffic_point(device)
        if point is not None:
            points.append(f"{device.label}: {_point_text(point)}")
        for column, field in enumerate(FIELDS):
            time_ax = axes[per_device * row][column]
            bytes_ax = axes[per_device * row + per_device - 1][column]
            time_ax.set_title(panel_title(f"{FIELD_NAMES[field]}: time, AoS and SoA", device,
                                          devices))
            bytes_ax.set_title(f"{FIELD_NAMES[field]}: bytes, AoS")
            layouts = {layout: field_curves(device, point, layout, field) for layout in LAYOUTS
                       if point is not None}
            if not draw_inline_panel(time_ax, layouts, unit, legend=False):
                mark_not_measured(time_ax, f"field {field} not run")
            if split:
                split_ax = axes[per_device * row + 1][column]
                split_ax.set_title(f"{FIELD_NAMES[field]}: cars and controllers")
                _split_panel(split_ax, field, layouts, unit)
            _footprint_panel(bytes_ax, field, layouts.get("aos") or layouts.get("soa") or {})
    figure_legend(fig, [axes[per_device * row][column] for row in range(len(devices))
                        for column in range(len(FIELDS))])  # the time panels': inside, it covered data
    body = (f"Drawn at {'; '.join(points) or 'no point (not measured)'}. In each column one "
            "array field takes every strategy while the others stay fully inlined (the "
            "paper's sweep); full inlining is the same configuration in every column (and as "
            "field none). Above: the whole simulation's time, partial inlining a curve over N, "
            "no inlining at N = 0, full and array as object at N = Max; AoS hollow and dashed, "
            "SoA filled and solid; whiskers: the fastest to the slowest repetition. Below: the "
            "swept field's bytes (`<field>_inline_bytes`, `<field>_arena_bytes`), AoS as the "
            f"paper's lower charts; the other arrays and fields do not change. "
            f"{split_note(devices)}"
            "\n\n" + paper_table(devices) + "\n\n" + footprint_table(devices))
    return figure_section(fig, figures_dir, "inner_fig11",
                          f"{PAPER}, Fig. 11: traffic simulation, time and bytes per strategy",
                          "Fig. 11 — traffic simulation", body, devices)


def paper_table(devices):
    """The authors' GTX 980 times beside ours for the configurations they published."""
    ours = {  # the paper's configuration -> our selector (None: not in our sweep)
        "SoA, every array full": {"field": "none", "layout": "soa"},
        "AoS, every array full": {"field": "none", "layout": "aos"},
        "SoA, every array as object": None,
        "SoA, Car::path as object": {"field": "path", "layout": "soa", "version": "object"},
        "SoA, Car::path full": {"field": "path", "layout": "soa", "version": "full"},
        "SoA, Car::path partial N = 0": {"field": "path", "layout": "soa", "version": "partial",
                                         "inline": 0},
        "SoA, Car::path partial N = 6": {"field": "path", "layout": "soa", "version": "partial",
                                         "inline": 6},
        "SoA, Car::path partial N = 15": {"field": "path", "layout": "soa",
                                          "version": "partial", "inline": 15},
    }
    measured = [(d, traffic_point(d)) for d in devices if traffic_point(d) is not None]
    rows = []
    for what, cars, controllers, total in PAPER_TIMES:
        cells = [what, f"{cars / 1e3:.2f} s", "—" if controllers is None else
                 f"{controllers / 1e3:.2f} s", "—" if total is None else f"{total / 1e3:.2f} s"]
        for device, point in measured:
            selector = ours[what]
            b = None if selector is None else _one(device, {**_at(point), **selector})
            cells.append("not in the sweep (one field at a time)" if selector is None else
                         "not run" if b is None else b.error or _time_and_split(b))
        rows.append(cells)
    header = ("configuration", "authors' GTX 980: cars", "controllers", "total",
              *(f"ours, {d.label}: total" for d, _ in measured))
    return ("The authors' times on a GTX 980, from their repository (prg-titech/ikra-cpp, "
            "`bench_result_runtime.csv`, not the paper's text), on the paper's "
            "network (Denver–Aurora: 8,339,802 cells, 62,819 traffic lights, 4,792 yield "
            "controllers, 205,129 signal groups, 229,376 cars, 1000 steps; cars' time alone "
            "where the authors give no more), beside ours at the point drawn. "
            + network_mix(measured) + " docs/street-networks.md says why the mix differs; "
            "compare the cars' part, in parentheses, apart from the total:\n\n"
            + markdown_table(header, rows))


# The paper's network (Denver–Aurora), as docs/street-networks.md quotes it.
PAPER_MIX = {"cells": 8_339_802, "lights": 62_819, "yield_controllers": 4_792,
             "signal_groups": 205_129}


def network_mix(measured):
    """Our network's controller mix beside the paper's, from the first drawn run that records
    it (the counters `lights`, `yield_controllers`, `signal_groups`); older results say they
    lack it."""
    for device, point in measured:
        for b in device.benchmarks:
            if not matches(b, _at(point)):
                continue
            counts = {k: b.counters.get(k) for k in PAPER_MIX}
            if all(isinstance(v, (int, float)) for v in counts.values()):
                parts = ", ".join(f"{int(counts[k]):,} {label} ({counts[k] / PAPER_MIX[k]:.2f}× the "
                                  f"paper's)" for k, label in (("cells", "cells"),
                                                              ("lights", "traffic lights"),
                                                              ("yield_controllers", "yield controllers"),
                                                              ("signal_groups", "signal groups")))
                return f"Ours ({device.label}'s results): {parts}."
    return ("Our network's controller mix is not in these results (recorded from 2026-11-29 "
            "as the counters `lights`, `yield_controllers`, `signal_groups`).")


def _time_and_split(b):
    """A run's time, with its cars and controllers in parentheses where it has the split."""
    split = split_of(b)
    return time_cell(b.time_s) + ("" if split is None else
                                  f" (cars {format_seconds(split[0])}, controllers "
                                  f"{format_seconds(split[1])})")


def footprint_table(devices):
    """The authors' footprints beside ours (the first GPU that ran each: they are the
    layout's, the same on every GPU)."""
    rows = []
    for what, paper, selector, counters in PAPER_FOOTPRINTS:
        ours = "not run"
        for device in devices:
            point = traffic_point(device)
            b = point and _one(device, {**_at(point), "layout": "aos", **selector})
            values = [b.counters.get(c) for c in counters] if b else []
            if values and all(isinstance(v, (int, float)) for v in values):
                ours = " + ".join(f"{v / 1e6:.3g} MB" for v in values)
                break
        rows.append((what, paper, ours))
    return ("Footprints (AoS): the paper's are the whole class's bytes with 8-byte references "
            "on its network; ours the swept field's share of the records (4-byte cell and car "
            "ids) on ours, except the first row:\n\n"
            + markdown_table(("footprint", "paper", "ours"), rows))


def goal_benchmark(device):
    """SoA with every array fully inlined at the paper's cars and steps, or None."""
    return _one(device, {"app": "traffic", "field": "none", "layout": "soa",
                         "cars": PAPER_CARS, "steps": PAPER_STEPS})


def speed_goal(devices):
    """Issue 23's speed goal against each GPU's measured time: a goal of this project, not a
    claim of the paper (it is not in the claims table)."""
    lines = [f"This project's goal, not the paper's (so not in the claims table): SoA, every "
             f"array fully inlined (field none), at the paper's scale ({PAPER_CARS:,} cars, "
             f"{PAPER_STEPS} steps) in at most {GOAL_S:g} s, at least 10× the GTX 980's "
             f"{GTX980_SOA_FULL_S:.1f} s. The bandwidth bound is the time the bytes the steps "
             "must move take at the measured copy bandwidth (`pct_copy_bandwidth`).", ""]
    for device in devices:
        b = goal_benchmark(device)
        if b is None:
            lines.append(f"- {device.label}: not measured (no SoA field:none run at "
                         f"{PAPER_CARS:,} cars and {PAPER_STEPS} steps)")
        elif b.error or b.time_s is None:
            lines.append(f"- {device.label}: not measured ({b.error or 'no time'})")
        else:
            pct = b.counters.get("pct_copy_bandwidth")
            bound = (f", the bandwidth bound {pct:.1f} % of it" if isinstance(pct, (int, float))
                     else "")
            verdict = "met" if b.time_s <= GOAL_S else "not met"
            lines.append(f"- {device.label}: {format_seconds(b.time_s)} on "
                         f"{count_label(b.counters.get('cells', 0))} cells "
                         f"(network {b.params.get('network')}), "
                         f"{GTX980_SOA_FULL_S / b.time_s:.1f}× the GTX 980{bound}: **{verdict}**")
    return "\n".join(lines)

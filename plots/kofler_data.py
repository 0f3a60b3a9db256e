"""Kofler et al. 2015: the benchmarks of one device grouped per program, the best variant of
a layout family, and the method's layouts (`kdlg`, `tiled-tree`, `kdlg-tree`, docs/advisor.md)
as their names and labels carry them: the figure and table modules (plots/kofler.py,
plots/kofler_method.py) read the same points through these."""

from dataclasses import dataclass, field

from plots.estimates import ratio_estimate
from plots.kofler_label import METHOD_LAYOUTS, clusters, method_choice, runs_as, trial_choice
from plots.layout_kinds import KIND, KINDS, RUNS_ON_PARTITION, TRIAL_LAYOUTS, tile_of

# What ran a method benchmark (its label's runs_as), as the tables write it.
RUNS_AS_TEXT = {RUNS_ON_PARTITION: "run-time partition", KIND.aos: "compiled AoS",
                KIND.soa: "compiled SoA"}

PROGRAMS = {"nbody": "N-body", "bitonic": "Bitonic sort", "sampo": "SAMPO",
            "blackscholes": "BlackScholes", "lavamd": "LavaMD"}
VERSIONS = {"bitonic": "bitonic"}  # a program's own version; the others are "gpu"
# A program's roofline version (beyond the paper: issue 38 section 3), beside its own.
ROOFLINE_VERSIONS = {"nbody": "roofline"}
# The KDLG clusters' tile sweep (docs/advisor.md): one benchmark per combination of tiles of
# the clusters of several fields (`tiles:16,2`), the others SoA: Fig. 1's lower map.
TILE_SWEEP = KIND.kdlg_tiles
# The parameter that tells a kind's values at one size apart (the table's `sweeps`).
KNOBS = {k.name: k.sweeps for k in KINDS.values() if k.sweeps}
# A run-time kind -> its compile-time twin.
RUN_TIME = {k.name: k.compiled for k in KINDS.values() if k.compiled}
# The method's layout values (docs/advisor.md): one benchmark per size each; their partition
# is a parameter of the name (none for tiled-tree: one cluster) and each cluster's layout
# is in the label (plots/kofler_label.py), not a knob of a sweep.
METHOD = KIND.kdlg_tree  # the paper's method, the last of kdlg, tiled-tree, kdlg-tree
# Beyond the paper: the candidate a trial on the GPU chose (docs/advisor.md, "The extended value")
EXTENDED = KIND.kdlg_tree_plus
COMPARED = (KIND.soa, KIND.tiled, KIND.split, *METHOD_LAYOUTS)  # compared() finds each of these


def version_of(app):
    return VERSIONS.get(app, "gpu")


def knob(benchmark):
    """The tile size or partition name of a tiled / split benchmark, the tiles of a
    kdlg-tiles one (`16,2`); None for AoS and SoA."""
    key = KNOBS.get(benchmark.layout)
    return benchmark.params.get(key) if key else None


def cases(device, versions=None):
    """{(app, version, precision): {size: {(layout, knob): Benchmark}}} of the programs'
    benchmarks (their own version unless `versions` maps an app to others), errored included.
    The naming convention has no other parameters; were one added (a second sweep axis), the
    first benchmark of each (layout, knob, size) in file order would stand for it."""
    found = {}
    for b in device.benchmarks:
        size = b.params.get("size")
        wanted = versions.get(b.app, ()) if versions else (version_of(b.app),)
        if b.app in PROGRAMS and b.version in wanted and isinstance(size, (int, float)):
            variants = found.setdefault((b.app, b.version, b.precision), {}).setdefault(size, {})
            variants.setdefault((b.layout, knob(b)), b)
    return {key: found[key] for key in sorted(found, key=_case_order)}


def _case_order(key):
    app, version, precision = key
    return list(PROGRAMS).index(app), version, precision


def timed(benchmark):
    return benchmark is not None and benchmark.error is None and benchmark.time_s is not None


def fastest_measured(variants):
    """The fastest timed variant of one size, kdlg-tree-plus left out: it times again one of
    the layouts beside it (its trial's choice), so it would lower the fastest by its noise
    alone; None when none was timed. The regret's denominator."""
    measured = [b for (layout, _), b in variants.items()
                if timed(b) and layout not in TRIAL_LAYOUTS]
    return min(measured, key=lambda b: b.time_s) if measured else None


def best(variants, layouts):
    """(layout, knob, Benchmark) of the fastest timed variant of the first of `layouts` that
    has one; None when none was timed."""
    for layout in layouts:
        runs = [(k, b) for (l, k), b in variants.items() if l == layout and timed(b)]
        if runs:
            k, b = min(runs, key=lambda run: run[1].time_s)
            return layout, k, b
    return None


def best_of(variants, layout):
    """The best variant of a layout family (`tiled` falls back to `tiled-ct`), or AoS / SoA."""
    if layout in RUN_TIME:
        return best(variants, (layout, RUN_TIME[layout]))
    b = variants.get((layout, None))
    return (layout, None, b) if timed(b) else None


def largest_baselined(sizes):
    """The largest size with a timed AoS: where Table 2 and Fig. 5 compare."""
    candidates = [s for s, variants in sizes.items() if timed(variants.get((KIND.aos, None)))]
    return max(candidates) if candidates else None


def speedup(aos, other):
    """Estimate of time(AoS) / time(other), its interval from the repetitions' extremes."""
    return ratio_estimate(aos, other)


def counter_of(sizes, name):
    """A program's counter (same at every size and layout): the first benchmark's value."""
    for variants in sizes.values():
        for b in variants.values():
            if name in b.counters:
                return b.counters[name]
    return None


def compared(device):
    """[(app, version, precision, size, aos, {layout: (layout run, knob, Benchmark)})] at the
    largest size with a timed AoS of each program: Table 2's and Fig. 5's data."""
    rows = []
    for (app, version, precision), sizes in cases(device).items():
        size = largest_baselined(sizes)
        if size is None:
            continue
        variants = sizes[size]
        others = {layout: best_of(variants, layout) for layout in COMPARED}
        rows.append((app, version, precision, size, variants[KIND.aos, None],
                     {k: v for k, v in others.items() if v}))
    return rows


def method_layout_text(benchmark):
    """A method benchmark's layout, cluster by cluster: "pos: tiled-64; vel: tiled-64" (the
    partition in its name; `kdlg`: every cluster AoS; `tiled-tree`: "all fields: tiled-32",
    its one cluster), each tree layout as its label records the tree's choice, then what ran
    it where the label says ("— compiled SoA", "— compiled tiled-ct-32", "— run-time
    partition"); "not measured" for a tree layout that failed (run without a tree). The
    trial's value says what it chose and what ran it ("chose soa — compiled SoA"). None for
    other layouts and without a partition."""
    if benchmark.layout in TRIAL_LAYOUTS:
        choice = trial_choice(benchmark)
        if choice is None:
            return ("not measured" if benchmark.error
                    else "the trial's choice not recorded (no label)")
        ran = choice["runs_as"]
        return f"chose {choice['chosen']} — {RUNS_AS_TEXT.get(ran, f'compiled {ran}')}"
    parts = clusters(benchmark) if benchmark.layout in METHOD_LAYOUTS else None
    if parts is None:
        return None
    choice = method_choice(benchmark)
    if benchmark.layout == KIND.kdlg:
        layouts = [KIND.aos] * len(parts)
    elif choice is None:
        return "not measured" if benchmark.error else "the tree's choice not recorded (no label)"
    else:
        layouts = choice["cluster_layouts"]
    text = "; ".join(f"{'+'.join(c)}: {l}" for c, l in zip(parts, layouts))
    ran = runs_as(benchmark)
    return text if ran is None else f"{text} — {RUNS_AS_TEXT.get(ran, f'compiled {ran}')}"


@dataclass(frozen=True)
class TileGrid:
    """Fig. 1's lower map at one size: the kdlg-tiles benchmarks of a partition with two
    clusters of several fields, by (tile of the first, tile of the second), and where the
    method's own values sit on it."""

    clusters: tuple  # the two clusters of several fields, each a list of field names
    tiles: tuple  # (every tile of the first, every tile of the second), ascending
    cells: dict  # (t1, t2) -> Benchmark
    marks: dict  # "kdlg" / METHOD -> (t1, t2) on the grid, or a text saying why not
    # "kdlg" / METHOD -> ((t1, t2), Benchmark) of a method's point one of whose clusters is
    # SoA (t = n, SOA_TILE), the other's tile on the grid: a cell the map adds for it.
    beside: dict = field(default_factory=dict)


SOA_TILE = "SoA"  # a cluster laid out SoA: the tile axis's t = n


def tile_grid(variants):
    """The TileGrid of one size's variants; None without kdlg-tiles benchmarks of two
    clusters of several fields. `kdlg` (every cluster AoS: tile 1 for a cluster of several
    fields; one field alone is stored contiguously, as SoA stores it) and `kdlg-tree` (each
    cluster as its label says) are marked where their partition is the sweep's and their
    two tiles are on the grid."""
    cells = {tuple(int(t) for t in str(k).split(",")): b
             for (layout, k), b in variants.items() if layout == TILE_SWEEP}
    cells = {k: b for k, b in cells.items() if len(k) == 2}
    if not cells:
        return None
    partition = next(iter(cells.values())).params.get("partition")
    several = [c for c in clusters(next(iter(cells.values()))) if len(c) > 1]
    tiles = tuple(sorted({k[i] for k in cells}) for i in (0, 1))
    marks, beside = {}, {}
    for layout in (KIND.kdlg, METHOD):
        b = variants.get((layout, None))
        if b is None or b.params.get("partition") != partition:
            continue
        choice = method_choice(b)
        if layout == METHOD and choice is None:
            marks[layout] = "not measured" if b.error else "no tree's choice"
            continue
        layouts = dict(zip(map(tuple, clusters(b)), choice["cluster_layouts"] if choice else
                           [KIND.aos] * len(clusters(b))))
        at = tuple(_records_per_tile(layouts[tuple(c)]) for c in several)
        on_grid = all(t in tiles[i] for i, t in enumerate(at))
        marks[layout] = at if on_grid else " and ".join(layouts[tuple(c)] for c in several)
        if not on_grid and all(t is None or t in tiles[i] for i, t in enumerate(at)):
            beside[layout] = (tuple(SOA_TILE if t is None else t for t in at), b)
    return TileGrid(tuple(several), tiles, cells, marks, beside)


def _records_per_tile(cluster_layout):
    """A cluster layout's tile in records (aos: 1; tiled-<t>: t); None for SoA (t = n)."""
    return 1 if cluster_layout == KIND.aos else tile_of(cluster_layout)

"""The Kofler paper's own measurement kinds (MEASURES, registered through its entry in
plots/papers.py): Table 2's speedups over AoS, the field partition a benchmark's name
carries and a method layout's regret, read with plots/kofler_data.py and plots/kofler_label.py."""

from plots import kofler_data
from plots.claims.measures import collect_benchmarks, one_variant, reducer, unlike_codes
from plots.claims.verdicts import ClaimsError, Measured, NotMeasured
from plots.estimates import Estimate, aggregate, geomean
from plots.kofler_label import TREE_LAYOUTS, method_choice
from plots.layout_kinds import KIND
from plots.text import times_text


def measure_table2_speedup(spec, scope):
    """Table 2's time(AoS) / time(`layout`) of every program (and precision) at its Table 2
    size, the largest with a timed AoS (plots.kofler_data.compared and speedup: the very
    cells of Table 2's "× AoS" column), reduced over the programs by `reduce`: "max" reads
    the paper's "speedups of up to ... over different AoS sample programs" (Kofler l.12). The
    interval is the same reduction of the programs' intervals (the largest low end and the
    largest high end, as `ratio_every` does over tiles). A program not run, or without a
    timed `layout` at its Table 2 size (no tree for the GPU, an errored run), makes it not
    measured: the maximum over the others would be a guess."""
    reduce, pick = reducer(spec)
    layout = spec["layout"]
    if layout not in kofler_data.COMPARED:
        raise ClaimsError(f"measure 'table2_speedup': 'layout' must be one of "
                          f"{', '.join(kofler_data.COMPARED)}")
    rows = kofler_data.compared(scope)
    cells, unlike = {}, ()
    problems = [f"absent: {app} with a timed AoS (every {scope.sweep})"
                for app in kofler_data.PROGRAMS if app not in {row[0] for row in rows}]
    for app, version, precision, size, aos, others in rows:
        where = f"{kofler_data.PROGRAMS[app]} {precision} at {scope.sweep} {size}"
        chosen = others.get(layout)
        if chosen is None:
            problems.append(f"no timed {layout} for {app}/{version}/{precision} at "
                            f"{scope.sweep} {size}, Table 2's size")
            continue
        cells[where] = kofler_data.speedup(aos, chosen[2])
        unlike += unlike_codes((aos, chosen[2]))  # one program's cell unlike: the max unknown
    if problems:
        raise NotMeasured(problems)
    at = pick(cells, key=lambda w: cells[w].value)
    total = Estimate(cells[at].value, pick(e.low for e in cells.values()),
                     pick(e.high for e in cells.values()))
    listed = ", ".join(f"{w}: {times_text(e.value)}" for w, e in cells.items())
    return Measured(total.value, f"{times_text(total.value)} ({at})",
                    f"{reduce} over {len(cells)} program(s) of Table 2's time(AoS) / "
                    f"time({layout}) ({listed})", {}, interval=(total.low, total.high),
                    hull=(total.low, total.high), per_size=(total,), unlike=unlike)


def _clusters_unlike_soa(clusters, layouts):
    """Clusters of several fields not laid out SoA (a one-field cluster stores its field
    contiguously whatever its tile, as SoA does)."""
    return sum(len(c) > 1 and l != KIND.soa for c, l in zip(clusters, layouts))


PARTITION_COUNTS = {  # count -> (what it counts, (clusters, layouts) -> number)
    "clusters": ("cluster(s)", lambda clusters, layouts: len(clusters)),
    "largest_cluster": ("field(s) in the largest cluster",
                        lambda clusters, layouts: max(map(len, clusters))),
    "unlike_soa": ("cluster(s) of several fields not laid out SoA", _clusters_unlike_soa),
}


def measure_partition(spec, scope):
    """A count over the field partition a benchmark's name carries (`partition:a+b|c`, the
    Kofler method's `kdlg` and `kdlg-tree`), each cluster's layout AoS for `kdlg` and the
    tree's choice in the label for `kdlg-tree` (`cluster_layouts=tiled-64|soa;...`,
    plots/kofler_label.py; docs/advisor.md): `count` is one of PARTITION_COUNTS. A benchmark
    without a partition in its name (`tiled-tree`: one cluster of every field) or a tree
    layout without the tree's choice is not measured. Names and labels are exact, so there
    is no interval; the value is the largest over the sizes, the detail names each
    partition."""
    if spec["count"] not in PARTITION_COUNTS:
        raise ClaimsError(f"measure 'partition': 'count' must be one of "
                          f"{', '.join(PARTITION_COUNTS)}")
    what, count = PARTITION_COUNTS[spec["count"]]
    chosen, coverage = collect_benchmarks(scope, [("variant", one_variant(spec, scope))])
    values, named = [], {}
    for benchmark in chosen["variant"].values():
        partition = benchmark.params.get("partition")
        if not isinstance(partition, str):
            raise NotMeasured([f"no partition in the name: {benchmark.name}"])
        clusters = [c.split("+") for c in partition.split("|")]
        choice = method_choice(benchmark)
        if choice is None and benchmark.layout in TREE_LAYOUTS:
            raise NotMeasured([f"no tree's choice in the label: {benchmark.name}"])
        layouts = choice["cluster_layouts"] if choice else [KIND.aos] * len(clusters)
        values.append(count(clusters, layouts))
        named[f"{partition}" + (f" ({'|'.join(layouts)})" if choice else "")] = None
    value = max(values)
    return Measured(value, f"{value} {what}", f"partition {'; '.join(named)} at "
                    f"{coverage.labelled}", {}, interval=(value, value), hull=(value, value))


def measure_regret(spec, scope):
    """The geometric-mean regret of `layout` over the Kofler programs' points (each program,
    precision and size where it ran): time(layout) / time(the fastest layout measured at that
    point: kofler_data.fastest_measured), as the regret section computes it
    (plots/kofler_method.py), the interval the geometric mean of the points' intervals (the
    repetitions' extremes). A regret is no comparison of two layouts' code: mapping codes are
    not checked. Not measured where no point ran `layout`."""
    layout = spec["layout"]
    if layout not in kofler_data.COMPARED:
        raise ClaimsError(f"measure 'regret': 'layout' must be one of "
                          f"{', '.join(kofler_data.COMPARED)}")
    regrets = []
    for (app, _, precision), sizes in kofler_data.cases(scope).items():
        for size, variants in sizes.items():
            chosen, fastest = variants.get((layout, None)), kofler_data.fastest_measured(variants)
            if kofler_data.timed(chosen) and fastest:
                where = f"{kofler_data.PROGRAMS[app]} {precision} at {scope.sweep} {size}"
                regrets.append((where, kofler_data.speedup(chosen, fastest)))
    if not regrets:
        raise NotMeasured([f"absent: a timed {layout} of any program (every {scope.sweep})"])
    mean = aggregate([e for _, e in regrets], geomean)
    where, worst = max(regrets, key=lambda r: r[1].value)
    return Measured(mean.value, f"{mean.value:.3f}× over {len(regrets)} point(s)",
                    f"geometric mean over {len(regrets)} program/precision/size point(s) of "
                    f"time({layout}) / time(the fastest layout measured there); worst "
                    f"{times_text(worst.value)} ({where})", {}, interval=(mean.low, mean.high),
                    hull=(mean.low, mean.high))


MEASURES = {  # kind -> (function, keys its spec needs), as plots/claims/measures.py's
    "partition": (measure_partition, ("select", "count")),
    "table2_speedup": (measure_table2_speedup, ("layout",)),
    "regret": (measure_regret, ("layout",)),
}

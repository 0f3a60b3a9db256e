"""What the decision tree chose for a Kofler method benchmark, read from its label
(docs/advisor.md section 4) through the layout kinds' table (plots/layout_kinds.py: the kinds
with a label and its keys): `cluster_layouts=tiled-64|soa;runs_as=partition;tree_gpu=<GPU
name>` for the tree's kinds, one layout per cluster in the partition's order (`aos`, `soa`,
`tiled-<t>`; one for `tiled-tree`, whose one cluster holds every field), the code that ran it
(`aos`, `soa`, `tiled-ct-<t>`: the compiled layout the partition is; `partition`: the run-time
mapping; absent in results from before 2026-11-26), then the GPU the tree was trained on (to
the label's end). `kdlg`'s label is `runs_as=<...>` alone (or none, in older results).
`kdlg-tree-plus` (beyond the paper: docs/advisor.md, "The extended value") is labelled by its
trial: `chosen=<candidate>;runs_as=<...>;trial_us=aos:<median>[<min>,<max>]|...;tree_gpu=<...>`.
Apart from plots/kofler_data.py so that the claims' measures read it without importing the
figures' helpers."""

from plots import layout_kinds
import re

from plots.layout_kinds import (CLUSTER_LAYOUT, KINDS, METHOD_LAYOUTS,  # noqa: F401 (theirs)
                                RUNS_AS, RUNS_ON_PARTITION, TREE_LAYOUTS, TRIAL_LAYOUTS,
                                parse_label)
from plots.load import ResultsError

# The code that lays out a Kofler benchmark's records (mapping_code): each kind's in the
# table. A layout claim compares benchmarks of one code: run-time mapping code costs per cent
# against the same layout compiled (SAMPO: 3-6 % a tile, 4-13 % a partition on the H200), as
# much as the gaps judged.
COMPILED = "compiled"
RUN_TIME_TILES = "the run-time tile mapping"
RUN_TIME_PARTITION = "the run-time partition mapping"
_CODES = {layout_kinds.COMPILED: COMPILED, layout_kinds.RUN_TIME_TILES: RUN_TIME_TILES,
          layout_kinds.RUN_TIME_PARTITION: RUN_TIME_PARTITION}
RUN_TIME_LAYOUTS = {k.name: _CODES[k.code] for k in KINDS.values()
                    if k.code in (layout_kinds.RUN_TIME_TILES, layout_kinds.RUN_TIME_PARTITION)}


def clusters(benchmark):
    """The clusters of a method benchmark, each a list of fields: the partition in its name
    (`partition:a+b|c`), one cluster of all fields (["all fields"]) for `tiled-tree`; None
    when the name has no partition."""
    kind = KINDS.get(benchmark.layout)
    if kind and kind.label and "partition" not in kind.params:  # tiled-tree: one cluster of all
        return [["all fields"]]
    partition = benchmark.params.get("partition")
    return [c.split("+") for c in partition.split("|")] if isinstance(partition, str) else None


def method_choice(benchmark):
    """{"cluster_layouts": [one per cluster], "tree_gpu": name} of a `tiled-tree` or
    `kdlg-tree` benchmark; None for other layouts and for one without a label (run without a
    tree: it failed). A label not of that form, or with another number of layouts than the
    benchmark has clusters, is a ResultsError naming the file and the benchmark."""
    if benchmark.layout not in TREE_LAYOUTS or benchmark.label is None:
        return None
    match = parse_label(benchmark.layout, benchmark.label)
    layouts = match["cluster_layouts"].split("|") if match else []
    parts = clusters(benchmark)
    if (not match or not all(CLUSTER_LAYOUT.fullmatch(l) for l in layouts)
            or (match["runs_as"] is not None and not RUNS_AS.fullmatch(match["runs_as"]))
            or parts is None or len(layouts) != len(parts)):
        want = ("a partition in its name" if parts is None else
                f"{len(parts)} layout(s) (aos, soa or tiled-<t>), one per cluster of "
                + "|".join("+".join(c) for c in parts))
        raise ResultsError(
            f"{benchmark.source}: {benchmark.name}: label {benchmark.label!r} is not the "
            "decision tree's choice: expected cluster_layouts=<layout>|...;runs_as=<aos, soa, "
            f"tiled-ct-<t> or partition>;tree_gpu=<GPU name> with {want} (docs/advisor.md)")
    return {"cluster_layouts": layouts, "runs_as": match["runs_as"], "tree_gpu": match["tree_gpu"]}


# One candidate's trial in a kdlg-tree-plus label: its median, min and max in µs, "as <the
# candidate it shares>" or "invalid" (failed validation).
TRIAL_TIMES = re.compile(r"(?P<median>[0-9.]+)\[(?P<low>[0-9.]+),(?P<high>[0-9.]+)\]")
TRIAL_OTHER = re.compile(r"as (?P<shares>[a-z-]+)|invalid")


def trial_choice(benchmark):
    """{"chosen": candidate, "runs_as": code, "trial": {candidate: (median, low, high) in
    seconds, or "as <candidate>" / "invalid"}, "tree_gpu": name} of a `kdlg-tree-plus`
    benchmark; None for other layouts and for one without a label (it failed before its
    trial ended). A label not of that form is a ResultsError naming the file and benchmark."""
    if benchmark.layout not in TRIAL_LAYOUTS or benchmark.label is None:
        return None
    match = parse_label(benchmark.layout, benchmark.label)
    trial = {}
    for part in (match["trial_us"].split("|") if match else []):
        candidate, _, text = part.partition(":")
        times = TRIAL_TIMES.fullmatch(text)
        if candidate in KINDS and times:
            trial[candidate] = tuple(float(times[k]) * 1e-6 for k in ("median", "low", "high"))
        elif candidate in KINDS and TRIAL_OTHER.fullmatch(text):
            trial[candidate] = text
        else:
            trial = None
            break
    if (not match or not trial or match["chosen"] not in trial
            or not isinstance(trial[match["chosen"]], tuple)
            or not RUNS_AS.fullmatch(match["runs_as"] or "")):
        raise ResultsError(
            f"{benchmark.source}: {benchmark.name}: label {benchmark.label!r} is not a trial's "
            "choice: expected chosen=<candidate>;runs_as=<aos, soa, tiled-ct-<t> or partition>;"
            "trial_us=<candidate>:<median>[<min>,<max>]|...;tree_gpu=<GPU name>, the chosen "
            "candidate timed (docs/advisor.md)")
    return {"chosen": match["chosen"], "runs_as": match["runs_as"], "trial": trial,
            "tree_gpu": match["tree_gpu"]}


def runs_as(benchmark):
    """What code ran a method benchmark (`kdlg`, `tiled-tree`, `kdlg-tree`, `kdlg-tree-plus`):
    "aos", "soa", "tiled-ct-<t>" (the compiled layout its partition is, or the trial's
    choice) or "partition" (the run-time
    PartitionMapping); None where the label does not say (results from before 2026-11-26,
    a failed run) and for other layouts. A kdlg label of another form is a ResultsError."""
    if benchmark.layout in TREE_LAYOUTS:
        choice = method_choice(benchmark)
        return choice["runs_as"] if choice else None
    if benchmark.layout in TRIAL_LAYOUTS:
        choice = trial_choice(benchmark)
        return choice["runs_as"] if choice else None
    if benchmark.layout not in METHOD_LAYOUTS or not benchmark.label:
        return None
    match = parse_label(benchmark.layout, benchmark.label)
    if not match or not RUNS_AS.fullmatch(match["runs_as"]):
        raise ResultsError(
            f"{benchmark.source}: {benchmark.name}: label {benchmark.label!r} is not what ran "
            "kdlg: expected runs_as=<aos, soa, tiled-ct-<t> or partition> (docs/advisor.md)")
    return match["runs_as"]


def mapping_code(benchmark):
    """What laid out a Kofler benchmark's records: COMPILED (aos, soa, tiled-ct, split-ct and
    a method value whose runs_as names a compiled layout), RUN_TIME_TILES (the tile sweep's
    `tiled`: one instantiation serves every tile) or RUN_TIME_PARTITION (`split`,
    `kdlg-tiles`, a method value run as `partition`, and one without runs_as: before
    2026-11-26 every method value ran there); None for the other papers' benchmarks."""
    if benchmark.paper != "kofler":
        return None
    if benchmark.layout in RUN_TIME_LAYOUTS:
        return RUN_TIME_LAYOUTS[benchmark.layout]
    if benchmark.layout in METHOD_LAYOUTS and runs_as(benchmark) in (None, RUNS_ON_PARTITION):
        return RUN_TIME_PARTITION
    return COMPILED


def check_labels(devices):
    """Every method benchmark's label read once before any output is written: one
    ResultsError for the first that is not the tree's choice."""
    for device in devices:
        for benchmark in device.benchmarks:
            runs_as(benchmark)


def mapping_code_words(benchmark):
    """mapping_code as the claims evaluator says it ("compiled", "on the run-time tile
    mapping"): registered through plots/papers.py (plots.claims.measures.CODE_OF)."""
    code = mapping_code(benchmark)
    return None if code is None else "compiled" if code == COMPILED else f"on {code}"

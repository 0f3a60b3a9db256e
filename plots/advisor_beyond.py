"""Kofler et al.'s method beyond its paper (issue 39 §1–2; docs/advisor.md, "Beyond the
paper"): its choice for the other papers' records and that choice's regret against the fastest
layout each program measured, from results already run (no new GPU run).

The choice is the record's KDLG partition, which the access recording gives once per commit
(`layoutbench advise --program <name> --json`, committed in recorded_partitions.json, which
`python3 -m plots.advisor_beyond --binary build/layoutbench` writes again and a test holds
against the binary), with each cluster's class from the GPU's decision tree (the run's
kofler-tree/tree.gpu<k>.json) for the cluster's bytes. docs/advisor.md states how a choice
becomes one of the program's own layouts; PROGRAMS below is that rule, program by program.
"""

import argparse
import json
import math
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from plots.estimates import aggregate, geomean, ratio_estimate
from plots.kofler_tree import device_tree, tree_class
from plots.text import markdown_table, times_text

PARTITIONS_FILE = Path(__file__).with_name("recorded_partitions.json")
FORMAT = "layoutbench-recorded-partitions/1"
NOT_RUN = "choice {} not run yet"

# A normalized layout (docs/advisor.md, "The rule"): a frozenset of groups (kind, fields),
# kind "alone" (one field, stored contiguously), "aos" (a packed struct of the fields) or
# "tiled:<t>" (AoSoA of t records).


def normalized(clusters):
    """The groups of a choice: [(fields, class)] -> frozenset of (kind, frozenset(fields))."""
    groups = set()
    for fields, cls in clusters:
        if len(fields) == 1 or cls == "soa":
            groups |= {("alone", frozenset((f,))) for f in fields}
        elif cls in ("aos", "tiled:1"):
            groups.add(("aos", frozenset(fields)))
        else:
            groups.add((cls, frozenset(fields)))
    return frozenset(groups)


TILE = 32  # the AoSoA layouts the programs run for the method's choices: tiles of 32 records


def _alone(fields):
    return {("alone", frozenset((f,))) for f in fields}


def _groups(aos=(), alone=(), tiled=()):
    """Normalized groups: `aos` one AoS group, `tiled` one AoSoA group of TILE records (a group
    of one field is that field alone), `alone` each field alone."""
    out = set(_alone(alone))
    for kind, fields in (("aos", aos), (f"tiled:{TILE}", tiled)):
        if len(fields) == 1:
            out |= _alone(fields)
        elif fields:
            out.add((kind, frozenset(fields)))
    return frozenset(out)


def inner_layout(scalars, arrays, layout, strategies):
    """An inner-array record's layout normalized (docs/advisor.md's table), or None where the
    method has no such layout. `arrays`: {elements field: its length field}; `strategies`:
    {elements field: strategy}."""
    if any(s not in ("full", "object", "none") for s in strategies.values()):
        return None  # partial: the array split between the record and the arena
    lengths = list(arrays.values())
    if layout in ("soa", "aosoa32"):
        if any(strategies[a] == "full" for a in arrays):
            return None  # each slot its own column
        if layout == "aosoa32":  # the scalars and headers tiled, each array alone
            return _groups(tiled=[*scalars, *lengths], alone=arrays)
        return _groups(alone=[*scalars, *lengths, *arrays])
    inline = [a for a in arrays if strategies[a] != "none"]
    return _groups(aos=[*scalars, *lengths, *inline], alone=[a for a in arrays if a not in inline])


STRATEGY_ORDER = ("full", "object", "none")  # where two match: full before object before none


@dataclass(frozen=True)
class Program:
    """One recorded program and the results it is judged on."""

    name: str  # the recorded program (recorded_partitions.json, `advise --program`)
    paper: str  # the results' paper
    title: str
    app: str
    record: str
    selects: Callable  # (benchmark) -> whether it is one of this program's points
    point: Callable  # (benchmark) -> the point's key: every parameter but the layout
    point_text: Callable  # (key) -> text
    layout_of: Callable  # (benchmark) -> its layout's key
    layout_text: Callable  # (layout key) -> text
    describe: Callable  # (layout key, precision) -> normalized layout, or None
    rank: Callable = lambda key: 0  # among layouts of one description, the lowest is taken
    precisions: tuple = ()  # recorded in the first; σ scales with the others' bytes
    note: str = ""


def _idw(name, version):
    def describe(layout, precision):
        return {"soa": _groups(alone="xyz"), "aos": _groups(aos="xyz"),
                "hybrid": _groups(aos="xy", alone="z") if precision == "double" else None,
                "aosoa32": _groups(tiled="xyz"), "xy-aosoa32": _groups(tiled="xy", alone="z"),
                }.get(layout)
    return Program(
        name, "idw", "IDW (Mei & Tian 2016)", "shepard", "point",
        selects=lambda b: b.version == version,
        point=lambda b: (b.params.get("p"), b.params.get("size"), b.params.get("block")),
        point_text=lambda k: f"p = {k[0]}, {k[1]:,} points",
        layout_of=lambda b: b.layout, layout_text=str, describe=describe,
        precisions=("float", "double"))


def _inner(name, app, record, scalars, arrays, point_key, point_text, fields=None, note=""):
    """An inner-array program; `fields`: {traffic field value: the arrays of this record it
    sweeps} for the values this record's rows may run (its other arrays and the other record's
    full)."""
    def describe(key, precision):
        strategy, layout, field = key
        if fields is None:
            strategies = {a: strategy for a in arrays}
        elif field in fields:
            strategies = {a: strategy if a in fields[field] else "full" for a in arrays}
        else:
            return None
        return inner_layout(scalars, arrays, layout, strategies)

    def text(key):
        strategy, layout, field = key
        return f"{strategy}/{layout}" + ("" if field is None else f", field:{field}")

    return Program(
        name, "inner", "Inner arrays (Springer et al. 2018)", app, record,
        selects=lambda b: b.params.get("inline") is not None,
        point=lambda b: tuple(b.params.get(k) for k in point_key), point_text=point_text,
        layout_of=lambda b: (b.version, b.layout, b.params.get("field")),
        layout_text=text, describe=describe,
        rank=lambda key: (STRATEGY_ORDER.index(key[0]) if key[0] in STRATEGY_ORDER else 9,
                          key[2] not in ("none", None)),
        note=note)


def _kriging_layout(b):
    return b.layout


PROGRAMS = (
    _idw("idw-naive", "naive"),
    _idw("idw-tiled", "tiled"),
    Program("kriging", "kriging", "Kriging (Li & Dong)", "ok", "well",
            selects=lambda b: b.version in ("gpu-exp4", "gpu-exp5") and b.precision == "double",
            point=lambda b: (b.params.get("scale"), b.params.get("wells")),
            point_text=lambda k: f"scale {k[0]}, {k[1]} wells",
            layout_of=_kriging_layout,
            layout_text=lambda k: {"soa": "soa (gpu-exp4)", "aos-const": "aos-const (gpu-exp5)",
                                   "aosoa32": "aosoa32 (gpu-exp4)"}[k],
            describe=lambda k, p: {"soa": _groups(alone="xy"), "aos-const": _groups(aos="xy"),
                                   "aosoa32": _groups(tiled="xy")}.get(k),
            note="gpu-exp5 also holds A and the values in constant memory"),
    _inner("synthetic", "synthetic", "object", ("value",), {"elements": "size"}, ("objects",),
           lambda k: f"{k[0]:,} objects"),
    _inner("bfs", "bfs", "vertex", ("distance",), {"neighbours": "degree"}, ("graph",),
           lambda k: f"graph {k[0]}"),
    _inner("traffic-cars", "traffic", "car", ("position", "velocity", "max_velocity", "active"),
           {"path": "path_length"}, ("network", "cars", "steps"),
           lambda k: f"{k[0]}, {k[1]:,} cars", fields={"none": (), "path": ("path",)},
           note="the cells as that layout runs them (L, arrays full)"),
    _inner("traffic-cells", "traffic", "cell",
           ("speed_limit", "type", "sink", "controller_limit", "occupant", "claim"),
           {"incoming": "incoming_count", "outgoing": "outgoing_count"},
           ("network", "cars", "steps"), lambda k: f"{k[0]}, {k[1]:,} cars",
           fields={"none": (), "incoming": ("incoming",), "outgoing": ("outgoing",),
                   "cells": ("incoming", "outgoing")},
           note="the cars as that layout runs them (L, path full)"),
)


# --- the committed partitions ----------------------------------------------------------------

def advice_entry(advice):
    """What the regret needs of `advise --json`: the record, what was recorded, σ per field and
    the clusters (the tree's classes are applied per GPU here)."""
    return {"record": advice.get("record"), "problem": advice["problem"],
            "fields": advice["fields"], "partition": advice["partition"],
            "clusters": [{"fields": c["fields"], "bytes": c["bytes"]} for c in advice["clusters"]]}


def recorded_partitions(binary):
    """{program: advice_entry} from the binary, for every program of PROGRAMS."""
    out = {}
    for program in PROGRAMS:
        r = subprocess.run([str(binary), "advise", "--program", program.name, "--json"],
                           capture_output=True, text=True, check=True)
        out[program.name] = advice_entry(json.loads(r.stdout))
    return {"format": FORMAT, "recorded_precision": {"idw-naive": "float", "idw-tiled": "float",
                                                    "kriging": "double"},
            "programs": out}


def read_partitions(path=PARTITIONS_FILE):
    data = json.loads(Path(path).read_text())
    if data.get("format") != FORMAT:
        raise ValueError(f"{path}: format is {data.get('format')!r}, expected {FORMAT!r}")
    return data


# --- the choice and its regret ----------------------------------------------------------------

def choice(entry, tree, scale=1):
    """[(fields, class)] of a recorded partition under `tree`, σ times `scale` (a precision of
    twice the recorded one's bytes: 2)."""
    return [(tuple(c["fields"]), tree_class(tree, c["bytes"] * scale)) for c in entry["clusters"]]


def choice_text(clusters):
    return " | ".join(f"{'+'.join(fields)} {cls}" for fields, cls in clusters)


def mapped_layout(program, clusters, precision, measured):
    """The key of the program's layout (among `measured`, keys it ran) whose description is the
    choice's, the lowest by rank; None when none is."""
    wanted = normalized(clusters)
    found = [k for k in measured if program.describe(k, precision) == wanted]
    return min(found, key=lambda k: (program.rank(k), str(k))) if found else None


def _timed(b):
    return b is not None and b.error is None and b.time_s is not None


def device_benchmarks(device):
    """Every benchmark of the device's results folder (the report hands each paper its own;
    the method's choice is judged on the others'), the first of each name."""
    seen = {}
    for f in device.files:
        for b in f.benchmarks:
            seen.setdefault(b.name, b)
    return list(seen.values())


@dataclass
class Row:
    device: object
    program: Program
    precision: str
    clusters: list  # [(fields, class)]; None without a tree
    layout: object  # the mapped layout's key, or None
    points: list  # [(point key, Estimate of the regret, fastest Benchmark)]

    @property
    def mean(self):
        return aggregate((e for _, e, _ in self.points), geomean) if self.points else None

    @property
    def worst(self):
        return max(self.points, key=lambda p: p[1].value) if self.points else None


def rows_of(device, partitions, tree):
    """The rows of one device: every program and precision it measured. `tree`: the device's
    tree (its JSON), or None."""
    benchmarks = [b for b in device_benchmarks(device) if not b.is_host and _timed(b)]
    out = []
    for program in PROGRAMS:
        entry = partitions["programs"].get(program.name)
        mine = [b for b in benchmarks if b.paper == program.paper and b.app == program.app
                and program.selects(b)]
        if entry is None or not mine:
            continue
        recorded = partitions.get("recorded_precision", {}).get(program.name)
        for precision in sorted({b.precision for b in mine}, key=_precision_order):
            at = [b for b in mine if b.precision == precision]
            points = {}
            for b in at:
                points.setdefault(program.point(b), {}).setdefault(program.layout_of(b), b)
            if tree is None:
                out.append(Row(device, program, precision, None, None, []))
                continue
            scale = _bytes(precision) // _bytes(recorded) if recorded else 1
            clusters = choice(entry, tree, scale)
            measured = {k for variants in points.values() for k in variants}
            layout = mapped_layout(program, clusters, precision, measured)
            regrets = []
            for key in sorted(points, key=str):
                variants = points[key]
                if layout in variants:
                    fastest = min(variants.values(), key=lambda b: b.time_s)
                    regrets.append((key, ratio_estimate(variants[layout], fastest), fastest))
            out.append(Row(device, program, precision, clusters, layout, regrets))
    return out


def _bytes(precision):
    return {"float": 4, "double": 8}.get(precision, 4)


def _precision_order(p):
    return ({"float": 0, "double": 1}.get(p, 2), p)


def _regret_text(e):
    return f"{times_text(e.value)} [{e.low:.3g}–{e.high:.3g}]"


def table_rows(rows, devices):
    """The regret table's rows: GPU, paper, program (record), precision, the choice, the
    program's layout it is, points, geometric-mean regret, worst point."""
    table = []
    for r in rows:
        p = r.program
        name = f"{p.name} ({p.record})"
        if r.clusters is None:
            table.append([r.device.label, p.title, name, r.precision, "no decision tree for this GPU",
                          "—", "—", "—", "—"])
            continue
        text = choice_text(r.clusters)
        if r.layout is None:
            table.append([r.device.label, p.title, name, r.precision, text,
                          NOT_RUN.format(f"`{text}`"), "—", "—", "—"])
            continue
        key, worst, fastest = r.worst
        faster = ("the choice" if p.layout_of(fastest) == r.layout
                  else p.layout_text(p.layout_of(fastest)))
        where = f"{_regret_text(worst)} at {p.point_text(key)} (fastest: {faster})"
        layout = p.layout_text(r.layout) + (f" ({p.note})" if p.note else "")
        table.append([r.device.label, p.title, name, r.precision, text, layout,
                      str(len(r.points)), _regret_text(r.mean), where])
    return table


def summary_lines(rows, devices):
    """Per GPU and paper: the geometric mean over every point of its programs whose choice ran,
    the worst point, and how many rows' choices are not run yet."""
    lines = []
    for device in devices:
        for title in dict.fromkeys(r.program.title for r in rows):
            mine = [r for r in rows if r.device is device and r.program.title == title]
            if not mine:
                continue
            where = f"{device.label}, " if len(devices) > 1 else ""
            points = [(r, k, e) for r in mine for k, e, _ in r.points]
            not_run = sum(r.clusters is not None and r.layout is None for r in mine)
            tail = f"; {not_run} of {len(mine)} choice(s) not run yet" if not_run else ""
            if not points:
                lines.append(f"- {where}{title}: no choice of the method was measured{tail}")
                continue
            mean = aggregate((e for _, _, e in points), geomean)
            r, k, e = max(points, key=lambda p: p[2].value)
            lines.append(f"- {where}{title}: geometric-mean regret {_regret_text(mean)} over "
                         f"{len(points)} point(s); worst {_regret_text(e)} ({r.program.name}, "
                         f"{r.precision}, {r.program.point_text(k)}){tail}")
    return lines


def section_rows(devices, partitions=None):
    """Every device's rows (the device's tree from its results folder)."""
    partitions = partitions or read_partitions()
    rows = []
    for device in devices:
        found = device_tree(device)
        rows += rows_of(device, partitions, found[0] if found else None)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m plots.advisor_beyond",
                                     description="Write the recorded partitions of the other "
                                                 "papers' programs (recorded_partitions.json)")
    parser.add_argument("--binary", required=True, help="layoutbench")
    parser.add_argument("--out", default=str(PARTITIONS_FILE))
    args = parser.parse_args(argv)
    Path(args.out).write_text(json.dumps(recorded_partitions(args.binary), indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

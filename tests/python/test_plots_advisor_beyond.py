"""Kofler's method on the other papers' records (plots/advisor_beyond.py, docs/advisor.md
"Beyond the paper"): the rule from a choice to a program's layout, case by case; the regret
rows and the per-paper summary on hand-built results (times invented, regrets worked out here
from them); the committed recorded_partitions.json against the built binary's advice."""

import json
import math
import subprocess
from pathlib import Path

import pytest

from plots import advisor_beyond as ab
from plots.load import Device, ResultFile

from tests.python.test_claims_parts import bench

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "build" / "layoutbench"

TREE = {"format": "layoutbench-kofler-tree/1", "gpu": {"name": "Test GPU", "uuid": "GPU-1"},
        "feature": "cluster_bytes", "tile_unit": "records",
        "intervals": [{"from_bytes": 1, "to_bytes": 4, "class": "aos"},
                      {"from_bytes": 5, "to_bytes": 20, "class": "tiled:32"},
                      {"from_bytes": 21, "to_bytes": None, "class": "soa"}]}


def program(name):
    return next(p for p in ab.PROGRAMS if p.name == name)


def partitions(**clusters):
    """A partitions file's content: {program: [(fields, bytes)]}."""
    return {"format": ab.FORMAT, "recorded_precision": {"idw-naive": "float"},
            "programs": {name: {"clusters": [{"fields": list(f), "bytes": b} for f, b in cs]}
                         for name, cs in clusters.items()}}


def device(benchmarks):
    result = ResultFile(Path("hand-built.json"), "idw", 0, {}, len(benchmarks), tuple(benchmarks))
    return Device("Test GPU", "test", Path("."), (result,), tuple(benchmarks))


# --- the rule ---------------------------------------------------------------------------------

@pytest.mark.parametrize("clusters, precision, layout", [
    ([("xyz", "soa")], "double", "soa"),  # one cluster of class soa: every field alone
    ([("x", "aos"), ("y", "tiled:32"), ("z", "soa")], "float", "soa"),  # singletons: alone
    ([("xyz", "aos")], "float", "aos"),
    ([("xy", "aos"), ("z", "tiled:32")], "double", "hybrid"),
    ([("xy", "aos"), ("z", "aos")], "float", None),  # hybrid exists in double only
    ([("xyz", "tiled:32")], "float", "aosoa32"),  # an AoSoA group of 32 points
    ([("xy", "tiled:32"), ("z", "aos")], "float", "xy-aosoa32"),  # z alone either way
    ([("xy", "tiled:32"), ("z", "tiled:32")], "double", "xy-aosoa32"),
    ([("xyz", "tiled:64")], "float", None),  # a tile the program does not run
    ([("xz", "aos"), ("y", "aos")], "double", None),
])
def test_idw_choices_map_to_the_layout_of_their_description(clusters, precision, layout):
    measured = {"soa", "aos", "aoas", "builtin", "soaos", "hybrid", "aosoa32", "xy-aosoa32"}
    assert ab.mapped_layout(program("idw-naive"), clusters, precision, measured) == layout


def test_a_choice_whose_layout_was_not_measured_maps_to_none():
    paper = {"soa", "aos", "aoas", "builtin", "soaos", "hybrid"}
    assert ab.mapped_layout(program("idw-naive"), [("xyz", "tiled:32")], "float", paper) is None


SYNTHETIC = {("full", "aos", None), ("object", "aos", None), ("none", "aos", None),
             ("full", "soa", None), ("object", "soa", None), ("none", "soa", None),
             ("partial", "aos", None), ("partial", "soa", None)}


@pytest.mark.parametrize("clusters, layout", [
    ([(("value", "size", "elements"), "aos")], ("full", "aos", None)),  # full before object
    ([(("value", "size", "elements"), "soa")], ("object", "soa", None)),  # object before none
    ([(("value", "size"), "aos"), (("elements",), "soa")], ("none", "aos", None)),
    ([(("value",), "aos"), (("size",), "aos"), (("elements",), "aos")], ("object", "soa", None)),
    ([(("value", "size"), "tiled:32"), (("elements",), "soa")], None),
    ([(("value",), "aos"), (("size", "elements"), "aos")], None),
])
def test_inner_choices_map_by_where_the_array_lives(clusters, layout):
    assert ab.mapped_layout(program("synthetic"), clusters, "int", SYNTHETIC) == layout


def test_the_synthetic_objects_tiled_choice_maps_to_aosoa32_with_the_array_alone():
    tiled = [(("value", "size"), "tiled:32"), (("elements",), "soa")]
    measured = SYNTHETIC | {(s, "aosoa32", None) for s in ("none", "partial", "full", "object")}
    assert ab.mapped_layout(program("synthetic"), tiled, "int", measured) == ("object", "aosoa32", None)
    assert ab.mapped_layout(program("synthetic"), tiled, "int",
                            measured - {("object", "aosoa32", None)}) == ("none", "aosoa32", None)
    # aosoa32 full keeps a column per slot: never chosen, as SoA full
    assert ab.mapped_layout(program("synthetic"), tiled, "int", SYNTHETIC | {("full", "aosoa32", None)}) is None


def test_without_the_preferred_layout_the_other_of_one_description_is_taken():
    all_apart = [(("value",), "aos"), (("size",), "aos"), (("elements",), "aos")]
    assert ab.mapped_layout(program("synthetic"), all_apart, "int",
                            SYNTHETIC - {("object", "soa", None)}) == ("none", "soa", None)


def test_traffic_maps_each_record_with_the_other_records_arrays_full():
    cars = program("traffic-cars")
    measured = {("full", "aos", "none"), ("full", "aos", "path"), ("object", "soa", "path"),
                ("none", "soa", "path"), ("object", "soa", "incoming"), ("none", "aos", "path")}
    alone = [((f,), "aos") for f in ("position", "velocity", "max_velocity", "active",
                                     "path_length", "path")]
    assert ab.mapped_layout(cars, alone, "int", measured) == ("object", "soa", "path")
    whole = [(("position", "velocity", "max_velocity", "active", "path_length", "path"), "aos")]
    assert ab.mapped_layout(cars, whole, "int", measured) == ("full", "aos", "none")
    scalars = ("position", "velocity", "max_velocity", "active", "path_length")
    assert ab.mapped_layout(cars, [(scalars, "aos"), (("path",), "soa")], "int",
                            measured) == ("none", "aos", "path")
    cells = program("traffic-cells")
    both_apart = [((f,), "aos") for f in ("speed_limit", "type", "sink", "controller_limit",
                                          "occupant", "claim", "incoming_count", "incoming",
                                          "outgoing_count", "outgoing")]
    # every field alone needs both arrays apart at once: field cells, in SoA (object before
    # none); without it measured, no layout of the one-array sweep has that description
    assert ab.mapped_layout(cells, both_apart, "int", measured) is None
    both = {(s, "soa", "cells") for s in ("none", "object")}
    assert ab.mapped_layout(cells, both_apart, "int", measured | both) == ("object", "soa", "cells")
    assert ab.mapped_layout(cells, both_apart, "int", measured | {("none", "soa", "cells")}) == (
        "none", "soa", "cells")
    # the car's rows never take field cells (its path full: a column per slot in SoA)
    assert ab.mapped_layout(cars, alone, "int", {("object", "soa", "cells")}) is None
    # the car's tiled:32 choice: aosoa32 with the path alone (object before none); the cells'
    # rows never map to aosoa32, whose other cell array stays full (a column per slot)
    tiled = {(s, "aosoa32", "path") for s in ("none", "object")}
    assert ab.mapped_layout(cars, [(scalars, "tiled:32"), (("path",), "soa")], "int",
                            measured | tiled) == ("object", "aosoa32", "path")
    assert ab.mapped_layout(cars, [(scalars, "tiled:32"), (("path",), "soa")], "int", measured) is None
    assert ab.mapped_layout(cells, both_apart, "int",
                            measured | {("object", "aosoa32", "incoming")}) is None


# --- the rows ---------------------------------------------------------------------------------

IDW = "idw/shepard/naive/{}/{}/p:2/size:{}/block:256/manual_time"


def idw_results():
    """Double: hybrid fastest at 10K (1.0 vs soa 1.2), soa fastest at 50K; float: aos and soa."""
    times = {("double", 10240): {"soa": 1.2, "aos": 1.5, "hybrid": 1.0},
             ("double", 51200): {"soa": 2.0, "aos": 2.6, "hybrid": 2.1},
             ("float", 10240): {"soa": 0.6, "aos": 0.7}}
    return [bench(IDW.format(layout, precision, size), t)
            for (precision, size), layouts in times.items() for layout, t in layouts.items()]


BFS = "inner/bfs/{}/{}/int/inline:{}/graph:road-like/manual_time"


def bfs_results():
    return [bench(BFS.format("object", "soa", 9), 3.0), bench(BFS.format("none", "aos", 0), 2.5),
            bench(BFS.format("full", "soa", 9), 2.9)]


def test_a_choice_that_ran_gets_its_regret_per_point_and_one_that_did_not_says_so():
    parts = partitions(**{"idw-naive": [("xyz", 12)],
                          "bfs": [(("distance",), 4), (("degree", "neighbours"), 40)]})
    rows = ab.rows_of(device(idw_results() + bfs_results()), parts, TREE)
    by = {(r.program.name, r.precision): r for r in rows}
    # float: 12 B -> tiled:32, an AoSoA group no IDW layout is
    assert by["idw-naive", "float"].layout is None
    assert ab.choice_text(by["idw-naive", "float"].clusters) == "x+y+z tiled:32"
    # double: σ doubles to 24 B -> soa: x, y, z alone -> `soa`; regrets 1.2 / 1.0 and 2.0 / 2.0
    double = by["idw-naive", "double"]
    assert double.layout == "soa"
    assert [round(e.value, 9) for _, e, _ in double.points] == [1.2, 1.0]
    assert math.isclose(double.mean.value, math.sqrt(1.2))
    assert double.worst[0] == (2, 10240, 256) and double.worst[2].layout == "hybrid"
    # BFS: distance alone (aos, one field), degree+neighbours 40 B -> soa: all alone ->
    # object/soa before none/soa; the fastest is none/aos: 3.0 / 2.5
    bfs = by["bfs", "int"]
    assert bfs.layout == ("object", "soa", None)
    assert math.isclose(bfs.points[0][1].value, 1.2)

    table = ab.table_rows(rows, [rows[0].device])
    cells = {(r[2], r[3]): r for r in table}
    assert cells["idw-naive (point)", "float"][5] == "choice `x+y+z tiled:32` not run yet"
    double_row = cells["idw-naive (point)", "double"]
    assert double_row[5:7] == ["soa", "2"] and double_row[7].startswith(f"{math.sqrt(1.2):.2f}× [")
    assert double_row[8] == "1.20× [1.18–1.22] at p = 2, 10,240 points (fastest: hybrid)"
    assert cells["bfs (vertex)", "int"][5] == "object/soa"
    summary = ab.summary_lines(rows, [rows[0].device])
    assert summary[0].startswith(f"- IDW (Mei & Tian 2016): geometric-mean regret {math.sqrt(1.2):.2f}× [")
    assert summary[0].endswith("over 2 point(s); worst 1.20× [1.18–1.22] (idw-naive, double, p = 2, "
                               "10,240 points); 1 of 2 choice(s) not run yet")
    assert summary[1].startswith("- Inner arrays (Springer et al. 2018): geometric-mean regret 1.20× [")


KRIGING = "kriging/ok/gpu-exp{}/{}/double/scale:{}/wells:10/manual_time"
SYNTHETIC_RUN = "inner/synthetic/{}/{}/int/inline:{}/objects:262144/manual_time"


def test_the_method_layouts_runs_give_regret_rows_where_they_said_not_run_yet():
    """A result set holding the AoSoA layouts (issue 39 §2) turns each "not run yet" row into a
    regret row: IDW naive float, kriging's exp 4 and the synthetic object."""
    parts = partitions(**{"idw-naive": [("xyz", 12)], "kriging": [("xy", 16)],
                          "synthetic": [(("value", "size"), 8), (("elements",), 256)]})
    parts["recorded_precision"]["kriging"] = "double"
    runs = idw_results() + [bench(IDW.format("aosoa32", "float", 10240), 0.66)]
    runs += [bench(KRIGING.format(4, "soa", 1), 2.0), bench(KRIGING.format(5, "aos-const", 1), 1.0),
             bench(KRIGING.format(4, "aosoa32", 1), 1.5)]
    runs += [bench(SYNTHETIC_RUN.format("object", "soa", 64), 1.0),
             bench(SYNTHETIC_RUN.format("object", "aosoa32", 64), 0.8),
             bench(SYNTHETIC_RUN.format("none", "aosoa32", 0), 0.9)]
    without = [b for b in runs if b.layout != "aosoa32"]
    before = {(r[2], r[3]): r[5] for r in ab.table_rows(ab.rows_of(device(without), parts, TREE), [])}
    assert before["idw-naive (point)", "float"] == "choice `x+y+z tiled:32` not run yet"
    assert before["kriging (well)", "double"] == "choice `x+y tiled:32` not run yet"
    assert before["synthetic (object)", "int"] == "choice `value+size tiled:32 | elements soa` not run yet"
    rows = ab.rows_of(device(runs), parts, TREE)
    by = {(r.program.name, r.precision): r for r in rows}
    # IDW float at 10K: aosoa32 0.66 against soa's 0.6
    assert by["idw-naive", "float"].layout == "aosoa32"
    assert [round(e.value, 9) for _, e, _ in by["idw-naive", "float"].points] == [1.1]
    # kriging: aosoa32 (exp 4's wells tiled) 1.5 against exp 5's 1.0
    assert by["kriging", "double"].layout == "aosoa32"
    assert math.isclose(by["kriging", "double"].points[0][1].value, 1.5)
    # synthetic: object/aosoa32 (before none/aosoa32), the fastest
    assert by["synthetic", "int"].layout == ("object", "aosoa32", None)
    assert math.isclose(by["synthetic", "int"].points[0][1].value, 1.0)
    after = {(r[2], r[3]): r for r in ab.table_rows(rows, [])}
    assert after["idw-naive (point)", "float"][5:7] == ["aosoa32", "1"]
    assert after["kriging (well)", "double"][5] == "aosoa32 (gpu-exp4) (gpu-exp5 also holds A and the values in constant memory)"
    assert after["synthetic (object)", "int"][5:7] == ["object/aosoa32", "1"]
    assert after["synthetic (object)", "int"][8].endswith("(fastest: the choice)")


TRAFFIC_RUN = "inner/traffic/{}/{}/int/inline:{}/field:{}/network:lowermanhattan/cars:100/steps:10/manual_time"


def test_the_cells_choice_maps_to_both_cell_arrays_apart_in_soa():
    """The cell's choice (every field alone, each array with its length) has a regret row once
    field cells (both arrays apart at once, issue 39 §2) ran: object/soa before none/soa."""
    scalars = ("speed_limit", "type", "sink", "controller_limit", "occupant", "claim")
    parts = partitions(**{"traffic-cells": [*(((f,), 1) for f in scalars),
                                             (("incoming_count", "incoming"), 36),
                                             (("outgoing_count", "outgoing"), 36)]})
    runs = [bench(TRAFFIC_RUN.format("full", "soa", 0, "none"), 2.0),
            bench(TRAFFIC_RUN.format("object", "soa", 8, "incoming"), 1.9),
            bench(TRAFFIC_RUN.format("none", "aos", 0, "outgoing"), 1.6)]
    cells_runs = [bench(TRAFFIC_RUN.format("object", "soa", 8, "cells"), 1.8),
                  bench(TRAFFIC_RUN.format("none", "soa", 0, "cells"), 1.7)]
    before = ab.table_rows(ab.rows_of(device(runs), parts, TREE), [])
    assert [r[5] for r in before] == ["choice `speed_limit aos | type aos | sink aos | controller_limit aos | "
                                      "occupant aos | claim aos | incoming_count+incoming soa | "
                                      "outgoing_count+outgoing soa` not run yet"]
    (row,) = ab.rows_of(device(runs + cells_runs), parts, TREE)
    assert row.layout == ("object", "soa", "cells")
    assert math.isclose(row.points[0][1].value, 1.8 / 1.6)
    (text,) = ab.table_rows([row], [])
    assert text[5] == "object/soa, field:cells (the cars as that layout runs them (L, path full))"
    assert text[8].endswith("(fastest: none/aos, field:outgoing)")


def test_without_a_tree_the_rows_say_so():
    rows = ab.rows_of(device(idw_results()), partitions(**{"idw-naive": [("xyz", 12)]}), None)
    assert {tuple(r[4:6]) for r in ab.table_rows(rows, [rows[0].device])} == {
        ("no decision tree for this GPU", "—")}


def test_the_tree_is_read_from_the_devices_results_folder(tmp_path):
    (tmp_path / "kofler-tree").mkdir()
    (tmp_path / "kofler-tree" / "tree.gpu0.json").write_text(json.dumps(TREE))
    results = idw_results()
    files = (ResultFile(tmp_path / "idw.gpu0.json", "idw", 0, {}, len(results), tuple(results)),
             ResultFile(tmp_path / "kofler-tree.gpu0.json", "kofler-tree", 0, {}, 0, ()))
    d = Device("Test GPU", "test", tmp_path, files, ())  # the Kofler report's own: none of IDW's
    rows = ab.section_rows([d], partitions(**{"idw-naive": [("xyz", 12)]}))
    assert [(r.precision, r.layout) for r in rows] == [("float", None), ("double", "soa")]


# --- the committed partitions -----------------------------------------------------------------

@pytest.mark.skipif(not BIN.exists(), reason=f"needs the built binary {BIN}")
def test_the_committed_partitions_are_the_binarys_advice():
    """recorded_partitions.json is what `advise --json` says now: a change to a recording or to
    the KDLG must regenerate it (python3 -m plots.advisor_beyond --binary build/layoutbench)."""
    assert ab.read_partitions() == ab.recorded_partitions(BIN)


def test_every_program_of_the_rule_is_in_the_committed_partitions():
    committed = ab.read_partitions()["programs"]
    assert sorted(committed) == sorted(p.name for p in ab.PROGRAMS)
    for name, entry in committed.items():
        fields = [f["name"] for f in entry["fields"]]
        assert sorted(f for c in entry["clusters"] for f in c["fields"]) == sorted(fields), name

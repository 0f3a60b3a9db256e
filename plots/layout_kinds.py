"""The Kofler layout kinds' one name table, as the binary's registry exports it
(`layoutbench suites --json`, key "layouts"; kernels/layout/lb/layout/choice.hpp) and
tests/python/fixtures/registry.json keeps it (regenerated from the binary: docs/adding-a-program.md,
and kept equal to it by tests/python/test_suite_registry.py). Python names no kind itself: it
reads each kind's name here (`KIND.tiled_tree` is "tiled-tree"), with the parameters its
benchmark name writes, the one it sweeps, the code that lays it out and its label's keys, and
parses the method's labels through the same table (parse_label)."""

import json
import re
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

REGISTRY = Path(__file__).resolve().parents[1] / "tests" / "python" / "fixtures" / "registry.json"
# runs_as first appeared in the labels of 2026-11-26: an older tree label has none
OPTIONAL_LABEL_KEYS = ("runs_as",)


@dataclass(frozen=True)
class Kind:
    name: str
    params: tuple  # the parameters its benchmark name writes, in order
    sweeps: str  # the parameter that tells its values at one size apart ("" for one value)
    code: str  # "compiled", "run-time tiles", "run-time partition" or "runs_as" (the label says)
    needs: str  # what a program must have to take it ("" for every program)
    tree: bool  # the decision tree chose its clusters' layouts
    label: tuple  # its label's keys, in order (none: unlabelled)
    compiled: str = None  # a run-time kind's compiled twin
    trial: bool = False  # a trial on the GPU chose among candidates (kdlg-tree-plus)


def _table():
    table = json.loads(REGISTRY.read_text())["layouts"]
    kinds = {k["name"]: Kind(k["name"], tuple(k["params"]), k["sweeps"], k["code"], k["needs"],
                             k["tree"], tuple(k["label"]), k.get("compiled"), k.get("trial", False))
             for k in table["kinds"]}
    return table, kinds


_TABLE, KINDS = _table()
KIND = SimpleNamespace(**{name.replace("-", "_"): name for name in KINDS})
COMPILED = "compiled"
RUN_TIME_TILES = "run-time tiles"
RUN_TIME_PARTITION = "run-time partition"
AS_RUNS_AS = "runs_as"
RUNS_ON_PARTITION = _TABLE["runs_on_partition"]  # runs_as of a value no compiled layout runs
CLUSTER_LAYOUTS = tuple(_TABLE["cluster_layouts"])  # what a cluster of a partition is laid out as

# kdlg, tiled-tree, kdlg-tree and, beyond the paper, kdlg-tree-plus
METHOD_LAYOUTS = tuple(k.name for k in KINDS.values() if k.label)
TREE_LAYOUTS = tuple(k.name for k in KINDS.values() if k.tree)  # planned with the tree: labelled
TRIAL_LAYOUTS = tuple(k.name for k in KINDS.values() if k.trial)  # labelled by their trial


def _written(names):
    """A regex of kind names as a label writes them: a kind with a tile `<name>-<t>`."""
    return "|".join(rf"{re.escape(n)}-[1-9][0-9]*" if KINDS[n].params == ("tile",)
                    else re.escape(n) for n in names)


CLUSTER_LAYOUT = re.compile(_written(CLUSTER_LAYOUTS))  # aos, soa, tiled-<t>
RUNS_AS = re.compile(f"{_written(_TABLE['runs_as'])}|{re.escape(RUNS_ON_PARTITION)}")


def tile_of(written):
    """The tile of a kind written with its tile ("tiled-64": 64); None for one without."""
    name, _, tile = written.rpartition("-")
    tiled = name in KINDS and KINDS[name].params == ("tile",)
    return int(tile) if tiled and tile.isdigit() else None


def parse_label(layout, label):
    """{key: value} of a labelled kind's label, its keys the table's in order joined by ";" as
    key=value, the last to the label's end (a GPU name may hold anything); a key of
    OPTIONAL_LABEL_KEYS may be absent where others are there. None for a kind without a label
    and for a label not of that form."""
    keys = KINDS[layout].label if layout in KINDS else ()
    if not keys:
        return None
    parts = []
    for k, key in enumerate(keys):
        value = f"(?P<{key}>.+)" if k == len(keys) - 1 else f"(?P<{key}>[^;]*)"
        part = ("" if k == 0 else ";") + f"{key}={value}"
        parts.append(f"(?:{part})?" if key in OPTIONAL_LABEL_KEYS and len(keys) > 1 else part)
    match = re.fullmatch("".join(parts), label, re.DOTALL)
    return match.groupdict() if match else None

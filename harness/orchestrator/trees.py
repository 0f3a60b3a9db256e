"""Kofler's per-GPU decision trees (docs/kofler-tree.md): where a run finds the tree of a GPU,
and what that changes in the run. A tree is JSON in the format "layoutbench-kofler-tree/1"
(plots/kofler_tree.py writes it); a run's own trees lie in its results folder as
`kofler-tree/tree.gpu<k>.json` (the fit step's output), committed ones in results/trees/ as
`<gpu-name-slug>.json`, one per GPU model (copied there by hand from a real run)."""
from __future__ import annotations

import json
import os
from pathlib import Path

from orchestrator.common import REPO_ROOT, repo_path
from orchestrator.presets import slug

TREE_FORMAT = "layoutbench-kofler-tree/1"
TREE_SUITE = "kofler-tree"        # the training suite
TREE_CONSUMER = "kofler"          # the suite whose run gets --kofler-tree
TREE_OPTION = "--kofler-tree"
# LB_TREES_DIR: another folder of committed trees (the tests').
TREES_DIR = Path(os.environ.get("LB_TREES_DIR") or REPO_ROOT / "results" / "trees")


def gpu_slug(name: str) -> str:
    """A GPU name as a file name: "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3"."""
    return slug(name)


def run_tree_path(folder: Path, index: int) -> Path:
    """Where the fit step of device k writes the run's tree (its output "tree")."""
    return Path(folder) / TREE_SUITE / f"tree.gpu{index}.json"


def read_tree(path: Path) -> dict | None:
    """The tree at `path`, or None when it is missing, unreadable or not a tree."""
    try:
        tree = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return tree if isinstance(tree, dict) and tree.get("format") == TREE_FORMAT else None


def _gpu(tree: dict) -> dict:
    gpu = tree.get("gpu")
    return gpu if isinstance(gpu, dict) else {}


def committed_tree(gpu_name: str | None, gpu_uuid: str | None,
                   trees_dir: Path = TREES_DIR) -> Path | None:
    """A committed tree for this GPU: the one whose gpu.uuid is `gpu_uuid`, else the one named
    after the GPU's name (<slug>.json); None when there is none."""
    paths = sorted(Path(trees_dir).glob("*.json")) if Path(trees_dir).is_dir() else []
    if gpu_uuid:
        for path in paths:
            tree = read_tree(path)
            if tree and _gpu(tree).get("uuid") == gpu_uuid:
                return path
    if gpu_name:
        path = Path(trees_dir) / f"{gpu_slug(gpu_name)}.json"
        if read_tree(path):
            return path
    return None


def find_tree(run_folder: Path | None, gpu_name: str | None, gpu_uuid: str | None,
              trees_dir: Path = TREES_DIR) -> Path | None:
    """The tree a run uses on a GPU: the run's own fitted tree for that GPU (a
    kofler-tree/tree.gpu<k>.json of `run_folder` whose gpu.uuid is `gpu_uuid`; with no uuid
    known, whose gpu.name is `gpu_name`), else a committed tree by UUID, else by name, else
    None."""
    if run_folder is not None and Path(run_folder).is_dir():
        own = [(path, read_tree(path)) for path in
               sorted((Path(run_folder) / TREE_SUITE).glob("tree.gpu*.json"))]
        for path, tree in own:
            if tree and (_gpu(tree).get("uuid") == gpu_uuid if gpu_uuid
                         else gpu_name and _gpu(tree).get("name") == gpu_name):
                return path
    return committed_tree(gpu_name, gpu_uuid, trees_dir)


def kofler_tree_args(suite: str, run_folder: Path | None, gpu_name: str | None,
                     gpu_uuid: str | None, trees_dir: Path = TREES_DIR) -> list[str]:
    """What the run of `suite` on a GPU adds to `layoutbench run`: `--kofler-tree <file>` for
    the kofler suite when find_tree finds one, else nothing."""
    if suite != TREE_CONSUMER:
        return []
    path = find_tree(run_folder, gpu_name, gpu_uuid, trees_dir)
    return [TREE_OPTION, repo_path(path)] if path else []


def reuse_committed(spec, devices: list[dict], trees_dir: Path = TREES_DIR) -> dict[int, Path] | None:
    """With the fit step's {"reuse": 1} and a committed tree for every device: each device's
    tree (training is skipped); else None (the suite trains)."""
    if spec is None or not spec.values.get("reuse") or not devices:
        return None
    found = {d["index"]: committed_tree(d.get("name"), d.get("uuid"), trees_dir) for d in devices}
    return found if all(found.values()) else None


def skip_reused_training(selection, plans: dict, steps: dict, devices: list[dict], console,
                         trees_dir: Path = TREES_DIR) -> bool:
    """A new local run whose preset reuses committed trees ({"reuse": 1}, quick) and has one for
    every selected GPU: drops the training suite from the selection, its plan and its step,
    saying so; True if it did."""
    if TREE_SUITE not in selection.suites:
        return False
    reused = reuse_committed(steps.get(TREE_SUITE), devices, trees_dir)
    if not reused:
        return False
    for index, path in reused.items():
        console.info(f"[gpu {index}] {TREE_SUITE}: training skipped: the committed tree "
                     f"{repo_path(path)} fits this GPU (the preset's fit step has reuse 1)")
    selection.suites.remove(TREE_SUITE)
    plans.pop(TREE_SUITE, None)
    steps.pop(TREE_SUITE, None)
    return True

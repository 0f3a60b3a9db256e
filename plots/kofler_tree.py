"""Kofler et al. 2015, Sect. 3.2: the per-GPU decision tree (docs/kofler-tree.md).

The kofler-tree suite times the synthetic kernels (m float fields, a loop of n iterations)
over AoS, SoA and tiles 2^1 .. 2^15 on one GPU; this module makes the training patterns the
paper makes (per kernel the fastest class and every class less than 1 % slower, the feature
sigma = the cluster's bytes alone), fits scikit-learn's DecisionTreeClassifier, and writes the
tree as JSON ("layoutbench-kofler-tree/1"): integer-byte sigma intervals, each with its class.

  python3 -m plots.kofler_tree fit --results <run>/kofler-tree.gpu<k>.json --out <tree.json>

is the suite's artifact step (benches/suites.cpp: harness/run.py runs it on each device right
after the suite, writing <run>/kofler-tree/tree.gpu<k>.json). `render` draws the tree of each
device of a results folder for the report. Bad input is one message and exit 2.
"""

import argparse
import json
import math
import sys
import time
from datetime import datetime
from pathlib import Path

from plots.figures import SMALL, Section, figure_section, panel_grid, panel_title
from plots.layout_kinds import KIND
from plots.load import ResultsError, read_result_file
from plots.text import markdown_table

FORMAT = "layoutbench-kofler-tree/1"
SUITE = "kofler-tree"
FEATURE = "cluster_bytes"
WITHIN = 0.01  # "less than 1 % slower than the fastest" (l.107)
TILES = tuple(2 ** k for k in range(1, 16))
CLASSES = (KIND.aos, KIND.soa) + tuple(f"{KIND.tiled}:{t}" for t in TILES)  # the paper's, in order
PARAMS = {"criterion": "gini", "random_state": 0}  # otherwise scikit-learn's defaults
INTRO = ("The per-GPU decision tree of Kofler et al. 2015 (Sect. 3.2): synthetic kernels of one "
         "cluster of m float fields (sigma = 4m bytes), a loop of n iterations, timed over AoS, "
         "SoA and tiles of 2 .. 32768 records; per kernel the fastest class and every class "
         "less than 1 % slower are training patterns with sigma as the only feature.")


class TreeError(ResultsError):
    """Bad input to the fit, or a tree file that is not one: a message for the user."""


def class_of(benchmark):
    """The class a training benchmark ran: "aos", "soa" or "tiled:<t>"."""
    if benchmark.layout == KIND.tiled:
        return f"{KIND.tiled}:{benchmark.params.get('tile')}"
    return benchmark.layout


def class_order(name):
    """Sort key of a class: AoS, the tiles upwards, SoA (AoS is tile 1, SoA tile n)."""
    if name == KIND.aos:
        return (0, 0)
    if name == KIND.soa:
        return (2, 0)
    return (1, int(name.split(":", 1)[1]))


def kernels(benchmarks):
    """{(fields, n): {class: median seconds}} of the timed training benchmarks (failed ones
    left out)."""
    out = {}
    for b in benchmarks:
        if b.paper != SUITE or b.error or b.time_s is None or not b.time_s > 0:
            continue
        key = (int(b.params["fields"]), int(b.params["n"]))
        out.setdefault(key, {})[class_of(b)] = b.time_s
    return out


def near_fastest(times, within=WITHIN):
    """The classes of one kernel less than `within` slower than its fastest, fastest first."""
    best = min(times.values())
    return sorted((c for c, t in times.items() if t < best * (1 + within)),
                  key=lambda c: (times[c], class_order(c)))


def patterns(kernel_times, within=WITHIN):
    """The training patterns [(sigma bytes, class)]: per kernel, its fastest class and every
    class less than `within` slower (the paper's rule), sigma = 4 bytes a field."""
    return [(4 * fields, c) for (fields, _), times in sorted(kernel_times.items())
            for c in near_fastest(times, within)]


def sklearn_tree():
    try:
        import sklearn
        from sklearn.tree import DecisionTreeClassifier, export_text
    except ImportError:
        raise TreeError("scikit-learn is not installed (pip install scikit-learn; .ci/deps.sh "
                        "installs it): the decision tree cannot be fitted") from None
    return sklearn.__version__, DecisionTreeClassifier, export_text


def fit(training):
    """A DecisionTreeClassifier fitted on [(sigma, class)], and (version, export_text)."""
    if not training:
        raise TreeError("no training pattern: the suite has no timed benchmark")
    version, DecisionTreeClassifier, export_text = sklearn_tree()
    clf = DecisionTreeClassifier(**PARAMS)
    clf.fit([[sigma] for sigma, _ in training], [c for _, c in training])
    return clf, version, export_text


def intervals(predict, thresholds, trained=()):
    """Integer-byte intervals from 1 of a tree over sigma: `thresholds` are its split points
    (sigma goes left iff sigma <= threshold), `predict(sigma)` its class. Each split is placed
    as C5.0 places it, at the largest trained sigma on its left (`trained`; scikit-learn splits
    half-way between two trained values), else at the threshold's integer part: untrained
    sizes between two trained ones take the larger one's class. Adjacent intervals of one class
    are merged; the last one ends at None (no end)."""
    def bound(t):
        left = [s for s in trained if s <= t]
        return max(left) if left else math.floor(t)
    splits = sorted(t for t in thresholds if t >= 1)
    bounds = [bound(t) for t in splits]
    out = []
    for i, start in enumerate([1] + [b + 1 for b in bounds]):
        end = bounds[i] if i < len(bounds) else None
        # a sigma on the segment's side of every original split: its end (left of split i,
        # right of split i - 1), or past the last split
        cls = predict(end if end is not None else math.floor(splits[-1]) + 1 if splits else 1)
        if out and out[-1]["class"] == cls:
            out[-1]["to_bytes"] = end
        else:
            out.append({"from_bytes": start, "to_bytes": end, "class": cls})
    return out


def tree_class(tree, sigma):
    """The class a tree (its JSON) gives a cluster of `sigma` bytes."""
    for interval in tree["intervals"]:
        if interval["from_bytes"] <= sigma and (interval["to_bytes"] is None
                                                or sigma <= interval["to_bytes"]):
            return interval["class"]
    raise TreeError(f"the tree has no interval holding {sigma} bytes")


def accuracy(tree, kernel_times, within=WITHIN):
    """The fraction of kernels whose predicted class is less than `within` slower than their
    fastest (a class the kernel did not run counts as wrong)."""
    if not kernel_times:
        return 0.0
    hits = sum(tree_class(tree, 4 * fields) in near_fastest(times, within)
               for (fields, _), times in kernel_times.items())
    return hits / len(kernel_times)


def _context_gpu(result):
    gpu = result.lb.get("gpu") if isinstance(result.lb.get("gpu"), dict) else {}
    return {"name": str(gpu.get("name") or "unknown"), "uuid": str(gpu.get("uuid") or "")}


def _training_seconds(result):
    """From the suite's first layoutbench start (the context's date) to the results' assembly
    (the file's time): the training's wall time; None where the date is unreadable."""
    try:
        started = datetime.fromisoformat(str(result.context.get("date")).replace("Z", "+00:00"))
        return round(result.path.stat().st_mtime - started.timestamp(), 1)
    except (ValueError, OSError, TypeError):
        return None


def make_tree(result):
    """The tree JSON of one device's training results (a ResultFile of the kofler-tree suite)."""
    if result.suite != SUITE:
        raise TreeError(f"{result.path}: not results of the {SUITE} suite")
    kernel_times = kernels(result.benchmarks)
    training = patterns(kernel_times)
    clf, version, export_text = fit(training)
    inner = clf.tree_.children_left != -1
    tree = {"format": FORMAT, "gpu": _context_gpu(result), "feature": FEATURE,
            "tile_unit": "records",
            "intervals": intervals(lambda s: str(clf.predict([[s]])[0]), clf.tree_.threshold[inner],
                                   sorted({sigma for sigma, _ in training})),
            "classes": sorted({c for times in kernel_times.values() for c in times}, key=class_order)}
    build = result.lb.get("build") if isinstance(result.lb.get("build"), dict) else {}
    grid = {"fields": sorted({f for f, _ in kernel_times}),
            "iterations": sorted({n for _, n in kernel_times}),
            "classes": tree["classes"],
            "records": _counter(result, "records"),
            "threads": _counter(result, "gpu_threads")}
    tree["training"] = {"commit": build.get("git_commit") or build.get("commit"), "grid": grid,
                        "kernels": len(kernel_times), "patterns": len(training),
                        "accuracy": round(accuracy(tree, kernel_times), 4),
                        "seconds": _training_seconds(result), "results": result.path.name}
    tree["sklearn"] = {"version": version, "params": PARAMS,
                       "text": export_text(clf, feature_names=[FEATURE])}
    return tree


def _counter(result, name):
    """A counter every training case has the same value of (records, gpu_threads), else None
    (absent, or several values: results of an older build ran records / n threads)."""
    values = {b.counter(name) for b in result.benchmarks if b.counter(name)}
    return int(min(values)) if len(values) == 1 else None


def check_tree(tree, where):
    """Raises TreeError unless `tree` is a tree in this module's format."""
    def bad(problem):
        return TreeError(f"{where}: {problem}")
    if not isinstance(tree, dict) or tree.get("format") != FORMAT:
        raise bad(f'not a decision tree (expected "format": "{FORMAT}")')
    spans = tree.get("intervals")
    if not isinstance(spans, list) or not spans:
        raise bad("no intervals")
    expected_from = 1
    for i, span in enumerate(spans):
        if not isinstance(span, dict) or span.get("from_bytes") != expected_from:
            raise bad(f"intervals[{i}] does not start at {expected_from} bytes")
        if span.get("class") not in CLASSES:
            raise bad(f"intervals[{i}] has an unknown class {span.get('class')!r}")
        end = span.get("to_bytes")
        last = i == len(spans) - 1
        if last != (end is None) or (end is not None and (not isinstance(end, int) or end < expected_from)):
            raise bad(f"intervals[{i}] has a bad end {end!r} (only the last ends at null)")
        expected_from = (end or 0) + 1


def read_tree(path):
    """A tree file, checked (TreeError otherwise)."""
    path = Path(path)
    try:
        tree = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as e:
        raise TreeError(f"{path}: malformed JSON ({e})") from None
    except OSError as e:
        raise TreeError(f"{path}: cannot read ({e.strerror or e})") from None
    check_tree(tree, path)
    return tree


def write_tree(tree, out):
    """Writes the tree at `out` whole or not at all."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    temporary = out.with_name(f".{out.name}.tmp")
    temporary.write_text(json.dumps(tree, indent=1) + "\n", encoding="utf-8")
    temporary.replace(out)


# ------------------------------------------------------------------------------ figure

def draw_tree(ax, tree, kernel_times):
    """The tree's class per sigma interval (bars) and each kernel's fastest class (points, one
    per loop length n) on one axis; classes on y in class order."""
    shown = sorted({s["class"] for s in tree["intervals"]}
                   | {near_fastest(t)[0] for t in kernel_times.values()}, key=class_order)
    row = {c: i for i, c in enumerate(shown)}
    sigmas = [4 * f for f, _ in kernel_times] or [64]
    right = max(max(sigmas), max((s["to_bytes"] or 0) for s in tree["intervals"])) + 4
    for span in tree["intervals"]:
        end = span["to_bytes"] if span["to_bytes"] is not None else right
        ax.plot([span["from_bytes"] - 0.5, end + 0.5], [row[span["class"]]] * 2, color="C0",
                linewidth=6, solid_capstyle="butt", label="tree: class per σ interval")
    lengths = sorted({n for _, n in kernel_times})
    for k, n in enumerate(lengths):
        points = [(4 * f, row[near_fastest(t)[0]]) for (f, m), t in kernel_times.items() if m == n]
        offset = (k - (len(lengths) - 1) / 2) * 0.08
        ax.plot([x for x, _ in points], [y + offset for _, y in points], linestyle="none",
                marker="o", markersize=4, color=f"C{1 + k % 9}", label=f"fastest, n = {n}")
    ax.set_yticks(range(len(shown)), shown)
    ax.set_xlim(0, right)
    ax.set_ylim(-0.6, len(shown) - 0.4)
    ax.set_xlabel("cluster bytes σ")
    ax.set_ylabel("layout class")
    ax.grid(axis="x", alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    unique = dict(zip(labels, handles))
    ax.legend(unique.values(), unique.keys(), fontsize=SMALL, loc="center left",
              bbox_to_anchor=(1.01, 0.5))


def tree_path(folder, index):
    """Where the fit step writes device k's tree in a results folder."""
    return Path(folder) / SUITE / f"tree.gpu{index}.json"


def device_tree(device):
    """(tree, kernel times, tree path) of a device's kofler-tree results, or None."""
    files = [f for f in device.files if f.suite == SUITE]
    if not files:
        return None
    path = tree_path(device.folder, files[0].device_index)
    if not path.exists():
        return None
    return read_tree(path), kernels(device.benchmarks), path


def render(devices, figures_dir):
    """The decision tree of every device that trained one, as a report section."""
    found = [(d, device_tree(d)) for d in devices]
    found = [(d, t) for d, t in found if t]
    if not found:
        return [Section("The decision tree", "No device of these results has a fitted tree "
                        f"({SUITE}/tree.gpu<k>.json).")]
    fig, axes = panel_grid(len(found), 1, width=7.0, height=4.4)
    rows = []
    for ax, (device, (tree, kernel_times, path)) in zip(axes.flat, found):
        draw_tree(ax, tree, kernel_times)
        ax.set_title(panel_title("class per cluster size", device, [d for d, _ in found]))
        spans = ", ".join(f"{s['from_bytes']}–{s['to_bytes'] or '∞'} B: {s['class']}"
                          for s in tree["intervals"])
        training = tree.get("training", {})
        rows.append([device.label, spans, str(training.get("patterns", "")),
                     f"{100 * training.get('accuracy', 0):.0f} %"])
    body = ("Class per cluster size σ (tile sizes in records), the patterns the tree was fitted "
            "on, and its accuracy: the share of training kernels whose predicted class is less "
            "than 1 % slower than their fastest.\n\n"
            + markdown_table(["device", "intervals", "patterns", "accuracy"], rows))
    return [figure_section(fig, figures_dir, "kofler_tree", "Kofler: the per-GPU decision tree",
                           "The decision tree", body, devices=[d for d, _ in found])]


# ------------------------------------------------------------------------------ command line

def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m plots.kofler_tree",
                                     description="Fit Kofler's per-GPU decision tree.")
    commands = parser.add_subparsers(dest="command", required=True)
    fit_cmd = commands.add_parser("fit", help="fit the tree on one device's training results")
    fit_cmd.add_argument("--results", required=True, type=Path,
                         help="the kofler-tree suite's results of one device (kofler-tree.gpu<k>.json)")
    fit_cmd.add_argument("--out", required=True, type=Path, help="the tree's JSON file")
    args = parser.parse_args(argv)
    started = time.monotonic()
    try:
        tree = make_tree(read_result_file(args.results))
        write_tree(tree, args.out)
    except ResultsError as error:
        print(f"plots.kofler_tree: error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"plots.kofler_tree: error: cannot write {args.out}: {error}", file=sys.stderr)
        return 1
    spans = ", ".join(f"{s['from_bytes']}-{s['to_bytes'] or 'inf'} B {s['class']}"
                      for s in tree["intervals"])
    print(f"decision tree of {tree['gpu']['name']}: {spans} ({tree['training']['patterns']} "
          f"patterns, accuracy {100 * tree['training']['accuracy']:.0f} %, fitted in "
          f"{time.monotonic() - started:.1f} s) -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

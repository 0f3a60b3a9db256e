"""Read results folders (`<suite>.gpu<k>.json`, results/README.md) into one row per benchmark.

Each benchmark's repetitions and aggregates collapse into a `Benchmark`: median time in
seconds, relative spread, median counters, or an error (an errored benchmark never has a
time; a time that is not positive and finite makes the benchmark an invalid one, an error). Files are grouped into `Device`s, one per GPU per folder, because several folders (or
several `gpu<k>` files) mean several GPUs side by side in the figures; the identical cards of
a `run.py --split` run (its run.json says so) are one GPU, as they shared its benchmarks, and
so are cards of one GPU name whose suites do not overlap (a reference completed on another card)
and the cards of a folder merged by `harness/run.py --merge` (no benchmark on two of them).
"""

import gzip
import json
import math
import os
import re
import statistics
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from plots.names import FIELDS, parse_name

# A result file may be gzip-compressed as it is (`.json.gz`): a committed reference keeps a large
# file, such as the decision tree's 2,176 training kernels, small in the tree that device calls copy.
RESULT_FILE = re.compile(r"^(?P<suite>.+)\.gpu(?P<index>\d+)\.json(?:\.gz)?$")


# Every result file is read through read_bounded: at most this many bytes (after
# decompression), or LB_MAX_INPUT_BYTES where set (bytes, or with a K, M or G suffix: the
# C++ loaders' variable), so a small .json.gz that inflates to gigabytes, or an endless
# input, is refused before it fills the memory. The largest committed result is ~20 MiB.
MAX_INPUT_ENV = "LB_MAX_INPUT_BYTES"
MAX_RESULT_BYTES = 256 << 20
_CHUNK = 1 << 20


def max_input_bytes(default=MAX_RESULT_BYTES):
    """LB_MAX_INPUT_BYTES where set, else `default`; ResultsError for a value that is no size."""
    value = os.environ.get(MAX_INPUT_ENV)
    if value is None:
        return default
    match = re.fullmatch(r"\s*(\d+)([KkMmGg]?)\s*", value)
    if not match or int(match[1]) == 0:
        raise ResultsError(f"{MAX_INPUT_ENV}={value!r} is not a size: give a positive number of "
                           "bytes, optionally with a K, M or G suffix (KiB, MiB, GiB)")
    return int(match[1]) << {"": 0, "k": 10, "m": 20, "g": 30}[match[2].lower()]


def read_bounded(path, limit=None):
    """The bytes of the file at `path`, gunzipped when its name ends in .gz, read in chunks:
    ResultsError naming the file once more than `limit` bytes (max_input_bytes()) come out,
    and for a character or block device (/dev/zero: endless)."""
    path = Path(path)
    limit = max_input_bytes() if limit is None else limit
    if path.exists() and (path.is_char_device() or path.is_block_device()):
        raise ResultsError(f"{path}: is a device, not a file")
    chunks, size = [], 0
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rb") as f:
        while chunk := f.read(min(_CHUNK, limit + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise ResultsError(
                    f"{path}: larger than the input size limit of {limit} bytes"
                    f"{' once decompressed' if opener is gzip.open else ''}; set {MAX_INPUT_ENV} "
                    "to raise it")
    return b"".join(chunks)


def read_json_text(path):
    """The text of a result file, `.json` or gzip-compressed `.json.gz` (read_bounded)."""
    return read_bounded(path).decode("utf-8")
SECONDS_PER_UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
HOST_VERSION_PREFIX = "cpu-"
# Keys Google Benchmark writes itself; every other numeric key of an entry is a counter.
_RUNNER_KEYS = {
    "name", "run_name", "run_type", "family_index", "per_family_instance_index", "threads",
    "repetitions", "repetition_index", "aggregate_name", "aggregate_unit",
    "iterations", "real_time", "cpu_time", "time_unit", "error_occurred", "error_message",
    "skipped", "skip_message", "label",
}


class ResultsError(Exception):
    """Bad input: a message naming the folder or file, meant for the user as is."""


# Counters renamed when IDW and kriging moved onto the program interface (issue 11, one
# naming convention: harness/lb/harness/program.hpp); results written before keep the old names.
OLD_COUNTER_NAMES = {"bound_s": "limit_s", "pct_of_bound": "pct_of_limit",
                     "pct_compute_bound": "pct_fma_ceiling"}


@dataclass(frozen=True)
class Benchmark:
    """One benchmark on one device: every repetition and aggregate folded together."""

    name: str
    paper: str
    app: str
    version: str
    layout: str
    precision: str
    params: dict
    device: str
    preset: str
    source: Path
    time_s: float | None = None
    spread: float | None = None
    repetitions_s: tuple = ()  # every repetition's time, when the file has them
    counters: dict = field(default_factory=dict)
    counter_ranges: dict = field(default_factory=dict)  # (min, max) over the repetitions
    error: str | None = None
    invalid: bool = False  # the error is a time that cannot be a measurement
    throttled: bool = False
    label: str | None = None  # Google Benchmark's label (the same in every entry), if any
    # What the run's noise rules decided (the median entry's `noise`, results/README.md):
    # repetitions, the median's interval, target_met, capped, bimodal; None in older results.
    noise: dict | None = None

    @property
    def bimodal(self):
        """The repetitions stayed bimodal after being re-measured (the harness's rule)."""
        return bool(self.noise and self.noise.get("bimodal") is True)

    @property
    def noise_capped(self):
        """The time cap ended its repetitions with the noise target missed."""
        return bool(self.noise and self.noise.get("capped") is True)

    def counter(self, name):
        """A counter by its name, or by its name before the rename in OLD_COUNTER_NAMES
        (results written before); None when this benchmark has neither."""
        value = self.counters.get(name)
        if value is None and name in OLD_COUNTER_NAMES:
            value = self.counters.get(OLD_COUNTER_NAMES[name])
        return value

    def get(self, key):
        """A name field or parameter by key; None when this benchmark lacks it."""
        if key in FIELDS:
            return getattr(self, key)
        return self.params.get(key)

    @property
    def is_host(self):
        """CPU baselines do not depend on the GPU, so devices of one folder share them."""
        return self.version.startswith(HOST_VERSION_PREFIX)


@dataclass(frozen=True)
class ResultFile:
    path: Path
    suite: str
    device_index: int
    context: dict
    entry_count: int
    benchmarks: tuple

    @property
    def lb(self):
        """The suite's own context block (gpu, build, run, ceilings); {} when absent."""
        lb = self.context.get("lb")
        return lb if isinstance(lb, dict) else {}

    @property
    def gpu_name(self):
        return str(_nested(self.lb, "gpu", "name") or "unknown")

    @property
    def preset(self):
        return str(_nested(self.lb, "run", "preset") or "unknown")

    @property
    def spread_flag_pct(self):
        """The run's own threshold for flagging a noisy time, if it recorded one."""
        value = _nested(self.lb, "run", "spread_flag_pct")
        return value if _is_number(value) else None


@dataclass(frozen=True)
class Device:
    """One GPU of one results folder, with the host baselines of that folder."""

    label: str
    preset: str
    folder: Path
    files: tuple
    benchmarks: tuple

    def for_paper(self, paper):
        return replace(self, benchmarks=tuple(b for b in self.benchmarks if b.paper == paper))


@dataclass(frozen=True)
class Results:
    folders: tuple
    files: tuple
    devices: tuple

    @property
    def benchmark_count(self):
        return sum(len(f.benchmarks) for f in self.files)

    @property
    def entry_count(self):
        return sum(f.entry_count for f in self.files)


def load_results(folders):
    """Read every `<suite>.gpu<k>.json` of each folder; raise ResultsError on bad input."""
    if not folders:
        raise ResultsError("no results folder given")
    files, devices = [], []
    for folder in map(Path, folders):
        folder_files = [read_result_file(path) for path in _result_paths(folder)]
        files.extend(folder_files)
        devices.extend(_devices_of_folder(folder, folder_files))
    return Results(tuple(map(Path, folders)), tuple(files), tuple(_unique_labels(devices)))


def load_files(folder, paths):
    """Results of some result files of one folder (a reference's suites: plots/reference.py)."""
    folder = Path(folder)
    files = [read_result_file(path) for path in paths]
    return Results((folder,), tuple(files), tuple(_unique_labels(_devices_of_folder(folder, files))))


def _result_paths(folder):
    if folder.exists() and not folder.is_dir():
        raise ResultsError(f"{folder}: is a file, not a results folder")
    if not folder.is_dir():
        raise ResultsError(f"{folder}: results folder does not exist")
    paths = sorted(p for p in folder.iterdir() if RESULT_FILE.match(p.name))
    if not paths:
        raise ResultsError(f"{folder}: no <suite>.gpu<k>.json result files")
    return paths


def read_result_file(path):
    """Parse one Google Benchmark JSON file into a ResultFile."""
    path = Path(path)
    match = RESULT_FILE.match(path.name)
    if not match:
        raise ResultsError(f"{path}: not named <suite>.gpu<k>.json")
    try:
        doc = json.loads(read_json_text(path))
    except json.JSONDecodeError as error:
        raise ResultsError(f"{path}:{error.lineno}: malformed JSON: {error.msg}") from None
    except (OSError, EOFError, UnicodeDecodeError) as error:  # gzip: OSError/EOFError
        raise ResultsError(f"{path}: cannot read: {error}") from None
    if not isinstance(doc, dict):
        raise ResultsError(f"{path}: top level is not a JSON object")
    for key, kind in (("context", dict), ("benchmarks", list)):
        if not isinstance(doc.get(key), kind):
            raise ResultsError(f"{path}: missing or malformed key '{key}'")

    shell = ResultFile(path, match["suite"], int(match["index"]), doc["context"],
                       len(doc["benchmarks"]), ())
    groups = {}
    for position, entry in enumerate(doc["benchmarks"]):
        where = f"{path}: benchmarks[{position}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise ResultsError(f"{where}: entry without a 'name'")
        if entry.get("run_type") not in ("iteration", "aggregate"):
            raise ResultsError(f"{where} ({entry['name']}): missing or unknown 'run_type'")
        try:
            parsed = parse_name(entry["name"])
        except ValueError as error:
            raise ResultsError(f"{where}: {error}") from None
        groups.setdefault(parsed["benchmark"], (parsed, []))[1].append(entry)

    problems = [f"{name} ({why})" for name, (_, entries) in groups.items()
                for why in [_merge_problem(entries)] if why]
    if problems:
        raise ResultsError(f"{path}: {len(problems)} benchmark(s) whose entries cannot be merged into "
                           "one result (a median of the rest could change a verdict): "
                           + "; ".join(problems))
    benchmarks = tuple(
        _fold(path, shell.gpu_name, shell.preset, parsed, entries)
        for parsed, entries in groups.values()
    )
    return replace(shell, benchmarks=benchmarks)


def _merge_problem(entries):
    """Why one benchmark's entries are not one run's, or None: a name given twice (a
    repetition index or an aggregate twice, more repetitions than the run had) or a counter
    that some repetitions have and others lack, or a label that differs between entries
    (Google Benchmark writes one run's label in each repetition; an aggregate without one
    is not a difference)."""
    iterations = [e for e in entries if e["run_type"] == "iteration"]
    # Only well-formed names and indices are compared; others are ignored, as _fold does.
    known = [e["repetition_index"] for e in iterations
             if isinstance(e.get("repetition_index"), int) and not isinstance(e["repetition_index"], bool)]
    if len(known) != len(set(known)):
        return "duplicate name: a repetition index appears twice"
    declared = next((e["repetitions"] for e in iterations if _is_number(e.get("repetitions"))), None)
    if declared is not None and len(iterations) > declared:
        return f"duplicate name: {len(iterations)} repetitions where the run had {declared}"
    aggregates = [e["aggregate_name"] for e in entries
                  if e["run_type"] == "aggregate" and isinstance(e.get("aggregate_name"), str)]
    if len(aggregates) != len(set(aggregates)):
        twice = next(a for a in aggregates if aggregates.count(a) > 1)
        return f"duplicate name: aggregate '{twice}' appears twice"
    labels = [e.get("label") for e in iterations] + [e["label"] for e in entries if "label" in e]
    odd = [l for l in labels if l is not None and not isinstance(l, str)]
    if odd:
        return f"label {odd[0]!r} is not a string"
    if len(set(labels)) > 1:
        return "labels differ between its entries: " + ", ".join(
            sorted("none" if l is None else repr(l) for l in set(labels)))
    if any(e.get("error_occurred") or e.get("skipped") for e in entries):
        return None  # a failed repetition has no counters
    for key in _counter_keys(iterations):
        missing = [i for i, e in enumerate(iterations) if key not in e]
        if missing:
            return (f"counter '{key}' missing from {len(missing)} of its {len(iterations)} "
                    "repetitions")
    return None


def _fold(path, device, preset, parsed, entries):
    """Fold one benchmark's entries into a Benchmark (time, spread, counters or error)."""
    base = Benchmark(
        name=parsed["benchmark"], params=parsed["params"], device=device, preset=preset,
        source=path, label=_label(entries), **{f: parsed[f] for f in FIELDS},
    )
    failure = _failure(entries)
    if failure:
        return replace(base, error=failure)

    where = f"{path}: {base.name}"
    iterations = [e for e in entries if e["run_type"] == "iteration"]
    aggregates = {e["aggregate_name"]: e for e in entries
                  if e["run_type"] == "aggregate" and isinstance(e.get("aggregate_name"), str)}
    median_entry = aggregates.get("median")
    if median_entry is not None and median_entry.get("aggregate_unit", "time") == "time":
        timed = [median_entry, *iterations]
    elif iterations:
        timed = iterations
    else:
        raise ResultsError(f"{where}: no iteration entry and no median aggregate")
    times = [_seconds(where, e) for e in timed]
    bad = next((e for e, t in zip(timed, times) if not (math.isfinite(t) and t > 0)), None)
    if bad is not None:
        return replace(base, invalid=True, error=(
            f"invalid real_time: {bad['real_time']!r} {bad['time_unit']} is not a positive "
            "finite time"))
    time_s = times[0] if timed[0] is median_entry else statistics.median(times)

    counter_source = iterations or [median_entry]
    for key in _counter_keys(counter_source):
        if not all(_is_number(e[key]) for e in counter_source if key in e):
            raise ResultsError(f"{where}: counter '{key}' is not a number in every repetition")
    counters = {
        key: statistics.median(e[key] for e in counter_source if key in e)
        for key in _counter_keys(counter_source)
    }
    counter_ranges = {key: (min(v), max(v)) for key in counters
                      for v in [[e[key] for e in counter_source if key in e]]}
    throttled = any(_is_number(e.get("throttled")) and e["throttled"] >= 1
                    for e in counter_source)
    spread = _spread(where, aggregates.get("spread"), iterations, time_s)
    repetitions_s = tuple(_seconds(where, e) for e in iterations)
    noise = median_entry.get("noise") if median_entry is not None else None
    return replace(base, time_s=time_s, spread=spread, repetitions_s=repetitions_s,
                   counters=counters, counter_ranges=counter_ranges, throttled=throttled,
                   noise=noise if isinstance(noise, dict) else None)


def _label(entries):
    """The benchmark's label (_merge_problem checked it is one string in every repetition),
    or None."""
    return next((e["label"] for e in entries if isinstance(e.get("label"), str)), None)


def _failure(entries):
    """The error (or skip) message when any entry failed, else None."""
    for entry in entries:
        if entry.get("error_occurred"):
            return str(entry.get("error_message") or "error (no message)")
    for entry in entries:
        if entry.get("skipped"):
            return "skipped: " + str(entry.get("skip_message") or "no reason given")
    return None


def _seconds(where, entry):
    unit = entry.get("time_unit")
    value = entry.get("real_time")
    if not isinstance(unit, str) or unit not in SECONDS_PER_UNIT:
        raise ResultsError(f"{where}: missing or unknown 'time_unit' {unit!r}")
    if not _is_number(value):
        raise ResultsError(f"{where}: missing or non-numeric 'real_time'")
    return value * SECONDS_PER_UNIT[unit]


def _spread(where, spread_entry, iterations, time_s):
    """Relative spread (max - min) / median as a fraction.

    Computed from the repetitions when there are two or more: that is the harness's own
    `spread` statistic, and it does not depend on how the aggregate's value was scaled
    (Google Benchmark writes percentage aggregates as fractions, but a reporter that runs
    them through GetAdjustedRealTime multiplies by the time unit and divides by the
    iteration count). The `spread` aggregate is used only when repetitions are absent.
    """
    if len(iterations) >= 2 and time_s:
        times = [_seconds(where, e) for e in iterations]
        return (max(times) - min(times)) / time_s
    if spread_entry is None:
        return None
    if spread_entry.get("aggregate_unit") == "percentage":
        value = spread_entry.get("real_time")
        if not _is_number(value):
            raise ResultsError(f"{where}: spread aggregate without a numeric 'real_time'")
        return value
    return _seconds(where, spread_entry) / time_s if time_s else None


def _counter_keys(entries):
    keys = []
    for entry in entries:
        keys += [k for k, v in entry.items()
                 if k not in _RUNNER_KEYS and _is_number(v) and k not in keys]
    return keys


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _nested(mapping, *keys):
    for key in keys:
        if not isinstance(mapping, dict):
            return None
        mapping = mapping.get(key)
    return mapping


def _devices_of_folder(folder, files):
    """Group a folder's files by GPU; every device also sees the folder's CPU baselines."""
    groups = {}
    for result_file in files:
        gpu = result_file.lb.get("gpu") if isinstance(result_file.lb.get("gpu"), dict) else {}
        uuid = gpu.get("uuid")
        key = (uuid if isinstance(uuid, str) and uuid
               else f"{gpu.get('name', 'unknown')}#{result_file.device_index}")
        groups.setdefault(key, []).append(result_file)

    host = _first_of_each(b for f in files for b in f.benchmarks if b.is_host)
    devices = []
    for group in groups.values():
        own = [b for f in group for b in f.benchmarks]
        twice = sorted(n for n, k in Counter(b.name for b in own).items() if k > 1)
        if twice:
            raise ResultsError(
                f"{folder}: {', '.join(twice)} measured more than once on {group[0].gpu_name} "
                f"(in {', '.join(sorted({b.source.name for b in own if b.name in twice}))}): "
                "refusing to pick one")
        own_names = {b.name for b in own}
        shared = [b for b in host if b.name not in own_names]
        devices.append(Device(group[0].gpu_name, group[0].preset, folder, tuple(group),
                              tuple(own + shared)))
    if len(devices) > 1 and len({d.label for d in devices}) == 1:
        if _split_run(folder):
            return [split_device(devices)]
        if _suites_apart(devices):
            return [_merged(devices, f"{devices[0].files[0].gpu_name} (suites from {len(devices)} cards)")]
        if _merged_run(folder):
            return [_merged(devices, f"{devices[0].files[0].gpu_name} (merged from {len(devices)} cards)")]
    return devices


def _suites_apart(cards):
    """Whether no suite has GPU results on two of these cards: a reference folder completed on
    another card of the same GPU (a suite rerun there whole) is one GPU, each suite one card's;
    cards that shared a suite without `--split` stay apart."""
    seen = set()
    for card in cards:
        suites = {b.paper for b in card.benchmarks if not b.is_host}
        if suites & seen:
            return False
        seen |= suites
    return True


def split_device(cards):
    """Identical cards that shared a run's benchmarks (`run.py --split`) as one GPU: the first
    card completed with the others' results (a benchmark several cards measured, such as the
    decision tree's training, which a split run does not split, is the first card's), with
    every card's files (the first card's first), labelled "<GPU name> ×<n> (split)"."""
    return _merged(cards, f"{cards[0].files[0].gpu_name} ×{len(cards)} (split)")


def _merged(cards, label):
    """One device of several cards: the first's benchmarks and each other's it lacks, every
    card's files (the first card's first)."""
    first = cards[0]
    names, extra = {b.name for b in first.benchmarks}, []
    for benchmark in (b for card in cards[1:] for b in card.benchmarks):
        if benchmark.name not in names:
            names.add(benchmark.name)
            extra.append(benchmark)
    return replace(first, label=label, files=tuple(f for card in cards for f in card.files),
                   benchmarks=first.benchmarks + tuple(extra))


def run_json(folder):
    """The run.json harness/run.py wrote into `folder` (an object), or None where there is none
    or it cannot be read: what the run planned and how, for the report to say."""
    try:
        meta = json.loads((Path(folder) / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return meta if isinstance(meta, dict) else None


def _merged_run(folder):
    """Whether `folder` was merged from run folders of one GPU model (`harness/run.py --merge`,
    which refuses a benchmark in two of them): its cards are one GPU, a suite's benchmarks
    possibly from several cards."""
    meta = run_json(folder)
    return meta is not None and isinstance(meta.get("merged"), list)


def _split_run(folder):
    """Whether `folder` holds a `run.py --split` run: its run.json says "split": true in
    "args", or, for one partition's folder of a Slurm run, the run folder's above it does."""
    for where in (folder, folder.parent):
        meta = run_json(where)
        if meta is None:
            continue
        tasks = meta.get("tasks")
        if where != folder and not (isinstance(tasks, list) and any(
                isinstance(t, dict) and t.get("folder") == folder.name for t in tasks)):
            return False
        return _nested(meta, "args", "split") is True
    return False


def _first_of_each(benchmarks):
    """One host baseline per name when several files of a folder measured it."""
    seen = {}
    for benchmark in benchmarks:
        seen.setdefault(benchmark.name, benchmark)
    return list(seen.values())


def _unique_labels(devices):
    """Labels that fit a legend: the GPU name, "#<index>" when a folder holds several GPUs
    of that name, and "run <k>" (the k-th folder given) when several folders still share a
    label. The report's Devices section names each label's folder."""
    def in_folder(device):
        same = [d for d in devices if d.folder == device.folder and d.label == device.label]
        return f"{device.label} #{device.files[0].device_index}" if len(same) > 1 else device.label

    folders = list(dict.fromkeys(d.folder for d in devices))
    first = [in_folder(d) for d in devices]
    return [replace(d, label=label if first.count(label) == 1
                    else f"{label} run {folders.index(d.folder) + 1}")
            for d, label in zip(devices, first)]

"""Compare two GPUs: GPU-time ratios B/A with intervals and tests, summaries, the roofline
model's expectation, layout orderings and claims that differ, GPU-to-GPU spread on one host.

`python3 -m plots.compare A B [--out DIR]` prints the table and writes DIR/COMPARE.md with
its figures and DIR/report.html (the same, self-contained); `make figures` with several folders
puts the same section in REPORT.md. A side is a results folder or the name of a committed
reference GPU (`h100`: plots/reference.py), whatever suites each holds: a suite or benchmark
on one side only is listed as not compared. Only GPU
times and fractions of each GPU's own measured ceilings are compared: CPU baselines measure
the host, so they are listed as left out, never used as a yardstick.
"""

import argparse
import csv
import math
import os
import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path

from plots import stats
from plots.claims import Scope, evaluate_claims, load_claims
from plots import reference
import matplotlib.ticker

from plots.figures import Section, drawing, panel_grid, save_figure, write_atomically
from plots.cli import run
from plots.html import write_html
from plots.kofler_label import METHOD_LAYOUTS, runs_as
from plots.text import format_seconds, markdown_table
from plots.load import Results, ResultsError, load_files, load_results, split_device
from plots.papers import PAPERS

BENCHMARKS_CSV = "compare_benchmarks.csv"  # every compared benchmark, beside COMPARE.md
CEILINGS = ("copy_bandwidth_gbs", "fp32_fma_per_s", "fp32_rcp_per_s", "fp64_fma_per_s")
# A card of a group of identical GPUs is flagged when the benchmark's GPU-to-GPU spread
# exceeds this many times the largest repetition spread of the cards (their own noise).
CARD_SPREAD_FACTOR = 2.0
# Identical cards should agree; a spread under this fraction is never flagged, however
# quiet the repetitions were (timer resolution, clocks).
CARD_SPREAD_FLOOR = 0.02
# Ratio-axis ticks, finest first: the first set reaching past the data is used (no crowding).
RATIO_TICKS = ((0.8, 0.9, 1, 1.1, 1.25), (0.5, 0.67, 1, 1.5, 2), (0.2, 0.5, 1, 2, 5),
               (0.1, 0.3, 1, 3, 10), (0.01, 0.1, 1, 10, 100))


@dataclass(frozen=True)
class Model:
    """What the roofline model says about one benchmark on both GPUs."""

    bound: str  # which ceiling binds
    predicted: float  # expected time ratio B/A
    measured: float  # measured ratio of the modelled time (the device part when declared)
    pct_a: float  # modelled time as % of its own GPU's ceiling
    pct_b: float


@dataclass(frozen=True)
class Row:
    name: str
    a: object  # load.Benchmark
    b: object
    test: stats.RatioTest | None
    model: Model | None

    @property
    def ratio(self):
        """Hodges–Lehmann ratio when repetitions exist, else the ratio of medians."""
        if self.test:
            return self.test.ratio
        return self.b.time_s / self.a.time_s if self.a.time_s and self.b.time_s else None


@dataclass(frozen=True)
class Comparison:
    label_a: str
    label_b: str
    ceilings_a: dict
    ceilings_b: dict
    rows: tuple  # measured on both
    errored: tuple  # (name, message) where either side errored
    only_a: tuple  # names
    only_b: tuple
    host_left_out: int
    orderings: tuple  # (group, order on A, order on B, swapped pairs)
    claims: tuple  # (paper, claim id, text, verdict A, verdict B)
    suites_only_a: tuple = ()  # (suite, GPU benchmarks) of suites A alone measured
    suites_only_b: tuple = ()
    other_work: tuple = ()  # (name, what differs): the same name declaring other work


def compare_devices(device_a, device_b):
    """Compare two load.Device; raises ClaimsError on a bad claims file."""
    gpu_a = {b.name: b for b in device_a.benchmarks if not b.is_host}
    gpu_b = {b.name: b for b in device_b.benchmarks if not b.is_host}
    suites_a, suites_b = _suites(device_a), _suites(device_b)
    host = {b.name for d in (device_a, device_b) for b in d.benchmarks if b.is_host}
    rows, errored, other_work = [], [], []
    for name in (n for n in gpu_a if n in gpu_b):
        a, b = gpu_a[name], gpu_b[name]
        if a.error or b.error:
            errored.append((name, "; ".join(f"{side}: {x.error}" for side, x in
                                            (("A", a), ("B", b)) if x.error)))
            continue
        if differs := work_difference(a, b):
            other_work.append((name, differs))
            continue
        rows.append(Row(name, a, b, stats.ratio_test(a.repetitions_s, b.repetitions_s),
                        roofline(a, b, ceilings_of(device_a), ceilings_of(device_b))))
    return Comparison(
        device_a.label, device_b.label, ceilings_of(device_a), ceilings_of(device_b), tuple(rows),
        tuple(errored), _only(gpu_a, gpu_b, suites_b), _only(gpu_b, gpu_a, suites_a), len(host),
        tuple(layout_orderings(rows)), tuple(claims_that_differ(device_a, device_b)),
        _suites_only(suites_a, suites_b), _suites_only(suites_b, suites_a), tuple(other_work))


def declared_work(benchmark):
    """What a benchmark says it did: bytes read and written, and its work unit with its amount
    (the counter k that has a rate k_per_s), each where declared."""
    counters = benchmark.counters
    work = {k: _work_value(counters[k]) for k in ("bytes_read", "bytes_written") if k in counters}
    units = sorted(f"{k} {_work_value(counters[k])}" for k in counters if f"{k}_per_s" in counters)
    if units:
        work["unit"] = ", ".join(units)
    return work


def build_difference(a, b):
    """Why two results of a Kofler method layout come from builds that run the method
    differently ('' where they do not): a build from before the label's runs_as ran every
    method layout on the run-time partition, a later one runs it as the compiled layout its
    partition is. Two builds that say what ran them are compared whatever each GPU's tree
    chose (the method on each GPU, as the names pair them)."""
    if a.layout not in METHOD_LAYOUTS:
        return ""
    ran_a, ran_b = runs_as(a), runs_as(b)
    if (ran_a is None) == (ran_b is None) or (ran_a or ran_b) == "partition":
        return ""
    older = "A" if ran_a is None else "B"
    return (f"ran as: {ran_a or 'partition'} on A, {ran_b or 'partition'} on B ({older}'s build "
            "ran every method layout on the run-time partition)")


def work_difference(a, b):
    """Why two results of one name did not do the same work ('' if they did, or either
    declares none): a benchmark of the same name from another build or preset that changed
    what it runs (e.g. the tree's training before and after its fixed thread count, or the
    method's layouts before and after they ran compiled: build_difference) has no time
    ratio."""
    if differs := build_difference(a, b):
        return differs
    work_a, work_b = declared_work(a), declared_work(b)
    if not work_a or not work_b or work_a == work_b:
        return ""
    return "; ".join(f"{k}: {work_a.get(k, 'none')} on A, {work_b.get(k, 'none')} on B"
                     for k in ("bytes_read", "bytes_written", "unit") if work_a.get(k) != work_b.get(k))


def _work_value(value):
    return f"{value:.6g}"


def _suites(device):
    """{suite: its GPU benchmarks on the device} (a suite is a paper: its result file's name)."""
    counts = defaultdict(int)
    for benchmark in device.benchmarks:
        counts[benchmark.paper] += not benchmark.is_host
    return dict(counts)


def _only(mine, theirs, their_suites):
    """Benchmarks of a suite both sides measured that the other side lacks (a suite one side
    lacks altogether is listed once, as a suite)."""
    return tuple(n for n, b in mine.items() if n not in theirs and b.paper in their_suites)


def _suites_only(mine, theirs):
    return tuple((suite, n) for suite, n in sorted(mine.items()) if suite not in theirs)


def ceilings_of(device):
    """The device's measured ceilings (from its first result file that has them)."""
    for result_file in device.files:
        values = result_file.lb.get("ceilings")
        if isinstance(values, dict) and values:
            return values
    return {}


def roofline(a, b, ceilings_a, ceilings_b):
    """The model's expected ratio from the work each benchmark declares, or None.

    One that declares `memory_bound_s` and `device_s` (kriging's device part: output bytes
    at the copy bandwidth) is memory bound and the model covers its device time only. An IDW
    benchmark that declares `bound_s` (`limit_s` before issue 11: interactions at the FP32
    FMA or reciprocal rate, whichever binds, or the FP64 FMA rate; benches/idw/shepard_variants.cpp) is
    compute bound and its bound already holds each GPU's ceiling. Anything else: no model.
    """
    counters_a, counters_b = a.counters, b.counters
    if _positive(counters_a, counters_b, "memory_bound_s", "device_s"):
        return Model("memory: copy bandwidth (device part)",
                     counters_b["memory_bound_s"] / counters_a["memory_bound_s"],
                     counters_b["device_s"] / counters_a["device_s"],
                     100 * counters_a["memory_bound_s"] / counters_a["device_s"],
                     100 * counters_b["memory_bound_s"] / counters_b["device_s"])
    limit_a, limit_b = a.counter("bound_s"), b.counter("bound_s")
    if a.paper == "idw" and all(isinstance(v, (int, float)) and v > 0 for v in (limit_a, limit_b)):
        bound = _idw_bound(a.precision, ceilings_a, ceilings_b)
        return Model(bound, limit_b / limit_a, b.time_s / a.time_s, 100 * limit_a / a.time_s,
                     100 * limit_b / b.time_s)
    return None


# FP32 FMAs per IDW interaction in shepard_variants.cpp's idw_work (float: the larger of 6 FMAs
# and one reciprocal per interaction binds; double: 6 FP64 FMAs).
IDW_FMAS_PER_INTERACTION = 6


def _idw_bound(precision, ceilings_a, ceilings_b):
    """Which rate binds an IDW kernel on each GPU, as its declared work decides it."""
    if precision == "double":
        return "compute: FP64 FMA"

    def fp32_bound(ceilings):
        fma, rcp = ceilings.get("fp32_fma_per_s"), ceilings.get("fp32_rcp_per_s")
        if not fma or not rcp:
            return None
        return "reciprocal (SFU)" if 1 / rcp > IDW_FMAS_PER_INTERACTION / fma else "FMA"

    on_a, on_b = fp32_bound(ceilings_a), fp32_bound(ceilings_b)
    if on_a is None or on_b is None:
        return "compute: FP32 FMA or reciprocal"
    return f"compute: FP32 {on_a}" if on_a == on_b else f"compute: FP32 {on_a} on A, {on_b} on B"


def _positive(counters_a, counters_b, *keys):
    return all(isinstance(c.get(k), (int, float)) and c[k] > 0
               for c in (counters_a, counters_b) for k in keys)


def layout_orderings(rows):
    """Groups (same benchmark but for the layout) whose layouts rank differently on B.

    A swapped pair is "clear" when, on both GPUs, the two times differ by more than the
    larger of the two repetition spreads; otherwise it is within the noise.
    """
    groups = defaultdict(list)
    for row in rows:
        parts = row.name.split("/")
        groups["/".join(parts[:3] + ["*"] + parts[4:])].append(row)
    for group, members in groups.items():
        if len(members) < 2:
            continue
        order_a = sorted(members, key=lambda r: r.a.time_s)
        order_b = sorted(members, key=lambda r: r.b.time_s)
        if [r.a.layout for r in order_a] == [r.a.layout for r in order_b]:
            continue
        rank_b = {r.name: i for i, r in enumerate(order_b)}
        swapped = []
        for i, first in enumerate(order_a):
            for second in order_a[i + 1:]:
                if rank_b[first.name] > rank_b[second.name]:
                    clear = _clearly_apart(first.a, second.a) and _clearly_apart(first.b, second.b)
                    swapped.append((first.a.layout, second.a.layout, clear))
        yield (group, [r.a.layout for r in order_a], [r.a.layout for r in order_b], swapped)


def _clearly_apart(x, y):
    noise = max(x.spread or 0.0, y.spread or 0.0)
    return abs(x.time_s - y.time_s) / min(x.time_s, y.time_s) > noise


def claims_that_differ(device_a, device_b):
    """(paper, claim id, text, verdict on A, verdict on B) for each claim whose verdict
    differs, in the papers both GPUs measured."""
    on_b = {b.paper for b in device_b.benchmarks}
    for paper_id in dict.fromkeys(b.paper for b in device_a.benchmarks):
        paper = PAPERS.get(paper_id)
        if paper is None or paper_id not in on_b:
            continue
        claims = load_claims(paper.claims_file)
        verdicts = [evaluate_claims(claims, Scope(d.for_paper(paper_id).benchmarks,
                                                  paper.baseline, paper.prefer, paper.sweep))
                    for d in (device_a, device_b)]
        for va, vb in zip(*verdicts):
            if va.verdict != vb.verdict:
                yield (paper_id, va.claim_id, va.text, va.verdict, vb.verdict)


def summaries(rows):
    """Geometric-mean ratios B/A (measured, and the model's where it has one) per key."""
    tables = {}
    for title, key in (("suite", lambda r: r.a.paper), ("version", lambda r: f"{r.a.paper}/"
                       f"{r.a.app}/{r.a.version}"), ("layout", lambda r: r.a.layout)):
        groups = defaultdict(list)
        for row in rows:
            groups[key(row)].append(row)
        tables[title] = [(group, len(members),
                          stats.geometric_mean(r.ratio for r in members),
                          stats.geometric_mean(r.model.predicted for r in members if r.model))
                         for group, members in sorted(groups.items())]
    return tables


def identical_gpu_groups(devices):
    """Devices of one host with the same GPU name, two or more per group."""
    groups = defaultdict(list)
    for device in devices:
        host = next((f.context.get("host_name") for f in device.files
                     if f.context.get("host_name")), "unknown host")
        groups[(device.files[0].gpu_name, str(device.folder), host)].append(device)
    return [(key, members) for key, members in groups.items() if len(members) >= 2]


def folder_device(devices, folder):
    """The GPU of a folder to compare: its first; when identical cards of one host shared
    the benchmarks (`run.py --split`), the first card completed with the others' results
    (load.split_device; a split run's folder with its run.json loads as that one GPU)."""
    first = next(d for d in devices if d.folder == folder)
    cards = next((members for _, members in identical_gpu_groups(devices)
                  if members[0] is first), [first])
    merged = split_device(cards)
    return merged if len(merged.benchmarks) > len(first.benchmarks) else first


def card_spread(members):
    """Per GPU benchmark all cards measured: (name, spread, noise, flagged, slowest card)."""
    common = None
    for device in members:
        names = {b.name for b in device.benchmarks if not b.is_host and b.time_s}
        common = names if common is None else common & names
    by_device = [{b.name: b for b in d.benchmarks} for d in members]
    for name in sorted(common or ()):
        times = [d[name].time_s for d in by_device]
        spread = (max(times) - min(times)) / statistics.median(times)
        noise = max(d[name].spread or 0.0 for d in by_device)
        flagged = spread > max(CARD_SPREAD_FACTOR * noise, CARD_SPREAD_FLOOR)
        slowest = members[times.index(max(times))].label
        yield (name, spread, noise, flagged, slowest)


# ---------------------------------------------------------------------------- rendering

def _ratio_text(value):
    return "—" if value is None else f"{value:#.3g}"


def _pct_text(value):
    return "—" if value is None else f"{value:.3g} %"


def _interval_text(test):
    if test is None:
        return "no repetitions"
    return f"{test.low:#.3g}–{test.high:#.3g} ({test.coverage:.0%})"


def _p_text(test):
    if test is None:
        return "—"
    return f"{test.p_value:.2g}: {test.verdict}"


BENCHMARK_COLUMNS = ["benchmark", "time A", "time B", "ratio B/A", "interval (coverage)",
                     "Mann–Whitney p", "model B/A", "measured B/A of modelled time", "bound",
                     "% of ceiling A", "% of ceiling B"]


def benchmark_table(comparison):
    return markdown_table(BENCHMARK_COLUMNS, [[f"`{row.name}`"] + _benchmark_cells(row)[1:]
                                              for row in comparison.rows])


def _benchmark_cells(row):
    model = row.model
    return [row.name, format_seconds(row.a.time_s), format_seconds(row.b.time_s),
            _ratio_text(row.ratio), _interval_text(row.test), _p_text(row.test),
            _ratio_text(model and model.predicted), _ratio_text(model and model.measured),
            model.bound if model else "no model",
            _pct_text(model and model.pct_a), _pct_text(model and model.pct_b)]


CSV_COLUMNS = ["benchmark", "suite", "time_a_s", "time_b_s", "ratio_b_over_a", "interval_low",
               "interval_high", "coverage", "p_value", "repetitions_a", "repetitions_b",
               "model_b_over_a", "bound", "pct_of_ceiling_a", "pct_of_ceiling_b"]


def write_benchmark_csv(comparison, path):
    """Every compared benchmark, one row each, numbers unrounded (CSV_COLUMNS); atomically."""
    def number(value):
        return "" if value is None else repr(float(value))

    def write(temp):
        with open(temp, "w", newline="", encoding="utf-8") as out:
            table = csv.writer(out)
            table.writerow(CSV_COLUMNS)
            for row in comparison.rows:
                test, model = row.test, row.model
                table.writerow([row.name, row.a.paper, number(row.a.time_s), number(row.b.time_s),
                                number(row.ratio), number(test and test.low),
                                number(test and test.high), number(test and test.coverage),
                                number(test and test.p_value), test.n_a if test else "",
                                test.n_b if test else "", number(model and model.predicted),
                                model.bound if model else "", number(model and model.pct_a),
                                number(model and model.pct_b)])

    return write_atomically(path, write)


def ceilings_table(comparison):
    rows = []
    for key in CEILINGS:
        a, b = comparison.ceilings_a.get(key), comparison.ceilings_b.get(key)
        ratio = a / b if isinstance(a, (int, float)) and isinstance(b, (int, float)) and b else None
        rows.append([key, f"{a:.4g}" if a else "not recorded", f"{b:.4g}" if b else "not recorded",
                     _ratio_text(ratio)])
    return markdown_table(["ceiling", "A", "B",
                           "time ratio B/A it predicts (A / B)"], rows)


def summary_tables(comparison):
    parts = []
    for title, entries in summaries(comparison.rows).items():
        parts += [f"Per {title}:", "",
                  markdown_table([title, "benchmarks", "geometric-mean ratio B/A",
                                  "model's geometric mean B/A"],
                                 [[g, n, _ratio_text(m), _ratio_text(p)]
                                  for g, n, m, p in entries]), ""]
    return "\n".join(parts).rstrip()


def orderings_text(comparison):
    if not comparison.orderings:
        return "Every layout ordering is the same on both GPUs."
    rows = [[f"`{group}`", " < ".join(order_a), " < ".join(order_b),
             ", ".join(f"{x}/{y} ({'clear' if clear else 'within noise'})"
                       for x, y, clear in swapped)]
            for group, order_a, order_b, swapped in comparison.orderings]
    return ("Fastest first. A swapped pair is *clear* when on both GPUs its times differ by "
            "more than the larger repetition spread.\n\n"
            + markdown_table(["benchmark (any layout)", "order on A", "order on B",
                              "swapped pairs"], rows))


def claims_text(comparison):
    if not comparison.claims:
        return "Every claim has the same verdict on both GPUs."
    return markdown_table(["paper", "claim", "verdict on A", "verdict on B"],
                          [[p, f"{text} (`{cid}`)", va, vb]
                           for p, cid, text, va, vb in comparison.claims])


def missing_text(comparison):
    lines = [f"- suite `{suite}`: only on {side} ({n} GPU benchmark(s)), not compared"
             for side, suites in (("A", comparison.suites_only_a), ("B", comparison.suites_only_b))
             for suite, n in suites]
    lines += [f"- only on A: `{n}`" for n in comparison.only_a]
    lines += [f"- only on B: `{n}`" for n in comparison.only_b]
    lines += [f"- errored: `{n}`: {message}" for n, message in comparison.errored]
    lines += _other_work_lines(comparison.other_work)
    lines.append(f"- {comparison.host_left_out} CPU baseline(s) left out: they time the host "
                 "CPU, not the GPU")
    return "\n".join(lines)


def _other_work_lines(other_work, listed=5):
    """Benchmarks whose two results did other work, per suite: a count and the first few."""
    by_suite = defaultdict(list)
    for name, why in other_work:
        by_suite[name.split("/", 1)[0]].append((name, why))
    lines = []
    for suite, entries in sorted(by_suite.items()):
        which = f"the first {listed}" if len(entries) > listed else "each"
        lines.append(f"- suite `{suite}`: {len(entries)} benchmark(s) of the same name did other "
                     "work on A and B (their declared work, or the code a method layout ran "
                     f"as, differs: another build or preset), not compared; {which}:")
        lines += [f"  - `{n}`: {why}" for n, why in entries[:listed]]
    return lines


def repetitions_note(comparison):
    """What the repetitions can and cannot show, worded for the counts available."""
    tests = [r.test for r in comparison.rows if r.test]
    if not tests:
        return ("No benchmark has two or more repetitions on both GPUs: no interval and no test "
                "per benchmark; only the per-suite means above.")
    sizes = sorted({(t.n_a, t.n_b) for t in tests})
    counts = ", ".join(f"{a} vs {b}" for a, b in sizes)
    testable = [r for r in comparison.rows if r.test and r.test.testable]
    text = (f"What the repetitions can show: {counts} repetitions per benchmark (A vs B). Per "
            "benchmark the ratio is the Hodges–Lehmann estimate (the median of the pairwise "
            "ratios B_j / A_i) with the interval the Mann–Whitney U distribution gives, stating "
            "the coverage it reaches. ")
    if len(testable) < len(tests):
        smallest = min(t.min_p_value for t in tests if not t.testable)
        text += (f"{len(tests) - len(testable)} benchmark(s) cannot be tested: at "
                 f"{counts} repetitions a two-sided Mann–Whitney test's smallest possible p is "
                 f"{smallest:.2g}, above {stats.ALPHA}, so even two samples that do not overlap "
                 "cannot be called different, and \"not significant\" says nothing there. The "
                 "per-suite means pool many benchmarks and are the answer; for a test per "
                 "benchmark run the compare preset (`make reproduce PRESET=compare`, 9 "
                 "repetitions). ")
    if testable:
        faster = sum(r.test.p_value < stats.ALPHA and r.test.ratio < 1 for r in testable)
        slower = sum(r.test.p_value < stats.ALPHA and r.test.ratio > 1 for r in testable)
        text += (f"Of the {len(testable)} testable benchmark(s), {faster + slower} differ at "
                 f"p < {stats.ALPHA} ({faster} B faster, {slower} B slower); with this many "
                 f"tests about {stats.ALPHA * len(testable):.0f} would by chance alone.")
    return text.rstrip()


def suite_answers(comparison):
    """A plain sentence per suite: its geometric-mean B/A with the interval of that mean and
    the middle half of its benchmarks, and what the measured ceilings predict."""
    by_suite = defaultdict(list)
    for row in comparison.rows:
        by_suite[row.a.paper].append(row)
    predicted = ceiling_predictions(comparison)
    lines = []
    for suite, rows in sorted(by_suite.items()):
        measured = stats.geometric_summary(r.ratio for r in rows)
        if measured is None:
            continue
        interval = (f"95 % interval of the mean {measured.low:#.3g}–{measured.high:#.3g}; "
                    if measured.low else "")
        text = (f"- **{suite}** ({measured.count} benchmark(s)): B takes "
                f"**{measured.mean:#.3g}×** A's GPU time, {_faster_words(measured.mean)} "
                f"({interval}the middle half of its benchmarks "
                f"{measured.q1:#.3g}–{measured.q3:#.3g}). ")
        modelled = stats.geometric_mean(r.model.predicted for r in rows if r.model)
        count = sum(1 for r in rows if r.model)
        if modelled:
            text += (f"The measured ceilings predict {modelled:#.3g}× for the {count} "
                     "benchmark(s) the roofline model covers"
                     + (f" (those measured {stats.geometric_mean(r.ratio for r in rows if r.model):#.3g}×)"
                        if count < len(rows) else "") + ".")
        elif predicted:
            grouped = defaultdict(list)  # equal predictions said once: "FP32 FMA or FP64 FMA"
            for what, ratio in predicted:
                grouped[f"{ratio:#.3g}"].append(what)
            text += ("No benchmark of it declares the work the roofline model needs; the "
                     "ceilings alone predict " + ", ".join(
                         f"{ratio}× where {' or '.join(whats)} binds"
                         for ratio, whats in grouped.items()) + ".")
        lines.append(text.rstrip())
    return "\n".join(lines) or "No benchmark was measured on both GPUs."


def _faster_words(ratio):
    if abs(ratio - 1) < 0.005:
        return "the same time within 0.5 %"
    return (f"B {1 / ratio - 1:.0%} faster" if ratio < 1 else f"B {ratio - 1:.0%} slower")


# (ceiling, what binds when it does) the per-suite answer states a prediction for
PREDICTING_CEILINGS = (("copy_bandwidth_gbs", "copy bandwidth"), ("fp32_fma_per_s", "FP32 FMA"),
                       ("fp64_fma_per_s", "FP64 FMA"))


def ceiling_predictions(comparison):
    """[(what binds, the time ratio B/A it predicts = ceiling A / ceiling B)]."""
    out = []
    for key, what in PREDICTING_CEILINGS:
        a, b = comparison.ceilings_a.get(key), comparison.ceilings_b.get(key)
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and a > 0 and b > 0:
            out.append((what, a / b))
    return out


def sections(comparison, figures_dir, stem="compare", table_name=None):
    """The comparison as report sections, the answer first, with its figures written to
    figures_dir; the every-benchmark table collapsed and, where `table_name` is given, said
    to lie beside the report as that CSV."""
    figures = (ratio_figure(comparison, figures_dir, f"{stem}_ratio"),
               ceiling_figure(comparison, figures_dir, f"{stem}_ceiling"))
    title = f"A = {comparison.label_a}, B = {comparison.label_b}"
    csv_line = f"The table is also `{table_name}` beside this report. " if table_name else ""
    return [
        Section(f"The answer: {title}",
                "Ratios are GPU time B/A: below 1, B is faster. Per suite, the geometric mean "
                "of its benchmarks' ratios:\n\n" + suite_answers(comparison) + "\n\n"
                + repetitions_note(comparison), tuple(f for f in figures if f)),
        Section("Measured ceilings", ceilings_table(comparison)),
        Section("Geometric-mean ratios", summary_tables(comparison)),
        Section("Layout orderings that differ", orderings_text(comparison)),
        Section("Claims whose verdict differs", claims_text(comparison)),
        Section("Benchmarks not compared", missing_text(comparison)),
        Section("Every benchmark",
                "The model column is the ratio the roofline model expects from the two GPUs' "
                "measured ceilings (compute bound: the matching rate; memory bound: copy "
                "bandwidth); \"% of ceiling\" is the modelled time's bound over the measured "
                f"time on that GPU. {csv_line}\n\n<details>\n<summary>{len(comparison.rows)} "
                "benchmarks: times, ratio, interval, test, model</summary>\n\n"
                + benchmark_table(comparison) + "\n\n</details>"),
    ]


def group_sections(devices):
    """GPU-to-GPU spread for each group of identical GPUs of one host."""
    out = []
    for (gpu, folder, host), members in identical_gpu_groups(devices):
        rows = list(card_spread(members))
        flagged = [r for r in rows if r[3]]
        body = (f"{len(members)} × {gpu} on host `{host}` (folder `{folder}`). A benchmark is "
                f"flagged when the GPU-to-GPU spread (max − min of the cards' medians, over "
                f"their median) exceeds {CARD_SPREAD_FACTOR:g} × the largest repetition spread "
                f"of the cards and {CARD_SPREAD_FLOOR:.0%}: {len(flagged)} of {len(rows)} "
                "flagged." + _spread_summary(rows) + _host_baselines(members) + "\n\n"
                + card_table(members, rows))
        if flagged:
            body += "\n\nFlagged benchmarks:\n\n" + markdown_table(
                ["benchmark", "GPU-to-GPU spread", "repetition spread", "slowest card"],
                [[f"`{n}`", f"{s:.1%}", f"{noise:.1%}", card] for n, s, noise, _, card in flagged])
        out.append(Section(f"Identical GPUs: {gpu} × {len(members)}", body))
    return out


def _host_baselines(members):
    """Which cards' processes measured the group's CPU baselines: one (harness/run.py measures
    them once per host, and every card's tables, figures and claims use that measurement, as
    load.py gives each card of a folder the folder's baselines) or each (an older run)."""
    by_card = []
    for device in members:
        own = {f.path for f in device.files}
        names = {b.name for b in device.benchmarks if b.is_host and b.source in own}
        by_card.append((device, names))
    total = len(set().union(*(names for _, names in by_card)))
    measured = [(device, names) for device, names in by_card if names]
    if not total:
        return ""
    if len(measured) == 1:
        (device, names), = measured
        files = sorted({b.source.name for b in device.benchmarks if b.name in names})
        return (f" The {total} CPU baselines were measured once per host, by {device.label} "
                f"({', '.join(f'`{f}`' for f in files)}): a CPU baseline depends on no GPU, so "
                "every card's tables, figures and claims use that one measurement, and it has "
                "no card-to-card spread.")
    return (f" The CPU baselines were measured by {len(measured)} cards' processes (a run before "
            "harness/run.py measured them once per host): each card's tables use the card's own "
            "where it has one; they are not in the card-to-card spread.")


def _spread_summary(rows):
    if not rows:
        return " No benchmark was measured on every card."
    spreads = sorted(r[1] for r in rows)
    widest = max(rows, key=lambda r: r[1])
    return (f" GPU-to-GPU spread over the {len(rows)} benchmarks: median "
            f"{statistics.median(spreads):.1%}, largest {widest[1]:.1%} (`{widest[0]}`).")


def card_table(members, rows):
    """Per card: geometric mean of its time over the cards' median, and how often it was
    the slowest card of a flagged benchmark; a bad card stands out in both."""
    by_device = [{b.name: b for b in d.benchmarks} for d in members]
    table = []
    for device, benchmarks in zip(members, by_device):
        relative = []
        for name, *_ in rows:
            middle = statistics.median(d[name].time_s for d in by_device)
            relative.append(benchmarks[name].time_s / middle)
        slowest = sum(1 for *_, flagged, card in rows if flagged and card == device.label)
        table.append([device.label, _ratio_text(stats.geometric_mean(relative)), slowest])
    return markdown_table(["card", "time over the cards' median (geometric mean)",
                           "slowest card of a flagged benchmark"], table)


# ---------------------------------------------------------------------------- figures

def ratio_figure(comparison, figures_dir, stem):
    """GPU-time ratio B/A per version: every benchmark (dots), the geometric mean (bar
    mark) and the roofline model's expectation (diamond), on a log axis centred on 1."""
    versions = summaries(comparison.rows)["version"]
    fig, axes = panel_grid(1, 1, width=7.0, height=0.4 * max(len(versions), 4) + 1.2)
    ax = axes[0][0]
    position = {group: y for y, (group, *_) in enumerate(versions)}
    ratios = [(position[f"{r.a.paper}/{r.a.app}/{r.a.version}"], r.ratio)
              for r in comparison.rows if r.ratio]
    ax.plot([r for _, r in ratios], [y for y, _ in ratios], "o", color="tab:blue", alpha=0.35,
            markersize=4, label="each benchmark")
    ax.plot([m for *_, m, _ in versions], list(position.values()), "|", color="navy",
            markersize=16, markeredgewidth=2.5, label="geometric mean")
    modelled = [(position[g], p) for g, _, _, p in versions if p]
    if modelled:
        ax.plot([p for _, p in modelled], [y for y, _ in modelled], "D", color="tab:orange",
                label="roofline model")
    ax.set_xscale("log")
    extent = max([abs(math.log(r)) for _, r in ratios + modelled] + [math.log(1.25)]) * 1.15
    ax.set_xlim(math.exp(-extent), math.exp(extent))
    ticks = next((t for t in RATIO_TICKS if math.log(t[-1]) >= extent), RATIO_TICKS[-1])
    ticks = [t for t in ticks if abs(math.log(t)) <= extent]
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{t:g}" for t in ticks])
    ax.minorticks_off()
    ax.axvline(1.0, color="0.3", linewidth=0.8)
    ax.set_yticks(list(position.values()))
    ax.set_yticklabels(list(position), fontsize=8)
    ax.set_ylim(len(versions) - 0.5, -0.5)
    ax.set_xlabel("GPU time ratio B/A (< 1: B faster)")
    ax.set_title(f"GPU time, B = {comparison.label_b} over A = {comparison.label_a}", fontsize=9)
    ax.legend(loc="best")
    return save_figure(fig, figures_dir, stem)


def ceiling_figure(comparison, figures_dir, stem):
    """Where B is faster and whether the measured ceilings explain it: each modelled
    benchmark's measured ratio B/A (y) against the ratio the ceilings predict (x), per suite.
    Below the horizontal line B is faster; on the diagonal the ceilings explain the ratio.
    None (no file) where no benchmark declares the work the model needs."""
    by_suite = defaultdict(list)
    for row in comparison.rows:
        if row.model and row.ratio:
            by_suite[row.a.paper].append((row.model.predicted, row.ratio))
    if not by_suite:
        return None
    fig, axes = panel_grid(1, 1, width=6.0, height=4.4)
    ax = axes[0][0]
    points = [p for values in by_suite.values() for p in values]
    extent = max([abs(math.log(v)) for p in points for v in p] + [math.log(1.25)]) * 1.15
    low, high = math.exp(-extent), math.exp(extent)
    ax.axhspan(low, 1.0, color="tab:green", alpha=0.07, linewidth=0)
    ax.text(0.98, 0.03, "B faster", transform=ax.transAxes, ha="right", va="bottom",
            color="tab:green", fontsize=9)
    ax.plot([low, high], [low, high], color="0.35", linewidth=0.9, linestyle="--",
            label="as the ceilings predict")
    ax.axhline(1.0, color="0.3", linewidth=0.8)
    for suite, values in sorted(by_suite.items()):
        ax.plot([x for x, _ in values], [y for _, y in values], "o", markersize=4, alpha=0.5,
                label=f"{suite} ({len(values)})")
    for axis, limits in ((ax.xaxis, ax.set_xlim), (ax.yaxis, ax.set_ylim)):
        (ax.set_xscale if axis is ax.xaxis else ax.set_yscale)("log")
        limits(low, high)
        ticks = next((t for t in RATIO_TICKS if math.log(t[-1]) >= extent), RATIO_TICKS[-1])
        ticks = [t for t in ticks if abs(math.log(t)) <= extent]
        axis.set_ticks(ticks, [f"{t:g}" for t in ticks])
        axis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel("time ratio B/A the measured ceilings predict")
    ax.set_ylabel("measured time ratio B/A")
    ax.set_title("Do the ceilings explain the difference?", fontsize=10)
    ax.legend(loc="upper left")
    return save_figure(fig, figures_dir, stem)


# ---------------------------------------------------------------------------- command line

def text_table(comparison):
    """The per-benchmark table for a terminal."""
    lines = [f"A = {comparison.label_a}, B = {comparison.label_b}; ratio = GPU time B/A",
             f"{'benchmark':<64} {'A':>10} {'B':>10} {'B/A':>6} {'interval':>13} "
             f"{'p':>6} {'model':>6}  verdict"]
    for row in comparison.rows:
        test = row.test
        interval = f"{test.low:#.3g}-{test.high:#.3g}" if test else "-"
        lines.append(f"{row.name:<64} {format_seconds(row.a.time_s):>10} "
                     f"{format_seconds(row.b.time_s):>10} {_ratio_text(row.ratio):>6} "
                     f"{interval:>13} {(f'{test.p_value:.2g}' if test else '-'):>6} "
                     f"{_ratio_text(row.model and row.model.predicted):>6}  "
                     f"{test.verdict if test else 'no repetitions'}")
    for title, entries in summaries(comparison.rows).items():
        lines.append(f"geometric mean per {title}: " + ", ".join(
            f"{g} {_ratio_text(m)} (model {_ratio_text(p)})" for g, _, m, p in entries))
    lines.append(f"{len(comparison.only_a)} only on A, {len(comparison.only_b)} only on B, "
                 f"{len(comparison.errored)} errored, {comparison.host_left_out} CPU baselines "
                 "left out")
    for side, suites in (("A", comparison.suites_only_a), ("B", comparison.suites_only_b)):
        if suites:
            lines.append(f"suites only on {side} (not compared): "
                         + ", ".join(f"{s} ({n} GPU benchmarks)" for s, n in suites))
    return "\n".join(lines)


@dataclass(frozen=True)
class Side:
    """One side of a comparison: what was given, its results, the GPU compared, its words."""

    given: str
    results: object  # load.Results
    device: object  # load.Device
    described: str


def load_side(given, references=reference.ROOT):
    """A results folder (its first GPU, completed by its identical cards) or a reference by
    GPU name (plots/reference.py: each suite from its folder, as one GPU)."""
    if reference.is_folder_argument(given):
        results = load_results([given])
        device = folder_device(results.devices, Path(given))
        return Side(str(given), results, device,
                    f"`{given}` ({device.files[0].gpu_name}, preset {device.preset})")
    ref = reference.resolve(str(given), references)
    files, benchmarks, presets = [], [], []
    for suite in ref.suites:
        device = folder_device(load_files(suite.folder, suite.paths).devices, suite.folder)
        files += device.files
        benchmarks += device.benchmarks
        presets.append(device.preset)
    preset = "/".join(dict.fromkeys(presets))
    device = replace(device, label=ref.gpu, preset=preset, folder=Path(references),
                     files=tuple(files), benchmarks=tuple(benchmarks))
    origin = ", ".join(f"{s.name} from `{s.folder.name}` (run {s.date or 'undated'})"
                       for s in ref.suites)
    return Side(str(given), Results((Path(references),), tuple(files), (device,)), device,
                f"`{given}` (the {ref.gpu} reference, preset {preset}: {origin})")


def write_comparison(folder_a, folder_b, out_dir, references=reference.ROOT):
    """Compare the first GPU of each side (a results folder or a reference's name); write
    COMPARE.md, its figures and report.html; return (comparison, written paths). Raises
    ResultsError/ClaimsError before writing anything."""
    side_a, side_b = load_side(folder_a, references), load_side(folder_b, references)
    if sorted(f.path.resolve() for f in side_a.device.files) == sorted(
            f.path.resolve() for f in side_b.device.files):
        raise ResultsError(f"A ({folder_a}) and B ({folder_b}) are the same results: a GPU compared "
                           "with itself says nothing; give two different folders or references")
    comparison = compare_devices(side_a.device, side_b.device)
    out_dir = Path(out_dir)
    parts = sections(comparison, out_dir / "figures", table_name=BENCHMARKS_CSV)
    parts += group_sections(side_a.results.devices) + group_sections(side_b.results.devices)
    head = (f"# GPU comparison — B = {comparison.label_b} against A = {comparison.label_a}"
            f"\n\nA = {side_a.described}, B = {side_b.described}. The first "
            "GPU of each folder is compared (completed by its identical cards where a split run "
            "shared the benchmarks); identical GPUs of one host are summarised at the end.")
    text = head + "\n\n" + render_sections(parts, out_dir) + "\n"
    written = [f for s in parts for png in s.figures for f in (png, png.with_suffix(".svg"))]
    if drawing():
        written.append(write_benchmark_csv(comparison, out_dir / BENCHMARKS_CSV))
    written.append(write_atomically(out_dir / "COMPARE.md",
                                    lambda temp: Path(temp).write_text(text, encoding="utf-8")))
    if drawing():
        written.append(write_html(text, out_dir, write_atomically))
    return comparison, written


def render_sections(parts, out_dir, level=2):
    lines = []
    for section in parts:
        lines += [f"{'#' * level} {section.heading}", ""]
        if section.body:
            lines += [section.body, ""]
        for png in section.figures:
            link = Path(os.path.relpath(png, out_dir)).as_posix()
            lines += [f"![{section.heading}]({link}) ([SVG]({Path(link).with_suffix('.svg')}))",
                      ""]
    return "\n".join(lines).rstrip()


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m plots.compare",
        description="Compare the GPU times of two results folders (A = reference, B = new); "
                    "either may instead name a committed reference GPU (h100, h200).")
    parser.add_argument("a", metavar="A", help="results folder, or a reference GPU's name")
    parser.add_argument("b", metavar="B", help="results folder or reference GPU compared with A")
    parser.add_argument("--out", type=Path,
                        help="output folder (default results/compare/<A>_vs_<B>)")
    parser.add_argument("--references", type=Path, default=reference.ROOT,
                        help=f"where reference GPUs are looked up by name (default {reference.ROOT})")
    args = parser.parse_args(argv)
    out = args.out or Path("results/compare") / f"{Path(args.a).name}_vs_{Path(args.b).name}"

    def produce():
        comparison, written = write_comparison(args.a, args.b, out, args.references)
        return text_table(comparison), written

    return run("compare", produce)


if __name__ == "__main__":
    sys.exit(main())

"""Comparing two GPUs (plots/compare.py, plots/stats.py): statistics, the roofline model
column, the comparison report and its figures, identical cards of one host.

B folders are derived from the committed fixture by tests/python/fixtures/
make_compare_fixture.py (times scaled by the model, one regressed benchmark, one layout
moved last, one benchmark dropped, optionally a slow card): the outcomes are known.
"""

import gzip
import importlib.util
import json
import math
import shutil
import warnings
from dataclasses import replace
from pathlib import Path

import matplotlib.pyplot as plt
import pytest

from plots import compare, stats
from plots.figures import TextOutsideFigure, UnreadableFigure, save_figure, texts_outside
from plots.load import Benchmark, load_results
from tests.python.report_checks import SEVERAL_GPUS, assert_figures_written, one_worker, rendered_once

FIXTURES = Path(__file__).parent / "fixtures"
FIXTURE = FIXTURES / "idw_quick"
_spec = importlib.util.spec_from_file_location("make_compare_fixture",
                                               FIXTURES / "make_compare_fixture.py")
derived = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(derived)


# ---------------------------------------------------------------------------- statistics

def test_three_against_three_is_not_testable_even_when_fully_separated():
    test = stats.ratio_test([1.0, 1.1, 1.2], [2.0, 2.1, 2.2])
    assert test.p_value == pytest.approx(0.1)  # 2 / C(6, 3): the smallest p there is
    assert test.min_p_value == pytest.approx(0.1)
    assert not test.testable
    assert test.verdict == "not testable at 3 vs 3 repetitions"
    # the widest interval (all 9 pairwise ratios) covers only 90 %, and says so
    assert (test.low, test.high) == pytest.approx((2.0 / 1.2, 2.2 / 1.0))
    assert test.coverage == pytest.approx(0.9)


def test_four_against_four_separated_is_significant():
    test = stats.ratio_test([1.0, 1.1, 1.2, 1.3], [2.0, 2.1, 2.2, 2.3])
    assert test.p_value == pytest.approx(2 / 70)
    assert test.testable and test.verdict == "B slower"
    faster = stats.ratio_test([2.0, 2.1, 2.2, 2.3], [1.0, 1.1, 1.2, 1.3])
    assert faster.verdict == "B faster" and faster.ratio < 1


def test_overlapping_samples_are_not_significant_and_the_interval_holds_one():
    test = stats.ratio_test([1, 2, 3, 4, 5, 6, 7, 8, 9], [1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5,
                                                         8.5, 9.5])
    assert test.testable and test.verdict == "no significant difference"
    assert test.low < 1 < test.high
    assert test.coverage >= 0.95


def test_exact_and_normal_p_values_match_scipy():
    scipy_stats = pytest.importorskip("scipy.stats")
    cases = [([1, 3, 5, 7, 9.5], [2, 4, 6, 8, 10, 12]), ([3.1, 2.2, 5.3], [1.4, 0.5, 6.6, 7.7])]
    for a, b in cases:
        expected = scipy_stats.mannwhitneyu(b, a, alternative="two-sided", method="exact")
        assert stats.ratio_test(a, b).p_value == pytest.approx(expected.pvalue)
    a = [1 + 0.01 * k for k in range(40)]
    b = [1.15 + 0.01 * k for k in range(40)]  # n + m = 80: normal approximation
    expected = scipy_stats.mannwhitneyu(b, a, alternative="two-sided", method="asymptotic")
    test = stats.ratio_test(a, b)
    assert test.method == "normal"
    assert test.p_value == pytest.approx(expected.pvalue, rel=1e-6)


def test_one_repetition_has_no_test():
    assert stats.ratio_test([1.0], [2.0, 2.1]) is None


# ---------------------------------------------------------------------------- roofline model

def bench(version="naive", precision="float", time_s=1e-3, **counters):
    return Benchmark(name=f"idw/shepard/{version}/soa/{precision}/size:1", paper="idw",
                     app="shepard", version=version, layout="soa", precision=precision,
                     params={}, device="gpu", preset="quick", source=Path("x"), time_s=time_s,
                     counters=counters)


def test_compute_bound_benchmarks_predict_the_ratio_of_their_limits():
    a = bench(time_s=2e-3, limit_s=1e-3)
    b = bench(time_s=1e-3, limit_s=0.8e-3)
    model = compare.roofline(a, b, {}, {})
    assert model.predicted == pytest.approx(0.8)
    assert model.measured == pytest.approx(0.5)
    assert (model.pct_a, model.pct_b) == pytest.approx((50.0, 80.0))
    assert model.bound == "compute: FP32 FMA or reciprocal"  # no ceilings recorded
    sfu = {"fp32_fma_per_s": 30e12, "fp32_rcp_per_s": 4e12}  # 1/rcp > 6/fma: the SFU binds
    fma = {"fp32_fma_per_s": 12e12, "fp32_rcp_per_s": 4e12}
    assert compare.roofline(a, b, sfu, sfu).bound == "compute: FP32 reciprocal (SFU)"
    assert compare.roofline(a, b, sfu, fma).bound == \
        "compute: FP32 reciprocal (SFU) on A, FMA on B"
    assert compare.roofline(bench(precision="double", limit_s=1), bench(precision="double",
                            limit_s=1), {}, {}).bound == "compute: FP64 FMA"


def test_memory_bound_device_parts_predict_the_bandwidth_ratio():
    a = bench(time_s=5e-3, memory_bound_s=1e-4, device_s=1e-3)
    b = bench(time_s=4e-3, memory_bound_s=0.5e-4, device_s=0.6e-3)
    model = compare.roofline(a, b, {}, {})
    assert model.predicted == pytest.approx(0.5)
    assert model.measured == pytest.approx(0.6)  # the device part, not the whole time
    assert model.bound.startswith("memory")


def test_a_benchmark_that_declares_no_work_has_no_model():
    assert compare.roofline(bench(interactions=1e6), bench(interactions=1e6), {}, {}) is None


# ---------------------------------------------------------------------------- comparisons

@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("compare")
    a = root / "a"
    shutil.copytree(FIXTURE, a)
    derived.derive(FIXTURE, root / "b")
    derived.derive(FIXTURE, root / "cards", cards=2)
    derived.derive(FIXTURE, root / "twins", cards=2, slow_card=None)
    return root


@pytest.fixture(scope="module")
def written(folders):
    with warnings.catch_warnings():
        warnings.simplefilter("error", TextOutsideFigure)
        warnings.simplefilter("error", UnreadableFigure)
        assert compare.main([str(folders / "a"), str(folders / "b"), "--out",
                             str(folders / "out")]) == 0
    return folders / "out"


@pytest.fixture(scope="module")
def comparison(folders):
    device_a = load_results([folders / "a"]).devices[0]
    device_b = load_results([folders / "b"]).devices[0]
    return compare.compare_devices(device_a, device_b)


def test_ratios_follow_the_model_and_the_regression_stands_out(comparison):
    rows = {r.name: r for r in comparison.rows}
    regressed = rows[derived.REGRESSED]
    assert regressed.ratio == pytest.approx(derived.REGRESSION / derived.COMPUTE_SCALE)
    assert regressed.model.predicted == pytest.approx(1 / derived.COMPUTE_SCALE)
    tiled = rows["idw/shepard/tiled/aos/float/p:2/size:51200/block:256"]
    assert tiled.ratio == pytest.approx(tiled.model.predicted)
    assert all(r.test and not r.test.testable for r in comparison.rows)  # 3 vs 3


def test_benchmarks_in_one_folder_only_and_errors_are_listed(comparison):
    assert comparison.only_a == (derived.DROPPED,)
    assert comparison.only_b == ()
    assert [name for name, _ in comparison.errored] == [
        "idw/shepard/tiled/hybrid/double/p:2/size:51200/block:256"]
    assert comparison.host_left_out > 0
    assert not any(r.a.is_host for r in comparison.rows)


def test_the_fixture_script_derives_the_same_from_gzipped_results(tmp_path):
    """The committed references are gzipped: deriving from them gives what the plain files do."""
    zipped = tmp_path / "zipped"
    zipped.mkdir()
    for path in FIXTURE.glob("*.json"):
        (zipped / (path.name + ".gz")).write_bytes(gzip.compress(path.read_bytes()))
    plain = derived.derive(FIXTURE, tmp_path / "from-plain")
    from_zipped = derived.derive(zipped, tmp_path / "from-zipped")
    assert [p.name for p in from_zipped] == [p.name for p in plain] and plain
    assert all(a.read_bytes() == b.read_bytes() for a, b in zip(plain, from_zipped))


def test_declared_work_tells_whether_two_results_of_one_name_did_the_same():
    same = bench(bytes_read=8.0, bytes_written=4.0, records=2.0, records_per_s=1.0)
    faster = bench(bytes_read=8.0, bytes_written=4.0, records=2.0, records_per_s=5.0)
    assert compare.work_difference(same, faster) == ""  # the rate is a measurement, not work
    other = bench(bytes_read=16.0, bytes_written=4.0, updates=4.0, updates_per_s=1.0)
    assert compare.work_difference(same, other) == (
        "bytes_read: 8 on A, 16 on B; unit: records 2 on A, updates 4 on B")
    assert compare.work_difference(bench(), other) == ""  # A declares none: nothing to hold


def test_a_method_layout_from_a_build_that_ran_it_otherwise_is_not_compared():
    def method(layout, label, **counters):
        return replace(bench(**counters), name=f"kofler/nbody/gpu/{layout}/float/size:1", paper="kofler",
                       app="nbody", version="gpu", layout=layout, params={"partition": "pos|vel"},
                       label=label)
    tree = "cluster_layouts=tiled-32|tiled-32;runs_as={};tree_gpu=G"
    compiled = method("kdlg-tree", tree.format("soa"), bytes_read=8.0)
    partition = method("kdlg-tree", tree.format("partition"), bytes_read=8.0)
    older = method("kdlg-tree", "cluster_layouts=tiled-32|tiled-32;tree_gpu=G", bytes_read=8.0)
    # Both builds say what ran them: the method on each GPU, whatever each tree chose.
    assert compare.work_difference(compiled, partition) == ""
    # A build from before runs_as ran every method layout on the run-time partition.
    assert compare.work_difference(compiled, older) == (
        "ran as: soa on A, partition on B (B's build ran every method layout on the run-time "
        "partition)")
    assert compare.work_difference(older, compiled).startswith("ran as: partition on A, soa on B (A's")
    assert compare.work_difference(partition, older) == ""  # the same code
    assert compare.work_difference(method("kdlg", "runs_as=aos"), method("kdlg", None)) != ""
    assert compare.work_difference(bench(), bench()) == ""  # not a method layout


def test_a_benchmark_of_the_same_name_that_did_other_work_is_listed_not_compared(folders, tmp_path):
    changed = "idw/shepard/tiled/aos/float/p:2/size:51200/block:256"
    b = tmp_path / "b"
    shutil.copytree(folders / "b", b)
    for path in b.glob("*.gpu0.json"):
        doc = json.loads(path.read_text(encoding="utf-8"))
        for entry in doc["benchmarks"]:
            if entry["name"].startswith(changed + "/") and "interactions" in entry:
                entry["interactions"] *= 2  # its work unit: another problem under one name
        path.write_text(json.dumps(doc), encoding="utf-8")
    result = compare.compare_devices(load_results([folders / "a"]).devices[0],
                                     load_results([b]).devices[0])
    assert changed not in {r.name for r in result.rows}
    assert [name for name, _ in result.other_work] == [changed]
    text = compare.missing_text(result)
    assert "suite `idw`: 1 benchmark(s) of the same name did other work" in text
    assert f"`{changed}`: unit: interactions " in text


def test_the_moved_layout_is_an_ordering_that_differs(comparison):
    groups = {group: (order_b, swapped) for group, _, order_b, swapped in comparison.orderings}
    order_b, swapped = groups["idw/shepard/tiled/*/double/p:2/size:10240/block:256"]
    assert order_b[-1] == "soa"
    assert all("soa" in (x, y) for x, y, _ in swapped)


def test_geometric_means_per_suite_version_and_layout(comparison):
    tables = compare.summaries(comparison.rows)
    assert set(tables) == {"suite", "version", "layout"}
    (suite, count, measured, model), = tables["suite"]
    assert suite == "idw" and count == len(comparison.rows)
    assert model == pytest.approx(1 / derived.COMPUTE_SCALE)
    assert measured > model  # the regression and the moved layout are slower than modelled


def test_report_and_figures_are_written_without_cpu_relative_metrics(written):
    assert_figures_written(written, ("compare_ratio", "compare_ceiling"))
    text = (written / "COMPARE.md").read_text()
    for heading in ("Geometric-mean ratios", "Layout orderings that differ",
                    "Claims whose verdict differs", "Benchmarks not compared",
                    "Every benchmark", "Measured ceilings"):
        assert f"## {heading}" in text
    assert "not testable at 3 vs 3 repetitions" in text
    assert f"only on A: `{derived.DROPPED}`" in text
    claims_free = text.split("## Claims whose verdict differs")[0] + \
        text.split("## Benchmarks not compared")[1]
    assert "speedup" not in claims_free.lower()  # claims quote the papers; the rest is GPU-only
    for stem in ("compare_ratio", "compare_ceiling"):
        svg = (written / "figures" / f"{stem}.svg").read_text().lower()
        assert "speedup" not in svg and "cpu" not in svg


def test_cli_prints_the_table_and_bad_input_is_one_message(folders, capsys):
    assert compare.main([str(folders / "a"), str(folders / "b"), "--out",
                         str(folders / "cli")]) == 0
    out = capsys.readouterr().out
    assert derived.REGRESSED in out and "geometric mean per suite" in out
    assert compare.main([str(folders / "a"), str(folders / "missing"), "--out",
                         str(folders / "bad")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not exist" in err
    assert not (folders / "bad").exists()


# ---------------------------------------------------------------------------- identical cards

def test_a_slow_card_stands_out(folders):
    devices = load_results([folders / "cards"]).devices
    assert [d.label for d in devices] == [f"{derived.GPU_NAME} #0", f"{derived.GPU_NAME} #1"]
    rows = list(compare.card_spread(devices))
    flagged = [r for r in rows if r[3]]
    assert flagged and all(card == devices[1].label for *_, card in flagged)
    section, = compare.group_sections(devices)
    assert "**" not in section.body.split("Flagged")[0]  # plain summary, then the list
    assert f"| {devices[1].label} | 1.06 |" in section.body  # 1.12 over (1 + 1.12) / 2


def test_identical_cards_that_agree_are_not_flagged(folders):
    devices = load_results([folders / "twins"]).devices
    assert not [r for r in compare.card_spread(devices) if r[3]]
    section, = compare.group_sections(devices)
    assert "0 of" in section.body and "median 0.0%, largest 0.0%" in section.body


def test_a_split_run_is_compared_as_one_gpu_completed_by_its_cards(folders):
    first, second = load_results([folders / "twins"]).devices
    gpu = [b for b in first.benchmarks if not b.is_host]
    host = tuple(b for b in first.benchmarks if b.is_host)
    first = replace(first, benchmarks=tuple(gpu[0::2]) + host)  # as run.py --split shares them
    second = replace(second, benchmarks=tuple(gpu[1::2]) + host)
    merged = compare.folder_device([first, second], folders / "twins")
    assert sorted(b.name for b in merged.benchmarks if not b.is_host) == sorted(b.name for b in gpu)
    assert merged.label == f"{derived.GPU_NAME} ×2 (split)"
    assert compare.folder_device([first], folders / "twins") is first


# ---------------------------------------------------------------------------- figures

def test_text_outside_the_figure_is_detected():
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.set_title("a title much too long to fit in a figure only three inches wide, by far")
    fig.tight_layout()
    assert texts_outside(fig)
    ax.set_title("short")
    assert not texts_outside(fig)
    plt.close(fig)


def test_save_figure_wraps_a_long_title_instead_of_running_out(tmp_path):
    fig, ax = plt.subplots(figsize=(3, 2))
    fig.suptitle("a suptitle listing many GPUs: NVIDIA H200 #0 (preset quick); NVIDIA H200 #1 "
                 "(preset quick); NVIDIA H100 80GB HBM3 (preset paper)")
    with warnings.catch_warnings():
        warnings.simplefilter("error", TextOutsideFigure)
        save_figure(fig, tmp_path, "long")


@one_worker(SEVERAL_GPUS)
def test_several_folders_and_cards_report_keeps_text_inside_every_figure(tmp_path_factory):
    out, _ = rendered_once(SEVERAL_GPUS, tmp_path_factory)  # idw_quick and two derived cards
    text = (out / "REPORT.md").read_text()
    assert "## GPU comparison" in text
    assert f"### Identical GPUs: {derived.GPU_NAME} × 2" in text
    # the two cards' claims judged together (plots/claims/README.md, "Two cards of one GPU")
    assert f"### Claims — {derived.GPU_NAME} ×2 (cards side by side)" in text
    assert f"### Claims — {derived.GPU_NAME} #0" not in text
    assert "Card-to-card term missing for NVIDIA H100 80GB HBM3:" in text
    assert f"### The answer: A = NVIDIA H100 80GB HBM3, B = {derived.GPU_NAME} #0" in text
    assert_figures_written(out, ("compare_1_ratio", "compare_1_ceiling"))
    labels = (out / "figures" / "idw_fig7.svg").read_text()
    assert f"{derived.GPU_NAME} #1" in labels and "gpu0+" not in labels


# ---------------------------------------------------------------------------- the answer first

def test_the_answer_comes_first_with_each_suites_mean_and_what_the_ceilings_predict(written,
                                                                                  comparison):
    text = (written / "COMPARE.md").read_text()
    lines = text.splitlines()
    assert lines[0].startswith("# GPU comparison — B = ")
    answer = next(k for k, l in enumerate(lines) if l.startswith("## The answer"))
    (suite,) = [l for l in lines[answer:40] if l.startswith("- **idw**")]
    ratios = [r.ratio for r in comparison.rows]
    mean = stats.geometric_mean(ratios)
    assert f"B takes **{mean:#.3g}×** A's GPU time" in suite
    summary = stats.geometric_summary(ratios)
    assert summary.low < mean < summary.high
    assert f"95 % interval of the mean {summary.low:#.3g}–{summary.high:#.3g}" in suite
    assert f"The measured ceilings predict {1 / derived.COMPUTE_SCALE:#.3g}×" in suite
    # 3 vs 3: said what a test cannot show, never "0 differ significantly"
    assert "smallest possible p is 0.1" in text and "differ significantly" not in text
    # the every-benchmark table: collapsed, and as a CSV beside the report
    assert "<details>" in text.split("## Every benchmark")[1]
    import csv
    with open(written / compare.BENCHMARKS_CSV, newline="") as table:
        csv_rows = {r["benchmark"]: r for r in csv.DictReader(table)}
    assert len(csv_rows) == len(comparison.rows)
    regressed = csv_rows[derived.REGRESSED]
    assert float(regressed["ratio_b_over_a"]) == pytest.approx(
        derived.REGRESSION / derived.COMPUTE_SCALE)
    assert float(regressed["model_b_over_a"]) == pytest.approx(1 / derived.COMPUTE_SCALE)


def test_geometric_summary_is_the_t_interval_of_the_log_mean():
    summary = stats.geometric_summary([0.5, 1.0, 2.0])
    assert summary.mean == pytest.approx(1.0)
    half = stats.t_quantile_95(2) * math.log(2) / math.sqrt(3)  # sd of the logs: ln 2
    assert (summary.low, summary.high) == pytest.approx((math.exp(-half), math.exp(half)))
    assert stats.t_quantile_95(5) == pytest.approx(2.570582, rel=2e-3)
    assert stats.t_quantile_95(60) == pytest.approx(2.000298, rel=1e-4)
    assert stats.geometric_summary([2.0]).low is None


def test_the_ceilings_figure_draws_each_benchmarks_measured_against_predicted(written,
                                                                              comparison):
    """The drawn data (issue 42): a point per modelled benchmark at (model's ratio, measured
    ratio), the diagonal for "as the ceilings predict"."""
    from plots.figures import inspecting
    drawn = {}
    with inspecting(lambda stem, fig, _: drawn.setdefault(stem, fig)):
        compare.ceiling_figure(comparison, written / "probe", "ceiling")
    ax = drawn["ceiling"].axes[0]
    (points,) = [l for l in ax.lines if l.get_label().startswith("idw")]
    expected = sorted((r.model.predicted, r.ratio) for r in comparison.rows if r.model)
    assert sorted(zip(points.get_xdata(), points.get_ydata())) == pytest.approx(expected)
    (diagonal,) = [l for l in ax.lines if l.get_label() == "as the ceilings predict"]
    assert list(diagonal.get_xdata()) == list(diagonal.get_ydata())


def test_no_ceilings_figure_without_a_modelled_benchmark(comparison, tmp_path):
    bare = replace(comparison, rows=tuple(replace(r, model=None) for r in comparison.rows))
    assert compare.ceiling_figure(bare, tmp_path, "ceiling") is None
    assert not list(tmp_path.iterdir())
    (answer, *_) = compare.sections(bare, tmp_path, "x")
    assert [f.name for f in answer.figures] == ["x_ratio.png"]
    assert "the ceilings alone predict" in answer.body


def test_the_card_to_card_spread_is_max_minus_min_over_the_median(folders):
    """Pinned numbers (issue 42): the slow card is SLOW_CARD_FACTOR × the other, so its
    spread is (f − 1) / median(1, f) on every benchmark, never the smallest time or another
    statistic."""
    devices = load_results([folders / "cards"]).devices
    f = derived.SLOW_CARD_FACTOR
    spreads = [spread for _, spread, *_ in compare.card_spread(devices)]
    assert spreads and spreads == pytest.approx([(f - 1) / ((1 + f) / 2)] * len(spreads), rel=1e-3)


def test_cpu_baselines_measured_once_per_host_serve_every_card(folders, tmp_path):
    """harness/run.py measures a CPU baseline once per host, in the first card's process: the
    other card's files lack them, yet it reads the same measurement (tables, figures, claims
    judged on both cards), nothing is missing, and the spread section says where they come from."""
    from plots.claims import NOT_MEASURED, Scope, evaluate_claims, load_claims
    from plots.papers import PAPERS
    from plots.report import _judged
    first, second = devices = load_results([folders / "twins"]).devices
    assert not [b for f in second.files for b in f.benchmarks if b.is_host]
    host = {b.name: b for b in first.benchmarks if b.is_host}
    assert host and {b.name: b for b in second.benchmarks if b.is_host} == host
    paper = PAPERS["idw"]
    claims = load_claims(paper.claims_file)
    _, (on_both,) = _judged(paper, claims, [d.for_paper("idw") for d in devices])
    alone = evaluate_claims(claims, Scope(first.benchmarks, paper.baseline, paper.prefer,
                                          paper.sweep))
    assert [v.verdict == NOT_MEASURED for v in on_both] == [v.verdict == NOT_MEASURED for v in alone]
    section, = compare.group_sections(devices)
    assert (f"The {len(host)} CPU baselines were measured once per host, by {first.label} "
            "(`idw.gpu0.json`)") in section.body

    derived.derive(FIXTURE, tmp_path / "older", cards=2, slow_card=None, host_once=False)
    section, = compare.group_sections(load_results([tmp_path / "older"]).devices)
    assert "measured by 2 cards' processes" in section.body and "once per host, by" not in section.body


# ---------------------------------------------------------------------------- pinned numbers

def toy(layout, time_s, repetitions=(), spread=None, size=1):
    """A GPU benchmark of a suite no paper claims (so no claims are judged), by hand."""
    return Benchmark(name=f"toy/app/gpu/{layout}/float/size:{size}", paper="toy", app="app",
                     version="gpu", layout=layout, precision="float", params={"size": size},
                     device="gpu", preset="quick", source=Path("x"), time_s=time_s,
                     spread=spread, repetitions_s=tuple(repetitions))


def toy_device(label, benchmarks, ceilings=None):
    from plots.load import Device, ResultFile
    context = {"lb": {"gpu": {"name": label}, "ceilings": ceilings or {}}}
    files = (ResultFile(Path(f"{label}/toy.gpu0.json"), "toy", 0, context, 0, ()),)
    return Device(label, "quick", Path(label), files, tuple(benchmarks))


# B/A per layout without repetitions (the ratio of medians): 0.5, 2 and 0.8, whose geometric
# mean is 0.8^(1/3) (the arithmetic mean 1.1); the quartiles of their logs lie halfway
# between neighbours: sqrt(0.5 · 0.8) and sqrt(0.8 · 2).
TOY_TIMES = {"aos": (1.0, 0.5), "soa": (1.0, 2.0), "tiled": (2.0, 1.6)}
TOY_MEAN = 0.8 ** (1 / 3)


@pytest.fixture(scope="module")
def toy_comparison():
    a = toy_device("GPU A", [toy(l, t) for l, (t, _) in TOY_TIMES.items()],
                   {"copy_bandwidth_gbs": 2000.0, "fp32_fma_per_s": 50e12})
    b = toy_device("GPU B", [toy(l, t) for l, (_, t) in TOY_TIMES.items()],
                   {"copy_bandwidth_gbs": 4000.0, "fp32_fma_per_s": 40e12})
    return compare.compare_devices(a, b)


def test_without_repetitions_each_ratio_is_b_over_a_of_the_medians(toy_comparison):
    table = {r.split(" | ")[0][3:-1]: r.split(" | ") for r in
             compare.benchmark_table(toy_comparison).splitlines()[2:]}
    for layout, (a, b) in TOY_TIMES.items():
        cells = table[f"toy/app/gpu/{layout}/float/size:1"]
        assert cells[3] == f"{b / a:#.3g}" and cells[4] == "no repetitions", cells


def test_the_summary_tables_give_the_geometric_mean_of_the_ratios(toy_comparison):
    text = compare.summary_tables(toy_comparison)
    assert f"| toy | 3 | {TOY_MEAN:#.3g} | — |" in text  # per suite
    assert f"| toy/app/gpu | 3 | {TOY_MEAN:#.3g} | — |" in text  # per version
    assert "| aos | 1 | 0.500 | — |" in text and "| soa | 1 | 2.00 | — |" in text


def test_the_answer_states_the_mean_its_words_quartiles_and_the_ceilings_prediction(
        toy_comparison):
    answer = compare.suite_answers(toy_comparison)
    assert answer.startswith(f"- **toy** (3 benchmark(s)): B takes **{TOY_MEAN:#.3g}×** A's GPU "
                             f"time, B {1 / TOY_MEAN - 1:.0%} faster (")  # 8 %, not 1 − 0.93
    assert (f"the middle half of its benchmarks {math.sqrt(0.5 * 0.8):#.3g}–"
            f"{math.sqrt(0.8 * 2):#.3g})") in answer
    # no benchmark is modelled: the ceilings alone, A's over B's (2000 / 4000, 50 / 40)
    assert answer.endswith("the ceilings alone predict 0.500× where copy bandwidth binds, "
                           "1.25× where FP32 FMA binds.")
    ceilings = compare.ceilings_table(toy_comparison)
    assert "| copy_bandwidth_gbs | 2000 | 4000 | 0.500 |" in ceilings
    assert "| fp32_fma_per_s | 5e+13 | 4e+13 | 1.25 |" in ceilings


def test_the_ratio_figure_draws_each_ratio_and_the_geometric_mean(toy_comparison, tmp_path):
    from plots.figures import inspecting
    drawn = {}
    with inspecting(lambda stem, fig, _: drawn.setdefault(stem, fig)):
        compare.ratio_figure(toy_comparison, tmp_path, "ratio")
    lines = {l.get_label(): l for l in drawn["ratio"].axes[0].lines}
    each = lines["each benchmark"]
    assert sorted(each.get_xdata()) == pytest.approx(sorted(b / a for a, b in TOY_TIMES.values()))
    assert list(lines["geometric mean"].get_xdata()) == pytest.approx([TOY_MEAN])


def test_the_repetitions_note_counts_the_significant_benchmarks_by_direction():
    a = [1.0, 1.1, 1.2, 1.3]
    faster, slower = [t / 2 for t in a], [t * 2 for t in a]
    comparison = compare.compare_devices(
        toy_device("GPU A", [toy("aos", 1.15, a), toy("soa", 1.15, a), toy("tiled", 1.15, a)]),
        toy_device("GPU B", [toy("aos", 0.575, faster), toy("soa", 2.3, slower),
                             toy("tiled", 0.55, faster)]))
    assert "3 differ at p < 0.05 (2 B faster, 1 B slower)" in compare.repetitions_note(comparison)


# Three cards, three benchmarks (times, repetition spreads per card), each against one rule:
# x: a spread of 0.10 / 1.04 over a noise of 3 %: flagged, card 1 the slowest;
# y: a spread of 5 % under 2 × the noisiest card's 3 % (not under 2 × the quietest's 1 %);
# z: a spread of 1.5 % under the 2 % floor (not under 2 × its 0.2 % noise).
CARDS = {"x": ((1.00, 1.10, 1.04), (0.01, 0.03, 0.02)),
         "y": ((1.00, 1.05, 1.00), (0.01, 0.03, 0.01)),
         "z": ((1.00, 1.00, 1.015), (0.001, 0.001, 0.002))}


def test_each_card_rule_reads_its_own_quantity():
    cards = [toy_device(f"card {k}", [toy(layout, times[k], spread=spreads[k])
                                      for layout, (times, spreads) in CARDS.items()])
             for k in range(3)]
    rows = {name.split("/")[3]: rest for name, *rest in compare.card_spread(cards)}
    assert rows["x"] == [pytest.approx(0.10 / 1.04), pytest.approx(0.03), True, "card 1"]
    assert rows["y"] == [pytest.approx(0.05), pytest.approx(0.03), False, "card 1"]
    assert rows["z"] == [pytest.approx(0.015), pytest.approx(0.002), False, "card 2"]
    summary = compare._spread_summary(list(compare.card_spread(cards)))
    assert summary == (" GPU-to-GPU spread over the 3 benchmarks: median 5.0%, largest 9.6% "
                       "(`toy/app/gpu/x/float/size:1`).")
    table = compare.card_table(cards, list(compare.card_spread(cards)))
    for k in range(3):
        relative = [times[k] / sorted(times)[1] for times, _ in CARDS.values()]
        mean = math.exp(sum(map(math.log, relative)) / 3)
        assert f"| card {k} | {mean:#.3g} | {1 if k == 1 else 0} |" in table

"""What the figures draw (issue 36, "Figures readable in the page"; issue 42 item 3): the
values of the drawn points and whiskers, against the fixtures' benchmarks, and each defect
the review found, on the figure as saved (report_checks.figures_of, or one section drawn
from a fixture edited for the case). Each test fails on the figures before the fix."""

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.container import ErrorbarContainer
from matplotlib.image import AxesImage

from plots import idw, inner, inner_traffic, kofler, readable
from plots.estimates import ratio_estimate
from plots.figures import AXIS_TIME_UNITS, inspecting, panel_grid, save_figure, size_axis
from plots.kriging import data as kriging_data
from plots.load import load_results
from plots.papers import PAPERS

from tests.python.report_checks import figures_of, one_worker, rendered_once

FIXTURES = Path(__file__).parent / "fixtures"


def drawn(section, devices, tmp_path):
    """(the Section, {stem: Figure as saved}) of one section function drawn into tmp_path."""
    figures = {}
    with inspecting(lambda stem, fig, problems: figures.__setitem__(stem, fig)):
        result = section(devices, tmp_path)
    return result, figures


def device_of(name, tmp_path_factory, paper):
    """The one device of a fixture's rendered folder, its `paper`'s benchmarks."""
    folder = FIXTURES / name if name == "idw_quick" else rendered_once(name, tmp_path_factory)[0]
    (device,) = load_results([folder]).devices
    return device.for_paper(paper)


def panel(fig, title):
    (ax,) = [ax for ax in fig.axes if ax.get_title().split("\n")[0] == title]
    return ax


def errorbars(ax):
    """{label: (xs, ys, [(low, high)])} of the error bars drawn on `ax`."""
    found = {}
    for container in ax.containers:
        if isinstance(container, ErrorbarContainer):
            line, _, (whiskers, *_) = container.lines
            ends = [tuple(sorted((a[1], b[1]))) for a, b in whiskers.get_segments()]
            found[container.get_label()] = (list(line.get_xdata()), list(line.get_ydata()),
                                            ends)
    return found


# --- size axes ------------------------------------------------------------------------------

IDW_PAPER_SIZES = [10240, 51200, 102400, 512000, 1024000]  # 10K, 50K, 100K, 500K, 1000K


def test_every_tick_of_the_idw_size_axis_is_labelled_500K_included(tmp_path):
    fig, axes = panel_grid(1, 3)  # Fig. 7's three panels
    for ax in axes[0]:
        ax.plot(IDW_PAPER_SIZES, range(5), label="SoA")
        size_axis(ax, IDW_PAPER_SIZES)
    kept = []
    with inspecting(lambda stem, fig, problems: kept.append(problems)):
        save_figure(fig, tmp_path, "sizes")
    for ax in axes[0]:
        assert [t.get_text() for t in ax.get_xticklabels()] == [
            "10K", "50K", "100K", "500K", "1000K"]
    assert kept == [[]]  # none overlapping, none unlabelled


@pytest.mark.parametrize("ticks, labels, caught", [
    ([10, 50, 100, 500, 1000], ["10", "50", "100", "", "1000"], True),  # IDW's 500K before
    ([1, 2, 4, 8, 16, 32], ["1", "", "4", "", "16", ""], False),  # even: a reader interpolates
])
def test_an_unlabelled_tick_on_an_irregular_axis_is_caught(ticks, labels, caught, tmp_path):
    fig, axes = panel_grid(1, 1)
    ax = axes[0][0]
    ax.plot(ticks, ticks)
    ax.set_xscale("log")
    ax.set_xticks(ticks, labels)
    fig.draw_without_rendering()
    found = readable.unlabelled_irregular_ticks(fig)
    assert bool(found) == caught, found


@pytest.mark.xdist_group("report_kriging_quick")
def test_the_kriging_scale_axis_labels_s_8(tmp_path_factory):
    fig = figures_of("kriging_quick", tmp_path_factory)["kriging_fig3"][0]
    for ax in fig.axes:
        labels = [t.get_text() for t in ax.get_xticklabels()]
        assert [label.split("\n")[-1] for label in labels] == [
            "s=1", "s=2", "s=4", "s=6", "s=8", "s=10"], labels


# --- legends --------------------------------------------------------------------------------

@pytest.mark.parametrize("where, caught", [("upper left", True), ("lower right", False)])
def test_a_legend_over_a_line_is_caught(where, caught):
    fig, axes = panel_grid(1, 1)
    ax = axes[0][0]
    ax.plot([0, 1], [1, 0.9], label="roofline, at the panel's top")
    ax.plot([0, 1], [0, 0.05], label="a layout, at its floor")
    ax.set_ylim(-0.5, 1.1)
    ax.legend(loc=where)
    fig.draw_without_rendering()
    assert bool(readable.legends_over_data(fig)) == caught


# --- IDW ------------------------------------------------------------------------------------

@pytest.mark.xdist_group("report_idw_quick")
def test_pct_of_limit_resolves_the_cdp_curves_under_the_roofline(tmp_path_factory):
    """Every layout's point moves visibly (2 % of its panel's height) for a change of 20 % of
    its value: CDP's 0.1-12 % are not flattened on the roofline's 0-90 % scale, and no legend
    sits inside a panel."""
    fig, problems = figures_of("idw_quick", tmp_path_factory)["idw_pct_of_limit"]
    layouts = set(idw.LAYOUT_NAMES.values())
    checked = 0
    for ax in fig.axes:
        assert ax.get_legend() is None, ax.get_title()
        for line in ax.lines:
            if line.get_label() not in layouts:
                continue
            for x, y in zip(line.get_xdata(), line.get_ydata()):
                low, high = ax.transData.transform([(x, y), (x, 1.2 * y)])
                assert high[1] - low[1] >= 0.02 * ax.bbox.height, (ax.get_title(), y)
                checked += 1
    assert checked > 10
    assert not [p for p in problems if p[0] == readable.LEGEND_OVER_DATA]


@pytest.mark.xdist_group("report_idw_quick")
@pytest.mark.parametrize("stem, precision, layouts", [("idw_fig7", "float", idw.FLOAT_LAYOUTS),
                                                      ("idw_fig8", "double", idw.DOUBLE_LAYOUTS)])
def test_idw_speedups_are_drawn_with_the_claims_intervals(stem, precision, layouts,
                                                          tmp_path_factory):
    """Each point: CPU baseline / GPU time; its whisker: the interval of the claims
    (ratio_estimate: the repetitions' extremes of both)."""
    fig, _ = figures_of("idw_quick", tmp_path_factory)[stem]
    device = device_of("idw_quick", tmp_path_factory, "idw")
    point = {"precision": precision, "p": idw.LAYOUT_FIGURE_P}
    baseline, _ = idw.by_size(device.benchmarks, {**idw.BASELINE, **point}, idw.PREFER)
    for version in ("naive", "tiled"):
        drawn_bars = errorbars(panel(fig, version if version == "naive"
                                     else f"tiled + {idw.ROOFLINE_LABEL}"))
        for layout in layouts:
            gpu, _ = idw.by_size(device.benchmarks, {"version": version, "layout": layout,
                                                     **point}, idw.PREFER)
            sizes = sorted(s for s in gpu if gpu[s].time_s and not gpu[s].error)
            expected = [ratio_estimate(baseline[s], gpu[s]) for s in sizes]
            if not expected:
                continue
            xs, ys, ends = drawn_bars[idw.LAYOUT_NAMES[layout]]
            assert xs == sizes
            assert ys == pytest.approx([e.value for e in expected], rel=1e-12)
            assert ends == pytest.approx([(e.low, e.high) for e in expected], rel=1e-12)


def test_a_figure_with_every_panel_empty_is_a_line_of_text(tmp_path, tmp_path_factory):
    """The naive-tiled-p3 reference's Fig. 2: no CDP benchmark, so no figure written."""
    device = device_of("idw_quick", tmp_path_factory, "idw")
    without_cdp = replace(device, benchmarks=tuple(b for b in device.benchmarks
                                                   if not b.version.startswith("cdp")))
    section, figures = drawn(idw.cdp_section, [without_cdp], tmp_path)
    assert section.figures == () and figures == {}
    assert not list(tmp_path.iterdir())
    assert section.body.endswith("No figure (idw_fig2): nothing measured (no cdp-original / "
                                 "cdp-improved benchmarks).")


# --- kriging --------------------------------------------------------------------------------

@pytest.mark.xdist_group("report_kriging_quick")
def test_kriging_fig3_draws_each_speedup_with_its_interval(tmp_path_factory):
    fig, _ = figures_of("kriging_quick", tmp_path_factory)["kriging_fig3"]
    device = device_of("kriging_quick", tmp_path_factory, "kriging")
    gpu = kriging_data.by_scale(device, kriging_data.EXPERIMENTS[6])
    cpu = kriging_data.by_scale(device, kriging_data.CPU_PROGRAMS[6])
    expected = [ratio_estimate(cpu[s], gpu[s]) for s in sorted(gpu)
                if s in cpu and not gpu[s].error]
    (ax,) = [ax for ax in fig.axes if ax.get_title().startswith("(a)")]
    _, ys, ends = errorbars(ax)[kriging_data.label(6)]
    assert ys == pytest.approx([e.value for e in expected], rel=1e-12)
    assert ends == pytest.approx([(e.low, e.high) for e in expected], rel=1e-12)
    assert len(errorbars(fig.axes[1])) == len(kriging_data.EXPERIMENTS)


@pytest.mark.xdist_group("report_kriging_quick")
def test_a_point_that_does_not_run_keeps_its_whole_reason_clear_of_the_axis(tmp_path_factory):
    fig, _ = figures_of("kriging_quick", tmp_path_factory)["kriging_wells"]
    reason = load_fixture_reason()
    FigureCanvasAgg(fig)  # the figure was closed once saved: a canvas to measure its texts on
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    texts = [t for t in fig.texts + [t for ax in fig.axes for t in ax.texts]
             if t.get_visible() and t.get_text().strip()]
    assert not any("…" in t.get_text() for t in texts)
    assert reason in " ".join(" ".join(t.get_text().split()) for t in texts)
    marks = [(ax, t) for ax in fig.axes for t in ax.texts if "does not run" in t.get_text()]
    assert marks
    for ax, text in marks:
        box = text.get_window_extent(renderer)
        assert ax.bbox.y0 <= box.y0 and box.y1 <= ax.bbox.y1, text.get_text()


def load_fixture_reason():
    from tests.python.report_checks import load_fixture_generator
    return load_fixture_generator("kriging").CONSTANT_ERROR


# --- Kofler ---------------------------------------------------------------------------------

@pytest.mark.xdist_group("report_kofler_quick")
def test_every_empty_cell_of_fig1_says_not_run(tmp_path_factory):
    fig, _ = figures_of("kofler_quick", tmp_path_factory)["kofler_fig1"]
    empty = 0
    for ax in fig.axes:
        for image in [a for a in ax.get_children() if isinstance(a, AxesImage)]:
            missing = np.ma.getmaskarray(image.get_array())
            words = {(round(t.get_position()[0]), round(t.get_position()[1])): t.get_text()
                     for t in ax.texts}
            for r in range(missing.shape[0]):
                for c in range(missing.shape[1]):
                    if missing[r, c]:
                        empty += 1
                        assert words[c, r].strip(), (ax.get_title(), r, c)  # × or not run
    assert empty >= 2  # the errored tile 4096 and tile 16384, not run at the smaller size


def test_fig1_stars_the_trees_choice_in_an_soa_row(tmp_path, tmp_path_factory):
    """A tree that lays the 2-field cluster out SoA (t = n): its ☆ in a row of its own."""
    device = device_of("kofler_quick", tmp_path_factory, "kofler")

    def soa(b):
        if b.app == "sampo" and b.layout == "kdlg-tree":
            return replace(b, label=b.label.replace("tiled-16|soa|soa|soa|tiled-64",
                                                    "tiled-16|soa|soa|soa|soa"))
        return b

    relabelled = replace(device, benchmarks=tuple(map(soa, device.benchmarks)))
    _, figures = drawn(kofler.fig1_section, [relabelled], tmp_path)
    grids = [ax for ax in figures["kofler_fig1"].axes
             if "the KDLG clusters' tiles" in ax.get_title()]
    assert grids
    for ax in grids:
        rows = [t.get_text() for t in ax.get_yticklabels()]
        columns = [t.get_text() for t in ax.get_xticklabels()]
        (star,) = [line for line in ax.lines if line.get_marker() == "*"]
        assert star.get_label() == "kdlg-tree (the tree's choice)"
        assert (columns[int(star.get_xdata()[0])], rows[int(star.get_ydata()[0])]) == \
            ("16", "SoA")


@pytest.mark.xdist_group("report_kofler_quick")
def test_the_tile_sweep_legend_names_the_hollow_squares(tmp_path_factory):
    fig, _ = figures_of("kofler_quick", tmp_path_factory)["kofler_tile_sweep"]
    checked = 0
    for ax in fig.axes:
        squares = [c for c in ax.containers if isinstance(c, ErrorbarContainer)
                   and c.lines[0].get_marker() == "s"]
        if not squares or not ax.get_legend():
            continue
        handles = ax.get_legend().legend_handles
        assert any(h.get_marker() == "s" and h.get_fillstyle() == "none" for h in handles
                   if hasattr(h, "get_marker")), ax.get_title()
        checked += 1
    assert checked


@pytest.mark.xdist_group("report_kofler_quick")
def test_the_tile_sweep_draws_the_roofline_version_at_each_size(tmp_path_factory):
    """N-body's panel: one dotted line per size at time(AoS) / time(roofline), the medians."""
    fig, _ = figures_of("kofler_quick", tmp_path_factory)["kofler_tile_sweep"]
    device = device_of("kofler_quick", tmp_path_factory, "kofler")
    medians = {(b.version, b.layout, b.params["size"]): b.time_s for b in device.benchmarks
               if b.app == "nbody" and b.layout in ("aos", "soa")}
    dotted = {line.get_label(): line.get_ydata()[0] for line in panel(fig, "N-body (float)").lines
              if line.get_linestyle() == ":"}
    assert dotted == pytest.approx({
        f"roofline version, size {label}": medians["gpu", "aos", size] / medians["roofline", "soa", size]
        for size, label in ((16384, "16.4K"), (65536, "65.5K"))})
    assert all(line.get_linestyle() != ":" for ax in fig.axes if not ax.get_title().startswith("N-body")
               for line in ax.lines)


# --- inner ----------------------------------------------------------------------------------

def with_traffic_split(device):
    """The device with the instrumented run's split counters on every traffic benchmark."""
    def split(b):
        if b.app != "traffic" or b.time_s is None:
            return b
        return replace(b, counters={**b.counters, "cars_s": 0.55 * b.time_s,
                                    "controllers_s": 0.47 * b.time_s})
    return replace(device, benchmarks=tuple(map(split, device.benchmarks)))


@pytest.mark.xdist_group("report_inner_quick")
def test_fig11_draws_time_and_its_split_in_one_unit(tmp_path, tmp_path_factory):
    device = with_traffic_split(device_of("inner_quick", tmp_path_factory, "inner"))
    _, figures = drawn(lambda d, f: inner_traffic.fig11_section(d, f), [device], tmp_path)
    fig = figures["inner_fig11"]
    units = {ax.get_ylabel().rsplit("(", 1)[1].rstrip(")") for ax in fig.axes
             if ": time" in ax.get_title() or "cars and controllers" in ax.get_title()}
    assert len(units) == 1, units  # before: the time in ms or s, its split in seconds
    scale = dict(AXIS_TIME_UNITS)[units.pop()]
    split = panel(fig, "Car::path: cars and controllers")
    point = inner_traffic.traffic_point(device)
    soa_full = inner_traffic._one(device, {**inner_traffic._at(point), "field": "path",
                                           "layout": "soa", "version": "full"})
    heights = [p.get_height() for p in split.containers[0].patches]
    assert 0.55 * soa_full.time_s / scale == pytest.approx(heights[-2], rel=1e-12)


@pytest.mark.xdist_group("report_inner_quick")
def test_fig11_draws_the_points_of_its_own_step_count(tmp_path, tmp_path_factory):
    """Issue 42 item 3: beside the 1000-step sweep, one of 100 steps (a tenth of the time)
    must not lend Fig. 11 a point: every drawn time is its 1000-step benchmark's."""
    device = device_of("inner_quick", tmp_path_factory, "inner")
    traffic = [b for b in device.benchmarks if b.app == "traffic"]
    shorter = [replace(b, name=b.name.replace("steps:1000", "steps:100"),
                       params={**b.params, "steps": 100}, time_s=b.time_s / 10,
                       repetitions_s=tuple(t / 10 for t in b.repetitions_s)) for b in traffic]
    both = replace(device, benchmarks=device.benchmarks + tuple(shorter))
    _, figures = drawn(lambda d, f: inner_traffic.fig11_section(d, f), [both], tmp_path)
    fig = figures["inner_fig11"]
    checked = 0
    for field in inner_traffic.FIELDS:
        ax = panel(fig, f"{inner_traffic.FIELD_NAMES[field]}: time, AoS and SoA")
        scale = dict(AXIS_TIME_UNITS)[ax.get_ylabel().rsplit("(", 1)[1].rstrip(")")]
        bars = errorbars(ax)
        for layout in inner.LAYOUTS:
            for strategy in inner.STRATEGIES:
                label = f"{inner.LAYOUT_NAMES[layout]}, {inner.LABELS[strategy]}"
                expected = sorted((b.params["inline"], b.time_s / scale) for b in traffic
                                  if b.params["field"] == field and b.layout == layout
                                  and b.version == strategy)
                if not expected:
                    continue
                _, ys, _ = bars[label]
                assert ys == pytest.approx([t for _, t in expected], rel=1e-12), label
                checked += len(ys)
    assert checked > 50


def test_fig11_is_drawn_at_the_papers_cars_and_steps_before_the_most_run_point():
    """A shorter sweep run more often (here 3 runs at 100 steps against 2 at the paper's 1000)
    does not take the figure: the paper's cars and steps come first, the count second."""
    from types import SimpleNamespace
    paper = {"network": "n", "cars": inner_traffic.PAPER_CARS, "steps": inner_traffic.PAPER_STEPS}
    short = {**paper, "cars": 1000, "steps": 100}
    runs = [SimpleNamespace(app="traffic", params=p) for p in [paper] * 2 + [short] * 3]
    device = SimpleNamespace(benchmarks=runs)
    assert inner_traffic.traffic_point(device) == ("n", inner_traffic.PAPER_CARS,
                                                   inner_traffic.PAPER_STEPS)


@pytest.mark.xdist_group("report_inner_quick")
def test_fig11_draws_each_fields_inline_bytes_and_arena_stacked(tmp_path_factory):
    """The bytes panels (issue 42 item 3): per AoS run of the swept field, a bar of its
    `<field>_inline_bytes` and on it one of its `<field>_arena_bytes`, in MiB."""
    fig, _ = figures_of("inner_quick", tmp_path_factory)["inner_fig11"]
    device = device_of("inner_quick", tmp_path_factory, "inner")
    point = inner_traffic.traffic_point(device)
    checked = 0
    for field in inner_traffic.FIELDS:
        inline, arena = panel(fig, f"{inner_traffic.FIELD_NAMES[field]}: bytes, AoS").containers
        drawn = sorted((i.get_height(), a.get_y(), a.get_height())
                       for i, a in zip(inline.patches, arena.patches))
        runs = [b for b in device.benchmarks if b.app == "traffic" and b.layout == "aos"
                and b.params["field"] == field and (b.params["network"], b.params["cars"],
                                                    b.params["steps"]) == point]
        expected = sorted((b.counters[f"{field}_inline_bytes"] / 2**20,
                           b.counters[f"{field}_inline_bytes"] / 2**20,
                           b.counters[f"{field}_arena_bytes"] / 2**20) for b in runs)
        assert drawn == pytest.approx(expected, rel=1e-12), field
        assert any(a > 0 for *_, a in expected) and any(i != a for i, _, a in expected)
        checked += len(drawn)
    assert checked > 20


@pytest.mark.xdist_group("report_inner_quick")
def test_the_footprint_draws_one_panel_where_aos_and_soa_hold_the_same_bytes(
        tmp_path, tmp_path_factory):
    """The fixture's records are 4-byte fields (as the synthetic program's and BFS's): AoS
    and SoA the same bytes, one panel each program; a padded AoS gets its own panel."""
    fig, _ = figures_of("inner_quick", tmp_path_factory)["inner_footprint"]
    titles = [ax.get_title() for ax in fig.axes if ax.get_visible()]
    assert [t.split(",")[0] for t in titles] == ["synthetic", "bfs"]
    assert all(", AoS and SoA (the same bytes), " in t for t in titles), titles
    device = device_of("inner_quick", tmp_path_factory, "inner")

    def padded(b):
        if b.app == "synthetic" and b.layout == "aos" and "footprint_wasted_bytes" in b.counters:
            return replace(b, counters={**b.counters, "footprint_wasted_bytes":
                                        b.counters["footprint_wasted_bytes"] + 4096})
        return b

    _, figures = drawn(inner.footprint_section,
                       [replace(device, benchmarks=tuple(map(padded, device.benchmarks)))],
                       tmp_path)
    titles = [ax.get_title() for ax in figures["inner_footprint"].axes if ax.get_visible()]
    assert [t.split(",")[:2] for t in titles] == [["synthetic", " AoS"], ["synthetic", " SoA"],
                                                  ["bfs", " AoS and SoA (the same bytes)"]]


# --- tables ---------------------------------------------------------------------------------

def test_a_gpu_column_of_one_value_is_left_out():
    from plots.text import without_one_gpu_column
    text = ("| GPU | size | time |\n|---|---|---|\n| H100 | 10K | 1 \\| 2 ms |\n"
            "| H100 | 50K | 3 ms |\n\n| GPU | time |\n|---|---|\n| H100 | 1 ms |\n| H200 | 2 ms |")
    assert without_one_gpu_column(text) == (
        "| size | time |\n|---|---|\n| 10K | 1 \\| 2 ms |\n| 50K | 3 ms |\n\n"
        "| GPU | time |\n|---|---|\n| H100 | 1 ms |\n| H200 | 2 ms |")


@pytest.mark.xdist_group("report_idw_quick")
def test_a_one_gpu_report_has_no_gpu_column_in_the_papers_tables(tmp_path_factory):
    text = (rendered_once("idw_quick", tmp_path_factory)[0] / "REPORT.md").read_text()
    paper = text.split(f"\n## {PAPERS['idw'].title}\n", 1)[1]
    assert "| GPU |" not in paper
    assert "| version | precision | size | AoaS | builtin | builtin / AoaS |" in paper

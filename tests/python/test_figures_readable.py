"""Every figure the plots draw reads (issue 21, section 5): each text at least 8 pt at the
saved size, no two tick labels of one axis overlapping, a style of its own for each legend
entry, error bars from the repetitions on every time plot.

The figures are the fixtures' (report_checks.rendered_once: each drawn once per session, the
figures kept as saved, with the problems plots/readable.py found while saving them). Each
check is shown to catch a small, deliberately bad figure; the axis rules the figures follow
(ratio axes of at least 1 ± 5 %, linear µs where times span less than a decade) and the
papers' layouts (Kofler's Fig. 5 panels, the inner paper's one axis per benchmark) are
checked on the figures themselves.
"""

import warnings
from pathlib import Path

import pytest
from matplotlib.container import ErrorbarContainer

from plots import readable
from plots.figures import (RATIO_MIN_SPAN, UnreadableFigure, panel_grid, plt, ratio_axis,
                           save_figure, time_axis, time_errorbar)
from plots.load import Benchmark

from tests.python.report_checks import SEVERAL_GPUS, figures_of, one_worker

IDW = ("idw_fig7", "idw_fig8", "idw_fig2", "idw_builtin_vs_aoas", "idw_pct_of_limit")
FIGURES = {  # every figure the plots draw, by the fixture that draws it
    "idw_quick": IDW,
    "kriging_quick": ("kriging_fig2", "kriging_fig3", "kriging_fig4", "kriging_exp7",
                      "kriging_wells"),
    "kofler_quick": ("kofler_tile_sweep", "kofler_fig1", "kofler_fig5", "kofler_regret"),
    "inner_quick": ("inner_fig10a", "inner_scaling", "inner_fig10b", "inner_footprint",
                    "inner_fig11"),
    SEVERAL_GPUS: IDW + ("compare_1_ratio", "compare_1_ceiling"),
}
# Each fixture's tests on one xdist worker, which draws its report once.
FIXTURE_PARAMS = [pytest.param(name, marks=one_worker(name)) for name in FIGURES]


@pytest.mark.parametrize("fixture", FIXTURE_PARAMS)
def test_every_figure_of_the_fixture_is_drawn_and_checked(fixture, tmp_path_factory):
    """A figure added to the plots must be added here, so that it is checked."""
    assert sorted(figures_of(fixture, tmp_path_factory)) == sorted(FIGURES[fixture])


@pytest.mark.parametrize("check", readable.CHECKS)
@pytest.mark.parametrize("fixture", FIXTURE_PARAMS)
def test_no_figure_breaks_the_check(fixture, check, tmp_path_factory):
    found = [f"{stem}: {message}" for stem, (_, problems) in
             figures_of(fixture, tmp_path_factory).items()
             for name, message in problems if name == check]
    assert not found, "\n".join(found)


# --- each check catches a bad figure --------------------------------------------------------

def saved_problems(fig, tmp_path):
    """The readability checks save_figure warns about: {check: [message]}."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UnreadableFigure)
        save_figure(fig, tmp_path, "probe")
    found = {}
    for warning in caught:
        if issubclass(warning.category, UnreadableFigure):
            _, check, message = str(warning.message).split(": ", 2)
            found.setdefault(check, []).append(message)
    return found


def one_panel(width=4.0, height=3.0):
    fig, axes = panel_grid(1, 1, width=width, height=height)
    return fig, axes[0][0]


@pytest.mark.parametrize("size, caught", [(7, True), (6.5, True), (8, False)])
def test_text_under_8_pt_is_caught(size, caught, tmp_path):
    fig, ax = one_panel()
    ax.plot([1, 2], [1, 2], label="a line")
    ax.text(0.5, 0.5, "a note", fontsize=size, transform=ax.transAxes)
    ax.legend()
    found = saved_problems(fig, tmp_path).get(readable.SMALL_TEXT, [])
    assert found == ([f"'a note' at {size:g} pt"] if caught else [])


def test_a_legend_at_7_pt_is_caught(tmp_path):
    fig, ax = one_panel()
    ax.plot([1, 2], [1, 2], label="size 32K")
    ax.legend(fontsize=7)
    assert saved_problems(fig, tmp_path)[readable.SMALL_TEXT] == ["'size 32K' at 7 pt"]


@pytest.mark.parametrize("labels, caught", [
    (["131072"] * 9, True),  # the tile sweep's labels before: nine in three inches
    (["4096K", "32768K"], True),  # touching, not overlapping: "4096K32768K"
    (["2", "", "8", "", "32", "", "128", "", "512"], False),
])
def test_tick_labels_that_run_together_are_caught(labels, caught, tmp_path):
    fig, ax = one_panel(width=3.0 if len(labels) > 2 else 1.1)
    ax.plot(range(len(labels)), range(len(labels)))
    ax.set_xticks(range(len(labels)), labels)
    if len(labels) == 2:
        ax.set_xlim(-0.02, 1.02)
    found = saved_problems(fig, tmp_path).get(readable.OVERLAPPING_TICKS, [])
    assert bool(found) == caught, found


def test_labels_overlapping_on_a_y_axis_are_caught(tmp_path):
    fig, ax = one_panel(height=1.2)
    ax.set_yscale("log")
    ax.set_ylim(1e-12, 1e-3)
    ax.set_yticks([10.0**k for k in range(-12, -2)])
    assert saved_problems(fig, tmp_path).get(readable.OVERLAPPING_TICKS)


@pytest.mark.parametrize("styles, caught", [
    # the inner scaling figure before: partial N = 0, 32, 64 all blue circles
    ([{"color": "C0", "marker": "o"}] * 3, True),
    ([{"color": "C0", "marker": "o"}, {"color": "C0", "marker": "o", "linestyle": "--"}], False),
    ([{"color": "C0", "marker": "o"}, {"color": "C0", "marker": "v"}], False),
    ([{"color": "C0", "marker": "o"}, {"color": "C0", "marker": "o", "fillstyle": "none"}],
     False),
])
def test_legend_entries_sharing_a_style_are_caught(styles, caught, tmp_path):
    fig, ax = one_panel()
    for k, style in enumerate(styles):
        ax.plot([1, 2], [k, k + 1], label=f"partial N = {32 * k}", **style)
    ax.legend()
    found = saved_problems(fig, tmp_path).get(readable.LEGEND_STYLES, [])
    assert bool(found) == caught, found


def test_error_bar_entries_are_compared_by_their_lines_and_bars_by_their_colour(tmp_path):
    fig, ax = one_panel()
    for label in ("AoS", "SoA"):
        ax.errorbar([1, 2], [1, 2], yerr=0.1, color="C0", marker="o", label=label)
    ax.bar([3], [1], color="C1", label="arena")
    ax.bar([4], [1], color="C1", label="inline")
    ax.legend()
    found = saved_problems(fig, tmp_path)[readable.LEGEND_STYLES]
    assert len(found) == 2 and "'AoS' and 'SoA'" in found[0] and "'arena' and 'inline'" in found[1]


def bench(median_ms, *repetitions_ms):
    return Benchmark(name="inner/x/full/soa/int", paper="inner", app="x", version="full",
                     layout="soa", precision="int", params={}, device="gpu", preset="quick",
                     source=Path("x.json"), time_s=median_ms / 1e3,
                     repetitions_s=tuple(t / 1e3 for t in repetitions_ms))


@pytest.mark.parametrize("label", ["time (ms)", "computing time (s)", "time per element (ps)"])
def test_a_time_plot_without_error_bars_is_caught(label, tmp_path):
    fig, ax = one_panel()
    ax.plot([1, 2], [3, 4], marker="o", label="exp. 6")
    ax.axhline(3.5, color="0.5")  # a reference line is not data
    ax.set_ylabel(label)
    assert saved_problems(fig, tmp_path)[readable.NO_ERROR_BARS] == ["'axes': line 'exp. 6' "
                                                                      "(2 points)"]


def test_a_time_plot_with_error_bars_from_the_repetitions_passes(tmp_path):
    fig, ax = one_panel()
    _, scale = time_axis(ax, [0.002, 0.004])
    time_errorbar(ax, [1, 2], [bench(2, 1, 2, 4), bench(3, 3, 3, 3)], scale, marker="o")
    assert readable.NO_ERROR_BARS not in saved_problems(fig, tmp_path)


def test_error_bars_span_the_fastest_to_the_slowest_repetition():
    fig, ax = one_panel()
    _, scale = time_axis(ax, [0.001, 0.004])
    container = time_errorbar(ax, [1], [bench(2, 1, 2, 4)], scale)
    (segments,) = [c.get_segments() for c in container.lines[2]]
    assert ax.get_ylabel() == "time (ms)"
    assert segments[0][:, 1].tolist() == pytest.approx([1.0, 4.0])
    plt.close(fig)


def test_the_checks_skip_what_is_not_drawn(tmp_path):
    """Spare tick objects, ticks out of view and invisible texts are not checked."""
    fig, ax = one_panel()
    ax.plot([1, 2], [1, 2])
    ax.set_xticks([0, 1, 2, 3], ["0", "1", "2", "3"])
    ax.set_xlim(0.9, 2.1)
    ax.text(0.5, 0.5, "hidden", fontsize=5, visible=False)
    assert saved_problems(fig, tmp_path) == {}


# --- the axis rules and the papers' layouts, on the figures ---------------------------------

def ratio_axes(fig):
    return [ax for ax in fig.axes if "speedup over AoS" in ax.get_ylabel()
            or ax.get_ylabel() == "builtin / AoaS time"]


@pytest.mark.parametrize("fixture, stem", [
    pytest.param("kofler_quick", "kofler_tile_sweep", marks=one_worker("kofler_quick")),
    pytest.param("idw_quick", "idw_builtin_vs_aoas", marks=one_worker("idw_quick"))])
def test_ratio_axes_always_show_one_plus_minus_five_percent(fixture, stem, tmp_path_factory):
    fig, _ = figures_of(fixture, tmp_path_factory)[stem]
    axes = [ax for ax in ratio_axes(fig) if ax.get_visible() and ax.lines + ax.patches]
    assert axes
    for ax in axes:
        low, high = ax.get_ylim()
        assert low <= 1 - RATIO_MIN_SPAN and high >= 1 + RATIO_MIN_SPAN, ax.get_title()


def test_ratio_axis_keeps_its_data_and_the_reference():
    fig, ax = one_panel()
    ratio_axis(ax, [1.01, 1.02])
    low, high = ax.get_ylim()
    assert low < 0.95 and 1.05 < high < 1.2
    ratio_axis(ax, [0.5, 2.5])
    low, high = ax.get_ylim()
    assert low < 0.5 and high > 2.5
    plt.close(fig)


@pytest.mark.parametrize("seconds, scale, unit", [
    ([60e-6, 440e-6], "linear", "µs"),  # Fig. 10a: 7× apart
    ([4.651e-3, 4.662e-3], "linear", "ms"),  # 0.2 % apart: the axis spans ± 5 % still
    ([1e-4, 3.0], "log", "s"),
])
def test_time_axis_is_linear_in_one_unit_below_a_decade(seconds, scale, unit):
    fig, ax = one_panel()
    time_axis(ax, seconds)
    assert ax.get_yscale() == scale and ax.get_ylabel() == f"time ({unit})"
    if scale == "linear":
        low, high = ax.get_ylim()
        middle = (min(seconds) + max(seconds)) / 2 / {"µs": 1e-6, "ms": 1e-3}[unit]
        assert high - low >= 2 * RATIO_MIN_SPAN * middle
    plt.close(fig)


@one_worker("kriging_quick")
def test_log_axes_are_labelled_with_plain_numbers(tmp_path_factory):
    fig, _ = figures_of("kriging_quick", tmp_path_factory)["kriging_fig2"]
    labels = [t.get_text() for ax in fig.axes if ax.get_yscale() == "log"
              for t in ax.get_yticklabels() if t.get_text()]
    assert labels and not [t for t in labels if "times" in t or "^" in t], labels


@one_worker("kofler_quick")
def test_kofler_fig5_has_the_papers_panels_one_per_program(tmp_path_factory):
    fig, _ = figures_of("kofler_quick", tmp_path_factory)["kofler_fig5"]
    assert [ax.get_title() for ax in fig.axes] == ["(a) N-body", "(b) Bitonic sort",
                                                    "(c) SAMPO"]
    for ax in fig.axes:
        bars = [p for p in ax.patches if p.get_height() > 0]
        left, right = ax.get_xlim()
        assert bars and all(left < p.get_x() and p.get_x() + p.get_width() < right
                            for p in bars), "bars touch the frame"


@one_worker("inner_quick")
@pytest.mark.parametrize("stem", ["inner_fig10a", "inner_fig10b"])
def test_inner_fig10_puts_both_layouts_on_one_axis(stem, tmp_path_factory):
    fig, _ = figures_of("inner_quick", tmp_path_factory)[stem]
    # Fig. 10b: the paper's search, and the persistent and queue ones beside it (beyond the paper)
    assert len(fig.axes) == (3 if stem == "inner_fig10b" else 1)
    for ax in fig.axes:
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert {label.split(",")[0] for label in labels} == {"AoS", "SoA"}
        assert ax.get_yscale() == "linear" or all("^" not in t.get_text()
                                                  for t in ax.get_yticklabels())


@one_worker("inner_quick")
def test_inner_fig10_points_at_one_n_do_not_hide_each_other(tmp_path_factory):
    """No inlining sits beside partial N = 0; full and array as object beside partial Max."""
    fig, _ = figures_of("inner_quick", tmp_path_factory)["inner_fig10a"]
    (ax,) = fig.axes
    points = {c.get_label(): c.lines[0] for c in ax.containers
              if isinstance(c, ErrorbarContainer)}
    for layout in ("AoS", "SoA"):
        ends = [points[f"{layout}, {name}"].get_xdata()[0] for name in
                ("no inlining", "full (Max)", "array as object")]
        partial = points[f"{layout}, partial (N)"].get_xdata()
        assert len(set(ends) | {partial[0], partial[-1]}) == 5
        assert all(points[f"{layout}, {name}"].get_zorder()
                   > points[f"{layout}, partial (N)"].get_zorder()
                   for name in ("no inlining", "full (Max)", "array as object")), \
            "a single point is drawn under the partial curve"


def test_a_figure_too_wide_for_the_page_is_caught(tmp_path):
    """report.html draws a figure wider than its 1104 px column scaled down: 8 pt text on a
    20 in figure is 6 px there (the old regret strip); 15 in keeps 8 px."""
    for width, caught in ((20.0, True), (15.0, False)):
        fig, ax = one_panel(width=width)
        ax.plot([1, 2], [1, 2], label="a line")
        ax.legend(fontsize=8)
        found = saved_problems(fig, tmp_path)
        assert (readable.SMALL_IN_PAGE in found) == caught, (width, found)

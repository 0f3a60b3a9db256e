"""The traffic claims of Springer et al. 2018 (Fig. 11, l.271–286) and issue 23's speed goal on
hand-built results: each gives its designed verdict, and one changed number flips it."""

from dataclasses import replace
from types import SimpleNamespace

import pytest

from plots.claims import (INCONCLUSIVE, NOT_MEASURED, NOT_REPRODUCED, REPRODUCED, Scope,
                          evaluate_claim)
from plots.inner_traffic import speed_goal
from plots.papers import PAPERS

from tests.python.test_claims_parts import bench, inner_claim

MAX = {"incoming": 8, "outgoing": 8, "path": 30}
SIZES = (0, 1, 6, 8, 15, 20, 30)
TAIL = "network:city/cars:229376/steps:1000"


def name(field, strategy, layout, n):
    return f"inner/traffic/{strategy}/{layout}/int/inline:{n}/field:{field}/{TAIL}"


def configurations():
    """(field, strategy, N) of the paper preset's sweep (partial at SIZES up to Max)."""
    yield "none", "full", 0
    for field, most in MAX.items():
        yield field, "none", 0
        yield from ((field, "partial", n) for n in SIZES if n <= most)
        yield field, "full", most
        yield field, "object", most


def traffic_scope(times=None, counters=None):
    """SoA 1 s and AoS 1.3 s everywhere, with `times` {(field, strategy, layout, N): s} and
    `counters` {(field, strategy, layout, N): {counter: value}} overriding."""
    times, counters = times or {}, counters or {}
    rows = []
    for field, strategy, n in configurations():
        for layout, seconds in (("soa", 1.0), ("aos", 1.3)):
            key = (field, strategy, layout, n)
            rows.append(replace(bench(name(*key), times.get(key, seconds)),
                                counters=counters.get(key, {})))
    return Scope(tuple(rows), {}, {}, PAPERS["inner"].sweep)


def verdict(claim_id, **scope):
    return evaluate_claim(inner_claim(claim_id), traffic_scope(**scope))


# --- SoA faster than AoS, for every strategy (l.271) ------------------------------------------

SOA = "traffic-soa-faster-than-aos-every-strategy"


def test_soa_faster_everywhere_reproduces_part_by_part():
    result = verdict(SOA)
    assert result.verdict == REPRODUCED
    assert "15 reproduced" in result.note


@pytest.mark.parametrize("part", [("path", "object", 30), ("incoming", "partial", 6),
                                  ("outgoing", "none", 0)])
def test_one_strategy_with_aos_faster_fails_it(part):
    field, strategy, n = part
    result = verdict(SOA, times={(field, strategy, "aos", n): 0.9})
    assert result.verdict == NOT_REPRODUCED
    assert "1 not reproduced, 14 reproduced" in result.note


def test_a_reversal_within_the_noise_still_reproduces():
    assert verdict(SOA, times={("path", "object", "aos", 30): 0.995}).verdict == REPRODUCED


# --- Car::path full 15 % faster than as object (l.273) ----------------------------------------

FULL = "traffic-path-full-15pct-over-object"


@pytest.mark.parametrize("object_s, expected", [(1.15, REPRODUCED), (1.22, REPRODUCED),
                                                (1.35, NOT_REPRODUCED), (1.0, NOT_REPRODUCED),
                                                (1.05, INCONCLUSIVE)])
def test_object_over_full_is_judged_against_about_1_15(object_s, expected):
    """The cars' kernels take the same share of both (their reading agrees with the whole
    step's: test_claims_like_for_like.py has readings that disagree)."""
    cars = {("path", "object", "soa", 30): {"cars_s": 0.45 * object_s},
            ("path", "full", "soa", 30): {"cars_s": 0.45}}
    result = verdict(FULL, times={("path", "object", "soa", 30): object_s}, counters=cars)
    assert result.verdict == expected, result.note
    assert "'about 1.15' ±10%: band 1.05 – 1.26" in result.note


# --- partial from N = 6 slightly faster than full (l.273) -------------------------------------

FROM_6 = "traffic-path-partial-from-6-slightly-better"


def slightly_faster(**changed):
    times = {("path", "partial", "soa", n): 0.98 for n in SIZES if n >= 6}
    return {**times, **{("path", "partial", "soa", n): s for n, s in changed.get("at", {}).items()}}


def test_every_size_from_6_slightly_faster_reproduces():
    result = verdict(FROM_6, times=slightly_faster())
    assert result.verdict == REPRODUCED
    assert "5 reproduced" in result.note


@pytest.mark.parametrize("n", [6, 30])
def test_one_size_from_6_slower_than_full_fails_it(n):
    result = verdict(FROM_6, times=slightly_faster(at={n: 1.05}))
    assert result.verdict == NOT_REPRODUCED
    assert f"inline:{n}: 'small gain': band 1 – 1.5" in result.note


def test_a_size_below_6_is_not_read():
    assert verdict(FROM_6, times=slightly_faster(at={1: 2.0})).verdict == REPRODUCED


# --- N = 15: full speed (l.286) at fewer bytes -------------------------------------------------

SPEED_15, BYTES_15 = "traffic-path-partial-15-no-loss", "traffic-path-partial-15-less-memory"


@pytest.mark.parametrize("partial_s, expected", [(1.0, REPRODUCED), (0.9, REPRODUCED),
                                                 (1.1, NOT_REPRODUCED)])
def test_partial_15_keeps_full_speed(partial_s, expected):
    assert verdict(SPEED_15, times={("path", "partial", "soa", 15): partial_s}).verdict == \
        expected


@pytest.mark.parametrize("partial_bytes, expected", [(700.0, REPRODUCED),
                                                     (1100.0, NOT_REPRODUCED)])
def test_partial_15_takes_fewer_bytes_than_full(partial_bytes, expected):
    counters = {("path", "partial", "aos", 15): {"footprint_bytes": partial_bytes},
                ("path", "full", "aos", 30): {"footprint_bytes": 1000.0}}
    result = verdict(BYTES_15, counters=counters)
    assert result.verdict == expected
    assert f"footprint_bytes {partial_bytes:g} / 1000" in result.note


def test_bytes_without_the_footprint_counter_are_not_measured():
    result = verdict(BYTES_15)
    assert result.verdict == NOT_MEASURED
    assert "no footprint_bytes counter" in result.note


# --- Cell arrays gain nothing notable (l.280) --------------------------------------------------

CELLS = "traffic-cell-arrays-little-gain"


def test_cell_arrays_as_fast_without_inlining_reproduces():
    result = verdict(CELLS, times={("incoming", "none", "aos", 0): 1.32})
    assert result.verdict == REPRODUCED
    assert "4 reproduced" in result.note


@pytest.mark.parametrize("field", ["incoming", "outgoing"])
@pytest.mark.parametrize("layout, none_s", [("soa", 1.1), ("aos", 1.43)])
def test_one_cell_array_gaining_from_inlining_fails_it(field, layout, none_s):
    result = verdict(CELLS, times={(field, "none", layout, 0): none_s})
    assert result.verdict == NOT_REPRODUCED
    assert f"{layout}/field:{field} 1.10×" in result.measured


# --- N = 1 inlines about 95 % of the Cell arrays' elements (l.284) -----------------------------

SHARE = "traffic-cell-one-element-inlines-95pct"


def arenas(at_1):
    """{field: arena bytes at N = 1} against 1000 bytes at N = 0."""
    return {(field, "partial", "aos", n): {f"{field}_arena_bytes": arena}
            for field, share in at_1.items() for n, arena in ((0, 1000.0), (1, share))}


def test_95_percent_inlined_in_both_fields_reproduces():
    result = verdict(SHARE, counters=arenas({"incoming": 50.0, "outgoing": 40.0}))
    assert result.verdict == REPRODUCED
    assert result.measured == ("incoming network city 0.950, outgoing network city 0.960")


@pytest.mark.parametrize("field", ["incoming", "outgoing"])
def test_one_field_with_a_quarter_in_the_arena_fails_it(field):
    result = verdict(SHARE, counters=arenas({"incoming": 50.0, "outgoing": 50.0, field: 250.0}))
    assert result.verdict == NOT_REPRODUCED
    assert f"{field} network city 0.750" in result.measured


# --- issue 23's speed goal: a line of the report, not a claim ----------------------------------

def goal_device(seconds, steps=1000, error=None):
    row = bench(name("none", "full", "soa", 0).replace("steps:1000", f"steps:{steps}"), seconds)
    row = replace(row, error=error, counters={"cells": 7.9e6, "pct_copy_bandwidth": 2.5})
    return SimpleNamespace(label="GPU A", benchmarks=[row])


@pytest.mark.parametrize("seconds, verdict_text", [(0.9, "**met**"), (1.09, "**met**"),
                                                   (1.2, "**not met**")])
def test_the_speed_goal_is_judged_against_1_1_s(seconds, verdict_text):
    line = speed_goal([goal_device(seconds)]).splitlines()[-1]
    assert line.endswith(verdict_text)
    assert f"{11.377 / seconds:.1f}× the GTX 980" in line and "2.5 %" in line


def test_the_speed_goal_needs_the_papers_steps():
    line = speed_goal([goal_device(0.09, steps=100)]).splitlines()[-1]
    assert "GPU A: not measured (no SoA field:none run at 229,376 cars and 1000 steps)" == \
        line[2:]


def test_an_errored_goal_run_is_not_measured():
    line = speed_goal([goal_device(0.9, error="checksum differs")]).splitlines()[-1]
    assert line == "- GPU A: not measured (checksum differs)"


# --- Fig. 11's split into cars and controllers (counters cars_s, controllers_s) --------------

def fig11_of(monkeypatch, tmp_path, split):
    """(figure, body) of Fig. 11 on the hand-built sweep, each run split 60 % cars and 40 %
    controllers where `split`, else without the counters (older results)."""
    import plots.inner_traffic as traffic
    drawn = {}

    def keep(fig, figures_dir, stem, title, heading, body, devices=None, below=""):
        drawn["fig"], drawn["body"] = fig, body
    monkeypatch.setattr(traffic, "figure_section", keep)
    rows = traffic_scope().benchmarks
    if split:
        rows = tuple(replace(b, counters={"cars_s": 0.6 * b.time_s,
                                          "controllers_s": 0.4 * b.time_s}) for b in rows)
    traffic.fig11_section([SimpleNamespace(label="GPU A", preset="paper", benchmarks=list(rows))],
                          tmp_path)
    return drawn["fig"], drawn["body"]


def split_axes(fig):
    return {ax.get_title(): ax for ax in fig.axes if ax.get_title().endswith("cars and controllers")}


def test_fig11_draws_the_split_where_the_counters_are(monkeypatch, tmp_path):
    fig, body = fig11_of(monkeypatch, tmp_path, split=True)
    axes = split_axes(fig)
    assert set(axes) == {"Cell::incoming: cars and controllers",
                         "Cell::outgoing: cars and controllers", "Car::path: cars and controllers"}
    path = axes["Car::path: cars and controllers"]
    labels = [t.get_text() for t in path.get_xticklabels()]
    assert "A obj" in labels and "S p6" in labels
    # Stacked: per bar the cars' part below and the controllers' on top, summing to the time.
    bars = path.patches
    cars, controllers = bars[:len(labels)], bars[len(labels):]
    soa_full = labels.index("S full")
    assert cars[soa_full].get_height() == pytest.approx(0.6)
    assert controllers[soa_full].get_y() == pytest.approx(0.6)
    assert controllers[soa_full].get_height() == pytest.approx(0.4)
    assert "one untimed run of the same steps, instrumented" in body and "no split is drawn" not in body
    row = [r for r in body.splitlines() if r.startswith("| SoA, Car::path full |")]
    assert row == ["| SoA, Car::path full | 5.28 s | — | — | 1 s (cars 600 ms, controllers 400 ms) |"]


def test_fig11_keeps_the_total_only_for_results_without_the_counters(monkeypatch, tmp_path):
    fig, body = fig11_of(monkeypatch, tmp_path, split=False)
    assert split_axes(fig) == {}
    assert len(fig.axes) == 2 * 3  # time and bytes, one column per field
    assert "our benchmark times the whole step" in body and "no split is drawn" in body
    row = [r for r in body.splitlines() if r.startswith("| SoA, Car::path full |")]
    assert row == ["| SoA, Car::path full | 5.28 s | — | — | 1 s |"]

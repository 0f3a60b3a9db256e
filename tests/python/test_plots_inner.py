"""Springer et al. 2018 (inner arrays) figures and claims, on the synthetic fixture (synthetic,
BFS with both searches, and traffic benchmarks).

The fixture folder is written by fixtures/make_inner_fixture.py into a temporary folder
(deterministic; its claims have designed verdicts, listed in the generator's docstring).
"""

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from plots.claims import (NOT_MEASURED, NOT_REPRODUCED, REPRODUCED, Scope, evaluate_claims,
                          load_claims)
from plots.load import load_results
from plots.names import parse_name
from plots.papers import PAPERS

from tests.python.report_checks import (assert_figures_written, load_fixture_generator,
                                        one_worker, rendered_once, report_of, claim_row)

FIGURES = ("inner_fig10a", "inner_scaling", "inner_fig10b", "inner_footprint", "inner_fig11")
DESIGNED = {
    "synthetic-soa-object-over-aos-30pct": REPRODUCED,
    "synthetic-soa-full-order-of-magnitude": REPRODUCED,
    "synthetic-soa-partial-no-gain-above-32": REPRODUCED,
    "bfs-soa-clearly-faster-than-aos": REPRODUCED,
    "bfs-aos-degrades-with-inlining": REPRODUCED,
    "bfs-soa-full-no-gain-over-object": NOT_REPRODUCED,
    "bfs-partial-3-inlines-over-80pct": REPRODUCED,
    "bfs-persistent-soa-full-within-3us-per-level": REPRODUCED,  # beyond the paper
    "synthetic-partial-branch-negligible": NOT_REPRODUCED,
    "traffic-soa-faster-than-aos-every-strategy": REPRODUCED,
    # read on the whole step and on the cars' kernels: the fixture has no cars/controllers
    # split, so its second reading is not measured (test_claims_inner_traffic.py and
    # test_claims_like_for_like.py judge both readings)
    "traffic-path-full-15pct-over-object": NOT_MEASURED,
    "traffic-path-partial-from-6-slightly-better": REPRODUCED,
    "traffic-path-partial-15-no-loss": REPRODUCED,
    "traffic-path-partial-15-less-memory": REPRODUCED,
    "traffic-cell-arrays-little-gain": NOT_REPRODUCED,
    "traffic-cell-one-element-inlines-95pct": REPRODUCED,
    "traffic-step-within-100us": NOT_REPRODUCED,  # beyond the paper: 0.9 ms a step
}
BEYOND_PAPER = {"bfs-persistent-soa-full-within-3us-per-level", "traffic-step-within-100us"}
SECOND = {"synthetic": "objects", "bfs": "graph", "traffic": "field"}
SOURCES = Path(__file__).resolve().parents[2].parent / "shared" / "papers" / "source"


# On the worker that draws this report for the other files too: drawn once (one_worker).
pytestmark = one_worker("inner_quick")


@pytest.fixture(scope="module")
def fixture(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fixture") / "inner_quick"
    load_fixture_generator("inner").write_fixture(folder)
    return folder


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    return rendered_once("inner_quick", tmp_path_factory)[0]  # the same generator's folder


@pytest.fixture(scope="module")
def device(fixture):
    (device,) = load_results([fixture]).devices
    return device.for_paper("inner")


def verdicts_of(benchmarks, prefer=PAPERS["inner"].prefer):
    scope = Scope(tuple(benchmarks), {}, prefer, PAPERS["inner"].sweep)
    return {v.claim_id: v for v in evaluate_claims(load_claims(PAPERS["inner"].claims_file),
                                                   scope)}


def test_fixture_names_follow_the_convention(device):
    for b in device.benchmarks:
        parsed = parse_name(b.name)
        assert parsed["paper"] == "inner" and parsed["precision"] == "int"
        assert parsed["version"] in ("none", "partial", "full", "object")
        assert list(parsed["params"])[0] == "inline"
        assert list(parsed["params"])[1] == SECOND[parsed["app"]]
        if parsed["app"] == "traffic":
            assert list(parsed["params"])[2:] == ["network", "cars", "steps"]


def test_every_figure_is_written_as_png_and_svg_without_text_outside(report):
    assert_figures_written(report, FIGURES)
    text = (report / "REPORT.md").read_text()
    for stem in FIGURES:
        assert f"](figures/{stem}.png)" in text


def test_report_verdicts_are_the_designed_ones(report):
    text = (report / "REPORT.md").read_text()
    assert "## Inner array inlining for SoA (Springer, Sun & Masuhara 2018)" in text
    assert "12 reproduced, 4 not reproduced, 0 inconclusive, 0 not transferable, 1 not measured." in text
    for claim_id, verdict in DESIGNED.items():
        row = claim_row(text, claim_id)
        assert f" | {verdict} | " in row, claim_id
        assert ("(beyond the paper)" if claim_id in BEYOND_PAPER else "GTX 980") in row, claim_id


def test_claim_values_read_at_the_papers_count_and_per_graph(device):
    verdicts = verdicts_of(device.benchmarks)
    assert {i: v.verdict for i, v in verdicts.items()} == DESIGNED
    assert verdicts["synthetic-soa-object-over-aos-30pct"].value == \
        pytest.approx([1.5, 1.45], rel=0.03)
    assert verdicts["synthetic-soa-full-order-of-magnitude"].value == \
        pytest.approx([12, 11.6], rel=0.03)
    assert "objects 262144" in verdicts["synthetic-soa-full-order-of-magnitude"].note
    assert "'order of magnitude': band 3.16 – 31.6" in \
        verdicts["synthetic-soa-full-order-of-magnitude"].note
    assert "graphs roadnet-pa" in verdicts["bfs-soa-full-no-gain-over-object"].note
    assert verdicts["bfs-soa-full-no-gain-over-object"].value == pytest.approx(14 / 12, rel=0.03)


@pytest.mark.parametrize("app", ["bfs", "traffic"])
def test_an_apps_claims_are_not_measured_without_its_runs_and_name_what_is_absent(device, app):
    others = [b for b in device.benchmarks if b.app != app]
    verdicts = verdicts_of(others)
    for claim_id, verdict in verdicts.items():
        expected = NOT_MEASURED if claim_id.startswith(app) else DESIGNED[claim_id]
        assert verdict.verdict == expected, claim_id
    absent = {"bfs": ("bfs-soa-full-no-gain-over-object", "absent: bfs/full/soa/int"),
              "traffic": ("traffic-path-full-15pct-over-object",
                          "absent: traffic/full/soa/int/field:path")}
    claim_id, text = absent[app]
    assert text in verdicts[claim_id].note


def test_a_claim_missing_one_of_its_inline_sizes_is_not_measured_naming_it(device):
    without = [b for b in device.benchmarks if not (b.app == "bfs" and b.layout == "aos"
                                                    and b.params.get("inline") == 3)]
    verdict = verdicts_of(without)["bfs-aos-degrades-with-inlining"]
    assert verdict.verdict == NOT_MEASURED
    assert "absent: bfs/partial/aos/int/inline:3" in verdict.note


def test_the_papers_claims_read_the_papers_search_where_the_persistent_one_matches_too(device):
    """Both searches share strategy, layout, N and graph; the paper's claims take the paper's
    (the paper's `prefer`), and without it every BFS time claim is ambiguous."""
    assert verdicts_of(device.benchmarks)["bfs-soa-full-no-gain-over-object"].value == \
        pytest.approx(14 / 12, rel=0.03)  # per level; the persistent search's ratio is 1
    unpreferred = verdicts_of(device.benchmarks, prefer={})["bfs-soa-full-no-gain-over-object"]
    assert unpreferred.verdict == NOT_MEASURED and "is ambiguous" in unpreferred.note
    target = verdicts_of(device.benchmarks)["bfs-persistent-soa-full-within-3us-per-level"]
    assert target.value == pytest.approx(2.5e-6, rel=0.02)


def test_fig10b_draws_the_searches_beyond_the_paper_beside_its_own_with_each_time_per_level(report, device):
    from plots.inner import bfs_level_table, searches_drawn
    assert searches_drawn([device], "bfs") == [None, "persistent", "queue"]
    paper_only = SimpleNamespace(benchmarks=[b for b in device.benchmarks if "search" not in b.params])
    assert searches_drawn([paper_only], "bfs") == [None]
    no_queue = SimpleNamespace(label=device.label, benchmarks=[
        b for b in device.benchmarks if b.params.get("search") != "queue"])
    assert searches_drawn([no_queue], "bfs") == [None, "persistent"]
    assert "| µs a level (queue) |" not in bfs_level_table([no_queue])
    assert searches_drawn([device], "synthetic") == [None]
    rows = {tuple(r.split(" | ")[1:4]): r.split(" | ") for r in
            bfs_level_table([device]).splitlines() if r.startswith("| ")}
    soa_full = rows[("SoA", "full", "9")]
    assert [float(soa_full[5]), float(soa_full[7]), float(soa_full[9].rstrip(" |"))] == \
        pytest.approx([12e-3 / 786 * 1e6, 2.5, 1.5], rel=0.02)
    # the paper's run errored (no time per level), the persistent one did not
    assert rows[("AoS", "partial", "7")][4:6] == ["does not fit: needs 90 GiB", "—"]
    assert float(rows[("AoS", "partial", "7")][7]) == pytest.approx(4.0, rel=0.02)
    fig10b = section_of((report / "REPORT.md").read_text(), "Fig. 10b — frontier BFS")
    assert "the persistent search (every level in one cooperative launch" in fig10b
    assert "the queue search (the same launch over a frontier queue" in fig10b
    assert "| µs a level (persistent) | time (queue) | µs a level (queue) |" in fig10b


def test_footprint_figure_and_table_read_the_layout_counters(report):
    text = (report / "REPORT.md").read_text()
    assert "| layout | strategy | N | time | % of copy bandwidth | footprint |" in text
    assert "Wasted bytes" in text


def test_every_quote_is_the_papers_sentence_at_its_line():
    doc = json.loads(PAPERS["inner"].claims_file.read_text())
    text = SOURCES / doc["source_text"]
    if not text.is_file():
        pytest.skip(f"the paper's text {text} is not in this checkout's ../shared")
    lines = text.read_text(encoding="utf-8").splitlines()
    for c in doc["claims"]:
        if not c.get("beyond_paper"):
            assert c["quote"] in lines[c["line"] - 1], c["id"]


def test_an_invalid_time_is_drawn_as_not_running_and_the_report_is_still_made(fixture, tmp_path):
    folder = tmp_path / "spoiled"
    folder.mkdir()
    doc = json.loads((fixture / "inner.gpu0.json").read_text())
    victim = "inner/synthetic/partial/soa/int/inline:40/objects:262144/"
    for entry in doc["benchmarks"]:
        if entry["name"].startswith(victim):
            entry["real_time"] = float("nan")
    (folder / "inner.gpu0.json").write_text(json.dumps(doc))
    report = report_of(folder, tmp_path / "run")
    text = (report / "REPORT.md").read_text()
    assert "nan×" not in text and "nan %" not in text and "nan MiB" not in text
    (row,) = [r for r in text.splitlines() if r.startswith("| SoA | partial | 40 |")]
    assert "invalid real_time" in row
    verdict = verdicts_of(load_results([report]).devices[0].for_paper("inner").benchmarks)
    assert verdict["synthetic-soa-partial-no-gain-above-32"].verdict == NOT_MEASURED


def test_traffic_claims_read_the_designed_ratios(device):
    verdicts = verdicts_of(device.benchmarks)
    assert verdicts["traffic-path-full-15pct-over-object"].value == \
        pytest.approx(1.04 / 0.9, rel=0.03)
    assert verdicts["traffic-cell-one-element-inlines-95pct"].value == \
        pytest.approx([1 - 0.05 / 1.05] * 2, rel=1e-3)
    assert "networks lowermanhattan-tiled-8x8" in \
        verdicts["traffic-soa-faster-than-aos-every-strategy"].note


def section_of(text, heading):
    start = text.index(f"\n### {heading}\n")
    return text[start:text.index("\n### ", start + 1)]


def test_fig11_section_sits_after_the_footprint_and_before_the_goal_and_claims(report):
    text = (report / "REPORT.md").read_text()
    order = [text.index(f"\n### {h}") for h in (
        "Memory footprint per strategy", "Fig. 11 — traffic simulation",
        "Speed goal of issue 23 (not a paper claim)", "Claims")]
    assert order == sorted(order)


def test_fig11_states_the_papers_times_beside_ours_and_that_ours_are_not_split(report):
    fig11 = section_of((report / "REPORT.md").read_text(), "Fig. 11 — traffic simulation")
    assert "network lowermanhattan-tiled-8x8, 229K cars, 1000 steps" in fig11
    # the GTX 980 times are the authors' repository's, not the paper's (issue 35, §5)
    assert "from their repository (prg-titech/ikra-cpp, `bench_result_runtime.csv`" in fig11
    assert "| configuration | authors' GTX 980: cars |" in fig11
    assert "our benchmark times the whole step" in fig11
    assert "no split is drawn or estimated" in fig11
    rows = {r.split(" | ")[0][2:]: r for r in fig11.splitlines() if r.startswith("| ")}
    assert rows["SoA, every array full"].startswith(
        "| SoA, every array full | 5.28 s | 6.10 s | 11.38 s | ")
    assert rows["AoS, every array full"].endswith(" | 15.55 s | 1.21 s |")
    assert rows["SoA, every array as object"].endswith(" not in the sweep (one field at a time) |")
    assert rows["Cell::incoming N = 1: arena"] == \
        "| Cell::incoming N = 1: arena | 3.49 MB | 1.59 MB |"


# The paper's configurations (Fig. 11's table rows) as our runs: field swept, layout, strategy,
# N (None: any, the only run of that field and layout).
OURS = {"SoA, every array full": ("none", "soa", None, None),
        "AoS, every array full": ("none", "aos", None, None),
        "SoA, Car::path as object": ("path", "soa", "object", None),
        "SoA, Car::path full": ("path", "soa", "full", None),
        "SoA, Car::path partial N = 0": ("path", "soa", "partial", 0),
        "SoA, Car::path partial N = 6": ("path", "soa", "partial", 6),
        "SoA, Car::path partial N = 15": ("path", "soa", "partial", 15)}


def test_fig11s_table_gives_each_configuration_the_time_of_its_own_run(report, device):
    """Issue 42 item 3: each row's time is the run of that field, layout, strategy and N."""
    from plots.text import time_cell
    fig11 = section_of((report / "REPORT.md").read_text(), "Fig. 11 — traffic simulation")
    rows = {r.split(" | ")[0][2:]: r.split(" | ") for r in fig11.splitlines() if r.startswith("| ")}
    for what, (field, layout, version, inline) in OURS.items():
        (run,) = [b for b in device.benchmarks if b.app == "traffic"
                  and (b.params["field"], b.layout) == (field, layout)
                  and version in (None, b.version) and inline in (None, b.params["inline"])]
        assert rows[what][-1] == f"{time_cell(run.time_s)} |", what
    assert len({rows[what][-1] for what in OURS}) > 4  # the runs' times differ

def test_the_speed_goal_is_stated_once_in_its_own_section_not_again_in_fig11(report):
    text = (report / "REPORT.md").read_text()
    fig11 = section_of(text, "Fig. 11 — traffic simulation")
    assert "This project's goal, not the paper's" not in fig11
    assert text.count("This project's goal, not the paper's") == 1


def test_speed_goal_is_stated_against_the_measured_time_apart_from_the_claims(report):
    text = (report / "REPORT.md").read_text()
    goal = section_of(text, "Speed goal of issue 23 (not a paper claim)")
    assert "at most 1.1 s, at least 10× the GTX 980's 11.4 s" in goal
    (line,) = [r for r in goal.splitlines() if r.startswith("- ")]
    assert line.startswith("- NVIDIA H100 80GB HBM3: 897 ms on 7.95M cells") and \
        line.endswith(": **met**")
    claims = text[text.index("### Claims"):]
    assert "1.1 s" not in claims and "speed goal" not in claims.lower()


def test_the_cars_and_controllers_panel_keeps_a_whole_car_path_sweep_readable():
    """The real Car::path sweep (12 configurations per layout) once drew overlapping tick
    labels in the split panel, which the fixtures' shorter sweeps did not show."""
    from types import SimpleNamespace

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from plots import readable
    from plots.inner_traffic import _split_panel

    bench = SimpleNamespace(counters={"cars_s": 0.15, "controllers_s": 0.18})
    sweep = {"none": [(0, bench)], "partial": [(n, bench) for n in (0, 1, 2, 3, 4, 6, 8, 15, 20, 30)],
             "full": [(30, bench)], "object": [(30, bench)]}
    fig, ax = plt.subplots(figsize=(5.4, 4.2))
    _split_panel(ax, "path", {"aos": sweep, "soa": sweep}, ("ms", 1e-3))
    fig.tight_layout()
    try:
        assert readable.overlapping_ticks(fig) == []
    finally:
        plt.close(fig)


def test_the_fig11_table_sets_our_controller_mix_beside_the_papers(monkeypatch):
    """Issue 35 §5: the network's counts come from the results' counters, each beside the
    paper's; results without them say so instead of pointing at a log."""
    from types import SimpleNamespace
    import plots.inner_traffic as traffic
    monkeypatch.setattr(traffic, "matches", lambda b, selector: True)
    counters = {"cells": 8_160_000, "lights": 63_880, "yield_controllers": 51_640,
                "signal_groups": 267_008}
    device = SimpleNamespace(label="H200", benchmarks=[
        SimpleNamespace(counters={"cells": 1}),  # an older run: no mix, skipped
        SimpleNamespace(counters=counters)])
    text = traffic.network_mix([(device, {"network": "n"})])
    assert "51,640 yield controllers (10.78× the paper's)" in text
    assert "63,880 traffic lights (1.02× the paper's)" in text
    assert "8,160,000 cells (0.98× the paper's)" in text
    assert text.startswith("Ours (H200's results): ")
    old = SimpleNamespace(label="H100", benchmarks=[SimpleNamespace(counters={"cells": 1})])
    assert "not in these results" in traffic.network_mix([(old, {"network": "n"})])


def test_both_cell_arrays_apart_change_nothing_fig11_draws_or_a_claim_reads(fixture, tmp_path):
    """Field cells (both cell arrays apart at once: Kofler's method's choice for the cell,
    beyond the paper, issue 39 §2) is judged by the regret table alone: Fig. 11's columns,
    tables and the claims read the same with its runs beside the paper's sweep."""
    from plots import inner_traffic as fig11
    doc = json.loads((fixture / "inner.gpu0.json").read_text())
    added = [dict(e, **{k: e[k].replace("/field:incoming/", "/field:cells/") for k in ("name", "run_name")})
             for e in doc["benchmarks"]
             if e["name"].startswith(("inner/traffic/object/soa/", "inner/traffic/none/soa/"))
             and "/field:incoming/" in e["name"]]
    assert added
    folder = tmp_path / "with_cells"
    folder.mkdir()
    (folder / "inner.gpu0.json").write_text(json.dumps(dict(doc, benchmarks=doc["benchmarks"] + added)))
    (before,) = load_results([fixture]).devices
    (after,) = load_results([folder]).devices
    assert {b.params["field"] for b in after.benchmarks if b.app == "traffic"} >= {"cells"}
    point = fig11.traffic_point(before)
    assert fig11.traffic_point(after) == point
    def curves(device):
        return {(field, layout, strategy): [(n, b.name) for n, b in points]
                for field in fig11.FIELDS for layout in ("aos", "soa")
                for strategy, points in fig11.field_curves(device, point, layout, field).items()}
    assert curves(after) == curves(before)
    assert fig11.paper_table([after]) == fig11.paper_table([before])
    assert fig11.footprint_table([after]) == fig11.footprint_table([before])
    assert {k: (v.verdict, v.value) for k, v in verdicts_of(after.for_paper("inner").benchmarks).items()} == \
        {k: (v.verdict, v.value) for k, v in verdicts_of(before.for_paper("inner").benchmarks).items()}

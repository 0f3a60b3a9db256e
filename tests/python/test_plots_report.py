"""python3 -m plots: figures, REPORT.md and the CLI's behaviour on bad input."""

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from plots import idw
from plots.__main__ import main
from plots.claims import load_claims
from plots.figures import write_atomically
from plots.load import load_results
from plots.papers import PAPERS

from tests.python.report_checks import (assert_figures_written, claim_row, claim_rows,
                                        load_fixture_generator, one_worker, rendered_once)

FIXTURES = Path(__file__).parent / "fixtures"
FIXTURE = FIXTURES / "idw_quick"
FIGURES = ("idw_fig7", "idw_fig8", "idw_fig2", "idw_builtin_vs_aoas", "idw_pct_of_limit")
REPO = Path(__file__).resolve().parents[2]


# On the worker that draws this report for the other files too: drawn once (one_worker).
pytestmark = one_worker("idw_quick")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """One CLI run on a copy of the fixture, without --out: output lands in that folder."""
    return rendered_once("idw_quick", tmp_path_factory)


@pytest.fixture(scope="module")
def report(run):
    return run[0]


def test_every_figure_is_written_as_png_and_svg(report):
    assert_figures_written(report, FIGURES)


def test_panels_without_data_say_not_measured(report):
    assert "not measured" in (report / "figures" / "idw_fig2.svg").read_text()
    assert "not measured" not in (report / "figures" / "idw_fig7.svg").read_text()


def test_titles_name_figure_gpu_and_preset(report):
    svg = (report / "figures" / "idw_fig7.svg").read_text()
    for words in ("Fig. 7", "NVIDIA H100 80GB HBM3", "preset quick"):
        assert words in svg


def test_report_has_one_claims_row_per_claim(report):
    text = (report / "REPORT.md").read_text()
    ids = [cid for cid, _ in claim_rows(text)]
    assert ids == [claim["id"] for claim in load_claims(PAPERS["idw"].claims_file)]
    assert "| claim | paper | ours (interval) | verdict |" in text
    assert "24 reproduced, 5 not reproduced, 1 inconclusive, 11 not transferable, 8 not measured." in text
    tiled = claim_row(text, "float-tiled-aoas-over-aos")
    assert "l.108: “The result also indicates that: the AoaS is about 1.25" in tiled
    assert "| 1.01× | 1.01× (0.997–1.02) | reproduced |" in tiled
    cdp = claim_row(text, "float-cdp-ordering")
    assert "| soa > aoas > aos | aoas / soa 1.08×, aos / aoas 1.68× (1.07–1.09, 1.67–1.69) | reproduced |" in cdp
    speedup = claim_row(text, "float-speedup-naive-aoas")
    assert "| not transferable |" in speedup and "GT640" in speedup
    original = claim_row(text, "cdp-improved-over-original-p2")
    assert "| reproduced |" in original
    assert ("sizes 10240, the only size where every variant was run (skipped 51200: not run "
            "for cdp-original/soa/float/p:2)") in original
    p3 = claim_row(text, "cdp-improved-over-original-p3")
    assert "| not measured |" in p3 and "absent: cdp-original/soa/float/p:3 (every size)" in p3
    target = claim_row(text, "roofline-float-p2-within-limit")
    assert "| ≤ 1.25× the limit | — | not measured |" in target
    assert "size 1024000 not run for roofline/aoas/float/p:2 (run at 10240–51200 (2))" in target


def test_the_summary_comes_first_and_counts_each_papers_verdicts(report):
    """Issue 36: the first 40 lines hold the summary; its counts are the claims table's."""
    from plots.html import slug
    text = (report / "REPORT.md").read_text()
    lines = text.splitlines()
    assert lines[0] == "# Layout benchmark report — NVIDIA H100 80GB HBM3"
    head = "\n".join(lines[:40])
    assert "## Summary" in head and "· preset quick · commit" in head
    row = next(l for l in lines[:40] if l.startswith("| [IDW interpolation"))
    assert row == (f"| [IDW interpolation layouts (Mei & Tian 2016)](#{slug('IDW interpolation layouts (Mei & Tian 2016)')}) "
                   "| 24 | 5 | 1 | 11 | 8 | 49 |")
    assert "(#idw-interpolation-layouts-mei--tian-2016)" in row  # GitHub's anchor
    assert "`idw`: closest to its ceiling `idw/shepard/roofline/aoas/float/p:2/size:51200/block:256`" in head
    # another GPU's reference is committed (the H200): its compare command
    assert f"make compare A=nvidia-h200 B={report}" in head


def test_the_device_table_has_a_row_per_file_and_the_differences_as_columns(tmp_path):
    """Two cards of one GPU (a reference completed on a second card): one table, a row per
    result file, the columns where they differ (the card, its ceilings), the rest once."""
    folder = tmp_path / "ref"
    shutil.copytree(FIXTURE, folder)
    other = json.loads((FIXTURE / "idw.gpu0.json").read_text())
    other["context"]["lb"]["gpu"]["uuid"] = "GPU-second-card"
    other["context"]["lb"]["ceilings"]["copy_bandwidth_gbs"] = 1234.5
    for entry in other["benchmarks"]:
        for key in ("name", "run_name"):
            entry[key] = "kofler" + entry[key].removeprefix("idw")
    (folder / "kofler.gpu0.json").write_text(json.dumps(other))
    from plots import summary
    text = summary.devices_section(load_results([folder]))
    table = [l for l in text.splitlines() if l.startswith("| ")]
    assert table[0].startswith("| card | result file | copy_bandwidth_gbs |")
    assert len(table) == 1 + 2  # the header, a row per file
    assert "| `GPU-second-ca…` | `kofler.gpu0.json` | 1234 |" in text  # .4g
    assert "(suites from 2 cards)" not in table[0] and "“suites from N cards”" in text
    assert "- gpu: name NVIDIA H100 80GB HBM3; compute_capability 9.0" in text
    assert "sm_count" not in table[0]


def test_report_embeds_figures_and_lists_context_and_flags(report):
    text = (report / "REPORT.md").read_text()
    for stem in FIGURES:
        assert f"](figures/{stem}.png)" in text and f"(figures/{stem}.svg)" in text
    assert "Read 73 benchmarks (577 JSON entries)" in text
    assert "| 3e+13 |" in text.split("## Devices")[1].split("\n## ")[0]  # fp32_fma_per_s
    assert "GT640" in text and "CUDA 5.5" in text
    assert "**error** `idw/shepard/tiled/hybrid/double/p:2/size:51200/block:256`" in text
    assert "**spread" in text and "**throttled**" in text
    assert "\n| naive | float | 10K |" in text  # one GPU: no GPU column


def test_roofline_is_its_own_series_in_the_speedup_and_limit_figures(report):
    (device,) = load_results([FIXTURE]).devices
    for precision in ("float", "double"):
        sizes, speedups = idw.roofline_speedup(device, precision)
        assert sizes == [10240, 51200]
        tiled = idw.speedup_curves(device, "tiled", precision, ("aoas",))["aoas"][1]
        assert all(r > t for r, t in zip(speedups, tiled))  # the fixture's roofline is faster
        assert "roofline" not in idw.speedup_curves(device, "tiled", precision,
                                                    idw.DOUBLE_LAYOUTS)
    limit = idw.limit_curves(device, "roofline", ("aoas",))["aoas"]
    assert limit[0] == [10240, 51200] and 80 < limit[1][1] < 100
    assert set(idw.limit_curves(device, "cdp-original")) == {"soa", "aos", "aoas"}
    assert idw.limit_curves(device, "cdp-original")["soa"][0] == [10240]
    for stem in ("idw_fig7", "idw_fig8", "idw_pct_of_limit"):
        svg = (report / "figures" / f"{stem}.svg").read_text()
        assert "roofline (aoas)" in svg, stem
    fig7 = (report / "figures" / "idw_fig7.svg").read_text()
    assert "tiled + roofline (aoas)" in fig7 and "in the tiled panel" in fig7
    assert "roofline target (1.25× limit)" in (report / "figures" /
                                               "idw_pct_of_limit.svg").read_text()
    assert "roofline" not in (report / "figures" / "idw_fig2.svg").read_text()


def test_report_tables_the_roofline_time_against_its_limit(report):
    text = (report / "REPORT.md").read_text()
    assert "| precision | p | size | time | limit_s | time / limit | % of limit |" in text
    rows = [line for line in text.splitlines() if line.startswith("| float | 2 | 50K |")]
    assert len(rows) == 1 and "| 1.16× |" in rows[0]
    assert "Black dashed line in the tiled panel" in text


def test_fig2_draws_cdp_original_over_the_sizes_it_has(report):
    text = (report / "REPORT.md").read_text()
    assert "its curves cover the sizes it was run at (10K)" in text
    svg = (report / "figures" / "idw_fig2.svg").read_text()
    assert "cdp-original SoA" in svg and "cdp-improved AoaS" in svg
    assert "not measured" in svg  # the fixture has no p = 3 CDP runs


def test_cli_prints_one_line_per_file_written_by_default_into_the_results_folder(run):
    folder, stdout = run
    lines = stdout.splitlines()
    assert len(lines) == 2 * len(FIGURES) + 2
    assert all(line.startswith("wrote ") and Path(line[6:]).is_file() for line in lines)
    assert lines[-2:] == [f"wrote {folder / 'REPORT.md'}", f"wrote {folder / 'report.html'}"]


def test_several_folders_are_several_gpus(tmp_path):
    folders = []
    for gpu in ("NVIDIA H100 80GB HBM3", "NVIDIA H200"):
        folder = tmp_path / gpu.split()[-1]
        shutil.copytree(FIXTURE, folder)
        path = folder / "idw.gpu0.json"
        doc = json.loads(path.read_text())
        doc["context"]["lb"]["gpu"].update(name=gpu, uuid=f"GPU-{gpu}")
        path.write_text(json.dumps(doc))
        folders.append(str(folder))
    out = tmp_path / "out"
    assert main(["--out", str(out), *folders]) == 0
    text = (out / "REPORT.md").read_text()
    assert "### Claims — NVIDIA H100 80GB HBM3 (preset quick)" in text
    assert "### Claims — NVIDIA H200 (preset quick)" in text
    assert "NVIDIA H200" in (out / "figures" / "idw_fig8.svg").read_text()


def broken_results(tmp_path, breakage):
    folder = tmp_path / "run"
    if breakage != "missing folder":
        folder.mkdir()
    if breakage == "malformed JSON":
        (folder / "idw.gpu0.json").write_text('{"context": {}, "benchmarks": [')
    return folder


@pytest.mark.parametrize("breakage", ["missing folder", "malformed JSON", "no result files"])
def test_bad_input_exits_nonzero_with_one_message_and_writes_nothing(tmp_path, capsys,
                                                                      breakage):
    out = tmp_path / "out"
    assert main(["--out", str(out), str(broken_results(tmp_path, breakage))]) != 0
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and captured.err.startswith("plots: error: ")
    assert "run" in captured.err
    assert captured.out == ""
    assert not out.exists()


def test_bad_input_from_the_shell_shows_no_traceback(tmp_path):
    folder = broken_results(tmp_path, "malformed JSON")
    result = subprocess.run([sys.executable, "-m", "plots", str(folder)],
                            cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "idw.gpu0.json:1: malformed JSON" in result.stderr


def test_cli_without_arguments_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([])
    assert exit_info.value.code == 2
    assert "RESULTS_DIR" in capsys.readouterr().err


def test_spread_flag_threshold_comes_from_the_run_context(tmp_path):
    folder = tmp_path / "run"
    shutil.copytree(FIXTURE, folder)
    path = folder / "idw.gpu0.json"
    doc = json.loads(path.read_text())
    doc["context"]["lb"]["run"]["spread_flag_pct"] = 10.0
    doc["benchmarks"] = [e for e in doc["benchmarks"] if "/naive/soa/float/" in e["name"]
                         or "/cpu-serial/" in e["name"]]
    path.write_text(json.dumps(doc))
    assert main(["--out", str(tmp_path / "out"), str(folder)]) == 0
    assert "**spread" not in (tmp_path / "out" / "REPORT.md").read_text()


def test_atomic_write_keeps_the_old_file_when_writing_fails(tmp_path):
    target = tmp_path / "REPORT.md"
    target.write_text("old report")

    def fail_halfway(temp):
        Path(temp).write_text("half")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        write_atomically(target, fail_halfway)
    assert target.read_text() == "old report"
    assert [p.name for p in tmp_path.iterdir()] == ["REPORT.md"]


def test_committed_fixture_matches_its_generator():
    spec = importlib.util.spec_from_file_location("make_idw_fixture",
                                                  FIXTURES / "make_idw_fixture.py")
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    assert json.loads((FIXTURE / "idw.gpu0.json").read_text()) == generator.build_fixture()
    # 400 kB, plus the 8 kB of kriging_runs.json (three H100 runs, the claims' stability test)
    # and the other papers' fixture generators (their results are written at test time; 1 kB
    # more for N-body's roofline rows, 1 kB for BFS's persistent-search rows (issue 38), 3 kB for
    # the Kofler kdlg-tree-plus rows (issue 39)); the planner's fixtures (plans/, registry.json:
    # test_plans.py, test_suite_registry.py) apart
    planner = [FIXTURES / "plans", FIXTURES / "registry.json"]
    assert sum(p.stat().st_size for p in FIXTURES.rglob("*") if p.is_file()
               and not any(p == q or q in p.parents for q in planner)) < 436_000


@pytest.mark.parametrize("extra, says", [(0, False), (3, True)])
def test_the_header_says_when_the_run_planned_more_than_the_folder_holds(tmp_path, extra, says):
    from plots.report import _header
    folder = tmp_path / "run"
    shutil.copytree(FIXTURE, folder)
    held = len({b.name for f in load_results([folder]).files for b in f.benchmarks})
    (folder / "run.json").write_text(json.dumps({"plan": {"idw": held + extra}}))
    header = _header(load_results([folder]))
    assert ("**Incomplete run:**" in header) == says
    if says:
        assert f"holds {held} of the {held + 3} benchmarks its run planned (idw {held} of {held + 3})" \
            in header


# ---------------------------------------------------------------------------- a split run

def dealt_to_two_cards(folder, split=True):
    """idw_quick as `run.py --split` leaves it on two identical cards: every other benchmark
    in each card's result file (two UUIDs, one GPU name), and a run.json saying whether the
    run was split (None: no run.json)."""
    doc = json.loads((FIXTURE / "idw.gpu0.json").read_text())
    names = list(dict.fromkeys(e["run_name"] for e in doc["benchmarks"]))
    folder.mkdir(parents=True)
    for k in (0, 1):
        card = json.loads(json.dumps(doc))
        card["context"]["lb"]["gpu"]["uuid"] = f"GPU-card-{k}"
        card["benchmarks"] = [e for e in doc["benchmarks"] if e["run_name"] in names[k::2]]
        (folder / f"idw.gpu{k}.json").write_text(json.dumps(card))
    if split is not None:
        (folder / "run.json").write_text(json.dumps({"args": {"preset": "quick", "split": split}}))


def test_a_split_run_is_one_gpu_with_every_benchmark_in_the_report(tmp_path, report):
    folder, out = tmp_path / "run", tmp_path / "out"
    dealt_to_two_cards(folder)
    (device,) = load_results([folder]).devices
    assert device.label == "NVIDIA H100 80GB HBM3 ×2 (split)"
    (unsplit,) = load_results([FIXTURE]).devices
    assert sorted(b.name for b in device.benchmarks) == sorted(b.name for b in unsplit.benchmarks)
    assert main(["--out", str(out), str(folder)]) == 0
    text = (out / "REPORT.md").read_text()
    assert [line for line in text.splitlines() if line.startswith("### Claims")] == ["### Claims"]
    devices = text.split("## Devices")[1].split("\n## ")[0]
    assert "| `idw.gpu0.json` |" in devices and "| `idw.gpu1.json` |" in devices \
        and "GPU-card-1" in devices
    # every claim sees all the data: the same verdicts as the unsplit run's
    assert claim_rows(text) == claim_rows((report / "REPORT.md").read_text())
    assert "GPU comparison" not in text  # one GPU: no card-to-card spread of half runs


def test_a_folder_whose_suites_ran_on_two_cards_of_one_gpu_is_that_gpu(tmp_path):
    """A reference completed on a second card of the same GPU (one suite rerun there whole):
    one device holding each card's suites, each file keeping its card's context."""
    folder = tmp_path / "ref"
    shutil.copytree(FIXTURE, folder)
    other = json.loads((FIXTURE / "idw.gpu0.json").read_text())
    other["context"]["lb"]["gpu"]["uuid"] = "GPU-second-card"
    for entry in other["benchmarks"]:
        for key in ("name", "run_name"):
            entry[key] = "kofler" + entry[key].removeprefix("idw")  # another suite's results
    (folder / "kofler.gpu0.json").write_text(json.dumps(other))
    (device,) = load_results([folder]).devices
    assert device.label == "NVIDIA H100 80GB HBM3 (suites from 2 cards)"
    assert {b.paper for b in device.benchmarks if not b.is_host} == {"idw", "kofler"}
    assert {f.path.name for f in device.files} == {"idw.gpu0.json", "kofler.gpu0.json"}
    # the same suite on both cards (without --split) stays two GPUs
    for entry in other["benchmarks"]:
        for key in ("name", "run_name"):
            entry[key] = "idw" + entry[key].removeprefix("kofler")
    (folder / "kofler.gpu0.json").unlink()
    (folder / "idw.gpu1.json").write_text(json.dumps(other))
    assert len(load_results([folder]).devices) == 2


@pytest.mark.parametrize("split", [False, None])
def test_two_cards_of_a_run_that_was_not_split_stay_two_gpus(tmp_path, split):
    dealt_to_two_cards(tmp_path / "run", split)
    devices = load_results([tmp_path / "run"]).devices
    assert [d.label for d in devices] == ["NVIDIA H100 80GB HBM3 #0", "NVIDIA H100 80GB HBM3 #1"]


def test_a_partition_folder_of_a_split_slurm_run_is_one_gpu(tmp_path):
    """With several partitions a Slurm run's results lie in a folder per partition and its
    run.json in the run folder above, its tasks naming the folders."""
    dealt_to_two_cards(tmp_path / "run" / "h100", split=None)
    (tmp_path / "run" / "run.json").write_text(json.dumps(
        {"args": {"split": True}, "tasks": [{"id": 0, "folder": "h100"}, {"id": 1, "folder": "h200"}]}))
    (device,) = load_results([tmp_path / "run" / "h100"]).devices
    assert len(device.benchmarks) == len(load_results([FIXTURE]).devices[0].benchmarks)


def test_a_split_runs_decision_tree_is_its_first_cards(tmp_path):
    """Under --split every card trains the tree on the whole grid (the same names on both
    cards: the first card's kept, no error) and fits its own; the report draws the first's."""
    from plots import kofler_tree
    grid = {"fields": (1, 8), "iterations": (128,), "classes": ("aos", "soa")}
    folder = tmp_path / "run"
    for k, chosen in enumerate(("soa", "aos")):
        path = load_fixture_generator("kofler_tree").write_fixture(tmp_path / f"card{k}", **grid)
        doc = json.loads(path.read_text())
        doc["context"]["lb"]["gpu"]["uuid"] = f"GPU-card-{k}"
        folder.mkdir(exist_ok=True)
        (folder / f"kofler-tree.gpu{k}.json").write_text(json.dumps(doc))
        kofler_tree.write_tree({"format": kofler_tree.FORMAT, "gpu": doc["context"]["lb"]["gpu"],
                                "intervals": [{"from_bytes": 1, "to_bytes": None, "class": chosen}]},
                               kofler_tree.tree_path(folder, k))
    (folder / "run.json").write_text(json.dumps({"args": {"split": True}}))
    (device,) = load_results([folder]).devices
    assert {b.source.name for b in device.benchmarks} == {"kofler-tree.gpu0.json"}
    tree, _, path = kofler_tree.device_tree(device)
    assert path == kofler_tree.tree_path(folder, 0) and tree["gpu"]["uuid"] == "GPU-card-0"
    (section,) = kofler_tree.render([device], tmp_path / "figures")
    assert "1–∞ B: soa" in section.body


def test_bimodal_and_capped_benchmarks_are_flagged_from_the_noise_record(tmp_path):
    """The run's noise rules record what they decided on the median entry (results/README.md):
    a sample still bimodal after re-measuring, and one whose cap ended it off target, are
    listed; one that met its target is not."""
    folder = tmp_path / "run"
    shutil.copytree(FIXTURE, folder)
    path = folder / "idw.gpu0.json"
    doc = json.loads(path.read_text())
    keep = ("/naive/soa/float/p:2/size:10240/", "/naive/aos/float/p:2/size:10240/",
            "/tiled/soa/float/p:2/size:10240/")
    doc["benchmarks"] = [e for e in doc["benchmarks"]
                         if any(k in e["name"] for k in keep) or "/cpu-serial/" in e["name"]]
    noises = dict(zip(keep, (
        {"repetitions": 12, "bimodal": True, "capped": False, "target_met": True},
        {"repetitions": 24, "bimodal": False, "capped": True, "target_met": False,
         "half_width_pct": 3.2, "target_pct": 1},
        {"repetitions": 3, "bimodal": False, "capped": False, "target_met": True})))
    for entry in doc["benchmarks"]:
        for key, noise in noises.items():
            if key in entry["name"] and entry.get("aggregate_name") == "median":
                entry["noise"] = noise
    path.write_text(json.dumps(doc))
    assert main(["--out", str(tmp_path / "out"), str(folder)]) == 0
    flags = (tmp_path / "out" / "REPORT.md").read_text().split("## Errored and flagged")[1]
    assert "**bimodal** after re-measuring (12 repetitions): `idw/shepard/naive/soa/float/p:2" in flags
    assert ("**noise target missed** within the time cap (half-width 3.2 % of the median, "
            "target 1 %): `idw/shepard/naive/aos/float/p:2") in flags
    assert "tiled/soa" not in flags

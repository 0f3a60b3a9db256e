"""Results written under the program interface's counter names (issue 11: bound_s,
pct_of_bound, pct_compute_bound, checked, bytes_written; no x_memory_bound, which plots derive)
render the same report and figure data as results written before, under the old names (the
committed IDW fixture and the kriging fixture generator write the old names)."""

import contextlib
import io
import json
import shutil
from pathlib import Path

import pytest

from plots import compare, idw
from plots.__main__ import main
from plots.claims import evaluate_claim
from plots.kriging import data as kriging_data
from plots.load import Benchmark, load_results

from tests.python.report_checks import one_worker, rendered_once
from tests.python.test_plots_claims import bench as claims_bench, idw_claim
from tests.python.test_plots_claims import name as claims_name, scope as claims_scope

RENAMED = {"limit_s": "bound_s", "pct_of_limit": "pct_of_bound",
           "pct_fma_ceiling": "pct_compute_bound", "checked_points": "checked",
           "output_bytes": "bytes_written"}
DROPPED = ("x_memory_bound",)


def with_new_names(folder, out):
    """A copy of a results folder with every counter under its new name; returns how many
    counters of each old name were renamed or dropped."""
    shutil.copytree(folder, out)
    changed = dict.fromkeys([*RENAMED, *DROPPED], 0)
    for path in out.glob("*.json"):
        doc = json.loads(path.read_text())
        for entry in doc.get("benchmarks", ()):
            for old, new in RENAMED.items():
                if old in entry:
                    entry[new] = entry.pop(old)
                    changed[old] += 1
            for old in DROPPED:
                if entry.pop(old, None) is not None:
                    changed[old] += 1
        path.write_text(json.dumps(doc))
    return changed


def report_text(folder):
    """REPORT.md of a rendered folder, the folder's path replaced."""
    return (folder / "REPORT.md").read_text().replace(str(folder), "<results folder>")


def rendered_pair(name, tmp_path, tmp_path_factory):
    """(changes, reports, devices) of a fixture under the old names (its report drawn once per
    session, report_checks.rendered_once) and under the new ones (its report's text, written
    with --report-only: the same text as a full run, test_results_reports.py; the figures'
    data are compared through the functions that draw them)."""
    old, _ = rendered_once(name, tmp_path_factory)
    new = tmp_path / "new" / "run"
    changed = with_new_names(old, new)
    for path in [*(new / "figures").glob("*"), new / "REPORT.md"]:
        path.unlink()
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--report-only", str(new)]) == 0
    reports = [report_text(f) for f in (old, new)]
    devices = [load_results([f]).devices[0] for f in (old, new)]
    return changed, reports, devices


@one_worker("idw_quick")
def test_idw_results_under_the_new_names_render_the_same_report_and_limit_figure(tmp_path, tmp_path_factory):
    changed, (old_report, new_report), (old, new) = rendered_pair("idw_quick", tmp_path, tmp_path_factory)
    assert changed["limit_s"] > 0 and changed["pct_of_limit"] > 0  # the test renamed something
    assert "| precision | p | size | time | limit_s | time / limit | % of limit |" in new_report
    assert new_report == old_report
    for version in idw.LIMIT_VERSIONS:
        assert idw.limit_curves(new, version) == idw.limit_curves(old, version)
    assert idw.roofline_limit_rows(new) == idw.roofline_limit_rows(old)


@one_worker("kriging_quick")
def test_kriging_results_under_the_new_names_render_the_same_report_and_bound_figure(tmp_path, tmp_path_factory):
    changed, (old_report, new_report), (old, new) = rendered_pair("kriging_quick", tmp_path, tmp_path_factory)
    assert changed["x_memory_bound"] > 0 and changed["checked_points"] > 0
    assert new_report == old_report
    old_values = {b.name: kriging_data.x_memory_bound(b) for b in old.benchmarks
                  if kriging_data.x_memory_bound(b) is not None}
    new_values = {b.name: kriging_data.x_memory_bound(b) for b in new.benchmarks
                  if kriging_data.x_memory_bound(b) is not None}
    assert new_values
    # the ratio of two counters written to 6 significant digits, as Google Benchmark does
    assert new_values == pytest.approx(old_values, rel=2e-5)


# --- the comparison model and the roofline claim under either name --------------------------

def compare_bench(paper="idw", time_s=1e-3, **counters):
    return Benchmark(name=f"{paper}/app/naive/soa/float/size:1", paper=paper, app="app",
                     version="naive", layout="soa", precision="float", params={}, device="gpu",
                     preset="quick", source=Path("x"), time_s=time_s, counters=counters)


def test_the_comparison_model_reads_either_name_and_keeps_kriging_on_its_device_part():
    old = compare.roofline(compare_bench(time_s=2e-3, limit_s=1e-3),
                           compare_bench(time_s=1e-3, limit_s=0.8e-3), {}, {})
    new = compare.roofline(compare_bench(time_s=2e-3, bound_s=1e-3, memory_bound_s=1e-9),
                           compare_bench(time_s=1e-3, bound_s=0.8e-3, memory_bound_s=1e-9), {}, {})
    assert new == old and new.predicted == pytest.approx(0.8)
    # kriging declares bound_s too now; its model stays the device part's memory bound
    part = {"memory_bound_s": 1e-4, "device_s": 1e-3, "bound_s": 1e-4}
    model = compare.roofline(compare_bench("kriging", 5e-3, **part),
                             compare_bench("kriging", 4e-3, **part), {}, {})
    assert model.bound.startswith("memory") and model.measured == pytest.approx(1.0)
    # another paper's bound is not IDW's FMA-or-reciprocal model
    assert compare.roofline(compare_bench("kofler", bound_s=1), compare_bench("kofler", bound_s=1),
                            {}, {}) is None


def test_the_roofline_claim_reads_either_name():
    target = idw_claim("roofline-float-p2-within-limit")
    size = 1024000
    results = [evaluate_claim(target, claims_scope([claims_bench(
        claims_name("roofline", "aoas", size), 1.2e-3, **{key: 1e-3})])) for key in ("limit_s", "bound_s")]
    assert results[0].value == results[1].value == pytest.approx(1.2)
    assert results[0].note == results[1].note

"""python3 -m plots on results whose times are not positive finite numbers.

A `real_time` of 0, below 0, NaN or infinite cannot be a measurement: the benchmark is
reported as invalid in one line naming its file and name, and the rest of the report is made.
"""

import importlib.util
import itertools
import json
import math
import shutil
from pathlib import Path

import pytest

from plots.__main__ import main
from plots.load import load_results

FIXTURES = Path(__file__).parent / "fixtures"
BAD_TIMES = {"zero": 0.0, "negative": -1.5, "nan": math.nan, "inf": math.inf}
# Baselines and GPU versions on both sides of every ratio the figures and claims take.
IDW_VICTIMS = ("idw/shepard/cpu-serial/aos/float/p:2/size:51200",
               "idw/shepard/tiled/aoas/float/p:2/size:10240/block:256",
               "idw/shepard/roofline/aoas/float/p:2/size:51200/block:256",
               "idw/shepard/cdp-original/soa/float/p:2/size:10240/block:256")
KRIGING_VICTIMS = ("kriging/ok/cpu-exp4/soa/double/scale:4/wells:10",
                   "kriging/ok/gpu-exp6/aos-const/float/scale:4/wells:10",
                   "kriging/ok/gpu-exp7/dense/float/scale:1/wells:10")


def spoil(path, bad_times):
    """Give every entry of each victim benchmark (iterations and aggregates) its bad time."""
    doc = json.loads(path.read_text())
    hit = set()
    for entry in doc["benchmarks"]:
        for victim, bad in bad_times.items():
            if entry["name"].startswith(victim + "/"):
                entry["real_time"] = entry["cpu_time"] = bad
                hit.add(victim)
    victims = bad_times.keys()
    assert hit == set(victims), "a victim is not in the fixture"
    path.write_text(json.dumps(doc))  # writes NaN / Infinity as Google Benchmark does


def kriging_fixture(folder):
    spec = importlib.util.spec_from_file_location("make_kriging_fixture",
                                                  FIXTURES / "make_kriging_fixture.py")
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    return generator.write_fixture(folder)


def spoiled_folder(tmp_path, suite, bad_times):
    """A copy of the suite's fixture, its victims given the bad times in turn."""
    folder = tmp_path / "run"
    if suite == "idw":
        shutil.copytree(FIXTURES / "idw_quick", folder)
        victims, file_name = IDW_VICTIMS, "idw.gpu0.json"
    else:
        kriging_fixture(folder)
        victims, file_name = KRIGING_VICTIMS, "kriging.gpu0.json"
    spoil(folder / file_name, dict(zip(victims, itertools.cycle(bad_times))))
    return folder, victims, file_name


@pytest.mark.parametrize("bad", BAD_TIMES.values(), ids=BAD_TIMES.keys())
def test_bad_time_is_an_invalid_benchmark_without_a_time(tmp_path, bad):
    folder, victims, _ = spoiled_folder(tmp_path, "idw", [bad])
    rows = {b.name: b for f in load_results([folder]).files for b in f.benchmarks}
    for victim in victims:
        assert rows[victim].time_s is None and rows[victim].spread is None
        assert rows[victim].invalid and rows[victim].error.startswith("invalid real_time: ")


@pytest.mark.parametrize("suite", ["idw", "kriging"])
def test_report_names_each_invalid_benchmark_once_and_is_still_made(tmp_path, capsys, suite):
    # One report per suite (figures are slow): each victim gets another bad time.
    folder, victims, file_name = spoiled_folder(tmp_path, suite, list(BAD_TIMES.values()))
    assert main([str(folder)]) == 0
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    warnings = captured.err.splitlines()
    assert len(warnings) == len(victims)
    for victim in victims:
        (line,) = [w for w in warnings if f"{victim}:" in w]
        assert line.startswith(f"plots: warning: {folder / file_name}: {victim}: invalid real_time: ")
    text = (folder / "REPORT.md").read_text()
    for victim in victims:
        (row,) = [r for r in text.splitlines() if r.startswith(f"- **invalid** `{victim}`")]
        assert f"(`{file_name}`)" in row
    assert "nan×" not in text and "inf×" not in text
    written = [Path(line[len("wrote "):]) for line in captured.out.splitlines()]
    assert len(written) > 1 and all(p.is_file() for p in written)


def test_an_unvalidated_benchmark_is_flagged_in_the_report(tmp_path):
    """A benchmark whose result could not be checked honestly (kriging exp 7 in float at 1000
    wells: `unvalidated` = 1) is listed with the errors, never passed silently."""
    folder = tmp_path / "run"
    kriging_fixture(folder)
    path = folder / "kriging.gpu0.json"
    doc = json.loads(path.read_text())
    victim = "kriging/ok/gpu-exp7/dense/float/scale:1/wells:10"
    for entry in doc["benchmarks"]:
        if entry["name"].startswith(victim + "/"):
            entry.update(unvalidated=1.0, max_abs_err=1.4, tolerance=5.0)
    path.write_text(json.dumps(doc))
    assert main(["--report-only", str(folder)]) == 0  # the text: the figures are drawn above
    report = (folder / "REPORT.md").read_text()
    flagged = [line for line in report.splitlines() if line.startswith("- **unvalidated**")]
    assert len(flagged) == 1 and victim in flagged[0], flagged

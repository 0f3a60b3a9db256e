"""`make compare A=<run> B=h100`: a reference chosen by GPU name (plots/reference.py).

A references root is built from fixtures, shaped like results/reference/ today: one GPU's
suites spread over several folders (IDW in three: the newest run's wins, an undated one never),
a second GPU ("NVIDIA H200 (synthetic)", make_compare_fixture.py) and a third whose name
contains the second's. A fresh run holding another subset of suites is compared with it
through `make`: the suites and benchmarks on one side only are listed, never an error.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from plots import compare, reference
from plots.load import ResultsError
from tests.python.report_checks import FIXTURES, load_fixture_generator

REPO = Path(__file__).resolve().parents[2]
H100 = "NVIDIA H100 80GB HBM3"


def set_context(folder, date=None, gpu=None):
    for path in folder.glob("*.gpu*.json"):
        doc = json.loads(path.read_text(encoding="utf-8"))
        if date is None:
            doc["context"].pop("date", None)
        else:
            doc["context"]["date"] = date
        if gpu:
            doc["context"]["lb"]["gpu"]["name"] = gpu
        path.write_text(json.dumps(doc), encoding="utf-8")


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """h100-idw (2025-06-01), h100-idw-old (2024), h100-undated (no date): IDW three times;
    h100-kofler: Kofler; h200: the derived GPU; h200-nvl: 'NVIDIA H200' (a part of the
    derived GPU's name)."""
    base = tmp_path_factory.mktemp("references")
    for name, date in (("h100-idw", "2025-06-01T12:00:00+00:00"),
                       ("h100-idw-old", "2024-01-01T12:00:00+00:00"), ("h100-undated", None)):
        shutil.copytree(FIXTURES / "idw_quick", base / name)
        set_context(base / name, date)
    load_fixture_generator("kofler").write_fixture(base / "h100-kofler")
    load_fixture_generator("compare").derive(base / "h100-idw", base / "h200")
    shutil.copytree(base / "h200", base / "h200-nvl")
    set_context(base / "h200-nvl", "2025-06-01T12:00:00+00:00", gpu="NVIDIA H200")
    return base


@pytest.fixture(scope="module")
def fresh_run(tmp_path_factory):
    """A new run with IDW and the inner-array suite (which no reference holds)."""
    run = tmp_path_factory.mktemp("runs") / "2026-01-01_nvidia-h100-80gb-hbm3_quick"
    shutil.copytree(FIXTURES / "idw_quick", run)
    load_fixture_generator("inner").write_fixture(run / "inner")
    for path in (run / "inner").iterdir():
        path.rename(run / path.name)
    (run / "inner").rmdir()
    return run


def test_one_gpu_s_folders_make_one_reference_with_the_newest_run_of_each_suite(root):
    refs = {r.gpu: r for r in reference.references(root)}
    assert sorted(refs) == [H100, "NVIDIA H200", "NVIDIA H200 (synthetic)"]
    h100 = refs[H100]
    assert [f.name for f in h100.folders] == ["h100-idw", "h100-idw-old", "h100-kofler",
                                              "h100-undated"]
    assert {s.name: s.folder.name for s in h100.suites} == {"idw": "h100-idw",
                                                           "kofler": "h100-kofler"}


@pytest.mark.parametrize("name, gpu", [
    ("h100", H100), ("H100", H100), ("nvidia-h100-80gb-hbm3", H100), ("h100-kofler", H100),
    ("synthetic", "NVIDIA H200 (synthetic)"), ("nvidia h200", "NVIDIA H200"),
    ("h200-nvl", "NVIDIA H200"), ("h200", "NVIDIA H200 (synthetic)"),  # a folder's whole name
    ("NVIDIA H200 (synthetic)", "NVIDIA H200 (synthetic)")])
def test_a_name_picks_the_reference_it_matches_exactly_or_alone(root, name, gpu):
    assert reference.resolve(name, root).gpu == gpu


@pytest.mark.parametrize("name, says", [("h20", "'h20' names 2 references"),
                                        ("nvidia", "'nvidia' names 3 references"),
                                        ("a100", "'a100' is neither a results folder nor")])
def test_an_ambiguous_or_unknown_name_is_one_error_listing_the_references(root, name, says):
    with pytest.raises(ResultsError) as error:
        reference.resolve(name, root)
    message = str(error.value)
    assert message.startswith(says)
    assert "- nvidia-h100-80gb-hbm3: NVIDIA H100 80GB HBM3 — idw from `h100-idw` " \
           "(2025-06-01T12:00:00+00:00), kofler from `h100-kofler`" in message
    assert "- nvidia-h200-synthetic: NVIDIA H200 (synthetic) — idw from `h200`" in message


def test_the_reference_side_is_one_gpu_of_every_suite(root):
    side = compare.load_side("h100", root)
    assert side.device.label == H100
    assert {b.paper for b in side.device.benchmarks} == {"idw", "kofler"}
    assert {b.source.parent.name for b in side.device.benchmarks} == {"h100-idw", "h100-kofler"}
    assert "kofler from `h100-kofler`" in side.described


def make_compare(*arguments):
    """`make compare` with this Python, without deps.sh (the tests' Python has the modules)."""
    if not shutil.which("make"):
        pytest.skip("make is not installed")
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    return subprocess.run(["make", "--no-print-directory", "-o", "python-deps", "compare",
                           f"PYTHON={sys.executable}", *arguments], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300)


def test_make_compare_a_fresh_run_with_a_reference_by_name(root, fresh_run, tmp_path):
    out = tmp_path / "out"
    result = make_compare(f"A={fresh_run}", "B=h100", f"REFERENCES={root}", f"OUT={out}")
    assert result.returncode == 0, result.stderr
    assert f"wrote {out / 'COMPARE.md'}" in result.stdout
    assert f"wrote {out / 'report.html'}" in result.stdout
    assert "suites only on A (not compared): inner (" in result.stdout
    assert "suites only on B (not compared): kofler (" in result.stdout
    text = (out / "COMPARE.md").read_text(encoding="utf-8")
    assert f"B = `h100` (the {H100} reference, preset quick: idw from `h100-idw`" in text
    assert "- suite `inner`: only on A (" in text and "- suite `kofler`: only on B (" in text
    assert "only on B: `kofler/" not in text and "only on A: `inner/" not in text
    assert "- **idw** (" in text and "benchmark(s)): B takes" in text  # the per-suite answer
    assert "| inner |" not in text  # a suite on one side only has no verdicts compared


def test_make_compare_with_an_unknown_name_is_one_message_and_writes_nothing(root, fresh_run,
                                                                            tmp_path):
    out = tmp_path / "out"
    result = make_compare(f"A={fresh_run}", "B=a100", f"REFERENCES={root}", f"OUT={out}")
    assert result.returncode == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("compare: error:")]
    assert len(errors) == 1 and "'a100' is neither a results folder nor" in errors[0]
    assert not out.exists()


def test_make_compare_usage_names_the_references():
    result = make_compare("A=x")
    assert result.returncode == 2 and "B=<results folder or reference GPU: h100, h200>" in result.stdout

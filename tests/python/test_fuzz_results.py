"""The result JSON that `plots` reads, under fuzz/results_fuzz.py: the regression inputs
(tests/fuzz_regressions/results) load or raise ResultsError, and a short seeded run finds
nothing. `make fuzz SECONDS=...` runs it longer."""

from pathlib import Path

import pytest

from fuzz import results_fuzz
from plots import load

REGRESSIONS = sorted((Path(__file__).parents[1] / "fuzz_regressions" / "results").glob("*"))


@pytest.mark.parametrize("path", REGRESSIONS, ids=[p.name for p in REGRESSIONS])
def test_regression_input_loads_or_is_a_results_error(path, tmp_path):
    results_fuzz.check_one(path.read_bytes(), tmp_path / "results")


def test_short_seeded_run_finds_nothing(tmp_path):
    runs, failures = results_fuzz.fuzz(seconds=4, seed=1, artifacts=tmp_path)
    assert failures == []
    assert runs > 0


def test_an_exception_other_than_results_error_is_a_failure(tmp_path, monkeypatch):
    def broken(folders):
        raise KeyError("context")

    monkeypatch.setattr(results_fuzz, "load_results", broken)
    with pytest.raises(results_fuzz.Failure, match="KeyError"):
        results_fuzz.check_one(b"{}", tmp_path / "results")
    runs, failures = results_fuzz.fuzz(seconds=4, seed=1, runs=1, artifacts=tmp_path / "kept")
    assert runs == 1 and len(failures) == 1
    assert len(list((tmp_path / "kept").glob("results-crash-*.json"))) == 1


def test_a_results_error_must_name_the_file(tmp_path, monkeypatch):
    def vague(folders):
        raise load.ResultsError("something is wrong")

    monkeypatch.setattr(results_fuzz, "load_results", vague)
    with pytest.raises(results_fuzz.Failure, match="does not name the file"):
        results_fuzz.check_one(b"{}", tmp_path / "results")

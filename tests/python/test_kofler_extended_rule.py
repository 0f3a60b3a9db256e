"""tools/kofler_extended_rule.py: the two trial decisions its table compares (docs/advisor.md,
"The extended value"), on made-up trial runs."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

from kofler_extended_rule import aos_unless_beaten, fastest_median  # noqa: E402

CANDS = ("aos", "soa", "kdlg-tree")


def test_aos_stays_unless_a_candidate_is_faster_beyond_both_trials_extremes():
    runs = {"aos": [10, 11, 12], "soa": [9.5, 10.5, 11.5], "kdlg-tree": [9, 12, 12]}
    assert fastest_median(runs, CANDS) == "soa"  # a lower median alone
    assert aos_unless_beaten(runs, CANDS) == "aos"  # but no candidate's slowest run beats 10


def test_of_the_candidates_that_beat_aos_the_smallest_median_wins():
    runs = {"aos": [10, 11, 12], "soa": [8, 9.9, 9.9], "kdlg-tree": [5, 9.0, 9.95]}
    assert aos_unless_beaten(runs, CANDS) == "kdlg-tree"

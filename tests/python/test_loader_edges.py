"""Loader edges that the mutation pass (tools/mutate.py) found unpinned: a coincident pair
split by the duplicate search's cell boundary, a grid axis of two points with hi = lo, and a
leading '+' on a number. Through `layoutbench idw-interpolate` (skipped without the binary)."""

import subprocess
from pathlib import Path

import pytest

BIN = Path(__file__).resolve().parents[2] / "build" / "layoutbench"

pytestmark = pytest.mark.skipif(not BIN.exists(), reason=f"needs the built binary {BIN}")

FAR = "100,0,1\n0,100,2\n100,100,3\n"  # spread-out points around the pair under test


def interpolate(tmp_path, points_text, grid="0:100:3,0:100:3"):
    points, out = tmp_path / "points.csv", tmp_path / "out.csv"
    points.write_text(points_text)
    r = subprocess.run([str(BIN), "idw-interpolate", "--points", str(points), "--grid", grid, "--out", str(out),
                        "--device", "cpu"], capture_output=True, text=True)
    return r, (out.read_text() if out.exists() else None)


# The duplicate search (datasets/points.cpp find_coincident) bins points into cells
# 2 sqrt(1e-12) = 2e-6 wide and compares each point with the earlier points of its 3 x 3 cells:
# these pairs lie 2e-13 apart, the earlier one in the cell below (x or y) the later one.
@pytest.mark.parametrize("first, second", [
    ("1.9999999e-6,50", "2.0000001e-6,50"),
    ("50,1.9999999e-6", "50,2.0000001e-6"),
    ("2.0000001e-6,50", "1.9999999e-6,50"),
])
def test_a_coincident_pair_across_a_cell_boundary_is_found(tmp_path, first, second):
    r, out = interpolate(tmp_path, f"x,y,value\n{first},5\n{FAR}{second},6\n")
    assert r.returncode == 2 and out is None
    assert "points.csv:6: data point coincides with line 2" in r.stderr, r.stderr


@pytest.mark.parametrize("grid, ok", [("5:5:2,0:100:3", False), ("0:100:3,7:7:2", False), ("5:5:1,0:100:3", True),
                                      ("4:5:2,0:100:3", True)])
def test_an_axis_of_two_or_more_points_needs_hi_above_lo(tmp_path, grid, ok):
    r, out = interpolate(tmp_path, f"x,y,value\n50,50,4\n{FAR}", grid=grid)
    if ok:
        assert r.returncode == 0, r.stderr
    else:
        assert r.returncode == 2 and out is None
        assert "hi must be greater than lo" in r.stderr, r.stderr


def test_a_leading_plus_sign_is_the_number(tmp_path):
    r, plain = interpolate(tmp_path, f"x,y,value\n50,50,4\n{FAR}")
    assert r.returncode == 0, r.stderr
    r, signed = interpolate(tmp_path, "x,y,value\n+50,+50,+4\n+100,0,1\n0,+100,2\n100,100,+3\n", grid="+0:+100:3,0:+100:3")
    assert r.returncode == 0, r.stderr
    assert signed == plain

"""`--tile KxL` of `layoutbench street-network` and `layoutbench traffic` end to end: a city of
K x L copies of the network (docs/street-networks.md, "Paper scale") with its statistics and the
table beside the paper's; a bad --tile is one line on stderr, exit 2, nothing on stdout and no
file written. The tiling's rules are tested in tests/cpp/test_street_tiling.cpp. Skipped when
the binary has not been built."""
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "build" / "layoutbench"
SMALL = ROOT / "fuzz" / "corpus" / "street_network" / "old_style.graphml"
MANHATTAN = ROOT.parent / "shared" / "datasets" / "lowermanhattan.graphml"

pytestmark = pytest.mark.skipif(not BIN.exists(), reason=f"needs the built binary {BIN}")


def run(*args):
    return subprocess.run([str(BIN), *map(str, args)], capture_output=True, text=True, timeout=120)


def table_rows(stdout):
    """The table beside the paper's: {row: (paper, ours)} as printed."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("beside the paper"))
    rows = {}
    for line in lines[start + 1:start + 6]:
        name, paper, ours, _ = line.rsplit(None, 3)
        rows[name] = (paper, ours)
    return rows


def test_street_network_tiled_prints_the_city_beside_the_paper():
    r = run("street-network", "--network", SMALL, "--tile", "3x2")
    assert r.returncode == 0, r.stderr
    assert "tiled: 3 x 2 copies of the file's network, joined by" in r.stdout
    assert "weak components 1 (largest 24 nodes; 0 isolated nodes)" in r.stdout
    rows = table_rows(r.stdout)
    assert rows["cells"][0] == "8,339,802" and rows["traffic lights"][0] == "62,819"
    assert rows["yield controllers"][0] == "4,792" and rows["signal groups"][0] == "205,129"
    assert rows["cars"] == ("229,376", "-")


def test_without_tile_the_output_is_as_before():
    r = run("street-network", "--network", SMALL)
    assert r.returncode == 0, r.stderr
    assert "tiled" not in r.stdout and "beside the paper" not in r.stdout


def test_traffic_on_a_tiled_city(tmp_path):
    out = tmp_path / "state.csv"
    r = run("traffic", "--network", SMALL, "--tile", "2x1", "--cars", 30, "--steps", 20, "--out", out)
    assert r.returncode == 0, r.stderr
    assert "tiled: 2 x 1 copies" in r.stdout
    assert table_rows(r.stdout)["cars"] == ("229,376", "30")
    assert "traffic (cpu): 20 steps of 30 cars in" in r.stdout and "invariants hold" in r.stdout
    assert len(out.read_text().splitlines()) == 31


def test_lower_manhattan_at_the_papers_scale():
    if not MANHATTAN.exists():
        pytest.skip(f"shared datasets not present: {MANHATTAN}")
    r = run("street-network", "--network", MANHATTAN, "--tile", "8x8")
    assert r.returncode == 0, r.stderr
    assert "nodes 140544," in r.stdout and "weak components 1 " in r.stdout
    cells = int(table_rows(r.stdout)["cells"][1].replace(",", ""))
    assert 64 * 123696 < cells < 8_339_802


BAD = [
    ("0x3", "--tile '0x3': K and L must lie between 1 and 65536"),
    ("3x", "--tile '3x' is not KxL with K and L positive integers (e.g. 8x8)"),
    ("x3", "--tile 'x3' is not KxL with K and L positive integers (e.g. 8x8)"),
    ("3", "--tile '3' is not KxL with K and L positive integers (e.g. 8x8)"),
    ("100000x100000", "--tile '100000x100000': K and L must lie between 1 and 65536"),
    ("65536x65536", f"{SMALL}: tiled 65536x65536: "),
    ("", "--tile: '' is empty; give a value or leave the option out"),
]


@pytest.mark.parametrize("tile, message", BAD)
def test_street_network_bad_tile_is_one_error_with_exit_2(tile, message):
    r = run("street-network", "--network", SMALL, "--tile", tile)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr.startswith("layoutbench: error: " + message), r.stderr
    assert r.stderr.count("\n") == 1


@pytest.mark.parametrize("tile, message", BAD)
def test_traffic_bad_tile_is_one_error_with_exit_2_and_no_file(tmp_path, tile, message):
    r = run("traffic", "--network", SMALL, "--tile", tile, "--cars", 5, "--steps", 1, "--out", tmp_path / "s.csv")
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr.startswith("layoutbench: error: " + message), r.stderr
    assert r.stderr.count("\n") == 1
    assert not list(tmp_path.iterdir())

"""`layoutbench krige` against an independent ordinary-kriging implementation, PyKrige, for
every variogram model, on data we did not write: nodes of the real lower-Manhattan road
network (../shared/datasets/lowermanhattan.graphml, OpenStreetMap) with each node's mean
incident street length as the value. Skipped without PyKrige, the dataset or the binary.

Conventions: krige's --range is the practical range (variogram.hpp); PyKrige's range is
the same number for the exponential (scale range/3) and spherical models, but its gaussian
uses the scale 4 range' / 7, so range' = range * 7 / (4 sqrt 3). krige's --sill includes the
nugget; PyKrige's psill does not (psill = sill - nugget).

Tolerance: both solve the same ordinary-kriging system in double (PyKrige in its
semivariogram form, krige in the covariance form: the same weights), so they agree to
about kappa(A) u max|Z| (kappa here < 1e5, so < 1e-10 of max|Z|). We allow 1e-8 max|Z|: far
above rounding, far below what a convention mismatch gives (the test shows the gaussian
range taken as PyKrige's moves estimates by more than 1e-4 max|Z|)."""

import csv
import math
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "build" / "layoutbench"
GRAPH = ROOT.parent / "shared" / "datasets" / "lowermanhattan.graphml"

np = pytest.importorskip("numpy")
pykrige_ok = pytest.importorskip("pykrige.ok")
pytestmark = [
    pytest.mark.skipif(not BIN.exists(), reason=f"needs the built binary {BIN}"),
    pytest.mark.skipif(not GRAPH.exists(), reason=f"needs the road network {GRAPH} (../shared/datasets)"),
]

NS = {"g": "http://graphml.graphdrawing.org/xmlns"}
MIN_SPACING_M = 150.0  # wells closer than this make A needlessly ill-conditioned
MAX_WELLS = 60         # the CPU programs hold 64
GRID = (12, 10)        # nx, ny


def road_network_wells():
    """[(x_m, y_m, mean incident edge length)]: nodes in osmid order, greedily thinned to
    MIN_SPACING_M apart, at most MAX_WELLS; coordinates in metres (local equirectangular)."""
    root = ET.parse(GRAPH).getroot()
    keys = {k.get("id"): k.get("attr.name") for k in root.findall("g:key", NS)}
    graph = root.find("g:graph", NS)
    nodes, lengths = {}, {}
    for n in graph.findall("g:node", NS):
        d = {keys[e.get("key")]: e.text for e in n.findall("g:data", NS)}
        nodes[n.get("id")] = (float(d["x"]), float(d["y"]))
    for e in graph.findall("g:edge", NS):
        d = {keys[x.get("key")]: x.text for x in e.findall("g:data", NS)}
        for end in (e.get("source"), e.get("target")):
            lengths.setdefault(end, []).append(float(d["length"]))
    lon0 = sum(x for x, _ in nodes.values()) / len(nodes)
    lat0 = sum(y for _, y in nodes.values()) / len(nodes)
    kx, ky = 111320.0 * math.cos(math.radians(lat0)), 110540.0
    wells = []
    for osmid in sorted(nodes, key=int):
        if osmid not in lengths:
            continue
        lon, lat = nodes[osmid]
        x, y = (lon - lon0) * kx, (lat - lat0) * ky
        if all(math.hypot(x - wx, y - wy) >= MIN_SPACING_M for wx, wy, _ in wells):
            wells.append((x, y, sum(lengths[osmid]) / len(lengths[osmid])))
        if len(wells) == MAX_WELLS:
            break
    return wells


def grid_axes(wells):
    """The wells' bounding box widened by 1 m: no mesh node within rounding of a well, where
    a nugget's discontinuity would compare which side of 0 an ulp of distance falls."""
    xs, ys = [w[0] for w in wells], [w[1] for w in wells]
    x0, x1, y0, y1 = min(xs) - 1.0, max(xs) + 1.0, min(ys) - 1.0, max(ys) + 1.0
    return (x0, x1, np.linspace(x0, x1, GRID[0])), (y0, y1, np.linspace(y0, y1, GRID[1]))


def krige(tmp_path, wells, model, rng, sill, nugget, device="cpu", experiment=4):
    path, out = tmp_path / "wells.csv", tmp_path / f"model-{model}-{device}-{experiment}.csv"
    with open(path, "w") as f:
        f.write("x,y,street_length\n")
        for x, y, z in wells:
            f.write(f"{x!r},{y!r},{z!r}\n")
    (x0, x1, _), (y0, y1, _) = grid_axes(wells)
    args = [BIN, "krige", "--wells", path, "--grid", f"{x0!r}:{x1!r}:{GRID[0]},{y0!r}:{y1!r}:{GRID[1]}",
            "--device", device, "--experiment", experiment, "--model", model, "--range", rng, "--sill", sill,
            "--nugget", nugget, "--out", out]
    r = subprocess.run([str(a) for a in args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert f"variogram: {model}, sill {sill:.6g}, range {rng:.6g} (practical), nugget {nugget:.6g}" in r.stderr
    with open(out, newline="") as f:
        rows = list(csv.reader(f))[1:]
    return np.array([float(row[2]) for row in rows]).reshape(GRID[1], GRID[0])  # x fastest


def pykrige_estimates(wells, model, rng, sill, nugget, pykrige_range=None):
    w = np.array(wells)
    if pykrige_range is None:
        pykrige_range = rng * 7.0 / (4.0 * math.sqrt(3.0)) if model == "gaussian" else rng
    ok = pykrige_ok.OrdinaryKriging(w[:, 0], w[:, 1], w[:, 2], variogram_model=model,
                                    variogram_parameters={"psill": sill - nugget, "range": pykrige_range,
                                                          "nugget": nugget})
    (_, _, gx), (_, _, gy) = grid_axes(wells)
    z, _ = ok.execute("grid", gx, gy)
    return np.asarray(z)  # [ny, nx]


CASES = [("exponential", 0.0), ("exponential", 0.2), ("spherical", 0.0), ("spherical", 0.2), ("gaussian", 0.2)]


@pytest.mark.parametrize("experiment", [4, 8])
@pytest.mark.parametrize("model, nugget_fraction", CASES)
def test_cpu_matches_pykrige(tmp_path, model, nugget_fraction, experiment):
    wells = road_network_wells()
    assert len(wells) >= 50
    values = np.array([w[2] for w in wells])
    sill = float(np.var(values))
    nugget, rng = nugget_fraction * sill, 1200.0
    ours = krige(tmp_path, wells, model, rng, sill, nugget, experiment=experiment)
    theirs = pykrige_estimates(wells, model, rng, sill, nugget)
    scale = float(np.max(np.abs(values)))
    assert np.max(np.abs(ours - theirs)) <= 1e-8 * scale
    if model == "gaussian":  # the range convention matters, and the tolerance sees it
        naive = pykrige_estimates(wells, model, rng, sill, nugget, pykrige_range=rng)
        assert np.max(np.abs(ours - naive)) > 1e-4 * scale


@pytest.mark.parametrize("model", ["exponential", "spherical", "gaussian"])
@pytest.mark.parametrize("experiment", [5, 7, 8])
@pytest.mark.usefixtures("gpu")
def test_gpu_matches_pykrige(tmp_path, model, experiment):
    """The double GPU experiments that hold 60 wells (1-4 hold 16 per thread)."""
    wells = road_network_wells()
    values = np.array([w[2] for w in wells])
    sill = float(np.var(values))
    nugget, rng = 0.2 * sill, 1200.0
    ours = krige(tmp_path, wells, model, rng, sill, nugget, device="gpu", experiment=experiment)
    theirs = pykrige_estimates(wells, model, rng, sill, nugget)
    assert np.max(np.abs(ours - theirs)) <= 1e-8 * float(np.max(np.abs(values)))

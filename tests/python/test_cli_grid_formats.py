"""The grid writer's formats (datasets/lb/datasets/grid_writer.hpp), through `krige` and
`idw-interpolate` on the CPU: .npy read back with numpy.load equals the CSV, value for
value, in the program's precision; GeoTIFF (when this build has GDAL) read back with
python's osgeo or checked with `gdalinfo -json`, skipped visibly when neither is present;
a build without GDAL refuses .tif naming the package, writing nothing."""

import csv
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

BIN = Path(__file__).resolve().parents[2] / "build" / "layoutbench"

pytestmark = pytest.mark.skipif(not BIN.exists(), reason=f"needs the built binary {BIN}")

SURFACES, MESH_X, MESH_Y = 11, 50, 90  # the generated case at scale 1


def run(*args):
    return subprocess.run([str(BIN), *map(str, args)], capture_output=True, text=True)


def krige(out, *extra):
    r = run("krige", "--scale", 1, "--device", "cpu", "--out", out, *extra)
    assert r.returncode == 0, r.stderr
    return r


def read_csv_bands(path, dtype):
    """The CSV's value columns as an array (bands, ny, nx), each value parsed in `dtype`."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    values = np.array([[dtype(float(v)) for v in row[2:]] for row in rows[1:]], dtype=dtype)
    return rows[0], values.T.reshape(len(rows[0]) - 2, MESH_Y, MESH_X)


@pytest.mark.parametrize("args, dtype", [((), np.float32),  # experiment 6: float
                                         (("--experiment", 8, "--precision", "double"), np.float64),
                                         (("--experiment", 8, "--precision", "float"), np.float32)])
def test_npy_equals_the_csv(tmp_path, args, dtype):
    krige(tmp_path / "m.csv", *args)
    krige(tmp_path / "m.npy", *args)
    header, from_csv = read_csv_bands(tmp_path / "m.csv", dtype)
    assert header[2:] == [f"surface{h}" for h in range(SURFACES)]
    a = np.load(tmp_path / "m.npy")
    assert a.dtype == np.dtype(dtype).newbyteorder("<")
    assert a.shape == (SURFACES, MESH_Y, MESH_X)
    np.testing.assert_array_equal(a, from_csv)  # the CSV's shortest digits read back exactly


def test_npy_header_is_version_1_and_aligned(tmp_path):
    krige(tmp_path / "m.npy")
    raw = (tmp_path / "m.npy").read_bytes()
    assert raw[:8] == b"\x93NUMPY\x01\x00"
    header_len = int.from_bytes(raw[8:10], "little")
    assert (10 + header_len) % 64 == 0
    assert raw[10 + header_len - 1:10 + header_len] == b"\n"
    assert len(raw) == 10 + header_len + SURFACES * MESH_X * MESH_Y * 4


@pytest.mark.parametrize("precision, dtype", [("float", "<f4"), ("double", "<f8")])
def test_idw_npy_equals_its_csv_in_the_precision_computed(tmp_path, precision, dtype):
    points = tmp_path / "points.csv"
    points.write_text("x,y,value\n0,0,1\n10,0,2\n0,10,3\n10,10,5\n3,7,4\n")
    for name in ("g.csv", "g.npy"):
        r = run("idw-interpolate", "--points", points, "--grid", "0:10:7,0:10:5", "--device", "cpu",
                "--precision", precision, "--out", tmp_path / name)
        assert r.returncode == 0, r.stderr
    with open(tmp_path / "g.csv", newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["x", "y", "value"]
    a = np.load(tmp_path / "g.npy")
    assert a.shape == (1, 5, 7) and a.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(a.reshape(-1), np.array([float(r[2]) for r in rows[1:]], dtype=dtype))


def test_idw_values_beyond_float_are_written_as_double_and_said(tmp_path):
    points = tmp_path / "points.csv"
    points.write_text("x,y,value\n0,0,1e307\n10,0,2e307\n0,10,3e307\n10,10,5e307\n")
    r = run("idw-interpolate", "--points", points, "--grid", "0:10:3,0:10:3", "--device", "cpu",
            "--precision", "float", "--out", tmp_path / "g.npy")
    assert r.returncode == 0, r.stderr
    assert "values beyond float's range (computed in float on scaled values): written as double" in r.stderr
    a = np.load(tmp_path / "g.npy")
    assert a.dtype == np.dtype("<f8") and np.isfinite(a).all() and a.max() > 3e38


def geotiff_built():
    """Whether this build writes GeoTIFF: without GDAL, .tif is refused before the output's
    folder is even looked at."""
    r = run("krige", "--scale", 1, "--device", "cpu", "--out", "/nonexistent-folder/probe.tif")
    return r.returncode != 0 and "GeoTIFF output needs GDAL" not in r.stderr


def test_geotiff_without_gdal_names_the_package(tmp_path):
    if geotiff_built():
        pytest.skip("this build has GDAL: the refusal is not reachable")
    out = tmp_path / "m.tif"
    r = run("krige", "--scale", 1, "--device", "cpu", "--out", out)
    assert r.returncode == 2
    assert "libgdal-dev" in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_geotiff_bands_georeferencing_and_values(tmp_path):
    if not geotiff_built():
        pytest.skip("this build has no GDAL (install libgdal-dev and rebuild): GeoTIFF not tested")
    krige(tmp_path / "m.tif", "--experiment", 8, "--precision", "double")
    krige(tmp_path / "m.npy", "--experiment", 8, "--precision", "double")
    a = np.load(tmp_path / "m.npy")
    # Cell centres 50, 150, ... (100 m apart): pixels of 100 m, the top-left corner at (0, 9000).
    expected_transform = [0.0, 100.0, 0.0, 100.0 * MESH_Y, 0.0, -100.0]
    try:
        from osgeo import gdal  # noqa: PLC0415 (optional)
    except ImportError:
        gdal = None
    if gdal is not None:
        ds = gdal.Open(str(tmp_path / "m.tif"))
        assert (ds.RasterXSize, ds.RasterYSize, ds.RasterCount) == (MESH_X, MESH_Y, SURFACES)
        assert list(ds.GetGeoTransform()) == pytest.approx(expected_transform)
        for h in range(SURFACES):
            band = ds.GetRasterBand(h + 1)
            assert band.GetDescription() == f"surface{h}"
            np.testing.assert_array_equal(band.ReadAsArray(), a[h][::-1])  # north up
        return
    if shutil.which("gdalinfo") is None:
        pytest.skip("no GDAL reader here (python osgeo or gdalinfo): the GeoTIFF's content is not checked")
    info = json.loads(subprocess.run(["gdalinfo", "-json", "-stats", str(tmp_path / "m.tif")], capture_output=True,
                                     text=True, check=True).stdout)
    assert info["size"] == [MESH_X, MESH_Y]
    assert info["geoTransform"] == pytest.approx(expected_transform)
    assert len(info["bands"]) == SURFACES
    for h, band in enumerate(info["bands"]):
        assert band["type"] == "Float64"
        assert band["description"] == f"surface{h}"
        assert (band["minimum"], band["maximum"]) == pytest.approx((a[h].min(), a[h].max()), abs=1e-3)  # printed to 3 decimals
    # The first raster row is the northmost grid row: its first value, via gdallocationinfo.
    loc = subprocess.run(["gdallocationinfo", "-valonly", "-b", "1", str(tmp_path / "m.tif"), "0", "0"],
                         capture_output=True, text=True, check=True).stdout.split()
    assert float(loc[0]) == pytest.approx(a[0][MESH_Y - 1][0], rel=1e-12)


@pytest.mark.parametrize("nx, ny, tiled", [(5, 4, False), (300, 200, False), (1100, 1030, False),
                                           (2560, 2048, True)])
def test_geotiff_is_sized_to_the_data(tmp_path, nx, ny, tiled):
    """Strips where 256 x 256 tiles would pad the raster by 10 % or more (one tile a band made
    a 5 x 4 GeoTIFF 0.5 MB): the file is its values (4 bytes each, float) and a header."""
    if not geotiff_built():
        pytest.skip("this build has no GDAL (install libgdal-dev and rebuild): GeoTIFF size not tested")
    points = tmp_path / "points.csv"
    points.write_text("x,y,value\n0,0,1\n10,0,2\n0,10,3\n10,10,5\n3,7,4\n")
    out = tmp_path / "g.tif"
    r = run("idw-interpolate", "--points", points, "--grid", f"0:10:{nx},0:10:{ny}", "--device", "cpu", "--out", out)
    assert r.returncode == 0, r.stderr
    data = nx * ny * 4
    limit = 1.1 * data if tiled else data + 4096 + 16 * ny  # header, and a strip offset and size a row at most
    assert data < out.stat().st_size < limit, out.stat().st_size

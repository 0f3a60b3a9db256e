#!/usr/bin/env python3
"""What users run instead (issue 13, item 5): `layoutbench krige` (experiment 8, the dual
form) against PyKrige (its 'C' and 'vectorized' backends; the faster counts)
and GSTools, when installed, on the same wells, mesh and variogram. Not a test and not in
CI: a benchmark to run by hand (pip install pykrige gstools on a machine with network).

Cases: the generated case's wells (`krige --scale S --well-count N --wells-out`, 11
surfaces) onto an nx x ny mesh over its domain; the variogram is krige's default for that
domain (exponential, sill 1, practical range = half the diagonal, nugget 0), given to
PyKrige as psill 1, range R and to GSTools as Exponential(var=1, len_scale=R/3).

Times (best of --repeat, wall clock, this process's machine):
  krige e2e    the whole command (start-up, reading the wells, kriging, writing .npy)
  krige        the kriging alone (krige's own summary line)
  libraries    model set-up and estimation on the mesh, one surface; "all" multiplies the
               one-surface time by the surface count (each library kriges one variable at
               a time; krige does all of them in one pass)
The largest difference between krige and PyKrige on surface 0 is printed as a check.

  python3 tools/kriging_vs_pykrige.py                        # 470 and 10 wells, 280 x 280
  python3 tools/kriging_vs_pykrige.py --device gpu --mesh 1000x1000 --libraries none
"""

import argparse
import csv
import math
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def run_krige(binary, args):
    start = time.perf_counter()
    r = subprocess.run([str(binary), "krige", *map(str, args)], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if r.returncode != 0:
        sys.exit(f"krige failed: {r.stderr.strip()}")
    m = re.search(r"(double|float), ([0-9.]+) s", r.stderr)
    return wall, float(m.group(2)), r.stderr


def make_case(binary, folder, wells, scale):
    """The generated case's wells as a CSV, and its domain (width, height)."""
    path = folder / f"wells{wells}.csv"
    run_krige(binary, ["--scale", scale, "--well-count", wells, "--device", "cpu", "--experiment", 8,
                       "--out", folder / "unused.npy", "--wells-out", path])
    return path, 5000.0 * scale, 9000.0 * scale


def read_wells(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    data = np.array([[float(v) for v in row] for row in rows[1:]])
    return data[:, 0], data[:, 1], data[:, 2:].T  # x, y, values (surfaces, wells)


def best_of(repeat, fn):
    best, result = math.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def pykrige_times(x, y, z, gx, gy, rng, repeat):
    """{backend: (seconds, estimates (ny, nx))} for surface 0."""
    try:
        from pykrige.ok import OrdinaryKriging
    except ImportError:
        return {}
    out = {}
    for backend in ("C", "vectorized"):  # "loop" is never the fastest
        def krige_once():
            ok = OrdinaryKriging(x, y, z, variogram_model="exponential",
                                 variogram_parameters={"psill": 1.0, "range": rng, "nugget": 0.0})
            est, _ = ok.execute("grid", gx, gy, backend=backend)
            return np.asarray(est)
        try:
            out[backend] = best_of(repeat, krige_once)
        except (ValueError, MemoryError) as e:  # a backend this PyKrige lacks, or too large a mesh
            print(f"  pykrige backend {backend}: {type(e).__name__}: {e}", file=sys.stderr)
    return out


def gstools_time(x, y, z, gx, gy, rng, repeat):
    try:
        import gstools as gs
    except ImportError:
        return None
    def krige_once():
        model = gs.Exponential(dim=2, var=1.0, len_scale=rng / 3.0, nugget=0.0)
        k = gs.krige.Ordinary(model, cond_pos=[x, y], cond_val=z, exact=True)
        field = k.structured([gx, gy], return_var=False)
        return np.asarray(field).T  # gstools' 'ij' order -> (ny, nx)
    return best_of(repeat, krige_once)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", type=Path, default=ROOT / "build" / "layoutbench")
    ap.add_argument("--wells", default="470,10", help="well counts, comma-separated")
    ap.add_argument("--scale", type=int, default=3, help="the generated case's scale (its domain)")
    ap.add_argument("--mesh", default="280x280", help="nx x ny (280x280 = 78,400 nodes)")
    ap.add_argument("--device", default="cpu", choices=["cpu", "gpu"])
    ap.add_argument("--precision", default="double", choices=["double", "float"])
    ap.add_argument("--libraries", default="pykrige,gstools", help="which to time, or none")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    nx, ny = (int(v) for v in a.mesh.lower().split("x"))
    libraries = set() if a.libraries == "none" else set(a.libraries.split(","))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for wells in (int(w) for w in a.wells.split(",")):
            path, width, height = make_case(a.bin, folder, wells, a.scale)
            rng = 0.5 * math.hypot(width, height)
            spec = f"0:{width:g}:{nx},0:{height:g}:{ny}"
            out = folder / "model.npy"
            args = ["--wells", path, "--grid", spec, "--device", a.device, "--experiment", 8,
                    "--precision", a.precision, "--out", out]
            timings = [run_krige(a.bin, args) for _ in range(a.repeat)]
            e2e, compute = min(t[0] for t in timings), min(t[1] for t in timings)
            model = np.load(out)
            x, y, values = read_wells(path)
            surfaces = values.shape[0]
            gx, gy = np.linspace(0.0, width, nx), np.linspace(0.0, height, ny)
            row = {"wells": wells, "surfaces": surfaces, "nodes": nx * ny, "krige_e2e": e2e, "krige": compute}
            if "pykrige" in libraries:
                times = pykrige_times(x, y, values[0], gx, gy, rng, a.repeat)
                if times:
                    backend = min(times, key=lambda b: times[b][0])
                    row["pykrige"] = (backend, times[backend][0])
                    row["pykrige_all_backends"] = {b: t for b, (t, _) in times.items()}
                    row["max_diff_vs_pykrige"] = float(np.max(np.abs(times[backend][1] - model[0])))
            if "gstools" in libraries:
                g = gstools_time(x, y, values[0], gx, gy, rng, 1 if wells > 100 else a.repeat)
                if g is not None:
                    row["gstools"] = g[0]
                    row["max_diff_vs_gstools"] = float(np.max(np.abs(g[1] - model[0])))
            rows.append(row)

    print(f"\nkrige --device {a.device} --experiment 8 --precision {a.precision}; best of {a.repeat}; seconds")
    print(f"{'wells':>6} {'nodes':>9} {'krige e2e':>10} {'krige':>8} {'PyKrige 1 surf':>20} {'PyKrige all':>12} "
          f"{'GSTools 1 surf':>15} {'GSTools all':>12}")
    for r in rows:
        pk = r.get("pykrige")
        pk1 = f"{pk[1]:.3f} ({pk[0]})" if pk else "-"
        pka = f"{pk[1] * r['surfaces']:.2f}" if pk else "-"
        gs1 = f"{r['gstools']:.3f}" if "gstools" in r else "-"
        gsa = f"{r['gstools'] * r['surfaces']:.1f}" if "gstools" in r else "-"
        print(f"{r['wells']:>6} {r['nodes']:>9} {r['krige_e2e']:>10.3f} {r['krige']:>8.3f} {pk1:>20} {pka:>12} "
              f"{gs1:>15} {gsa:>12}")
    for r in rows:
        extra = {k: v for k, v in r.items() if k.startswith(("pykrige_all", "max_diff"))}
        if extra:
            print(f"{r['wells']} wells, {r['surfaces']} surfaces: {extra}")


if __name__ == "__main__":
    main()

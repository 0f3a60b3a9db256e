"""Fig. 4's inputs: the CUDA model output and its wells (CSV files next to the results),
read and checked; a malformed file is one ResultsError naming file and line."""

import csv
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from plots.load import ResultsError


@dataclass(frozen=True)
class Model:
    """Depths (metres, positive down) of H surfaces on an M × N mesh, x fastest."""

    source: Path
    surfaces: tuple  # column names
    x: np.ndarray  # (M,)
    y: np.ndarray  # (N,)
    depth: np.ndarray  # (H, N, M)


@dataclass(frozen=True)
class Wells:
    source: Path
    x: np.ndarray  # (W,)
    y: np.ndarray
    depth: np.ndarray  # (H, W)


def model_files(device):
    """[(model CSV, wells CSV)] next to each kriging result file of the device."""
    return [(f.path.parent / f"kriging-model.gpu{f.device_index}.csv",
             f.path.parent / f"kriging-wells.gpu{f.device_index}.csv")
            for f in device.files if f.suite == "kriging"]


def check_inputs(devices):
    """Read every model and wells CSV present (ResultsError on a malformed one)."""
    for device in devices:
        for model_path, wells_path in model_files(device):
            model = read_model(model_path) if model_path.is_file() else None
            if wells_path.is_file():
                read_wells(wells_path, model.surfaces if model else None)


def read_model(path):
    """The model CSV as a Model; ResultsError naming file:line for anything malformed."""
    header, rows = _read_csv(path)
    values = np.array([r for _, r in rows])
    first_y = values[:, 1] == values[0, 1]
    width = int(np.argmin(first_y)) if not first_y.all() else len(values)
    if width < 2 or len(values) % width or len(values) // width < 2:
        raise ResultsError(f"{path}: {len(values)} rows do not form an M × N mesh (M, N ≥ 2) "
                           f"with x running fastest ({width} rows share the first y)")
    x, y = values[:width, 0], values[::width, 1]
    for axis, coordinates, step in (("x", x, 1), ("y", y, width)):
        falling = np.flatnonzero(np.diff(coordinates) <= 0)
        if len(falling):
            line = rows[(falling[0] + 1) * step][0]
            raise ResultsError(f"{path}:{line}: {axis} does not increase along the mesh "
                               "(x runs fastest, then y)")
    for k, (line, row) in enumerate(rows):
        expected = (x[k % width], y[k // width])
        if not np.allclose(row[:2], expected, rtol=1e-9, atol=1e-6):
            raise ResultsError(f"{path}:{line}: mesh point ({row[0]:g}, {row[1]:g}) where the "
                               f"M × N mesh with x fastest has ({expected[0]:g}, "
                               f"{expected[1]:g})")
    depth = values[:, 2:].T.reshape(len(header) - 2, len(y), width)
    return Model(Path(path), tuple(header[2:]), x, y, depth)


def read_wells(path, surfaces=None):
    """The wells CSV (same columns as the model); ResultsError on a malformed one."""
    header, rows = _read_csv(path)
    if surfaces is not None and tuple(header[2:]) != tuple(surfaces):
        raise ResultsError(f"{path}:1: surface columns {','.join(header[2:])} differ from the "
                           f"model's {','.join(surfaces)}")
    values = np.array([r for _, r in rows])
    return Wells(Path(path), values[:, 0], values[:, 1], values[:, 2:].T)


def _read_csv(path):
    """(header, [(line, floats)]) of an `x,y,<surface>,...` CSV with at least one row."""
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            lines = list(csv.reader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise ResultsError(f"{path}: cannot read: {error}") from None
    if not lines:
        raise ResultsError(f"{path}: empty file")
    header = [h.strip() for h in lines[0]]
    if header[:2] != ["x", "y"] or len(header) < 4 or not all(header[2:]):
        raise ResultsError(f"{path}:1: header must be x,y,<surface>,<surface>,... (two or more "
                           f"surfaces), not {','.join(lines[0])!r}")
    rows = []
    for line, fields in enumerate(lines[1:], start=2):
        if not fields:
            continue
        if len(fields) != len(header):
            raise ResultsError(f"{path}:{line}: {len(fields)} values, expected {len(header)} "
                               f"({','.join(header)})")
        try:
            numbers = [float(f) for f in fields]
        except ValueError:
            raise ResultsError(f"{path}:{line}: not a number in {','.join(fields)!r}") from None
        if not all(map(math.isfinite, numbers)):
            raise ResultsError(f"{path}:{line}: NaN or infinite value")
        rows.append((line, numbers))
    if not rows:
        raise ResultsError(f"{path}: header only, no rows")
    return header, rows



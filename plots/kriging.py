"""Li & Dong (CUDA ordinary kriging) figures: Fig. 2, Fig. 3, Fig. 4, accuracy, and beyond the
paper experiment 7 (cuBLAS GEMM pair) and the well-count sweep.

The sweep is the mesh scale s (grid count M·N·H = 49,500 s²). Every curve is the paper's
base case of 10 wells, except the well-count sweep (10, 100, 1000 wells at two scales), where
a case an experiment cannot run (an errored benchmark) is drawn as "does not run" with its
reason. Each experiment has a CPU program and a CUDA program; the spec runs CPU programs 1, 2
and 4 in double and 4 in float only, so experiments 3, 5 and 6 are compared with programs 2,
4 and 4 in float (CPU_PROGRAMS). Fig. 4 draws the CUDA model output
(`kriging-model.gpu<k>.csv`) with its input wells (`kriging-wells.gpu<k>.csv`).
"""

import csv
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from plots.figures import (Section, count_label, devices_text, does_not_run, format_seconds,
                           mark_does_not_run, mark_not_measured, markdown_table, panel_grid,
                           plt, save_figure, size_axis)
from plots.load import ResultsError
from plots.select import by_size, matches

PAPER = "Li & Dong"
INTRO = (
    "M. Li, L. Dong, *Research on CUDA-based Kriging Interpolation Algorithm* (USTC): ordinary "
    "kriging of 11 stratum surfaces from 10 wells, exponential variogram, on a 50 × 90 mesh "
    "scaled by s = 1…10 (49,500 … 4.95 M estimates). The paper measured a GeForce GTX 460 "
    "(Fermi) with CUDA 3.2 against one core of an Intel E5500, so absolute speedups are not "
    "expected to carry over; the ratios between experiments and the shape of the speedup "
    "curve are the claims that can. Times are computing times as the paper uses them: "
    "host↔device transfers included."
)
CLAIMS_INTRO = (
    "Each verbal claim is read through its word class (the band and reason in the note). Ratios "
    "of GPU computing times are geometric means over every scale both experiments ran at with "
    "10 wells; the speedup claims read experiment 6's speedup over its CPU program scale by "
    "scale; the accuracy claim reads experiment 6's difference from experiment 5."
)
SWEEP = "scale"
BASE = {"wells": 10}  # the paper's case; the well-count sweep varies it
GRID_COUNT_PER_SCALE2 = 50 * 90 * 11  # M · N · H at scale 1
EXPERIMENTS = {  # experiment -> its CUDA program
    1: {"version": "gpu-exp1", "layout": "soa", "precision": "double"},
    2: {"version": "gpu-exp2", "layout": "soa", "precision": "double"},
    3: {"version": "gpu-exp3", "layout": "soa", "precision": "double"},
    4: {"version": "gpu-exp4", "layout": "soa", "precision": "double"},
    5: {"version": "gpu-exp5", "layout": "aos-const", "precision": "double"},
    6: {"version": "gpu-exp6", "layout": "aos-const", "precision": "float"},
}
_PROGRAM_1 = {"version": "cpu-exp1", "layout": "soa", "precision": "double"}
_PROGRAM_2 = {"version": "cpu-exp2", "layout": "soa", "precision": "double"}
_PROGRAM_4 = {"version": "cpu-exp4", "layout": "soa", "precision": "double"}
CPU_PROGRAMS = {  # experiment -> its CPU program (3, 5 and 6 are not run separately)
    1: _PROGRAM_1, 2: _PROGRAM_2, 3: _PROGRAM_2, 4: _PROGRAM_4, 5: _PROGRAM_4,
    6: {**_PROGRAM_4, "precision": "float"},
}
EXP7 = {precision: {"version": "gpu-exp7", "layout": "dense", "precision": precision}
        for precision in ("float", "double")}
EXP8 = {precision: {"version": "gpu-exp8", "layout": "dense", "precision": precision}
        for precision in ("float", "double")}  # the dual form
BEYOND_DENSE = {**{f"exp. 7 {p}": s for p, s in EXP7.items()},
                **{f"exp. 8 {p}": s for p, s in EXP8.items()}}
BEYOND = {"exp. 6": EXPERIMENTS[6], **BEYOND_DENSE}  # the variants of the beyond-the-paper figures
COLORS = {**{f"exp. {e}": f"C{e - 1}" for e in EXPERIMENTS},
          "exp. 7 float": "black", "exp. 7 double": "0.5",
          "exp. 8 float": "darkgreen", "exp. 8 double": "yellowgreen"}
PAPER_SPEEDUP_PEAK, PAPER_SPEEDUP_LEVEL = 110, 80  # Fig. 3's claim
GRID_AXIS = "grid count M·N·H (scale s: 49,500 s²)"
SECTION_BAND_M = 1000  # wells this close to a cross-section are projected onto it
MAPPING_NOTE = (
    "CPU programs: the spec runs programs 1, 2 and 4 (double) and 4 in float; experiment 3's "
    "CPU program is program 2, experiment 5's is program 4 (double) and experiment 6's is "
    "program 4 in float, so those experiments share a CPU time."
)


def render(devices, figures_dir):
    """All kriging figures and tables for these devices, as report sections."""
    return [fig2_section(devices, figures_dir), fig3_section(devices, figures_dir),
            fig4_section(devices, figures_dir), accuracy_section(devices),
            exp7_section(devices, figures_dir), wells_section(devices, figures_dir)]


# --- data ----------------------------------------------------------------------------------

def grid_count(scale):
    return GRID_COUNT_PER_SCALE2 * scale * scale


def grid_tick(count):
    """A grid-count tick with its scale under it: "4.95M\ns=10"."""
    scale = math.isqrt(round(count / GRID_COUNT_PER_SCALE2))
    return count_label(count) + (f"\ns={scale}" if grid_count(scale) == count else "")


def label(experiment):
    return f"exp. {experiment}"


def program_label(program):
    """`cpu-exp4` in float -> "program 4 float"."""
    text = "program " + program["version"].removeprefix("cpu-exp")
    return text + (" float" if program["precision"] == "float" else "")


def programs():
    """{program label: (its selector, [the experiments it is the CPU program of])}."""
    grouped = {}
    for experiment, program in CPU_PROGRAMS.items():
        grouped.setdefault(program_label(program), (program, []))[1].append(experiment)
    return grouped


def by_scale(device, selector):
    """{scale: Benchmark} of one variant at the paper's 10 wells (errored ones included)."""
    chosen, _ = by_size(device.benchmarks, {**selector, **BASE}, {}, SWEEP)
    return chosen


def by_wells(device, selector, scale):
    """{wells: Benchmark} of one variant at one scale: the well-count sweep."""
    chosen, _ = by_size(device.benchmarks, {**selector, SWEEP: scale}, {}, "wells")
    return chosen


def speedups(device, experiment):
    """{scale: CPU program time / CUDA program time} of one experiment, or the CUDA program's
    error at a scale where it did not run (scales without a CPU time are left out)."""
    gpu, cpu = by_scale(device, EXPERIMENTS[experiment]), by_scale(device, CPU_PROGRAMS[experiment])
    return {s: b.error or cpu[s].time_s / b.time_s for s, b in sorted(gpu.items())
            if s in cpu and not cpu[s].error}


def sweep_scales(devices):
    """Scales at which some variant was run with other than the base well count."""
    return sorted({b.params[SWEEP] for d in devices for b in d.benchmarks
                   if any(matches(b, v) for v in BEYOND.values())
                   and b.params.get("wells") not in (None, BASE["wells"])
                   and isinstance(b.params.get(SWEEP), int)})


# --- Fig. 2 and Fig. 3 ---------------------------------------------------------------------

def fig2_section(devices, figures_dir):
    """Fig. 2: computing time vs grid count, (a) the CPU programs, (b) CUDA experiments 1-6."""
    fig, axes = panel_grid(len(devices), 2, width=5.4, height=4.2)
    for row, device in enumerate(devices):
        cpu_ax, gpu_ax = axes[row]
        cpu_ax.set_title(_title("(a) CPU programs (one core)", device, devices))
        cpu = []
        for name, (program, exps) in programs().items():
            points = by_scale(device, program)
            sampled = frozenset(s for s, b in points.items() if b.counters.get("sampled"))
            cpu.append(curve(f"{name} (exp. {', '.join(map(str, exps))})", points, _time,
                             f"C{exps[0] - 1}", hollow=sampled))
        _draw(cpu_ax, cpu, GRID_AXIS, "computing time (s)")
        gpu_ax.set_title(_title("(b) CUDA programs", device, devices))
        _draw(gpu_ax, [curve(label(e), by_scale(device, sel), _time, COLORS[label(e)])
                       for e, sel in EXPERIMENTS.items()], GRID_AXIS, "computing time (s)")
    fig.suptitle(f"{PAPER}, Fig. 2: computing time of experiments 1–6, 10 wells "
                 f"(hollow: CPU time from a sample of grid points)\n{devices_text(devices)}")
    body = (f"{MAPPING_NOTE} Computing time includes the host↔device transfers each design "
            "needs. Hollow CPU markers: timed on a sample of grid points and scaled linearly "
            "(`sampled` counter).\n\n" + time_table(devices))
    return Section("Fig. 2 — computing time of experiments 1–6", body,
                   (save_figure(fig, figures_dir, "kriging_fig2"),))


def time_table(devices):
    """Times per program and scale (Fig. 2's numbers); * = CPU time from a sample."""
    scales = sorted({b.params[SWEEP] for d in devices for b in d.benchmarks
                     if isinstance(b.params.get(SWEEP), int)})
    rows = []
    for device in devices:
        named = [(f"CPU {name} (exp. {', '.join(map(str, exps))})", program)
                 for name, (program, exps) in programs().items()]
        named += [(f"CUDA {label(e)}", sel) for e, sel in EXPERIMENTS.items()]
        for name, selector in named:
            points = by_scale(device, selector)
            rows.append([device.label, name] + [_time_cell(points.get(s)) for s in scales])
    header = ["GPU", "program"] + [f"s = {s} ({count_label(grid_count(s))})" for s in scales]
    return markdown_table(header, rows)


def fig3_section(devices, figures_dir):
    """Fig. 3: speedup of experiment 6 over its CPU program; every experiment over its own."""
    fig, axes = panel_grid(len(devices), 2, width=5.4, height=4.2)
    exp6_program = program_label(CPU_PROGRAMS[6])
    for row, device in enumerate(devices):
        exp6_ax, all_ax = axes[row]
        exp6_ax.set_title(_title(f"(a) exp. 6 (float) over CPU {exp6_program}", device,
                                 devices))
        exp6 = Curve(label(6), speedups(device, 6), COLORS[label(6)])
        if _draw(exp6_ax, [exp6], GRID_AXIS, "speedup (×)", log=False):
            for value, words in ((PAPER_SPEEDUP_PEAK, "paper: peak above"),
                                 (PAPER_SPEEDUP_LEVEL, "paper: levels near")):
                exp6_ax.axhline(value, color="0.5", linestyle=":", linewidth=1.2)
                exp6_ax.annotate(f"{words} {value}×", (0.01, value), fontsize=7, color="0.4",
                                 xycoords=("axes fraction", "data"), va="bottom")
            exp6_ax.set_ylim(bottom=0)
        all_ax.set_title(_title("(b) each experiment over its own CPU program", device,
                                devices))
        _draw(all_ax, [Curve(f"{label(e)} / {program_label(CPU_PROGRAMS[e])}",
                             speedups(device, e), COLORS[label(e)]) for e in EXPERIMENTS],
              GRID_AXIS, "speedup (×)")
    fig.suptitle(f"{PAPER}, Fig. 3: speedup of the CUDA programs over their CPU programs, "
                 f"10 wells\n{devices_text(devices)}")
    body = ("Speedup = CPU program time / CUDA program time at the same scale. " + MAPPING_NOTE
            + f" Dotted lines in (a): the paper's peak (above {PAPER_SPEEDUP_PEAK}×) and level "
            f"(near {PAPER_SPEEDUP_LEVEL}×), measured on a GTX 460 against an Intel E5500.")
    return Section("Fig. 3 — speedup over the CPU programs", body,
                   (save_figure(fig, figures_dir, "kriging_fig3"),))


# --- beyond the paper: experiment 7 and more wells ------------------------------------------

def exp7_section(devices, figures_dir):
    """Experiments 7 (A inverted once, two cuBLAS GEMMs) and 8 (the dual form) against
    experiment 6."""
    fig, axes = panel_grid(len(devices), 3, width=4.8, height=4.0)
    for row, device in enumerate(devices):
        time_ax, err_ax, bound_ax = axes[row]
        time_ax.set_title(_title("computing time (dashed: exps. 7, 8 device only)", device, devices))
        points = {n: by_scale(device, sel) for n, sel in BEYOND.items()}
        _draw(time_ax, [curve(n, p, _time, COLORS[n]) for n, p in points.items()] + [
            curve(f"{n}, device only", points[n], _counter("device_s"), COLORS[n], dashed=True,
                  errors=False) for n in BEYOND_DENSE],
            GRID_AXIS, "computing time (s)")
        err_ax.set_title(_title("max |estimate − double CPU| (m)", device, devices))
        errors = {label(5): by_scale(device, EXPERIMENTS[5]), **points}
        _draw(err_ax, [curve(n, p, _counter("max_abs_err"), COLORS[n])
                       for n, p in errors.items()], GRID_AXIS, "max abs error (m)")
        bound_ax.set_title(_title("exps. 7, 8 device time / memory bound", device, devices))
        if _draw(bound_ax, [curve(n, points[n], x_memory_bound, COLORS[n])
                            for n in BEYOND_DENSE],
                 GRID_AXIS, "device_s / memory_bound_s (×)"):
            bound_ax.axhline(1, color="0.4", linestyle=":", linewidth=1.2,
                             label="memory bound (output bytes / copy bandwidth)")
            bound_ax.set_ylim(bottom=min(0.5, bound_ax.get_ylim()[0]))
            bound_ax.legend(fontsize=7)
    fig.suptitle(f"{PAPER}, beyond the paper: experiments 7 (A⁻¹ once, two cuBLAS GEMMs) and "
                 f"8 (dual form) vs experiment 6, 10 wells\n{devices_text(devices)}")
    body = ("Experiment 7 inverts A once; the weights of all grid points are one GEMM "
            "Λ = A⁻¹·B and all surfaces a second, Z = S·Λ. Experiment 8 solves α = A⁻¹[z; 0] "
            "once per surface on the host and writes every estimate Σᵢ C(x, xᵢ) αᵢ + α₀ in one "
            "fused kernel (no kriging variance). Dashed: their time without host↔device "
            "transfers (`device_s`). Right: x_memory_bound = device_s / memory_bound_s, where "
            "memory_bound_s = output bytes / the device copy bandwidth measured at start (1 = "
            "as fast as writing the output can be).\n\n" + exp7_table(devices))
    return Section("Beyond the paper — experiments 7 (cuBLAS) and 8 (dual form) vs experiment 6", body,
                   (save_figure(fig, figures_dir, "kriging_exp7"),))


def exp7_table(devices):
    rows = []
    for device in devices:
        exp6 = by_scale(device, EXPERIMENTS[6])
        for name, selector in BEYOND_DENSE.items():
            for scale, b in by_scale(device, selector).items():
                if b.error:
                    rows.append([device.label, name, scale, _does_not_run(b)] + [""] * 4)
                    continue
                other = exp6.get(scale)
                ratio = (f"{b.time_s / other.time_s:.2f}" if other and other.time_s
                         else "not measured")
                rows.append([device.label, name, scale, format_seconds(b.time_s),
                             _seconds_counter(b, "device_s"), _seconds_counter(b, "memory_bound_s"),
                             _number(x_memory_bound(b), "{:.3g}×"), ratio])
    header = ["GPU", "experiment", "scale", "time", "device_s", "memory_bound_s",
              "x_memory_bound", "time / exp. 6 time"]
    return markdown_table(header, rows) if rows else "Experiments 7 and 8: not measured."


def x_memory_bound(benchmark):
    """device_s / memory_bound_s (1 = as fast as writing the output can be); results written
    before issue 11 carry it as the counter `x_memory_bound`. None where either is missing."""
    stored = benchmark.counters.get("x_memory_bound")
    if stored is not None:
        return stored
    device_s, bound_s = benchmark.counters.get("device_s"), benchmark.counters.get("memory_bound_s")
    return device_s / bound_s if device_s and bound_s else None


def wells_section(devices, figures_dir):
    """Time vs well count (10, 100, 1000) at the sweep's scales: where per-thread Gaussian
    elimination (exp. 6) stops and the GEMM pair (exp. 7) goes on."""
    scales = sweep_scales(devices) or [None]
    fig, axes = panel_grid(len(devices), len(scales), width=max(5.2, 9 / len(scales)),
                           height=4.2)  # one panel still fits the title
    for row, device in enumerate(devices):
        for ax, scale in zip(axes[row], scales):
            if scale is None:
                ax.set_title(_title("well-count sweep", device, devices))
                mark_not_measured(ax, "no run with other than 10 wells")
                continue
            ax.set_title(_title(f"scale {scale} ({count_label(grid_count(scale))} estimates)",
                                device, devices))
            _draw(ax, [curve(n, by_wells(device, sel, scale), _time, COLORS[n])
                       for n, sel in BEYOND.items()], "wells (n)", "computing time (s)",
                  x_of=int, tick_label=str)
    fig.suptitle(f"{PAPER}, beyond the paper: computing time vs number of wells "
                 f"(× = does not run)\n{devices_text(devices)}")
    body = ("Experiment 6 solves an (n+1)×(n+1) system per thread with A in __constant__ "
            "memory; experiment 7 inverts A once and uses two GEMMs. A case an experiment cannot "
            "run is an errored benchmark, drawn as × \"does not run\" with its reason.\n\n"
            + wells_table(devices))
    return Section("Beyond the paper — more wells", body,
                   (save_figure(fig, figures_dir, "kriging_wells"),))


def wells_table(devices):
    rows = []
    for device in devices:
        for scale in sweep_scales([device]):
            for name, selector in BEYOND.items():
                for wells, b in by_wells(device, selector, scale).items():
                    rows.append([device.label, name, scale, wells,
                                 _does_not_run(b) if b.error else format_seconds(b.time_s),
                                 _number(b.counters.get("kappa"), "{:.3g}"),
                                 _number(b.counters.get("max_abs_err"), "{:.2g}")])
    header = ["GPU", "experiment", "scale", "wells", "time", "κ(A)", "max_abs_err (m)"]
    return markdown_table(header, rows) if rows else "Well-count sweep: not measured."


# --- accuracy ------------------------------------------------------------------------------

def accuracy_rows(device):
    """(experiment, precision, worst max_abs_err, its max_rel_err, tolerance, scale, κ) per
    CUDA experiment at 10 wells, worst over the scales it ran; None values = not measured."""
    rows = []
    for name, selector in [(label(e), s) for e, s in EXPERIMENTS.items()] + list(BEYOND_DENSE.items()):
        timed = [b for b in by_scale(device, selector).values()
                 if not b.error and "max_abs_err" in b.counters]
        worst = max(timed, key=lambda b: b.counters["max_abs_err"], default=None)
        counters = worst.counters if worst else {}
        rows.append((name, selector["precision"], counters.get("max_abs_err"),
                     counters.get("max_rel_err"), counters.get("tolerance"),
                     worst.params[SWEEP] if worst else None, counters.get("kappa")))
    return rows


def accuracy_section(devices):
    """Per experiment: the worst error against the double CPU reference; exp. 6 vs exp. 5."""
    rows = [[d.label, name, precision, _number(abs_err, "{:.2g}"), _number(rel, "{:.2g}"),
             _number(tol, "{:.2g}"), "—" if scale is None else scale, _number(kappa, "{:.3g}"),
             "—" if abs_err is None or tol is None else "yes" if abs_err <= tol else "**no**"]
            for d in devices for name, precision, abs_err, rel, tol, scale, kappa
            in accuracy_rows(d)]
    header = ["GPU", "experiment", "precision", "max_abs_err (m)", "max_rel_err",
              "tolerance (m)", "worst at scale", "κ(A)", "within tolerance"]
    vs5 = []
    for device in devices:
        for scale, b in by_scale(device, EXPERIMENTS[6]).items():
            if b.error:
                continue
            values = [b.counters.get(k) for k in ("vs_exp5_max_abs", "vs_exp5_max_rel")]
            vs5.append([device.label, scale, count_label(grid_count(scale))]
                       + ([_number(v, "{:.2g}") for v in values] if None not in values
                          else ["no exp. 5 result at this case"] * 2))
    body = ("Errors of each CUDA program against the double CPU program over its checked "
            "points, 10 wells, worst scale shown (`max_rel_err` = max_abs_err / max |reference|; "
            "depths are 500–1500 m). Not measured: —.\n\n" + markdown_table(header, rows)
            + "\n\nExperiment 6 (float, fast math) against experiment 5 (double) over **all** "
            "grid points and surfaces — the spec's accuracy report:\n\n"
            + (markdown_table(["GPU", "scale", "grid count", "vs_exp5_max_abs (m)",
                               "vs_exp5_max_rel"], vs5) if vs5 else "not measured."))
    return Section("Accuracy", body)


# --- Fig. 4: the geological model ----------------------------------------------------------

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


def fig4_section(devices, figures_dir):
    """Fig. 4 from the first device with a model: 3D surfaces, top-surface map, two sections."""
    heading = "Fig. 4 — the interpolated geological model"
    reasons = []
    for device in devices:
        for model_path, wells_path in model_files(device):
            missing = [p.name for p in (model_path, wells_path) if not p.is_file()]
            if missing:
                reasons.append(f"{' and '.join(missing)} not in `{model_path.parent}`")
                continue
            model = read_model(model_path)
            wells = read_wells(wells_path, model.surfaces)
            png = draw_model(model, wells, figures_dir, device, devices)
            return Section(heading, model_text(model, wells), (png,))
    return Section(heading, "Fig. 4 not drawn: " + ("; ".join(reasons) or "no kriging results")
                   + " (the run writes the CUDA model output for Fig. 4 as "
                   "`kriging-model.gpu<k>.csv` and its input wells as `kriging-wells.gpu<k>.csv`).")


def model_text(model, wells):
    crossing = int(np.sum(np.diff(model.depth, axis=0) < 0))
    order = ("surfaces are ordered (none cross) at every mesh point" if not crossing else
             f"**surfaces cross at {crossing} (surface, mesh point) pairs**")
    rows = [[f"W{k + 1}", f"{x:.0f}", f"{y:.0f}", f"{d[0]:.1f}", f"{d[-1]:.1f}"]
            for k, (x, y, d) in enumerate(zip(wells.x, wells.y, wells.depth.T))]
    return (f"From `{model.source.name}` and `{wells.source.name}`: {len(model.surfaces)} "
            f"surfaces bounding {len(model.surfaces) - 1} strata on a {len(model.x)} × "
            f"{len(model.y)} mesh ({_km(model.x)} × {_km(model.y)} km), {len(wells.x)} wells; "
            f"{order}. Depths in metres, positive down. Sections: W–E through the middle row "
            f"(A–A′) and S–N through the middle column (B–B′); wells within "
            f"{SECTION_BAND_M / 1000:g} km of a section are projected onto it with their "
            f"surface depths (dots), so the model can be checked to honour them.\n\n"
            + markdown_table(["well", "x (m)", "y (m)", f"{model.surfaces[0]} (m)",
                              f"{model.surfaces[-1]} (m)"], rows))


def draw_model(model, wells, figures_dir, device, devices):
    fig = plt.figure(figsize=(14, 11.5))
    grid = fig.add_gridspec(2, 2, height_ratios=(1.15, 1))
    surface_colors = plt.get_cmap("viridis")(np.linspace(0, 0.95, len(model.surfaces)))
    strata_colors = plt.get_cmap("tab20")(np.arange(len(model.surfaces) - 1) % 20)
    _draw_3d(fig.add_subplot(grid[0, 0], projection="3d"), model, wells, surface_colors)
    middle_row, middle_col = len(model.y) // 2, len(model.x) // 2
    _draw_map(fig, fig.add_subplot(grid[0, 1]), model, wells, middle_row, middle_col)
    _draw_section(fig.add_subplot(grid[1, 0]), model, wells, strata_colors, "W–E", middle_row)
    section = fig.add_subplot(grid[1, 1])
    _draw_section(section, model, wells, strata_colors, "S–N", middle_col)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in strata_colors]
    section.legend(handles, [f"stratum {k + 1}" for k in range(len(strata_colors))],
                   loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8,
                   title="top to bottom", title_fontsize=8)
    shown = device.label if len(devices) == 1 else f"{device.label} (first GPU with a model)"
    fig.suptitle(f"{PAPER}, Fig. 4: the interpolated geological model ({len(model.surfaces)} "
                 f"surfaces, {len(wells.x)} wells)\nCUDA output `{model.source.name}`, "
                 f"{shown} (preset {device.preset})")
    return save_figure(fig, figures_dir, "kriging_fig4")


def _draw_3d(ax, model, wells, colors):
    xs, ys = np.meshgrid(model.x / 1000, model.y / 1000)
    stride = max(1, min(len(model.x), len(model.y)) // 25)
    for depth, color in zip(model.depth, colors):
        ax.plot_surface(xs, ys, depth, color=color, alpha=0.55, linewidth=0, shade=True,
                        rstride=stride, cstride=stride, rasterized=True)  # small SVG
    for k, (x, y, d) in enumerate(zip(wells.x / 1000, wells.y / 1000, wells.depth.T)):
        ax.plot([x, x], [y, y], [d.min() - 40, d.max() + 40], color="black", linewidth=1.4)
        ax.text(x, y, d.min() - 60, f"W{k + 1}", fontsize=7)
    ax.set_box_aspect((np.ptp(model.x), np.ptp(model.y), 0.45 * np.ptp(model.y)))
    ax.invert_zaxis()
    ax.view_init(elev=22, azim=-58)
    exaggeration = 0.45 * np.ptp(model.y) / np.ptp(model.depth)
    ax.set(xlabel="x (km)", ylabel="y (km)", zlabel="depth (m)",
           title=f"(a) all surfaces, 3D (vertical exaggeration ≈ {exaggeration:.0f}×)")


def _draw_map(fig, ax, model, wells, middle_row, middle_col):
    xs, ys = model.x / 1000, model.y / 1000
    filled = ax.contourf(xs, ys, model.depth[0], levels=14, cmap="viridis")
    filled.set_rasterized(True)
    lines = ax.contour(xs, ys, model.depth[0], levels=filled.levels[::2], colors="white",
                       linewidths=0.6)
    ax.clabel(lines, fmt="%.0f", fontsize=7)
    fig.colorbar(filled, ax=ax, label=f"depth of {model.surfaces[0]} (m)")
    ax.plot(wells.x / 1000, wells.y / 1000, "k^", markersize=7, markerfacecolor="white")
    for k, (x, y) in enumerate(zip(wells.x / 1000, wells.y / 1000)):
        ax.annotate(f"W{k + 1}", (x, y), xytext=(4, 4), textcoords="offset points",
                    fontsize=7, color="white", weight="bold")
    y0, x0 = ys[middle_row], xs[middle_col]
    ax.plot([xs[0], xs[-1]], [y0, y0], "w--", linewidth=1.2)
    ax.plot([x0, x0], [ys[0], ys[-1]], "w--", linewidth=1.2)
    for text, at, offset, align in (("A", (xs[0], y0), (2, 3), "left"),
                                    ("A′", (xs[-1], y0), (-2, 3), "right"),
                                    ("B", (x0, ys[0]), (3, 2), "left"),
                                    ("B′", (x0, ys[-1]), (3, -12), "left")):
        ax.annotate(text, at, xytext=offset, textcoords="offset points", ha=align,
                    fontsize=9, color="white", weight="bold")
    ax.set_aspect("equal")
    ax.set(xlabel="x (km, east)", ylabel="y (km, north)",
           title=f"(b) map of the top surface ({model.surfaces[0]}) with wells and sections")


def _draw_section(ax, model, wells, colors, direction, index):
    """A vertical section: strata as filled bands between surfaces, nearby wells projected."""
    if direction == "W–E":
        along, depth, at, across = model.x, model.depth[:, index, :], model.y[index], "y"
        well_along, well_off = wells.x, wells.y - model.y[index]
        ends = ("A (W)", "A′ (E)")
    else:
        along, depth, at, across = model.y, model.depth[:, :, index], model.x[index], "x"
        well_along, well_off = wells.y, wells.x - model.x[index]
        ends = ("B (S)", "B′ (N)")
    km = along / 1000
    for top, bottom, color in zip(depth[:-1], depth[1:], colors):
        ax.fill_between(km, top, bottom, color=color, linewidth=0)
    for surface in depth:
        ax.plot(km, surface, color="0.15", linewidth=0.6)
    near = np.flatnonzero(np.abs(well_off) <= SECTION_BAND_M)
    for k in near:
        ax.plot([well_along[k] / 1000] * 2, [wells.depth[:, k].min() - 30,
                wells.depth[:, k].max() + 30], color="black", linewidth=1.5)
        ax.plot([well_along[k] / 1000] * len(wells.depth), wells.depth[:, k], "o", color="black",
                markersize=3.5)
        ax.annotate(f"W{k + 1}\n({abs(well_off[k]):.0f} m off)",
                    (well_along[k] / 1000, wells.depth[:, k].min() - 30), ha="center",
                    va="bottom", fontsize=7)
    if not len(near):
        ax.text(0.5, 0.02, f"no well within {SECTION_BAND_M / 1000:g} km of this section",
                transform=ax.transAxes, ha="center", fontsize=8, color="0.3")
    ax.set_xlim(km[0], km[-1])
    ax.invert_yaxis()
    ax.margins(y=0.08)
    ax.set_xlabel(f"{'x' if direction == 'W–E' else 'y'} (km)   {ends[0]} → {ends[1]}")
    ax.set_ylabel("depth (m)")
    panel = "(c)" if direction == "W–E" else "(d)"
    ax.set_title(f"{panel} {direction} section at {across} = {at / 1000:.2f} km "
                 f"({ends[0][0]}–{ends[1][:2]})")


# --- drawing helpers -----------------------------------------------------------------------

@dataclass(frozen=True)
class Curve:
    """One line: {sweep value: number, or the error of a point that did not run}."""

    name: str
    values: dict
    color: str
    dashed: bool = False
    hollow: frozenset = frozenset()  # sweep values drawn hollow (CPU times from a sample)


def curve(name, points, value, color, errors=True, **style):
    """The Curve of {sweep value: Benchmark}: value(b) where it ran (left out where the
    benchmark lacks it) and, with `errors`, the error where it did not."""
    values = {}
    for key, b in sorted(points.items()):
        if b.error:
            if errors:
                values[key] = b.error
        elif value(b) is not None:
            values[key] = value(b)
    return Curve(name, values, color, **style)


def _draw(ax, curves, xlabel, ylabel, x_of=grid_count, tick_label=grid_tick, log=True):
    """Draw the curves on a log sweep axis: points that ran joined, points that did not
    marked "does not run" on the floor. False (and a "not measured" panel) when empty."""
    xs = sorted({x_of(k) for c in curves for k in c.values})
    if not xs:
        mark_not_measured(ax, "no benchmarks")
        return False
    for c in curves:
        ran = [k for k, v in c.values.items() if not isinstance(v, str)]
        line = {"color": c.color, "label": c.name}
        if not ran:
            if c.values:  # only errors: still named in the legend
                ax.plot([], [], marker="x", linestyle="none", **line)
            continue
        x, y = [x_of(k) for k in ran], [c.values[k] for k in ran]
        ax.plot(x, y, marker=None if c.dashed else "o", linestyle="--" if c.dashed else "-",
                **line)
        hollow = [(a, b) for a, b, k in zip(x, y, ran) if k in c.hollow]
        if hollow:
            ax.plot(*zip(*hollow), linestyle="none", marker="o", markerfacecolor="white",
                    color=c.color)
    _sweep_axis(ax, xs, xlabel, tick_label)
    if log:
        ax.set_yscale("log")
    ax.set_ylabel(ylabel)
    slots = {}
    for c in curves:
        for key, reason in c.values.items():
            if isinstance(reason, str):
                x = x_of(key)
                slots[x] = slots.get(x, -1) + 1
                mark_does_not_run(ax, x, reason, c.color, slots[x])
    ax.legend(fontsize=7)
    return True


def _time(benchmark):
    return benchmark.time_s


def _counter(name):
    return lambda benchmark: benchmark.counters.get(name)


def _sweep_axis(ax, xs, xlabel, tick_label):
    size_axis(ax, xs, xlabel, tick_label)
    ax.tick_params(axis="x", labelsize=8)


def _title(what, device, devices):
    return what if len(devices) == 1 else f"{what}\n{device.label}"



def _time_cell(benchmark):
    if benchmark is None:
        return "—"
    if benchmark.error:
        return _does_not_run(benchmark)
    star = "*" if benchmark.counters.get("sampled") else ""
    return format_seconds(benchmark.time_s) + star


def _does_not_run(benchmark):
    return does_not_run(benchmark.error)


def _seconds_counter(benchmark, counter):
    value = benchmark.counters.get(counter)
    return "—" if value is None else format_seconds(value)


def _number(value, fmt):
    return "—" if value is None else fmt.format(value)


def _km(values):
    spacing = values[1] - values[0]
    return f"{(values[-1] - values[0] + spacing) / 1000:g}"

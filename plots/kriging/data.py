"""The paper's experiments, their CPU programs and the variants beyond the paper, and the
benchmarks of each: by scale at the paper's 10 wells, by well count at one scale."""

from plots.baselines import flags_of
from plots.estimates import ratio_estimate
from plots.select import by_size, matches

PAPER = "Li & Dong"
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
MAPPING_NOTE = (
    "CPU programs: the spec runs programs 1, 2 and 4 (double) and 4 in float; experiment 3's "
    "CPU program is program 2, experiment 5's is program 4 (double) and experiment 6's is "
    "program 4 in float, so those experiments share a CPU time."
)


def grid_count(scale):
    return GRID_COUNT_PER_SCALE2 * scale * scale


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


def flagged_scales(device, program):
    """{scale: BaselineFlag} of a CPU program's times off its scaling (plots/baselines.py)."""
    flags = flags_of(device.benchmarks)
    return {s: flags[b.name] for s, b in by_scale(device, program).items() if b.name in flags}


def speedup_estimates(device, experiment):
    """{scale: Estimate of CPU program time / CUDA program time, its interval from both
    programs' repetitions (as the claims'), or the CUDA program's error}."""
    gpu, cpu = by_scale(device, EXPERIMENTS[experiment]), by_scale(device, CPU_PROGRAMS[experiment])
    return {s: b.error or ratio_estimate(cpu[s], b) for s, b in sorted(gpu.items())
            if s in cpu and not cpu[s].error}


def sweep_scales(devices):
    """Scales at which some variant was run with other than the base well count."""
    return sorted({b.params[SWEEP] for d in devices for b in d.benchmarks
                   if any(matches(b, v) for v in BEYOND.values())
                   and b.params.get("wells") not in (None, BASE["wells"])
                   and isinstance(b.params.get(SWEEP), int)})


def x_memory_bound(benchmark):
    """device_s / memory_bound_s (1 = as fast as writing the output can be); results written
    before issue 11 carry it as the counter `x_memory_bound`. None where either is missing."""
    stored = benchmark.counters.get("x_memory_bound")
    if stored is not None:
        return stored
    device_s, bound_s = benchmark.counters.get("device_s"), benchmark.counters.get("memory_bound_s")
    return device_s / bound_s if device_s and bound_s else None


"""Issue 39 §4, step 1: what candidate rules for an extended Kofler value would give on the
committed references, before the value exists (docs/advisor.md, "The extended value (beyond the
paper)"). The reference medians stand in for a trial's outcome; a real trial is a few short runs
with noise of its own, so each trial rule is also simulated with the trial's times drawn around
those medians (lognormal, per run).

    python3 tools/kofler_extended_rule.py [--noise 0.003,0.01] [--draws 2000]
"""

import argparse
import math
import random
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from plots.kofler_data import PROGRAMS, cases, timed  # noqa: E402
from plots.layout_kinds import KIND  # noqa: E402
from plots.load import load_files  # noqa: E402

REFERENCES = ("nvidia-h100-80gb-hbm3", "nvidia-h200")
TRIAL_RUNS = 5  # a trial's timed runs per candidate
TRIALS = {  # name: candidates
    "trial {kdlg-tree, aos}": (KIND.kdlg_tree, KIND.aos),
    "trial {kdlg-tree, aos, soa}": (KIND.kdlg_tree, KIND.aos, KIND.soa),
    "trial {kdlg-tree, tiled-tree, aos}": (KIND.kdlg_tree, KIND.tiled_tree, KIND.aos),
    "trial {aos, soa, kdlg-tree, tiled-tree}": (KIND.aos, KIND.soa, KIND.kdlg_tree, KIND.tiled_tree),
}


def fastest_median(runs, cands):
    """The candidate of the smallest median trial time."""
    return min(cands, key=lambda c: statistics.median(runs[c]))


def aos_unless_beaten(runs, cands):
    """AoS unless a candidate's slowest run is faster than AoS's fastest; then the fastest
    median of those that are."""
    beat = [c for c in cands if c != KIND.aos and max(runs[c]) < min(runs[KIND.aos])]
    return fastest_median(runs, beat) if beat else KIND.aos


DECISIONS = {"fastest median": fastest_median, "AoS unless beaten": aos_unless_beaten}


def points(folder):
    """[(app, precision, size, {layout: Benchmark}, fastest Benchmark)] where kdlg-tree ran."""
    device = load_files(folder, [folder / "kofler.gpu0.json.gz"]).devices[0]
    out = []
    for (app, _, precision), sizes in cases(device).items():
        for size, variants in sizes.items():
            if timed(variants.get((KIND.kdlg_tree, None))):
                measured = [b for b in variants.values() if timed(b)]
                one = {layout: b for (layout, knob), b in variants.items() if knob is None}
                out.append((app, precision, size, one, min(measured, key=lambda b: b.time_s)))
    return device.label, out


def geomean(values):
    return math.exp(sum(map(math.log, values)) / len(values))


def slower_than_aos(pts, chosen):
    """Programs whose choice is slower than AoS beyond the repetitions' extremes somewhere."""
    out = set()
    for (app, precision, _, one, _), layout in zip(pts, chosen):
        aos, b = one[KIND.aos], one[layout]
        if max(aos.repetitions_s) < min(b.repetitions_s):
            out.add(f"{PROGRAMS[app]} {precision}")
    return sorted(out)


def line(name, pts, chosen):
    regrets = [one[c].time_s / fastest.time_s for (_, _, _, one, fastest), c in zip(pts, chosen)]
    worst = max(range(len(pts)), key=regrets.__getitem__)
    app, precision, size, *_ = pts[worst]
    slower = slower_than_aos(pts, chosen)
    return (f"| {name} | {geomean(regrets):.4f} | {regrets[worst]:.3f} ({PROGRAMS[app]} {precision} "
            f"{size:,}: {chosen[worst]}) | {', '.join(slower) if slower else 'none'} |")


def simulated(pts, cands, decide, sd, draws, rng):
    """Mean and 95th percentile of the geometric-mean regret, and the lowest time(AoS) /
    time(choice), over `draws` trials whose runs are the medians times lognormal noise."""
    means, lowest = [], math.inf
    for _ in range(draws):
        regrets = []
        for _, _, _, one, fastest in pts:
            runs = {c: [one[c].time_s * math.exp(rng.gauss(0, sd)) for _ in range(TRIAL_RUNS)] for c in cands}
            c = decide(runs, cands)
            regrets.append(one[c].time_s / fastest.time_s)
            lowest = min(lowest, one[KIND.aos].time_s / one[c].time_s)
        means.append(geomean(regrets))
    means.sort()
    return statistics.mean(means), means[int(0.95 * len(means))], lowest


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--noise", default="0.003,0.01", help="trial noise per run (relative sd), comma-separated")
    parser.add_argument("--draws", type=int, default=2000)
    args = parser.parse_args(argv)
    rng = random.Random(39)
    for ref in REFERENCES:
        label, pts = points(ROOT / "results" / "reference" / ref)
        print(f"\n{label}: {len(pts)} points\n")
        print("| rule | geometric-mean regret | worst point | slower than AoS (beyond the repetitions) |")
        print("|---|---|---|---|")
        print(line("kdlg-tree (the paper)", pts, [KIND.kdlg_tree] * len(pts)))
        for name, cands in TRIALS.items():
            for dname, decide in DECISIONS.items():
                chosen = [decide({c: one[c].repetitions_s for c in cands}, cands) for *_, one, _ in pts]
                print(line(f"{name}, {dname}", pts, chosen))
        # (b) a compute-bound test: declared FLOPs against declared bytes at the ceilings
        # (compute_bound_s > memory_bound_s: above the ridge point) -> AoS, else kdlg-tree.
        bound = [KIND.aos if one[KIND.aos].counters.get("compute_bound_s", 0)
                 > one[KIND.aos].counters.get("memory_bound_s", 0) else KIND.kdlg_tree for *_, one, _ in pts]
        print(line("compute-bound -> aos, else kdlg-tree", pts, bound))
        print(f"\nwith trial noise ({TRIAL_RUNS} runs a candidate, {args.draws} draws):\n")
        print("| rule | noise sd | geometric mean: mean | 95th percentile | lowest time(AoS) / time(choice) |")
        print("|---|---|---|---|---|")
        for name, cands in TRIALS.items():
            for dname, decide in DECISIONS.items():
                for sd in map(float, args.noise.split(",")):
                    mean, p95, lowest = simulated(pts, cands, decide, sd, args.draws, rng)
                    print(f"| {name}, {dname} | {sd:.1%} | {mean:.4f} | {p95:.4f} | {lowest:.3f} |")


if __name__ == "__main__":
    main()

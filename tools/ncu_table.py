"""One benchmark's kernels from an ncu CSV log as a Markdown table (gpu_round.sh profile).

ncu --csv --print-units base --metrics ... writes one row per (kernel launch, metric):
"ID", ..., "Kernel Name", ..., "Metric Name", "Metric Unit", "Metric Value". Rows are grouped by
kernel name: launches, total and mean time, and the time-weighted means of achieved
occupancy, % of DRAM bandwidth and % of issue slots, so a change starts from where its
time goes and how far each kernel is from its bound.

    python3 tools/ncu_table.py profile.csv [--title TEXT]
"""

import argparse
import csv
import sys
from collections import OrderedDict

TIME = "gpu__time_duration.sum"
WEIGHTED = OrderedDict([
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy"),
    ("dram__throughput.avg.pct_of_peak_sustained_elapsed", "% of DRAM bandwidth"),
    ("sm__inst_issued.avg.pct_of_peak_sustained_active", "% of issue slots"),
])
METRICS = [TIME, *WEIGHTED, "launch__grid_size", "launch__block_size"]
TIME_UNITS = {"nsecond": 1e-9, "ns": 1e-9, "usecond": 1e-6, "us": 1e-6, "msecond": 1e-3,
              "ms": 1e-3, "second": 1.0, "s": 1.0}


class ProfileError(ValueError):
    pass


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        raise ProfileError(f"not a number in the ncu log: {text!r}") from None


def launches(lines):
    """{launch id: {"kernel": name, metric: value (time in seconds)}} in launch order."""
    rows = iter(csv.reader(lines))
    for header in rows:  # ncu's own lines (==PROF==, the program's output) come first
        if "Kernel Name" in header and "Metric Name" in header and "Metric Value" in header:
            break
    else:
        raise ProfileError("no ncu CSV header (\"Kernel Name\", \"Metric Name\", \"Metric Value\") "
                           "in the log: did ncu profile any kernel? (check the NVTX filter)")
    col = {name: i for i, name in enumerate(header)}
    out = OrderedDict()
    for row in rows:
        if len(row) != len(header):
            continue  # a line of the program's own output
        launch = out.setdefault(row[col["ID"]], {"kernel": row[col["Kernel Name"]]})
        metric, unit, value = (row[col[k]] for k in ("Metric Name", "Metric Unit", "Metric Value"))
        if metric == TIME:
            if unit not in TIME_UNITS:
                raise ProfileError(f"unknown time unit {unit!r} of {TIME}")
            launch[metric] = number(value) * TIME_UNITS[unit]
        else:
            launch[metric] = number(value)
    if not out:
        raise ProfileError("the ncu log has a header but no kernel rows")
    return out


def kernel_rows(by_launch):
    """Per kernel name, in order of first launch: launches, total s, and weighted means."""
    kernels = OrderedDict()
    for launch in by_launch.values():
        k = kernels.setdefault(launch["kernel"], {"launches": 0, "time": 0.0,
                                                  **{m: [0.0, 0.0] for m in WEIGHTED}})
        t = launch.get(TIME)
        if t is None:
            raise ProfileError(f"a launch of {launch['kernel']} has no {TIME}")
        k["launches"] += 1
        k["time"] += t
        for m in WEIGHTED:
            if m in launch:
                k[m][0] += t * launch[m]
                k[m][1] += t
    return kernels


def table(by_launch, title=""):
    kernels = kernel_rows(by_launch)
    total = sum(k["time"] for k in kernels.values())
    lines = [f"### {title}" if title else "",
             f"{len(by_launch)} kernel launches profiled, {total * 1e3:.3f} ms in all.", "",
             "| kernel | launches | time | share | mean | " + " | ".join(WEIGHTED.values()) + " |",
             "|---|---:|---:|---:|---:|" + "---:|" * len(WEIGHTED)]
    for name, k in sorted(kernels.items(), key=lambda kv: -kv[1]["time"]):
        means = [f"{s / w:.1f} %" if w > 0 else "—" for s, w in (k[m] for m in WEIGHTED)]
        short = name if len(name) <= 80 else name[:77] + "..."
        lines.append(f"| `{short}` | {k['launches']} | {k['time'] * 1e6:.1f} µs | "
                     f"{100 * k['time'] / total:.1f} % | {k['time'] / k['launches'] * 1e6:.2f} µs | "
                     + " | ".join(means) + " |")
    return "\n".join(line for line in lines if line is not None).lstrip("\n") + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log")
    ap.add_argument("--title", default="")
    a = ap.parse_args(argv)
    try:
        with open(a.log, newline="", encoding="utf-8", errors="replace") as f:
            sys.stdout.write(table(launches(f), a.title))
    except (OSError, ProfileError) as e:
        sys.exit(f"ncu_table: {a.log}: {e}")


if __name__ == "__main__":
    main()

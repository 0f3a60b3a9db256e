"""`python3 -m plots [--out DIR] [--report-only] RESULTS_DIR [RESULTS_DIR ...]`: figures and
REPORT.md (--report-only: REPORT.md alone, its figure links as the full run writes them).

Several results folders are several GPUs, shown side by side. Bad input ends with one
message and a non-zero exit, never a traceback.
"""

import argparse
import contextlib
import sys
from pathlib import Path

from plots.cli import run
from plots.figures import report_only
from plots.load import load_results
from plots.report import write_report


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m plots",
        description="Regenerate every paper figure and REPORT.md from results folders.")
    parser.add_argument("--out", type=Path,
                        help="output folder (default: the first results folder)")
    parser.add_argument("--report-only", action="store_true",
                        help="write REPORT.md only, no figure files (fast; the same text)")
    parser.add_argument("results", nargs="+", type=Path, metavar="RESULTS_DIR",
                        help="folder holding <suite>.gpu<k>.json files; one per GPU")
    args = parser.parse_args(argv)
    def produce():
        results = load_results(args.results)
        for benchmark in (b for f in results.files for b in f.benchmarks if b.invalid):
            print(f"plots: warning: {benchmark.source}: {benchmark.name}: {benchmark.error}",
                  file=sys.stderr)
        with report_only() if args.report_only else contextlib.nullcontext():
            written = write_report(results, args.out or args.results[0])
        return "", [path for path in written if path.exists()]

    return run("plots", produce)


if __name__ == "__main__":
    sys.exit(main())

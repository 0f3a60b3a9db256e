#!/usr/bin/env python3
"""A mutation pass: do the tests notice when the CPU code that matters is wrong?

`python3 tools/mutate.py [--build DIR] [--only ID ...] [--list]` applies each single-line
mutation of tools/mutations.json (loaders, CPU references, validation checks, the claims
evaluator, the word -> band map, the report's drawn numbers) in place, rebuilds only the
targets it names (incremental; ccache helps), runs only its tests (a gtest filter on
lb_cpu_tests, pytest files), and restores the file: the original bytes are put back in a
`finally` (also on Ctrl-C or SIGTERM), and at the end every mutated file must equal its
bytes before the run, and `git diff` of the files that were clean before must stay empty.
The rebuilt targets are rebuilt once more from the restored sources.

Each mutation is `killed` (a test failed, or the run timed out), `survived` (every test
passed) or `equivalent` (survived, with the written reason why no test can tell). Before the
mutations, each distinct test set runs once on the unmutated tree and must pass (or every
mutant would look killed).

Exit status: 0 when every survivor is explained; 1 when one is not (a test is missing);
2 when the list is stale (a line or text not found exactly once, an unknown target) or a
mutant does not build, or a test set fails without a mutation; 3 when a file could not be
restored.
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIST = Path(__file__).with_name("mutations.json")
TEST_TIMEOUT_S = 600


class Stale(Exception):
    """The list no longer matches the code: a mutation that cannot be applied."""


def load(path=LIST):
    return json.loads(path.read_text(encoding="utf-8"))["mutations"]


def mutate_text(text, m):
    """`text` with mutation `m` applied; raises Stale where it does not apply exactly once."""
    lines = text.split("\n")
    start = 0
    if "after" in m:
        anchors = [i for i, line in enumerate(lines) if line.strip() == m["after"]]
        if len(anchors) != 1:
            raise Stale(f"{m['id']}: {m['file']}: anchor {m['after']!r} found {len(anchors)} times, not once")
        start = anchors[0] + 1
        hits = [next((i for i in range(start, len(lines)) if lines[i].strip() == m["line"]), None)]
        hits = [i for i in hits if i is not None]
    else:
        hits = [i for i, line in enumerate(lines) if line.strip() == m["line"]]
    if len(hits) != 1:
        raise Stale(f"{m['id']}: {m['file']}: line {m['line']!r} found {len(hits)} times, not once")
    line = lines[hits[0]]
    if line.count(m["from"]) != 1:
        raise Stale(f"{m['id']}: {m['file']}:{hits[0] + 1}: {m['from']!r} is not in its line exactly once")
    lines[hits[0]] = line.replace(m["from"], m["to"])
    return "\n".join(lines), hits[0] + 1


def test_commands(m, build, python):
    commands = []
    for test in m["tests"]:
        if "gtest" in test:
            commands.append([str(build / "tests" / "lb_cpu_tests"), f"--gtest_filter={test['gtest']}",
                             "--gtest_brief=1"])
        elif "pytest" in test:
            commands.append([python, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *test["pytest"]])
        else:
            raise Stale(f"{m['id']}: a test is {{'gtest': filter}} or {{'pytest': [args]}}, not {test}")
    return commands


def run_quiet(command, timeout=None):
    """(status, output tail); status 'timeout' when it ran past `timeout`."""
    try:
        r = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", ""
    return r.returncode, (r.stdout + r.stderr)[-3000:]


def build(build_dir, targets, jobs):
    if not targets:
        return 0, ""
    return run_quiet(["cmake", "--build", str(build_dir), f"-j{jobs}", "--target", *targets])


def run_tests(commands):
    """'passed', or why the tests failed."""
    for command in commands:
        status, tail = run_quiet(command, TEST_TIMEOUT_S)
        if status != 0:
            return f"{describe(command)}: {'timed out' if status == 'timeout' else 'failed'}"
    return "passed"


def describe(command):
    """`lb_cpu_tests --gtest_filter=...` or `pytest FILES` (no interpreter, no options)."""
    if command[0].endswith("lb_cpu_tests"):
        return f"lb_cpu_tests {command[1]}"
    return "pytest " + " ".join(arg for arg in command[3:] if not arg.startswith("-") and arg != "no:cacheprovider")


def git_clean(files):
    """The files among `files` with no change against git's index and HEAD."""
    changed = subprocess.run(["git", "diff", "HEAD", "--name-only", "--", *files], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout.split()
    return [f for f in files if f not in changed]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", type=Path, default=Path(os.environ.get("BUILD", "build")),
                        help="the configured build folder (default: $BUILD or build)")
    parser.add_argument("--jobs", type=int, default=2, help="build jobs (default 2)")
    parser.add_argument("--only", nargs="+", metavar="ID", help="run only these mutations")
    parser.add_argument("--list", action="store_true", help="check that every mutation applies; run nothing")
    parser.add_argument("--python", default=sys.executable, help="the Python that runs pytest")
    args = parser.parse_args(argv)
    build_dir = args.build if args.build.is_absolute() else ROOT / args.build

    mutations = load()
    if args.only:
        unknown = set(args.only) - {m["id"] for m in mutations}
        if unknown:
            print(f"mutate: unknown mutation id(s): {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        mutations = [m for m in mutations if m["id"] in args.only]
    ids = [m["id"] for m in load()]
    if len(set(ids)) != len(ids):
        print("mutate: duplicate mutation ids", file=sys.stderr)
        return 2

    files = sorted({m["file"] for m in mutations})
    missing = [f for f in files if not (ROOT / f).is_file()]
    originals = {f: (ROOT / f).read_bytes() for f in files if f not in missing}
    stale = [f"{m['id']}: {m['file']} does not exist (moved or renamed?)" for m in mutations if m["file"] in missing]
    for m in mutations:  # every mutation must apply before any runs
        if m["file"] in missing:
            continue
        try:
            mutate_text(originals[m["file"]].decode("utf-8"), m)
            test_commands(m, build_dir, args.python)
        except Stale as error:
            stale.append(str(error))
    for problem in stale:
        print(f"mutate: stale: {problem}", file=sys.stderr)
    if stale or args.list:
        if not stale:
            print(f"{len(mutations)} mutations apply")
        return 2 if stale else 0

    clean_before = git_clean(files)
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # SIGTERM restores like Ctrl-C
    targets = sorted({t for m in mutations for t in m.get("targets", [])})
    results, problems = [], []
    try:
        status, tail = build(build_dir, targets, args.jobs)
        if status != 0:
            print(f"mutate: the unmutated tree does not build:\n{tail}", file=sys.stderr)
            return 2
        baseline = {}
        for m in mutations:
            for command in test_commands(m, build_dir, args.python):
                key = tuple(command)
                if key not in baseline:
                    baseline[key] = run_tests([command])
                    if baseline[key] != "passed":
                        problems.append(f"without a mutation: {baseline[key]}")
        if problems:
            for p in problems:
                print(f"mutate: {p}", file=sys.stderr)
            return 2
        width = max(len(m["id"]) for m in mutations)
        for m in mutations:
            path = ROOT / m["file"]
            mutated, line_no = mutate_text(originals[m["file"]].decode("utf-8"), m)
            started = time.monotonic()
            try:
                path.write_text(mutated, encoding="utf-8")
                status, tail = build(build_dir, m.get("targets", []), args.jobs)
                if status != 0:
                    verdict, why = "does not build", tail.strip().splitlines()[-1:] or [""]
                    why = why[0]
                else:
                    outcome = run_tests(test_commands(m, build_dir, args.python))
                    verdict, why = ("survived", "") if outcome == "passed" else ("killed", outcome)
            finally:
                path.write_bytes(originals[m["file"]])
            if verdict == "survived" and m.get("equivalent"):
                verdict, why = "equivalent", m["equivalent"]
            results.append((m, verdict))
            print(f"{verdict:>14}  {m['id']:<{width}}  {m['file']}:{line_no}  {m['from']!r} -> {m['to']!r}"
                  f"  ({time.monotonic() - started:.0f} s){'  ' + why if why else ''}", flush=True)
    finally:
        for f, data in originals.items():
            (ROOT / f).write_bytes(data)
        restored = all((ROOT / f).read_bytes() == data for f, data in originals.items())
        dirty = set(clean_before) - set(git_clean(clean_before))
        if not restored or dirty:
            print(f"mutate: NOT RESTORED: {sorted(dirty) or files}: check `git diff`", file=sys.stderr)
            return 3
        if targets:
            build(build_dir, targets, args.jobs)  # the build folder holds the unmutated code again

    counts = {v: sum(1 for _, verdict in results if verdict == v)
              for v in ("killed", "survived", "equivalent", "does not build")}
    judged = counts["killed"] + counts["survived"]
    rate = f"{100 * counts['killed'] / judged:.0f} %" if judged else "-"
    print(f"\n{len(results)} mutations: {counts['killed']} killed, {counts['survived']} survived, "
          f"{counts['equivalent']} equivalent, {counts['does not build']} do not build; "
          f"kill rate {rate} (killed / (killed + survived))")
    if counts["does not build"]:
        return 2
    return 1 if counts["survived"] else 0


if __name__ == "__main__":
    sys.exit(main())

"""A seeded mutation fuzzer for the result JSON that `plots` reads (plots/load.py).

The rule: `load_results` on a folder holding a mutated `<suite>.gpu0.json` either returns
or raises ResultsError whose message names the folder or file; any other exception is a bug.
The folder around it varies with the input (write_folder): the file gzip-compressed or
falsely named .gz, a run.json and a second GPU's file, a folder and a device named like
result files.
Seeds: the fixture result files (tests/python/fixtures: idw_quick's file and what the kofler,
inner and kriging fixture generators write), cut to a few benchmarks each so a run tries
many inputs. Mutations work on the parsed tree (values of other types, removed keys, changed
name fields, duplicated or dropped entries) and, one time in five, on the text (truncation,
flipped and inserted bytes), so malformed JSON and bad encodings are tried too.

    python3 fuzz/results_fuzz.py [--seconds S] [--seed N] [--runs N] [--artifacts DIR] [FILE...]

With FILEs, each is loaded once (regression inputs) instead of fuzzing.
"""

import argparse
import copy
import gzip
import hashlib
import json
import random
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from plots.load import ResultsError, load_results  # noqa: E402

FIXTURES = ROOT / "tests" / "python" / "fixtures"
RESULT_NAME = "fuzz.gpu0.json"
ODD_VALUES = [None, True, False, 0, -1, 1, 2.5, -0.0, 1e308, -1e308, float("nan"), float("inf"),
              float("-inf"), 2**64, "", "x", "iteration", "aggregate", "median", "spread",
              "percentage", "ns", "us", "s", "time", [], {}, [1], {"a": 1}]
NAME_PIECES = ["", "/", ":", "p:", "size:", "x:1", "idw", "kriging", "kofler", "inner", "cpu-",
               "soa", "aos", "float", "double", "half", "naive", "//", "size:-1", "size:1e999",
               "p:nan", "\u00e9", "\x00", "median", "_median", "/real_time", "/iterations:1"]
TEXT_PIECES = [b"{", b"}", b"[", b"]", b",", b":", b'"', b"\\", b"\\u0000", b"\\ud800", b"NaN",
               b"Infinity", b"-", b"1e999", b"\xff", b"\xef\xbb\xbf", b"\x00", b"null"]


def seed_documents():
    """The fixture result documents, in a fixed order."""
    from tests.python.fixtures import (make_inner_fixture, make_kofler_fixture,
                                       make_kriging_fixture)
    docs = [json.loads((FIXTURES / "idw_quick" / "idw.gpu0.json").read_text())]
    docs += [m.build_fixture() for m in (make_kofler_fixture, make_inner_fixture, make_kriging_fixture)]
    return docs


def cut(rng, doc, benchmarks=4):
    """`doc` with every entry of a few of its benchmarks (repetitions and aggregates)."""
    names = sorted({e.get("run_name", e.get("name")) for e in doc["benchmarks"]})
    keep = set(rng.sample(names, min(benchmarks, len(names))))
    return {"context": copy.deepcopy(doc["context"]),
            "benchmarks": [copy.deepcopy(e) for e in doc["benchmarks"]
                           if e.get("run_name", e.get("name")) in keep]}


def _containers(node, out):
    if isinstance(node, (dict, list)):
        out.append(node)
        for child in (node.values() if isinstance(node, dict) else node):
            _containers(child, out)
    return out


def mutate_tree(rng, doc):
    """A few structural mutations of the parsed document, in place."""
    for _ in range(rng.randint(1, 4)):
        target = rng.choice(_containers(doc, []))
        if not target:
            continue
        keys = list(target) if isinstance(target, dict) else list(range(len(target)))
        key = rng.choice(keys)
        action = rng.randrange(6)
        if action == 0:
            target[key] = copy.deepcopy(rng.choice(ODD_VALUES))
        elif action == 1:
            del target[key]
        elif action == 2 and isinstance(target[key], str):  # a name: change one of its fields
            parts = target[key].split("/")
            parts[rng.randrange(len(parts))] = rng.choice(NAME_PIECES)
            target[key] = "/".join(parts)
        elif action == 3 and isinstance(target[key], (int, float)) and not isinstance(target[key], bool):
            target[key] = rng.choice([0, -target[key], target[key] * 1e300, target[key] / 1e300])
        elif action == 4 and isinstance(target, list):  # an entry twice
            target.insert(rng.randrange(len(target) + 1), copy.deepcopy(target[key]))
        elif isinstance(target, dict):  # a key of the runner's or a counter's name
            target[rng.choice(["aggregate_name", "aggregate_unit", "error_occurred", "skipped",
                               "throttled", "time_unit", "real_time", "lb", "gpu", "uuid",
                               "run", "preset"])] = copy.deepcopy(rng.choice(ODD_VALUES))


def mutate_text(rng, data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(data) + 1)
        action = rng.randrange(4)
        if action == 0:
            del data[at:]
        elif action == 1 and at < len(data):
            data[at] ^= 1 << rng.randrange(8)
        elif action == 2:
            data[at:at] = rng.choice(TEXT_PIECES)
        else:
            del data[at:at + rng.randint(1, 16)]
    return bytes(data)


def make_input(rng, seeds):
    doc = cut(rng, rng.choice(seeds))
    mutate_tree(rng, doc)
    data = json.dumps(doc).encode()
    return mutate_text(rng, data) if rng.randrange(5) == 0 else data


class Failure(Exception):
    """An input that broke the rule; the message says how."""


def write_folder(data, folder):
    """The results folder an input stands for: `data` as its result file, and, decided by
    the input's hash (so a kept input replays the same folder), the file gzip-compressed,
    not gzip though named .gz, beside a run.json and a second GPU's copy (and its .gz twin),
    or beside a folder and a device named like result files."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    shape = hashlib.sha1(data).digest()[0] % 8
    if shape == 4:
        (folder / (RESULT_NAME + ".gz")).write_bytes(gzip.compress(data))
        return
    (folder / (RESULT_NAME + (".gz" if shape == 5 else ""))).write_bytes(data)
    if shape == 6:
        (folder / "run.json").write_bytes(data)
        (folder / "fuzz.gpu1.json").write_bytes(data)
        (folder / "fuzz.gpu1.json.gz").write_bytes(gzip.compress(data))
    elif shape == 7:
        (folder / "folder.gpu1.json").mkdir()
        (folder / "dev.gpu2.json").symlink_to("/dev/zero")  # sorted first: read first


def check_one(data, folder):
    """Loads the results folder `data` stands for (write_folder); raises Failure unless it
    loads or raises a ResultsError naming the folder."""
    write_folder(data, folder)
    try:
        load_results([folder])
    except ResultsError as error:
        if not str(error).startswith(str(folder)):
            raise Failure(f"ResultsError does not name the file first: {error}") from None
    except Exception:  # noqa: BLE001 - the point: every other exception is a bug
        raise Failure("not a ResultsError:\n" + traceback.format_exc()) from None


def _keep(data, artifacts, failure):
    artifacts.mkdir(parents=True, exist_ok=True)
    path = artifacts / f"results-crash-{hashlib.sha1(data).hexdigest()[:16]}.json"
    path.write_bytes(data)
    return (f"{failure}\nfailing input kept as {path}\n  to make it a regression input: "
            f"cp {path} {ROOT}/tests/fuzz_regressions/results/")


def replay(paths, artifacts):
    """Loads each file once; returns the failures' descriptions."""
    failures = []
    with tempfile.TemporaryDirectory(prefix="lb_fuzz_results.") as tmp:
        for path in paths:
            data = Path(path).read_bytes()
            try:
                check_one(data, Path(tmp) / "results")
            except Failure as failure:
                failures.append(f"{path}: " + _keep(data, artifacts, failure))
    return failures


def fuzz(seconds, seed, runs=0, artifacts=Path("fuzz-artifacts")):
    """Runs mutants until `seconds` pass (or `runs` inputs); returns (runs, failures)."""
    rng = random.Random(seed)
    seeds = seed_documents()
    start, done, failures = time.monotonic(), 0, []
    with tempfile.TemporaryDirectory(prefix="lb_fuzz_results.") as tmp:
        folder = Path(tmp) / "results"
        while time.monotonic() - start < seconds and (runs == 0 or done < runs) and not failures:
            data = make_input(rng, seeds)
            done += 1
            try:
                check_one(data, folder)
            except Failure as failure:
                failures.append(_keep(data, artifacts, failure))
    return done, failures


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=0)
    parser.add_argument("--artifacts", type=Path, default=Path("fuzz-artifacts"))
    parser.add_argument("files", nargs="*", type=Path)
    args = parser.parse_args(argv)
    if args.files:
        failures = replay(args.files, args.artifacts)
        summary = f"fuzz_results: {len(args.files)} inputs replayed"
    else:
        done, failures = fuzz(args.seconds, args.seed, args.runs, args.artifacts)
        summary = f"fuzz_results: {done} runs in {args.seconds:g} s (seed {args.seed})"
    for failure in failures:
        print(failure, file=sys.stderr)
    print(f"{summary}: {'FAILED' if failures else 'no failure'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

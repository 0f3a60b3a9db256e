"""harness/run.py --merge (make merge) on small hand-made run folders: the merged folder (one
run.json, the cards renumbered, every file copied unchanged, read by plots as one GPU), and
each refusal as one line, exit 2, nothing written. In-process (orchestrator.cli.main) but for
one end-to-end run of the script."""
import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from plots.load import load_results

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "harness"))  # harness/run.py's parts, as run.py finds them
from orchestrator.cli import main  # noqa: E402

COMMIT = "0123456789abcdef0123456789abcdef01234567"
NAMES = [f"idw/shepard/naive/{layout}/float/p:2/size:1024/manual_time"
         for layout in ("soa", "aos", "aoas", "builtin")]


def entry(name, rep):
    return {"name": name, "run_name": name, "run_type": "iteration", "repetitions": 2,
            "repetition_index": rep, "threads": 1, "iterations": 10, "real_time": 100.0 + rep,
            "cpu_time": 50.0, "time_unit": "us"}


def make_run(folder, names, suite="idw", card="GPU-a", gpu="NVIDIA H200", commit=COMMIT,
             dirty=False, preset="quick", index=0, gz=False, plan=None):
    """A run folder as harness/run.py leaves it: a result file, its journal, run.json."""
    folder.mkdir(parents=True, exist_ok=True)
    context = {"host_name": "h", "lb": {"gpu": {"name": gpu, "uuid": card},
                                        "build": {"git_commit": commit, "git_dirty": dirty},
                                        "run": {"preset": preset, "suite": suite}}}
    text = json.dumps({"context": context,
                       "benchmarks": [entry(n, rep) for n in names for rep in (0, 1)]})
    result = folder / f"{suite}.gpu{index}.json{'.gz' if gz else ''}"
    result.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    (folder / f"{suite}.gpu{index}.journal.jsonl").write_text(
        json.dumps({"type": "context", "context": context}) + "\n"
        + "".join(json.dumps({"type": "done", "name": n, "ok": True}) + "\n" for n in names))
    meta = json.loads((folder / "run.json").read_text()) if (folder / "run.json").exists() else {
        "format": 1, "started": "2026-11-28T10:00:00+00:00", "command": ["harness/run.py"],
        "args": {"preset": preset, "suites": [], "devices": [index], "filter": None,
                 "sizes": None, "precision": None, "split": False},
        "bin": "build/layoutbench", "devices": [{"index": index, "name": gpu, "uuid": card}],
        "plan": {}, "resumed": []}
    meta["args"]["suites"].append(suite)
    meta["plan"][suite] = plan or len(names)
    (folder / "run.json").write_text(json.dumps(meta))
    return folder


def merge(capsys, *args):
    code = main(["--merge", *map(str, args[:-1]), "--out", str(args[-1]), "--no-figures"])
    return code, capsys.readouterr()


def test_a_suite_finished_on_another_card_merges_into_one_gpu(tmp_path, capsys):
    a = make_run(tmp_path / "a", NAMES[:3], card="GPU-a", plan=4)      # interrupted: 3 of 4
    make_run(a, ["kriging/ok/gpu-exp6/aos-const/float/scale:1/wells:10/manual_time"],
             suite="kriging", card="GPU-a", gz=True)
    (a / "kofler-tree").mkdir()
    (a / "kofler-tree" / "tree.gpu0.json").write_text("{}")
    (a / "kriging-model.gpu0.csv").write_text("x,y,surface0\n")
    b = make_run(tmp_path / "b", NAMES[3:], card="GPU-b", plan=1)      # the rest, another card
    out = tmp_path / "merged"
    code, said = merge(capsys, a, b, out)
    assert code == 0, said.err
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == [
        "idw.gpu0.journal.jsonl", "idw.gpu0.json", "idw.gpu1.journal.jsonl", "idw.gpu1.json",
        "kofler-tree/tree.gpu0.json", "kriging-model.gpu0.csv", "kriging.gpu0.journal.jsonl",
        "kriging.gpu0.json.gz", "run.json", "run.log"]
    assert (out / "idw.gpu1.json").read_bytes() == (b / "idw.gpu0.json").read_bytes()
    assert (out / "kriging.gpu0.json.gz").read_bytes() == (a / "kriging.gpu0.json.gz").read_bytes()
    meta = json.loads((out / "run.json").read_text())
    assert meta["args"]["preset"] == "quick" and meta["args"]["suites"] == ["idw", "kriging"]
    assert [(d["index"], d["uuid"]) for d in meta["devices"]] == [(0, "GPU-a"), (1, "GPU-b")]
    assert meta["plan"] == {"idw": 4, "kriging": 1}
    assert [(m["folder"], m["devices"]) for m in meta["merged"]] == [
        (str(a), {"0": 0}), (str(b), {"0": 1})]
    assert "gpu0 -> gpu1" in said.out and f"run folder: {out}" in said.out

    results = load_results([out])
    (device,) = results.devices  # one GPU: plots reads the merged cards as one
    assert device.label == "NVIDIA H200 (merged from 2 cards)"
    assert sorted(b.name + "/manual_time" for b in device.benchmarks if b.paper == "idw") == sorted(NAMES)

    resumed = main(["--resume", str(out)])
    assert resumed == 2 and "was merged from run folders" in capsys.readouterr().err


def refusal(capsys, tmp_path, a, b, expected):
    out = tmp_path / "merged"
    code, said = merge(capsys, a, b, out)
    assert code == 2 and expected in said.err, said.err
    assert len(said.err.strip().splitlines()) == 1 and said.out == ""
    assert not out.exists() and [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


@pytest.mark.parametrize("other, expected", [
    ({"commit": "fedcba9876543210fedcba9876543210fedcba98"},
     "has commit 0123456, {b} commit fedcba9; run folders of one commit only"),
    ({"dirty": True}, "has commit 0123456, {b} commit 0123456 (dirty)"),
    ({"gpu": "NVIDIA H100 80GB HBM3"},
     "has NVIDIA H200, {b} NVIDIA H100 80GB HBM3; run folders of one GPU model only"),
    ({"preset": "paper"}, "has quick, {b} paper; run folders of one preset only"),
    ({"names": NAMES[2:]}, "1 benchmark(s) are in both {a} and {b} (first: " + NAMES[2] + ")"),
    ({"commit": ""}, "idw.gpu0.json names no commit"),
])
def test_conflicting_run_folders_are_refused_in_one_line(tmp_path, capsys, other, expected):
    a = make_run(tmp_path / "a", NAMES[:3])
    options = {"names": NAMES[3:], "card": "GPU-b", **other}
    b = make_run(tmp_path / "b", options.pop("names"), **options)
    refusal(capsys, tmp_path, a, b, expected.format(a=a, b=b))


def test_bad_merge_arguments_are_refused_in_one_line(tmp_path, capsys):
    a = make_run(tmp_path / "a", NAMES[:2])
    empty = tmp_path / "empty"
    empty.mkdir()
    refusal(capsys, tmp_path, a, empty, f"cannot merge {empty}: no <suite>.gpu<k>.json result files")
    refusal(capsys, tmp_path, a, a, "--merge names one run folder twice")
    (tmp_path / "merged").mkdir()
    code, said = merge(capsys, a, make_run(tmp_path / "b", NAMES[2:], card="GPU-b"), tmp_path / "merged")
    assert code == 2 and "exists: --merge writes a new folder" in said.err
    assert main(["--merge", str(a), "--out", str(tmp_path / "x"), "--preset", "quick"]) == 2
    assert "--merge takes run folders, --out and --no-figures; not --preset" in capsys.readouterr().err


def test_make_merge_runs_the_script_end_to_end(tmp_path):
    a = make_run(tmp_path / "a", NAMES[:2], card="GPU-a")
    b = make_run(tmp_path / "b", NAMES[2:], card="GPU-b")
    usage = subprocess.run(["make", "-s", "merge", f"A={a}"], cwd=REPO, capture_output=True, text=True)
    assert usage.returncode == 2 and "usage: make merge A=" in usage.stdout
    done = subprocess.run([sys.executable, "harness/run.py", "--merge", str(a), str(b), "--out",
                           str(tmp_path / "m"), "--no-figures"], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "m" / "run.json").read_text())["args"]["devices"] == [0, 1]


def test_cpu_baselines_measured_once_per_host_merge_once_and_serve_every_card(tmp_path, capsys):
    """A side-by-side run measures its CPU baselines once per host, in the first card's files
    (harness/run.py): merged with another run they stay in one file, are in no two sources,
    and the merged GPU holds them with nothing read as missing."""
    from plots import report
    cpu = [f"idw/shepard/cpu-serial/aos/float/p:2/size:{n}/manual_time" for n in (1024, 4096)]
    a = make_run(tmp_path / "a", NAMES + cpu, card="GPU-a")
    make_run(a, NAMES, card="GPU-b", index=1, plan=len(NAMES + cpu))
    b = make_run(tmp_path / "b", ["kriging/ok/gpu-exp6/aos-const/float/scale:1/wells:10/manual_time"],
                 suite="kriging", card="GPU-a")
    out = tmp_path / "merged"
    code, said = merge(capsys, a, b, out)
    assert code == 0, said.err
    holding = [p.name for p in sorted(out.glob("*.gpu*.json"))
               if any(n in p.read_text() for n in cpu)]
    assert holding == ["idw.gpu0.json"]
    results = load_results([out])
    for device in results.devices:
        assert sorted(b.name + "/manual_time" for b in device.benchmarks if b.is_host) == cpu
    assert "Incomplete" not in report._header(results)

"""`layoutbench run` on a GPU with the noise rules (docs/architecture.md, "Noise the run
controls"): every result's median entry records its repetitions, the median's interval and the
decision; repetitions are numbered across rounds; the run's context names the rules and the
host's CPU lock; two processes on one host (as `run.py --devices 0,1` starts them) never time
CPU benchmarks at once. The rules themselves, the rounds and the lock across two processes
are tested without a GPU in tests/cpp/test_noise.cpp. Skipped without the built binary or a GPU."""
import json
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "build" / "layoutbench"

pytestmark = pytest.mark.skipif(not BIN.exists(), reason=f"needs the built binary {BIN}")

PRESET = {"repetitions": 3, "min_time_s": 0.005, "spread_flag_pct": 5, "noise_target_pct": 1,
          "noise_cap_s": 0.5,
          "suites": {"idw": {"sizes": [10240, 20480], "versions": ["naive"], "layouts": ["soa"],
                             "precisions": ["float"], "powers": [2], "block": 256,
                             "cpu_baselines": True}}}


def start(tmp_path, journal, lock):
    preset = tmp_path / "noise.json"
    preset.write_text(json.dumps(PRESET))
    return subprocess.Popen([str(BIN), "run", "--suite", "idw", "--preset", str(preset),
                             "--filter", "(naive|cpu-serial)/", "--journal", str(journal),
                             "--cpu-lock", str(lock)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finished(process):
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    return err


def records(journal):
    return [json.loads(line) for line in journal.read_text().splitlines()]


def medians(journal):
    return {r["name"]: r["run"] for r in records(journal)
            if r["type"] == "run" and r["run"].get("aggregate_name") == "median"}


def test_every_result_records_its_noise_and_cpu_ones_the_lock(tmp_path, gpu):
    journal, lock = tmp_path / "j.jsonl", tmp_path / "cpu.lock"
    finished(start(tmp_path, journal, lock))
    context = next(r["context"] for r in records(journal) if r["type"] == "context")
    assert context["lb"]["run"]["noise_target_pct"] == 1
    assert context["lb"]["run"]["cpu_lock"] == str(lock)
    found = medians(journal)
    assert len(found) == 4  # naive and cpu-serial at two sizes
    for name, median in found.items():
        noise = median["noise"]
        iterations = [r["run"] for r in records(journal) if r["type"] == "run" and r["name"] == name
                      and r["run"]["run_type"] == "iteration"]
        assert noise["repetitions"] == len(iterations) >= 3
        assert [r["repetition_index"] for r in iterations] == list(range(len(iterations)))
        assert {r["repetitions"] for r in iterations} == {len(iterations)}
        low, high = noise["interval_s"]
        assert low <= median["real_time"] * 1e-6 <= high
        assert noise["target_met"] or noise["capped"]
        assert noise["extra_s"] < PRESET["noise_cap_s"] + 0.5
        assert ("host_lock" in median) == ("/cpu-serial/" in name), name


def test_two_processes_never_time_cpu_benchmarks_at_once(tmp_path, gpu):
    lock = tmp_path / "cpu.lock"
    journals = [tmp_path / "gpu0.jsonl", tmp_path / "gpu1.jsonl"]
    for process in [start(tmp_path, j, lock) for j in journals]:
        finished(process)
    held = [[(m["host_lock"]["held_from_unix_s"], m["host_lock"]["held_to_unix_s"])
             for m in medians(j).values() if "host_lock" in m] for j in journals]
    assert len(held[0]) == len(held[1]) == 2
    for from0, to0 in held[0]:
        for from1, to1 in held[1]:
            assert to0 <= from1 or to1 <= from0, (held[0], held[1])

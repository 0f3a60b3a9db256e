"""plots.load: results folders -> one row per benchmark, errors kept apart from times."""

import json
import shutil
import statistics
from pathlib import Path

import pytest

from plots.load import ResultsError, load_results
from plots.select import timed_by_size

FIXTURE = Path(__file__).parent / "fixtures" / "idw_quick"
FIXTURE_FILE = FIXTURE / "idw.gpu0.json"
ERRORED = "idw/shepard/tiled/hybrid/double/p:2/size:51200/block:256"
NOISY = "idw/shepard/naive/soa/float/p:2/size:51200/block:256"
THROTTLED = "idw/shepard/tiled/aos/float/p:2/size:10240/block:256"


def raw_entries():
    return json.loads(FIXTURE_FILE.read_text())["benchmarks"]


def by_name(results):
    return {b.name: b for f in results.files for b in f.benchmarks}


def write_result(folder, benchmarks, lb=None, name="idw.gpu0.json"):
    folder.mkdir(parents=True, exist_ok=True)
    context = {"date": "2025-06-01"} if lb is None else {"date": "2025-06-01", "lb": lb}
    (folder / name).write_text(json.dumps({"context": context, "benchmarks": benchmarks}))
    return folder


def iteration(name, real_time, unit="us", **counters):
    return {"name": name, "run_name": name, "run_type": "iteration", "repetitions": 3,
            "iterations": 10, "real_time": real_time, "cpu_time": real_time,
            "time_unit": unit, **counters}


def test_fixture_folder_reads_every_benchmark_with_context():
    results = load_results([FIXTURE])
    assert results.benchmark_count == 73
    assert results.entry_count == len(raw_entries())
    (device,) = results.devices
    assert device.label == "NVIDIA H100 80GB HBM3"
    assert device.preset == "quick"
    assert results.files[0].context["lb"]["ceilings"]["fp32_fma_per_s"] == 3.0e13
    assert {b.device for b in device.benchmarks} == {"NVIDIA H100 80GB HBM3"}


def test_time_is_the_median_aggregate_converted_to_seconds():
    rows = by_name(load_results([FIXTURE]))
    gpu = "idw/shepard/naive/aos/float/p:2/size:10240/block:256"
    cpu = "idw/shepard/cpu-serial/aos/float/p:2/size:51200"
    entries = {e["name"]: e for e in raw_entries()}
    assert entries[f"{gpu}/manual_time_median"]["time_unit"] == "ms"
    assert entries[f"{cpu}/real_time_median"]["time_unit"] == "s"
    median_ms = entries[f"{gpu}/manual_time_median"]["real_time"]
    assert rows[gpu].time_s == pytest.approx(median_ms * 1e-3)
    assert rows[cpu].time_s == pytest.approx(entries[f"{cpu}/real_time_median"]["real_time"])


def test_counters_are_medians_of_the_iterations():
    rows = by_name(load_results([FIXTURE]))
    gpu = "idw/shepard/tiled/aoas/float/p:2/size:51200/block:256"
    values = [e["pct_of_limit"] for e in raw_entries()
              if e["name"] == f"{gpu}/manual_time" and e["run_type"] == "iteration"]
    assert len(values) == 3
    assert rows[gpu].counters["pct_of_limit"] == pytest.approx(statistics.median(values))
    assert rows[gpu].counters["interactions"] == 51200 ** 2


def test_spread_and_throttle_flags():
    rows = by_name(load_results([FIXTURE]))
    assert rows[NOISY].spread > 0.05
    assert rows[THROTTLED].throttled
    assert not rows[NOISY].throttled
    quiet = rows["idw/shepard/tiled/soa/float/p:2/size:51200/block:256"]
    assert quiet.spread < 0.05


def test_errored_benchmark_is_kept_as_error_and_never_timed():
    results = load_results([FIXTURE])
    errored = by_name(results)[ERRORED]
    assert errored.time_s is None
    assert "validation failed" in errored.error
    times = timed_by_size(results.devices[0].benchmarks,
                          {"version": "tiled", "layout": "hybrid", "precision": "double"}, {})
    assert list(times) == [10240]


def test_without_median_aggregate_uses_iteration_median_and_spread(tmp_path):
    name = "idw/shepard/naive/soa/float/p:2/size:1024/block:256/manual_time"
    folder = write_result(tmp_path / "run", [iteration(name, t, throttled=0, pct_of_limit=p)
                                             for t, p in ((10, 1), (30, 3), (20, 2))])
    results = load_results([folder])
    (row,) = results.files[0].benchmarks
    assert row.time_s == pytest.approx(20e-6)
    assert row.spread == pytest.approx((30 - 10) / 20)
    assert row.counters == {"throttled": 0, "pct_of_limit": 2}
    assert row.device == "unknown" and row.preset == "unknown"


def aggregate(name, statistic, real_time, unit="percentage"):
    return {"name": f"{name}_{statistic}", "run_name": name, "run_type": "aggregate",
            "aggregate_name": statistic, "aggregate_unit": unit, "iterations": 3,
            "real_time": real_time, "cpu_time": real_time, "time_unit": "ms"}


def test_spread_comes_from_repetitions_even_when_the_aggregate_is_rescaled(tmp_path):
    name = "idw/shepard/naive/soa/float/p:2/size:1024/block:256/manual_time"
    runs = [iteration(name, t, unit="ms") for t in (10, 11, 12)]
    rescaled = aggregate(name, "spread", 0.2 * 1000 / 50)  # fraction x ms multiplier / iters
    (row,) = load_results([write_result(tmp_path / "run", runs + [rescaled])]).files[0].benchmarks
    assert row.spread == pytest.approx((12 - 10) / 11)
    assert row.time_s == pytest.approx(11e-3)


def test_aggregates_only_use_the_median_and_spread_aggregates(tmp_path):
    name = "idw/shepard/naive/soa/float/p:2/size:1024/block:256/manual_time"
    entries = [aggregate(name, "median", 4.0, unit="time"), aggregate(name, "spread", 0.08)]
    (row,) = load_results([write_result(tmp_path / "run", entries)]).files[0].benchmarks
    assert row.time_s == pytest.approx(4e-3)
    assert row.spread == pytest.approx(0.08)


def test_skipped_benchmark_counts_as_not_timed(tmp_path):
    name = "idw/shepard/naive/soa/double/p:2/size:4194304/block:256/manual_time"
    entry = {"name": name, "run_name": name, "run_type": "iteration", "skipped": True,
             "skip_message": "does not fit in device memory"}
    (row,) = load_results([write_result(tmp_path / "run", [entry])]).files[0].benchmarks
    assert row.time_s is None
    assert row.error == "skipped: does not fit in device memory"


def test_folders_of_the_same_gpu_model_get_distinct_labels(tmp_path):
    lb = {"gpu": {"name": "NVIDIA H200"}, "run": {"preset": "quick"}}
    name = "idw/shepard/naive/soa/float/p:2/size:1024/block:256/manual_time"
    first = write_result(tmp_path / "a", [iteration(name, 5)], lb)
    second = write_result(tmp_path / "b", [iteration(name, 6)], lb)
    labels = [d.label for d in load_results([first, second]).devices]
    assert labels == ["NVIDIA H200 run 1", "NVIDIA H200 run 2"]  # short: fits a legend


def test_identical_gpus_of_one_folder_are_numbered_by_device_index(tmp_path):
    name = "idw/shepard/naive/soa/float/p:2/size:1024/block:256/manual_time"
    folder = tmp_path / "run"
    for index in (0, 1):
        write_result(folder, [iteration(name, 5 + index)],
                     {"gpu": {"name": "NVIDIA H200", "uuid": f"GPU-{index}"}},
                     f"idw.gpu{index}.json")
    other = write_result(tmp_path / "other", [iteration(name, 5)],
                         {"gpu": {"name": "NVIDIA H100"}})
    labels = [d.label for d in load_results([folder, other]).devices]
    assert labels == ["NVIDIA H200 #0", "NVIDIA H200 #1", "NVIDIA H100"]


def test_devices_of_one_folder_share_host_baselines(tmp_path):
    gpu = "idw/shepard/naive/soa/float/p:2/size:1024/block:256/manual_time"
    cpu = "idw/shepard/cpu-serial/aos/float/p:2/size:1024/real_time"
    folder = tmp_path / "run"
    write_result(folder, [iteration(gpu, 5), iteration(cpu, 900)],
                 {"gpu": {"name": "GPU A", "uuid": "GPU-a"}}, "idw.gpu0.json")
    write_result(folder, [iteration(gpu, 7)], {"gpu": {"name": "GPU B", "uuid": "GPU-b"}},
                 "idw.gpu1.json")
    devices = {d.label: d for d in load_results([folder]).devices}
    assert set(devices) == {"GPU A", "GPU B"}
    second = {b.version: b for b in devices["GPU B"].benchmarks}
    assert second["cpu-serial"].time_s == pytest.approx(900e-6)
    assert second["naive"].time_s == pytest.approx(7e-6)


def test_missing_folder_is_named(tmp_path):
    with pytest.raises(ResultsError, match="does not exist") as error:
        load_results([tmp_path / "nowhere"])
    assert "nowhere" in str(error.value)


def test_folder_without_result_files(tmp_path):
    (tmp_path / "notes.json").write_text("{}")
    (tmp_path / "idw.gpu0.journal.jsonl").write_text("{}\n")
    with pytest.raises(ResultsError, match="no <suite>.gpu<k>.json"):
        load_results([tmp_path])


def test_malformed_json_names_file_and_line(tmp_path):
    folder = tmp_path / "run"
    shutil.copytree(FIXTURE, folder)
    path = folder / "idw.gpu0.json"
    path.write_text(path.read_text()[:5000])
    with pytest.raises(ResultsError, match=r"idw\.gpu0\.json:\d+: malformed JSON"):
        load_results([folder])


@pytest.mark.parametrize("doc, complaint", [
    ({"context": {}}, "'benchmarks'"),
    ({"benchmarks": []}, "'context'"),
    ([], "not a JSON object"),
    ({"context": {}, "benchmarks": [{"run_type": "iteration"}]}, "without a 'name'"),
    ({"context": {}, "benchmarks": [{"name": "idw/shepard/naive/soa/float/p:2"}]},
     "run_type"),
    ({"context": {}, "benchmarks": [{"name": "idw/shepard", "run_type": "iteration"}]},
     "benchmarks\\[0\\]"),
    ({"context": {}, "benchmarks": [{"name": "idw/shepard/naive/soa/float/size:1",
                                     "run_type": "iteration", "real_time": 1}]},
     "time_unit"),
])
def test_malformed_documents_are_reported_with_the_file(tmp_path, doc, complaint):
    (tmp_path / "idw.gpu0.json").write_text(json.dumps(doc))
    with pytest.raises(ResultsError, match=complaint) as error:
        load_results([tmp_path])
    assert "idw.gpu0.json" in str(error.value)


# --- entries that cannot be merged into one result (issue 19): refused, naming them ---------

NAME = "idw/shepard/naive/soa/float/p:2/size:1024/block:256/manual_time"
OTHER = "idw/shepard/naive/aos/float/p:2/size:1024/block:256/manual_time"


def merge_refusal(tmp_path, entries):
    folder = write_result(tmp_path / "run", entries)
    with pytest.raises(ResultsError) as error:
        load_results([folder])
    return str(error.value)


def test_a_benchmark_name_given_twice_is_refused(tmp_path):
    # Two runs of one name (3 repetitions each): merged, their median would be neither's.
    twice = [iteration(NAME, t) for t in (10, 10, 10, 30, 30, 30)]
    message = merge_refusal(tmp_path, twice + [iteration(OTHER, 5)])
    assert "idw.gpu0.json" in message and "idw/shepard/naive/soa/float/p:2/size:1024/block:256" in message
    assert "6 repetitions where the run had 3" in message and "aos" not in message


def test_a_repetition_index_or_an_aggregate_twice_is_refused_naming_each_benchmark(tmp_path):
    runs = [dict(iteration(NAME, t), repetition_index=k) for k, t in ((0, 10), (1, 11), (0, 30))]
    medians = [aggregate(OTHER, "median", t, unit="time") for t in (1.0, 3.0)]
    message = merge_refusal(tmp_path, runs + medians)
    assert "2 benchmark(s)" in message
    assert "soa/float/p:2/size:1024/block:256 (duplicate name: a repetition index appears twice)" in message
    assert "aos/float/p:2/size:1024/block:256 (duplicate name: aggregate 'median' appears twice)" in message


def test_a_counter_missing_from_some_repetitions_is_refused(tmp_path):
    runs = [iteration(NAME, 10, pct_of_limit=1), iteration(NAME, 11), iteration(NAME, 12, pct_of_limit=3)]
    message = merge_refusal(tmp_path, runs)
    assert "counter 'pct_of_limit' missing from 1 of its 3 repetitions" in message, message


LABEL = "cluster_layouts=tiled-64|soa;tree_gpu=NVIDIA H100 80GB HBM3"


def test_the_label_is_read_once_for_the_benchmark(tmp_path):
    """Google Benchmark's label (the Kofler method's tree choice) is the benchmark's, from
    every repetition; an aggregate without one differs from none; unlabelled is None."""
    runs = [dict(iteration(NAME, t), repetition_index=k, label=LABEL)
            for k, t in enumerate((10, 11, 12))]
    folder = write_result(tmp_path / "run", runs + [aggregate(NAME, "median", 11, unit="time"),
                                                    iteration(OTHER, 5)])
    benchmarks = by_name(load_results([folder]))
    assert benchmarks[NAME.removesuffix("/manual_time")].label == LABEL
    assert benchmarks[OTHER.removesuffix("/manual_time")].label is None


@pytest.mark.parametrize("labels, complaint", [
    ((LABEL, LABEL, LABEL.replace("soa", "aos")), "labels differ between its entries: "
     "'cluster_layouts=tiled-64|aos;tree_gpu=NVIDIA H100 80GB HBM3', "
     "'cluster_layouts=tiled-64|soa;tree_gpu=NVIDIA H100 80GB HBM3'"),
    ((LABEL, None, LABEL), "labels differ between its entries: "
     "'cluster_layouts=tiled-64|soa;tree_gpu=NVIDIA H100 80GB HBM3', none"),
    ((LABEL, ["soa"], LABEL), "label ['soa'] is not a string"),
])
def test_repetitions_with_different_labels_are_refused(tmp_path, labels, complaint):
    """Two runs' entries under one name (say, with two GPUs' trees) cannot be one result."""
    runs = [dict(iteration(NAME, 10), repetition_index=k, **({} if l is None else {"label": l}))
            for k, l in enumerate(labels)]
    message = merge_refusal(tmp_path, runs)
    assert f"soa/float/p:2/size:1024/block:256 ({complaint})" in message, message


def test_one_benchmark_in_two_files_of_one_gpu_is_refused(tmp_path):
    lb = {"gpu": {"name": "NVIDIA H100", "uuid": "GPU-1"}}
    folder = write_result(tmp_path / "run", [iteration(NAME, 10)], lb)
    write_result(folder, [iteration(NAME, 30)], lb, name="idw2.gpu0.json")
    with pytest.raises(ResultsError, match="measured more than once on NVIDIA H100") as error:
        load_results([folder])
    assert "idw.gpu0.json, idw2.gpu0.json" in str(error.value) and "soa/float" in str(error.value)


def test_a_gzip_compressed_result_file_reads_as_the_same_benchmarks(tmp_path):
    """`<suite>.gpu<k>.json.gz` (a committed reference's large file, compressed as it is) gives
    what the plain file gives; a truncated one is one error naming it."""
    import gzip
    folder = tmp_path / "gz"
    folder.mkdir()
    (folder / "idw.gpu0.json.gz").write_bytes(gzip.compress(FIXTURE_FILE.read_bytes()))
    plain, packed = load_results([FIXTURE]), load_results([folder])
    assert packed.benchmark_count == plain.benchmark_count == 73
    assert {b.name: b.time_s for f in packed.files for b in f.benchmarks} == \
        {b.name: b.time_s for f in plain.files for b in f.benchmarks}
    (folder / "idw.gpu0.json.gz").write_bytes(gzip.compress(FIXTURE_FILE.read_bytes())[:200])
    with pytest.raises(ResultsError, match=r"idw\.gpu0\.json\.gz: cannot read"):
        load_results([folder])

"""tools/ncu_table.py: an ncu CSV log (one row per launch and metric) as a per-kernel table."""

import pytest

from tools import ncu_table

HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
          '"Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit",'
          '"Metric Value"')


def row(launch, kernel, metric, unit, value):
    return (f'"{launch}","1","layoutbench","h","{kernel}","1","7","(256, 1, 1)","(250, 1, 1)",'
            f'"0","9.0","Command line profiler metrics","{metric}","{unit}","{value}"')


def log(*rows):
    return ["==PROF== Connected to process 1", "[1/1] some program output", HEADER, *rows]


def test_kernels_are_grouped_with_time_weighted_means():
    lines = log(
        row(0, "lights", ncu_table.TIME, "nsecond", "1,000"),
        row(0, "lights", "sm__warps_active.avg.pct_of_peak_sustained_active", "%", "8"),
        row(1, "move", ncu_table.TIME, "usecond", "3"),
        row(1, "move", "dram__throughput.avg.pct_of_peak_sustained_elapsed", "%", "20"),
        row(2, "lights", ncu_table.TIME, "nsecond", "3000"),
        row(2, "lights", "sm__warps_active.avg.pct_of_peak_sustained_active", "%", "16"),
        "a line the program printed, not CSV")
    kernels = ncu_table.kernel_rows(ncu_table.launches(lines))
    assert list(kernels) == ["lights", "move"]
    assert kernels["lights"]["launches"] == 2
    assert kernels["lights"]["time"] == pytest.approx(4e-6)
    s, w = kernels["lights"]["sm__warps_active.avg.pct_of_peak_sustained_active"]
    assert s / w == pytest.approx((1 * 8 + 3 * 16) / 4)  # weighted by time, not by launch
    text = ncu_table.table(ncu_table.launches(lines), "traffic")
    assert "3 kernel launches profiled, 0.007 ms in all." in text
    assert "| `lights` | 2 | 4.0 µs | 57.1 % | 2.00 µs | 14.0 % | — | — |" in text
    assert "| `move` | 1 | 3.0 µs | 42.9 % | 3.00 µs | — | 20.0 % | — |" in text
    assert text.index("`lights`") < text.index("`move`")  # the larger share first


def test_a_log_without_kernels_says_what_to_check(tmp_path):
    with pytest.raises(ncu_table.ProfileError, match="NVTX filter"):
        ncu_table.launches(["==PROF== Disconnected", "no kernels"])
    with pytest.raises(ncu_table.ProfileError, match="no kernel rows"):
        ncu_table.launches(log())
    with pytest.raises(ncu_table.ProfileError, match="unknown time unit"):
        ncu_table.launches(log(row(0, "k", ncu_table.TIME, "furlong", "1")))
    path = tmp_path / "empty.csv"
    path.write_text("nothing\n")
    with pytest.raises(SystemExit, match="ncu_table: .*empty.csv: no ncu CSV header"):
        ncu_table.main([str(path)])

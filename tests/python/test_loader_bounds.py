"""Result folders against hostile input (issue 41, classes 4 and 7): every result file,
compressed or not, is read through one bounded reader (plots/load.py: read_bounded), so a
small .json.gz that inflates past the limit or a device is one error naming the file before
it fills the memory; a path that is a file is said to be one; a folder compared with itself
is refused."""
import gzip
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from plots.compare import write_comparison
from plots.load import ResultsError, load_results, max_input_bytes, read_bounded

REPO = Path(__file__).resolve().parents[2]
IDW = REPO / "tests" / "python" / "fixtures" / "idw_quick"


def bomb(path, inflated):
    """A .json.gz of `inflated` bytes of JSON whitespace after '[' (kilobytes compressed)."""
    with gzip.open(path, "wb", compresslevel=9) as f:
        f.write(b"[")
        block = b" " * (1 << 20)
        for _ in range(inflated >> 20):
            f.write(block)


def test_a_gzip_bomb_is_refused_at_the_limit_naming_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv("LB_MAX_INPUT_BYTES", "4M")
    folder = tmp_path / "run"
    folder.mkdir()
    path = folder / "idw.gpu0.json.gz"
    bomb(path, 64 << 20)
    assert path.stat().st_size < 1 << 20
    with pytest.raises(ResultsError) as raised:
        load_results([folder])
    assert str(raised.value) == (f"{path}: larger than the input size limit of 4194304 bytes once "
                                 "decompressed; set LB_MAX_INPUT_BYTES to raise it")


def test_the_limit_is_exact_and_a_file_at_it_is_read(tmp_path):
    path = tmp_path / "x.json.gz"
    with gzip.open(path, "wb") as f:
        f.write(b"a" * 1000)
    assert read_bounded(path, limit=1000) == b"a" * 1000
    with pytest.raises(ResultsError, match="larger than the input size limit of 999 bytes"):
        read_bounded(path, limit=999)


def test_an_endless_device_is_refused_without_reading_it():
    with pytest.raises(ResultsError, match="/dev/zero: is a device, not a file"):
        read_bounded("/dev/zero")


@pytest.mark.parametrize("value, limit", [("1000", 1000), ("4K", 4096), ("2m", 2 << 20), ("1G", 1 << 30)])
def test_the_limit_reads_as_the_cpp_loaders_read_it(monkeypatch, value, limit):
    monkeypatch.setenv("LB_MAX_INPUT_BYTES", value)
    assert max_input_bytes() == limit


@pytest.mark.parametrize("value", ["0", "-1", "1T", "lots", ""])
def test_a_limit_that_is_no_size_is_one_error(monkeypatch, value):
    monkeypatch.setenv("LB_MAX_INPUT_BYTES", value)
    with pytest.raises(ResultsError, match="LB_MAX_INPUT_BYTES=.* is not a size"):
        max_input_bytes()


def test_a_results_folder_that_is_a_file_is_said_to_be_one(tmp_path):
    path = tmp_path / "idw.gpu0.json"
    shutil.copy(IDW / "idw.gpu0.json", path)
    with pytest.raises(ResultsError, match=f"^{path}: is a file, not a results folder$"):
        load_results([path])


def test_a_folder_compared_with_itself_is_refused_and_writes_nothing(tmp_path):
    out = tmp_path / "out"
    with pytest.raises(ResultsError, match="are the same results"):
        write_comparison(IDW, Path(str(IDW) + "/."), out)
    assert not out.exists()


def test_make_figures_on_a_bomb_is_one_line_exit_2(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    bomb(folder / "idw.gpu0.json.gz", 8 << 20)
    proc = subprocess.run([sys.executable, "-m", "plots", str(folder)], cwd=REPO, capture_output=True,
                          text=True, timeout=120, env={"LB_MAX_INPUT_BYTES": "1M", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        f"plots: error: {folder / 'idw.gpu0.json.gz'}: larger than the input size limit of 1048576 "
        "bytes once decompressed; set LB_MAX_INPUT_BYTES to raise it"]

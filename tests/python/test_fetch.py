"""datasets/fetch.sh without a network: a local .gz (--from, or LB_FETCH_URL=file://...) goes
through the size and sha256 check, a mismatch is refused (nothing written) unless
--accept-checksum, and the unpacked file lands whole in the data folder."""

import gzip
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "datasets" / "fetch.sh"
EDGES = b"# Directed graph\n0\t1\n1\t0\n"


@pytest.fixture
def gz(tmp_path):
    path = tmp_path / "roadNet-PA.txt.gz"
    path.write_bytes(gzip.compress(EDGES))
    return path


def fetch(*args, env=None):
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("LB_")}
    full_env.update(env or {})
    return subprocess.run(["bash", str(SCRIPT), *map(str, args)], capture_output=True, text=True, env=full_env)


def matching(path):
    data = path.read_bytes()
    return {"LB_FETCH_SHA256": hashlib.sha256(data).hexdigest(), "LB_FETCH_SIZE": str(len(data))}


def leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_matching_download_is_unpacked(tmp_path, gz):
    data = tmp_path / "data"
    r = fetch("--data-dir", data, "--from", gz, "roadNet-PA", env=matching(gz))
    assert r.returncode == 0, r.stderr
    assert "match the record" in r.stdout
    assert (data / "roadNet-PA.txt").read_bytes() == EDGES
    assert leftovers(data) == []
    again = fetch("--data-dir", data, "--from", gz, "roadNet-PA", env=matching(gz))
    assert again.returncode == 0 and "already there" in again.stdout


def test_file_url_and_data_dir_from_environment(tmp_path, gz):
    data = tmp_path / "d"
    r = fetch("roadNet-PA", env={**matching(gz), "LB_FETCH_URL": gz.as_uri(), "LB_DATA_DIR": str(data)})
    assert r.returncode == 0, r.stderr
    assert (data / "roadNet-PA.txt").read_bytes() == EDGES


def test_mismatch_is_refused_without_override(tmp_path, gz):
    data = tmp_path / "data"
    # The real record (the default): a small test file cannot match it.
    r = fetch("--data-dir", data, "--from", gz, "roadNet-PA")
    assert r.returncode == 1
    assert "does not match the recorded download" in r.stderr
    assert "9945340" in r.stderr and "450b8733635d887466a2b96b26411f6e62caf7006f8a264f59cf9b5d75cdf549" in r.stderr
    assert "--accept-checksum" in r.stderr
    assert not (data / "roadNet-PA.txt").exists()
    assert leftovers(data) == []


def test_mismatch_kept_with_override(tmp_path, gz):
    data = tmp_path / "data"
    r = fetch("--data-dir", data, "--from", gz, "--accept-checksum", "roadNet-PA")
    assert r.returncode == 0, r.stderr
    assert "kept anyway" in r.stderr
    assert (data / "roadNet-PA.txt").read_bytes() == EDGES


def test_corrupt_gzip_leaves_nothing(tmp_path):
    bad = tmp_path / "bad.gz"
    bad.write_bytes(b"not gzip")
    data = tmp_path / "data"
    r = fetch("--data-dir", data, "--from", bad, "roadNet-PA", env=matching(bad))
    assert r.returncode == 1
    assert "not a valid gzip file" in r.stderr
    assert list(data.iterdir()) == []


@pytest.mark.parametrize("make", [
    lambda target: target.mkdir(),
    lambda target: (target.mkdir(), (target / "old.txt").write_text("x")),
    lambda target: os.mkfifo(target),
], ids=["empty-directory", "directory", "fifo"])
def test_target_that_is_no_regular_file_is_refused(tmp_path, gz, make):
    data = tmp_path / "data"
    data.mkdir()
    target = data / "roadNet-PA.txt"
    make(target)
    before = sorted(p.name for p in target.iterdir()) if target.is_dir() else None
    r = fetch("--data-dir", data, "--from", gz, "roadNet-PA", env=matching(gz))
    assert r.returncode == 2, r.stdout + r.stderr
    assert "roadNet-PA.txt exists and is not a regular file" in r.stderr
    assert "wrote" not in r.stdout and "already there" not in r.stdout
    assert (sorted(p.name for p in target.iterdir()) if target.is_dir() else None) == before
    assert leftovers(data) == []


def test_data_folder_that_is_a_file_is_refused(tmp_path, gz):
    data = tmp_path / "data"
    data.write_text("not a folder")
    r = fetch("--data-dir", data, "--from", gz, "roadNet-PA", env=matching(gz))
    assert r.returncode == 2
    assert "is not a directory" in r.stderr
    assert data.read_text() == "not a folder"


@pytest.mark.parametrize("args,message", [
    ((), "usage"),
    (("roadNet-CA",), "unknown dataset 'roadNet-CA'"),
    (("--bogus", "roadNet-PA"), "unknown option --bogus"),
    (("--from", "/nonexistent.gz", "roadNet-PA"), "no such file"),
])
def test_usage_errors(tmp_path, args, message):
    r = fetch("--data-dir", tmp_path / "data", *args)
    assert r.returncode == 2
    assert message in r.stderr


@pytest.mark.skipif(shutil.which("curl") is None, reason="needs curl for a file:// URL")
def test_failed_download_leaves_nothing(tmp_path):
    data = tmp_path / "data"
    r = fetch("--data-dir", data, "roadNet-PA", env={"LB_FETCH_URL": (tmp_path / "absent.gz").as_uri()})
    assert r.returncode != 0
    assert list(data.iterdir()) == []

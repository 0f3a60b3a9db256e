"""harness/git_info.cmake: which commit a build records (git, or a shipped .source-commit)."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "harness" / "git_info.cmake"

pytestmark = pytest.mark.skipif(not (shutil.which("cmake") and shutil.which("git")),
                                reason="needs cmake and git")


def git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def make_repo(path, content):
    path.mkdir()
    git(path, "init", "-q")
    git(path, "config", "user.email", "t@example.com")
    git(path, "config", "user.name", "t")
    (path / "file.txt").write_text(content)
    git(path, "add", "file.txt")
    git(path, "commit", "-qm", content)
    return git(path, "rev-parse", "HEAD")


def recorded(src, tmp_path):
    out = tmp_path / "git_info.cpp"
    subprocess.run(["cmake", f"-DSRC={src}", f"-DOUT={out}", "-P", str(SCRIPT)], check=True)
    text = out.read_text()
    commit = re.search(r'git_commit\(\) \{ return "([^"]*)"', text).group(1)
    dirty = re.search(r"git_dirty\(\) \{ return (true|false)", text).group(1)
    return commit, dirty


def test_git_answers_without_a_record(tmp_path):
    head = make_repo(tmp_path / "repo", "a")
    assert recorded(tmp_path / "repo", tmp_path) == (head, "false")
    (tmp_path / "repo" / "file.txt").write_text("changed")
    assert recorded(tmp_path / "repo", tmp_path) == (head, "true")


def test_a_record_left_behind_head_loses_to_git(tmp_path):
    repo = tmp_path / "repo"
    old = make_repo(repo, "a")
    (repo / ".source-commit").write_text(f"{old} false\n")
    (repo / "file.txt").write_text("b")
    git(repo, "commit", "-qam", "b")
    assert recorded(repo, tmp_path) == (git(repo, "rev-parse", "HEAD"), "false")


def test_a_shipped_record_wins_over_an_unrelated_repository(tmp_path):
    # The GPU machine case: the tree arrives with .source-commit next to a stale .git that
    # has never seen that commit.
    repo = tmp_path / "repo"
    make_repo(repo, "stale")
    shipped = "0123456789abcdef0123456789abcdef01234567"
    (repo / ".source-commit").write_text(f"{shipped} false\n")
    (repo / "file.txt").write_text("the shipped tree")
    assert recorded(repo, tmp_path) == (shipped, "false")


def test_a_shipped_record_without_git(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / ".source-commit").write_text("abc123 true\n")
    assert recorded(tree, tmp_path) == ("abc123", "true")
    (tree / ".source-commit").write_text("garbage\n")
    assert recorded(tree, tmp_path) == ("unknown", "true")

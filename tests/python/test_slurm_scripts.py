"""The Slurm job scripts and run folders against hostile input, without a cluster (issue 41,
classes 1, 3 and 6): every value written into a script reads back as itself (sbatch's
#SBATCH parser modelled below from its documented rules), a newline never reaches a script,
task counts stay within what Slurm takes, and a malformed results root or run folder is
one line, exit 2, nothing created. The real-cluster tests are test_slurm.py."""
import argparse
import json
import os
import sys
from pathlib import Path

import pytest

from test_slurm import Work, directives, dry_run_scripts

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "harness"))

from orchestrator import slurm  # noqa: E402
from orchestrator.common import UsageError  # noqa: E402


def sbatch_arguments(line):
    """The arguments sbatch reads from one #SBATCH line (src/sbatch/opt.c, get_argument):
    blanks separate, '"' or "'" group (the other quote literal inside), a backslash takes the
    next character as it is, an unquoted '#' starts a comment."""
    args, i, text = [], 0, line[len("#SBATCH"):]
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i == len(text):
            return args
        arg, quote, escaped = "", None, False
        while i < len(text) and (quote or not text[i].isspace()):
            c = text[i]
            i += 1
            if escaped:
                arg, escaped = arg + c, False
            elif c == "\\":
                escaped = True
            elif quote:
                if c == quote:
                    quote = None
                else:
                    arg += c
            elif c in "\"'":
                quote = c
            elif c == "#":
                i = len(text)
                break
            else:
                arg += c
        assert quote is None, f"unmatched quote in {line!r}"
        if arg:
            args.append(arg)


@pytest.mark.parametrize("value", ["plain/path_1.2", "r r/x", "a#b", 'say "hi"', "back\\slash",
                                   "it's", "tab-free  double blank", "%A_%a.log"])
def test_a_directive_value_reads_back_as_itself(value):
    line = f"#SBATCH --output={slurm.directive_value('--output', value)}"
    assert sbatch_arguments(line) == [f"--output={value}"]


@pytest.mark.parametrize("value", ["a\nexit 7", "a\rb", "a\tb", "nul\x00"])
def test_a_control_character_is_never_written(value):
    with pytest.raises(UsageError, match="control character"):
        slurm.directive_value("--output", value)


def script_lines(script):
    """A script's lines and the arguments of its #SBATCH lines, in order."""
    lines = script.rstrip("\n").splitlines()
    return lines, [arg for line in lines if line.startswith("#SBATCH") for arg in sbatch_arguments(line)]


def test_a_preset_named_with_a_newline_stays_a_comment_and_a_slugged_job_name(tmp_path):
    preset = tmp_path / "evil\necho INJECTED; exit 7\n#.json"
    preset.write_text(json.dumps({"suites": {"idw": {}}}))
    work = Work(tmp_path, os.environ)
    result = work.run("--slurm", "--preset", str(preset), "--dry-run")
    assert result.returncode == 0, result.stderr
    for _, script in dry_run_scripts(result.stdout):
        lines, args = script_lines(script)
        # Only comments, directives and the one exec line: nothing else runs.
        assert all(line.startswith("#") for line in lines[:-1]) and lines[-1].startswith("exec ")
        assert "INJECTED" not in lines[-1].split("--slurm")[0]
        (name,) = [a for a in args if a.startswith("--job-name=")]
        assert name.startswith("--job-name=layoutbench-evil-echo-INJECTED-exit-7-")
        assert all(c.isalnum() or c in "=_.-" for c in name[2:]), name


def test_a_results_root_with_blanks_is_quoted_and_reads_back(tmp_path):
    work = Work(tmp_path, os.environ)
    work.root = tmp_path / "r r" / "#runs"
    result = work.run("--slurm", "--dry-run")
    assert result.returncode == 0, result.stderr
    for _, script in dry_run_scripts(result.stdout):
        _, args = script_lines(script)
        (output,) = [a for a in args if a.startswith("--output=")]
        assert output.startswith(f"--output={work.root}/"), output
        # The test helper's own check (one \S+ value per line) would split it: quoted instead.
        assert '"' in script


@pytest.mark.parametrize("root", ["runs\nexit 7", "runs\tx"])
def test_a_results_root_with_a_control_character_is_one_error_and_nothing_is_made(tmp_path, root):
    work = Work(tmp_path, os.environ)
    work.root = tmp_path / root
    result = work.run("--slurm")
    assert result.returncode == 2 and "control character" in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and not work.root.exists()


@pytest.mark.parametrize("args, expected", [
    (["--tasks", "100000000"], "bad --tasks 100000000: a whole number from 1 to 1001"),
    (["--gpus-per-task", "100000000"], "bad --gpus-per-task 100000000: a whole number from 0 to 64"),
    (["--partition", "a,b", "--tasks", "600"], "makes 1200 array tasks"),
])
def test_task_counts_are_bounded_by_what_slurm_takes(tmp_path, args, expected):
    work = Work(tmp_path, os.environ)
    result = work.run("--slurm", "--dry-run", *args)
    assert result.returncode == 2 and expected in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("given", [[""], [" "], ["a,,b"], ["a", ""], ["a,"]])
def test_an_empty_partition_is_refused_not_read_as_the_default(given):
    args = argparse.Namespace(partition=given, tasks=None, gpus_per_task=None, time=None,
                              constraint=None, account=None, qos=None)
    with pytest.raises(UsageError, match=r"^bad --partition '': a partition name"):
        slurm.parse_options(args, None)


def test_the_largest_array_slurm_takes_is_planned(tmp_path):
    work = Work(tmp_path, os.environ)
    result = work.run("--slurm", "--dry-run", "--tasks", "1001")
    assert result.returncode == 0, result.stderr
    (_, array), _ = dry_run_scripts(result.stdout)
    assert directives(array)[0]["array"] == "0-1000"


@pytest.mark.parametrize("slurm_flag, where", [([], "root"), (["--slurm"], "root"),
                                               (["--slurm", "--dry-run"], "parent")])
def test_a_results_root_that_is_a_file_is_one_error(tmp_path, slurm_flag, where):
    work = Work(tmp_path, os.environ)
    blocker = tmp_path / "afile"
    blocker.write_text("not a folder")
    work.root = blocker if where == "root" else blocker / "runs"
    result = work.run(*slurm_flag)
    if not slurm_flag and result.returncode == 2 and "no CUDA GPU visible" in result.stderr:
        pytest.skip("a local run stops at the missing GPU first")
    assert result.returncode == 2 and f"{blocker} is a file, not a folder" in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert blocker.read_text() == "not a folder"


GOOD_META = {
    "format": 1, "args": {"preset": "quick", "suites": ["idw"], "devices": [], "filter": None,
                          "sizes": None, "precision": None, "split": False},
    "bin": "layoutbench", "devices": [], "plan": {"idw": 6}, "resumed": [], "executor": "slurm",
    "tasks": [{"id": 0, "folder": "", "partition": None, "slots": [[0, 0]]}],
    "slurm": {"options": {"partitions": [None], "tasks": 1, "gpus_per_task": 1, "constraint": None,
                          "time": None, "account": None, "qos": None},
              "submissions": [{"at": "x", "command": [], "tasks": [0],
                               "arrays": [{"job": "1", "partition": None, "tasks": [0], "script": "s"}],
                               "collect": {"job": "2", "script": "c"}}]},
}


def broken(change):
    meta = json.loads(json.dumps(GOOD_META))
    change(meta)
    return meta


MALFORMED = [
    (broken(lambda m: m.pop("slurm")), "no key 'slurm'"),
    (broken(lambda m: m.update(slurm=[])), '"slurm" is not an object'),
    (broken(lambda m: m["slurm"].update(options=[])), '"slurm" "options" is not an object'),
    (broken(lambda m: m.update(plan=[])), '"plan" is not an object'),
    (broken(lambda m: m.update(tasks=[])), '"tasks" names no task'),
    (broken(lambda m: m["slurm"]["submissions"][0].update(arrays={})), '"arrays" is not a list'),
    (broken(lambda m: m["slurm"]["submissions"][0].pop("collect")), "no key 'collect'"),
    (broken(lambda m: m["devices"].append("gpu0")), "a device is not an object"),
    ([GOOD_META], "the file is not an object"),
]


def write_run(tmp_path, meta):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "run.json").write_text(json.dumps(meta))
    return run_dir


@pytest.mark.parametrize("meta, expected", MALFORMED)
def test_a_malformed_run_json_is_one_usage_error_naming_it(tmp_path, meta, expected):
    from orchestrator.runs import load_run_json
    run_dir = write_run(tmp_path, meta)
    with pytest.raises(UsageError) as raised:
        load_run_json(run_dir)
    message = str(raised.value)
    assert message.startswith(f"{run_dir / 'run.json'}: malformed run.json (") and expected in message
    assert "\n" not in message


@pytest.mark.parametrize("entry, case", [("--resume", 0), ("--slurm-collect", 4), ("--slurm-task", 5)])
def test_every_entry_point_reports_a_malformed_run_folder_in_one_line(tmp_path, entry, case):
    meta, expected = MALFORMED[case]
    run_dir = write_run(tmp_path, meta)
    args = [entry, str(run_dir)] + (["0"] if entry == "--slurm-task" else [])
    result = Work(tmp_path, os.environ).run(*args)
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"harness/run.py: {run_dir / 'run.json'}: malformed run.json (")
    assert expected in line, line


def test_the_well_formed_run_json_of_these_tests_is_accepted():
    from orchestrator.runs import check_slurm_block
    check_slurm_block(GOOD_META)  # the cases above break one thing each of an accepted file


def test_a_run_folder_that_is_a_file_is_one_line(tmp_path):
    not_a_folder = tmp_path / "run"
    not_a_folder.write_text("")
    result = Work(tmp_path, os.environ).run("--resume", str(not_a_folder))
    assert result.returncode == 2 and result.stderr.strip() == (
        f"harness/run.py: {not_a_folder} is a file, not a run folder"), result.stderr

"""`make test` runs pytest on every core with --dist loadgroup, and tests rely on its groups:
the tests of one xdist_group share a worker, so a report drawn once per session
(report_checks.rendered_once) is drawn once, and one Slurm cluster serves every Slurm test
(test_slurm.py). pytest 9.2 with pytest-xdist 3.8 silently stopped grouping
(pytest-dev/pytest-xdist#1386: the suffix xdist adds to each node id no longer takes effect),
which cost the whole run both; .ci/deps.sh installs a pytest before 9.2 for that. These
tests fail where a group is split across workers."""

import fcntl
import os

import pytest

GROUP = "grouping-check"
pytestmark = pytest.mark.xdist_group(GROUP)


@pytest.mark.parametrize("part", range(4))
def test_the_tests_of_an_xdist_group_run_on_one_worker(part, request, tmp_path_factory):
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker and not request.config.getoption("loadgroup", False):
        pytest.skip("pytest-xdist runs without --dist loadgroup: no groups to check")
    base = tmp_path_factory.getbasetemp()
    record = (base.parent if worker else base) / f"{GROUP}.workers"  # one file per session
    with open(record.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        seen = set(record.read_text().split()) if record.exists() else set()
        with open(record, "a") as out:
            out.write(f"{worker or 'main'}\n")
    assert seen <= {worker or "main"}, (
        f"the tests of xdist_group {GROUP!r} ran on workers {sorted(seen | {worker})}: "
        "--dist loadgroup does not group with this pytest and pytest-xdist "
        "(pytest-dev/pytest-xdist#1386; .ci/deps.sh installs pytest<9.2)")

""".ci/deps.sh's optional Chromium (the browser test of report.html): installed with apt where
no browser is on PATH, a note (never a failure) where apt cannot, nothing where one is there.
Fake apt-get and sudo on a PATH of their own, as in test_setup.py: no network, no root."""

import shutil
import subprocess
from pathlib import Path

import pytest

DEPS = Path(__file__).resolve().parents[2] / ".ci" / "deps.sh"
FAKE_APT = """#!/bin/bash
echo "apt-get $*" >> "$FAKE_LOG"
[ -z "${FAKE_APT_FAILS:-}" ]
"""


@pytest.fixture
def system(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in (("apt-get", FAKE_APT), ("sudo", '#!/bin/bash\nexec "$@"\n')):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    (bin_dir / "id").symlink_to(shutil.which("id"))
    return tmp_path


def deps_browser(system, **env):
    result = subprocess.run([shutil.which("bash"), str(DEPS), "browser"], capture_output=True,
                            text=True, timeout=60,
                            env={"PATH": str(system / "bin"), "FAKE_LOG": str(system / "log"),
                                 **env})
    log = (system / "log").read_text().splitlines() if (system / "log").exists() else []
    return result, log


def test_a_missing_browser_is_installed_with_apt(system):
    result, log = deps_browser(system)
    assert result.returncode == 0, result.stderr
    assert "apt-get install -y -qq chromium" in log


def test_a_browser_apt_cannot_install_is_a_note_not_a_failure(system):
    result, log = deps_browser(system, FAKE_APT_FAILS="1")
    assert result.returncode == 0, result.stderr
    assert "chromium not installed: the report.html browser test will be skipped" in result.stderr
    assert log  # it tried


def test_a_browser_on_path_installs_nothing(system):
    (system / "bin" / "chromium").write_text("#!/bin/sh\n")
    (system / "bin" / "chromium").chmod(0o755)
    result, log = deps_browser(system)
    assert result.returncode == 0 and log == []

"""Set-up on a fresh machine: .ci/deps.sh's Python side and the Makefile's front door.

deps.sh runs against a fake `python3` (and fake apt-get/sudo) on PATH, so every case runs here
without network: a python3 that has every module, one whose pip is refused (PEP 668: no pip
on it at all), an offline machine, and a Debian without python3-venv.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEPS = REPO / ".ci" / "deps.sh"
REQUIRED = {"matplotlib", "numpy", "pytest"}
# installed when pip can, a note when not
OPTIONAL = {"pytest-xdist", "pykrige", "scikit-learn", "nvidia-cuda-cuobjdump>=13",
            "nvidia-cuda-nvdisasm>=13"}

# The fake interpreter: `-c "import a, b"` succeeds when every module is in its `modules`
# file; `-m pip install` adds to it (refused for the system python: PEP 668); `-m venv DIR`
# makes DIR/bin/python, a fake of its own with an empty `modules` file.
FAKE_PYTHON = r"""#!/bin/bash
here=$(cd "$(dirname "$0")/.." && pwd)
echo "$here $*" >> "$FAKE_LOG"
case "$1" in
  -c) for m in $(echo "$2" | sed 's/^import //; s/,/ /g'); do
        grep -qx "$m" "$here/modules" || exit 1
      done ;;
  -m) case "$2" in
        pip) [ "$here" = "$FAKE_SYSTEM" ] && { echo "error: externally-managed-environment" >&2; exit 1; }
             shift 3
             for m in "$@"; do
               case "$m" in -*) continue ;; esac  # -q, --no-compile
               m=${m%%<*}  # pytest<9.2 installs the module pytest
               [ -n "${FAKE_OFFLINE:-}" ] && exit 1
               [ "$m" = "${FAKE_PIP_FAILS:-}" ] && exit 1
               echo "$m" >> "$here/modules"
             done ;;
        venv) [ -e "$FAKE_SYSTEM/ensurepip" ] || { mkdir -p "$3"; exit 1; }
              mkdir -p "$3/bin" && cp "$0" "$3/bin/python" && : > "$3/modules" ;;
      esac ;;
esac
"""
FAKE_APT = """#!/bin/bash
echo "apt-get $*" >> "$FAKE_LOG"
[ "$1" = install ] && [ -z "${FAKE_OFFLINE:-}" ] && touch "$FAKE_SYSTEM/ensurepip"
exit 0
"""


@pytest.fixture
def machine(tmp_path):
    """A fake system python3 (with `modules`), apt-get and sudo, and a build folder."""
    system = tmp_path / "system"
    (system / "bin").mkdir(parents=True)
    for name, text in (("python3", FAKE_PYTHON), ("apt-get", FAKE_APT),
                       ("sudo", '#!/bin/bash\nexec "$@"\n')):
        (system / "bin" / name).write_text(text)
        (system / "bin" / name).chmod(0o755)
    (system / "ensurepip").touch()

    class Machine:
        build = tmp_path / "build"
        venv_python = tmp_path / "build" / "venv" / "bin" / "python"
        log = tmp_path / "calls.log"

        def has(self, *modules):
            (system / "modules").write_text("".join(m + "\n" for m in modules))

        def without_ensurepip(self):
            (system / "ensurepip").unlink()

        def deps(self, **fake):
            env = {"PATH": f"{system / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path),
                   "BUILD": str(self.build), "FAKE_LOG": str(self.log),
                   "FAKE_SYSTEM": str(system), **{f"FAKE_{k.upper()}": v for k, v in fake.items()}}
            return subprocess.run(["bash", str(DEPS), "python"], env=env, cwd=REPO,
                                  capture_output=True, text=True, timeout=60)

        def calls(self):
            return self.log.read_text().splitlines() if self.log.exists() else []

        def venv_modules(self):
            return set((self.build / "venv" / "modules").read_text().split())

    machine = Machine()
    machine.system = system
    return machine


def assert_no_pip_on_the_system_python(machine):
    system_pip = [c for c in machine.calls() if c.startswith(f"{machine.system} -m pip")]
    assert not system_pip
    assert not any("--break-system-packages" in c for c in machine.calls())


def test_a_python3_with_every_module_is_used_without_downloading(machine):
    machine.has("matplotlib", "numpy", "pytest")
    result = machine.deps()
    assert result.returncode == 0, result.stderr
    assert not machine.venv_python.exists()
    assert not [c for c in machine.calls() if " -m " in c]


def test_missing_modules_go_into_a_venv_under_the_build_folder(machine):
    machine.has("numpy")  # e.g. Debian 12's python3: pip refused (externally managed)
    result = machine.deps()
    assert result.returncode == 0, result.stderr
    assert machine.venv_python.exists()
    assert machine.venv_modules() == REQUIRED | OPTIONAL
    assert_no_pip_on_the_system_python(machine)
    before = len(machine.calls())
    assert machine.deps().returncode == 0  # a second run finds the venv complete
    assert not [c for c in machine.calls()[before:] if " -m pip" in c]


@pytest.mark.parametrize("optional", sorted(OPTIONAL))
def test_an_optional_module_that_cannot_install_is_a_note_not_a_failure(machine, optional):
    machine.has()
    result = machine.deps(pip_fails=optional)
    assert result.returncode == 0, result.stderr
    assert f"{optional} not installed" in result.stderr
    assert machine.venv_modules() == REQUIRED | (OPTIONAL - {optional})


def test_without_python3_venv_the_package_is_installed_with_apt(machine):
    machine.has()
    machine.without_ensurepip()
    result = machine.deps()
    assert result.returncode == 0, result.stderr
    assert any(c.startswith("apt-get install") and "python3-venv" in c for c in machine.calls())
    assert machine.venv_modules() >= REQUIRED


def test_offline_machine_with_the_figure_modules_goes_on_without_pytest(machine):
    machine.has("matplotlib", "numpy")
    result = machine.deps(offline="1")
    assert result.returncode == 0, result.stderr
    assert "lacks pytest" in result.stderr
    assert not (machine.build / "venv").exists()  # the Makefile would pick a broken venv
    assert_no_pip_on_the_system_python(machine)


def test_offline_machine_without_the_modules_fails_and_leaves_no_venv(machine):
    machine.has()
    result = machine.deps(offline="1")
    assert result.returncode == 1
    assert "could not install matplotlib numpy pytest" in result.stderr
    assert not (machine.build / "venv").exists()


def make_dry_run(*args):
    if not shutil.which("make"):
        pytest.skip("make is not installed")
    return subprocess.run(["make", "--no-print-directory", "-n", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=60,
                          env={k: v for k, v in os.environ.items()  # not the outer make's,
                               if k not in MAKE_ENVIRONMENT})  # nor a caller's OUT, BUILD, ...


# Variables the environment may give make that change what these dry runs print: the outer
# make's, and the Makefile's own (the GPU round exports OUT, which `figures` turns into --out).
MAKE_ENVIRONMENT = ("PYTHON", "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "OUT", "RESULTS", "BUILD", "PRESET",
                    "DEVICES", "RESUME", "FILTER", "SLURM", "A", "B", "REFERENCES", "JOBS")


def test_makefile_uses_the_venv_python_when_deps_made_one(tmp_path):
    assert "python3 -m pytest" in make_dry_run("test-python", f"BUILD={tmp_path}").stdout
    venv_python = tmp_path / "venv" / "bin" / "python"
    venv_python.parent.mkdir(parents=True)
    venv_python.write_text("#!/bin/sh\n")
    venv_python.chmod(0o755)
    assert f"{venv_python} -m pytest" in make_dry_run("test-python", f"BUILD={tmp_path}").stdout


def test_figures_takes_several_folders_in_one_quoted_results(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    result = make_dry_run("figures", f"RESULTS={a} {b}")
    assert result.returncode == 0, result.stderr
    assert f"-m plots {a} {b}" in result.stdout


def test_figures_refuses_a_second_folder_that_make_would_read_as_a_target(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    result = make_dry_run("figures", f"RESULTS={a}", str(b))
    assert result.returncode == 2
    assert f'RESULTS="{a} {b}"' in result.stderr
    assert "-m plots" not in result.stdout


def test_figures_without_results_is_a_usage_error():
    result = make_dry_run("figures")
    assert result.returncode == 2 and "usage: make figures RESULTS=" in result.stderr

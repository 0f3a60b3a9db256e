#!/usr/bin/env bash
# Checks the build and test dependencies and installs what is missing (Debian/Ubuntu
# packages with apt, Python packages with pip). Does nothing when everything is present,
# so it also runs on machines without network (the GPU machines have it all).
# `deps.sh python` checks only the Python side (what `make figures` needs), `deps.sh cxx`
# only the build's (`make test` installs the Python side while the C++ compiles), `deps.sh
# browser` only the optional Chromium (which `deps.sh` alone tries as well).
# BUILD (default build) is the build folder; a virtual environment goes to $BUILD/venv.
set -euo pipefail

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
apt_install() {
  echo "deps: installing $* (apt)"
  $SUDO apt-get update -qq \
    && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

# Python: figures need matplotlib and numpy, the tests pytest; pykrige is optional (a
# kriging cross-check that skips without it), and so is pytest-xdist (tests on every core);
# scikit-learn fits Kofler's decision tree (plots/kofler_tree.py: without it the fit step
# warns in one line naming it, and its tests skip; the GPU machines have it). A python3 that has the required modules is used
# as is, downloading nothing. Otherwise they go into a virtual environment under the build
# folder: the system python3 of Debian 12 / Ubuntu 24.04 refuses pip (PEP 668), and
# --break-system-packages is never an answer. The Makefile uses the venv's python when it
# exists, so a venv is left only when complete.
VENV="${BUILD:-build}/venv"
REQUIRED="matplotlib numpy pytest"
# What pip installs for them: pytest before 9.2, whose node ids pytest-xdist 3.8 cannot group
# (--dist loadgroup silently runs one group's tests on several workers: pytest-dev/pytest-xdist
# #1386; tests/python/test_xdist_groups.py fails where it happens).
REQUIRED_PIP="matplotlib numpy pytest<9.2"
FIGURES_NEED="matplotlib numpy"

has_modules() {  # has_modules <python> <modules>
  "$1" -c "import ${2// /, }" 2>/dev/null
}

make_venv() {  # fails without network or apt; set -e is off in here (called by `if`)
  if ! python3 -m venv "$VENV" >/dev/null 2>&1; then
    rm -rf "$VENV"  # Debian/Ubuntu ship venv's pip (ensurepip) in python3-venv
    apt_install python3-venv && python3 -m venv "$VENV" || return 1
  fi
  "$VENV/bin/python" -m pip install -q --no-compile $REQUIRED_PIP || return 1
  # Optional, each a note when pip cannot: cuobjdump and nvdisasm (NVIDIA's wheels, 5 MB)
  # because the CPU machines' CUDA has nvcc but neither, and the SASS tests read the compiled
  # kernels with them (tests/python/test_sass.py, test_kofler_sass.py). One pip for all of
  # them; where it fails, one each.
  if ! "$VENV/bin/python" -m pip install -q --no-compile "${!OPTIONAL[@]}" 2>/dev/null; then
    local requirement
    for requirement in "${!OPTIONAL[@]}"; do
      "$VENV/bin/python" -m pip install -q --no-compile "$requirement" ||
        echo "deps: $requirement not installed: ${OPTIONAL[$requirement]}" >&2
    done
  fi
  # Byte-compiled once: the modules the figures and the tests import (pip's --no-compile
  # leaves the rest, e.g. scipy's and scikit-learn's thousands of others, uncompiled: ~10 s of
  # CPU). With PYTHONDONTWRITEBYTECODE=1, as on the CI machines, nothing else would write
  # them, and every process would compile matplotlib's and scikit-learn's sources again.
  env -u PYTHONDONTWRITEBYTECODE "$VENV/bin/python" -c "$IMPORTED" || true
}

IMPORTED='import importlib
for name in ("numpy", "matplotlib.pyplot", "matplotlib.backends.backend_agg",
             "matplotlib.backends.backend_svg", "pytest", "xdist.plugin", "sklearn.tree", "pykrige.ok"):
    try:
        importlib.import_module(name)
    except ImportError:
        pass  # an optional package pip could not install'

# Optional packages and what their absence means.
declare -A OPTIONAL=(
  ["pytest-xdist"]="the Python tests will run on one core"
  ["pykrige"]="the kriging cross-check test will be skipped"
  ["scikit-learn"]="Kofler's decision tree will not be fitted (its tests skip)"
  ["nvidia-cuda-cuobjdump>=13"]="the SASS tests will be skipped"
  ["nvidia-cuda-nvdisasm>=13"]="the SASS tests will be skipped"
)

python_deps() {
  if [ -x "$VENV/bin/python" ] && has_modules "$VENV/bin/python" "$REQUIRED"; then
    return
  fi
  rm -rf "$VENV"
  has_modules python3 "$REQUIRED" && return
  echo "deps: python3 lacks some of $REQUIRED: installing them into $VENV (pip)"
  make_venv && return
  rm -rf "$VENV"
  if has_modules python3 "$FIGURES_NEED"; then  # e.g. an offline machine without pytest
    echo "deps: warning: could not make $VENV; python3 draws the figures but lacks" \
         "pytest, so the Python tests cannot run" >&2
    return
  fi
  echo "deps: could not install $REQUIRED into $VENV (see the messages above)" >&2
  exit 1
}

# Chromium is optional: the browser test of report.html (tests/python/test_report_browser.py)
# opens the page in it. Tried by `deps.sh` (make deps, make build) and `deps.sh browser`, never
# by `deps.sh cxx` or `python` (make test, make figures: 20 s of CPU on Debian 12, apt-get
# update included, that CI's time cannot spare); never required: the test skips, saying why,
# where it is missing or does not start (Ubuntu's `chromium` is a snap stub that does not run
# in a container).
browser_deps() {
  local browser
  for browser in chromium chromium-browser google-chrome google-chrome-stable; do
    command -v "$browser" >/dev/null && return 0
  done
  apt_install chromium \
    || echo "deps: chromium not installed: the report.html browser test will be skipped" >&2
}

if [ "${1:-}" = browser ]; then
  browser_deps
  echo "deps: ok"
  exit 0
fi

if [ "${1:-}" = python ]; then
  python_deps
  echo "deps: ok"
  exit 0
fi

missing_debs=()
need() {  # need <file that proves it is installed> <debian package>
  [ -e "$1" ] || missing_debs+=("$2")
}
need /usr/include/benchmark/benchmark.h libbenchmark-dev
need /usr/include/gtest/gtest.h libgtest-dev
need /usr/include/fmt/format.h libfmt-dev
need /usr/include/nlohmann/json.hpp nlohmann-json3-dev
need /usr/include/CLI/CLI.hpp libcli11-dev
command -v cmake >/dev/null || missing_debs+=(cmake)
command -v ninja >/dev/null || missing_debs+=(ninja-build)
command -v g++ >/dev/null || missing_debs+=(g++)
# OpenMP: g++ ships libgomp; the header comes with the compiler's own package.

if [ ${#missing_debs[@]} -gt 0 ]; then
  apt_install "${missing_debs[@]}"
fi

# GDAL is optional (GeoTIFF output; gdalinfo reads it back in the tests; ~30 s to install):
# tried, never required, so machines without network (the GPU machines) build without it.
if { [ ! -e /usr/include/gdal/gdal.h ] && [ ! -e /usr/include/gdal.h ]; } || ! command -v gdalinfo >/dev/null; then
  apt_install libgdal-dev gdal-bin \
    || echo "deps: libgdal-dev/gdal-bin not installed: GeoTIFF output off or unchecked, its test skipped" >&2
fi

if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "deps: the CUDA toolkit (nvcc) is required and was not found (expected on PATH or in /usr/local/cuda)" >&2
  exit 1
fi

[ "${1:-}" = cxx ] || python_deps
[ "${1:-}" = cxx ] || browser_deps  # not in `make test`'s serial phase: CI time (docs/reports.md)
echo "deps: ok"

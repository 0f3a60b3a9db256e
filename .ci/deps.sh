#!/usr/bin/env bash
# Checks the build and test dependencies and installs what is missing (Debian/Ubuntu
# packages with apt, Python packages with pip). Does nothing when everything is present,
# so it also runs on machines without network (the GPU machines have it all).
set -euo pipefail

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
  echo "deps: installing ${missing_debs[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing_debs[@]}" >/dev/null
fi

if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "deps: the CUDA toolkit (nvcc) is required and was not found (expected on PATH or in /usr/local/cuda)" >&2
  exit 1
fi

if ! python3 -c "import matplotlib, numpy, pytest" 2>/dev/null; then
  echo "deps: installing matplotlib numpy pytest (pip)"
  python3 -m pip install -q matplotlib numpy pytest
fi
echo "deps: ok"

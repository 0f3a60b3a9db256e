#!/usr/bin/env bash
# Runs the GPU tests' small cases under compute-sanitizer; exit 77 (ctest: skipped) when
# there is no GPU or no compute-sanitizer.
set -u
tool=$1 tests=$2
if ! nvidia-smi -L >/dev/null 2>&1; then echo "SKIPPED: no GPU visible"; exit 77; fi
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ ! -x "$sanitizer" ]; then echo "SKIPPED: compute-sanitizer not found"; exit 77; fi
# racecheck does not support CUDA dynamic parallelism: the CDP versions get memcheck only.
[ "$tool" = racecheck ] && export LB_GPU_TEST_VERSIONS=naive,tiled,roofline
exec "$sanitizer" --tool "$tool" --error-exitcode 1 "$tests" --gtest_filter='*Small*'

#!/usr/bin/env bash
# Runs GPU tests under one compute-sanitizer tool (memcheck, racecheck or initcheck); fails on
# any error the tool reports, on any failed test, and when no test ran or one skipped. Exit 77
# (ctest: skipped) only where no GPU is present (no /dev/nvidia<N>, /dev/dxg or nvidia-smi) or
# compute-sanitizer is missing; with LB_REQUIRE_GPU=1 both are failures.
#   run_sanitizer.sh <tool>|all <lb_gpu_tests binary> [quick|full]
# quick (ctest, `make test`): each tool where it finds something, at small sizes.
#   memcheck and initcheck: every program's small cases in every layout (addresses and padding
#   depend on the layout); racecheck (shared-memory hazards, the slowest tool): only the
#   kernels with shared memory (IDW tiled and roofline, kriging experiment 8, N-body and its
#   roofline version, bitonic, LavaMD, SAMPO's scan), in one layout.
# full (`make sanitize`): every small case of every GPU test under every tool.
set -u
tool=$1 tests=$2 scope=${3:-quick}

# `all`: the three tools side by side (each a process of its own on the small cases; together
# they took 52 s on the H100 where one after the other took 90 s), the first failure's log shown.
if [ "$tool" = all ]; then
  logs=$(mktemp -d)
  trap 'rm -rf "$logs"' EXIT
  tools=(memcheck racecheck initcheck) pids=()
  for t in "${tools[@]}"; do "$0" "$t" "$tests" "$scope" > "$logs/$t.log" 2>&1 & pids+=($!); done
  failed=0 skipped=0
  for i in "${!tools[@]}"; do
    wait "${pids[$i]}"; status=$?
    t=${tools[$i]}
    if [ "$status" -eq 77 ]; then skipped=$((skipped + 1)); tail -1 "$logs/$t.log"
    elif [ "$status" -ne 0 ]; then failed=$((failed + 1)); echo "=== $t failed (exit $status):"; cat "$logs/$t.log"
    else grep -E "SUMMARY|^compute-sanitizer --tool|^slowest under" "$logs/$t.log"; fi
  done
  [ "$failed" -gt 0 ] && exit 1
  [ "$skipped" -eq ${#tools[@]} ] && exit 77
  [ "$skipped" -gt 0 ] && { echo "FAILED: some tools skipped, others ran"; exit 1; }
  exit 0
fi

absent() {  # skip, or fail where a GPU and the CUDA tools are required
  if [ "${LB_REQUIRE_GPU:-}" = 1 ]; then echo "FAILED: $1 (LB_REQUIRE_GPU=1)"; exit 1; fi
  echo "SKIPPED: $1"; exit 77
}
shopt -s nullglob
signs=(/dev/nvidia[0-9]* /dev/dx[g])  # globs: nullglob drops those absent
if [ ${#signs[@]} -eq 0 ] && ! command -v nvidia-smi >/dev/null; then absent "no GPU on this machine"; fi
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$sanitizer" ] || absent "compute-sanitizer not found (PATH, /usr/local/cuda/bin)"

# Small cases: everything but the suites and cases named as large (IDW's Large/Huge suites,
# kriging above scale 1 and the 1000-well case) and the test that provokes a launch error on
# purpose (the tool reports it as an error), and the planned benchmarks' timing loops
# (BenchesGpu: the same kernels, every IDW version, CDP included).
# The roadNet-PA excerpt's BFS (the same kernels as the generated graphs') skips where the
# shared datasets are absent, and a skip here fails the run: it is left out.
small='*:-*Large*:*Huge*:*Errors*:*Scale2*:*Thousand*:*/scale2:*/scale4:*/scale6:*/scale8:*/scale10:BenchesGpu.*:*RoadNetExcerpt*'
shared_memory='IdwGpuSmall.EveryVersionMatchesTheReference:KrigingGpuDual.Exp8CombinesMoreSurfacesThanOnePass'
shared_memory+=':KoflerNBodyGpu.RooflineMatchesTheReferenceAndThePapersKernelBitForBit'
shared_memory+=':KoflerNBodyGpu.EveryLayoutMatchesTheReference:KoflerBitonicGpu.EveryLayoutSortsExactlyAndASkippedPassFails'
shared_memory+=':KoflerLavaMDGpu.EveryLayoutMatchesTheReferenceAndASkippedPartnerFails:SampoGpu.EveryLayoutReproducesTheCpuRunTwice'
case "$scope/$tool" in
  */memcheck|*/initcheck|full/racecheck) filter=$small ;;
  quick/racecheck)
    filter=$shared_memory
    # One layout (AoS, which IDW and every Kofler program have): the layout decides global
    # addresses, not how a block uses its shared memory; `make sanitize` runs them all.
    export LB_GPU_TEST_LAYOUTS=aos ;;
  *) echo "usage: run_sanitizer.sh memcheck|racecheck|initcheck|all <lb_gpu_tests> [quick|full]"; exit 2 ;;
esac
# racecheck and initcheck do not support CUDA dynamic parallelism: the CDP versions get memcheck only.
[ "$tool" != memcheck ] && export LB_GPU_TEST_VERSIONS=naive,tiled,roofline
[ "$scope/$tool" = quick/racecheck ] && export LB_GPU_TEST_VERSIONS=tiled,roofline
# The GPU tests decide for themselves that a GPU should be there: a skip here means it is not.
export LB_REQUIRE_GPU=1
export LB_UNDER_SANITIZER=$tool  # timing relations are not checked under a sanitizer

log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$SECONDS
"$sanitizer" --tool "$tool" --error-exitcode 1 "$tests" --gtest_filter="$filter" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
echo "compute-sanitizer --tool $tool ($scope): $((SECONDS - start)) s"
# Where the tool's time goes (the 4-minute `make test` goal hangs on this test).
grep -E '^\[       OK \] .* \([0-9]+ ms\)$' "$log" | sed -E 's/^\[       OK \] (.*) \(([0-9]+) ms\)$/\2 \1/' \
  | sort -rn | head -5 | awk -v t="$tool" '{ printf "slowest under %s: %6.1f s %s\n", t, $1 / 1000, $2 }'
[ "$status" -eq 0 ] || { echo "FAILED: compute-sanitizer --tool $tool exited $status"; exit 1; }
grep -qE '^\[  PASSED  \] [1-9][0-9]* test' "$log" || { echo "FAILED: no test ran under $tool"; exit 1; }
if grep -q '^\[  SKIPPED \]' "$log"; then echo "FAILED: tests skipped under $tool"; exit 1; fi
exit 0

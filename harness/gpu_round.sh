#!/usr/bin/env bash
# One round on a GPU machine, in as few device calls as possible. Everything it writes that
# should come back goes under $OUT (logs, a tarball of the run folders).
#   check    `make test` as a user runs it, build included (GPU tests, compute-sanitizer's quick
#            scope, SASS check, CLI and PyKrige GPU tests): run before landing GPU code
#   sanitize `make sanitize`: every small case under memcheck, racecheck and initcheck
#   mutate   tools/mutate.py: the single-line mutations of tools/mutations.json, each against
#            its tests (CPU code; fast on the GPU machine's cores), after `make build`
#   quick    `make reproduce` (the quick preset, figures and report)
#   probe    the 1000K float p=2 tiled/naive points alone, and the SASS of the IDW kernels
#   resume   kill a quick run midway, resume it, and show that only missing points ran
#   paper    PRESET=paper run of every suite (the reference results) in chunks of $CHUNK
#            seconds: each call starts it or resumes the run folder under results/runs (kept on
#            a warm machine; on a fresh one carry results/runs/resume.tgz, a tarball of the run
#            folder, which is unpacked first). SUITES=a,b,... picks the suites and their order
#            (e.g. the longest-awaited first); GTESTS=<filter> runs those GPU tests and their
#            memcheck first and stops before the run if any fails
#   kriging  build, the kriging GPU tests + compute-sanitizer, the quick kriging suite and the
#            paper preset's scale-10 cases
#   roofline / roofline-time   block-size sweep (+ ncu) of the roofline version at 1000K
#   profile  BENCH=<name> [PRESET=paper] [LAUNCHES=200] [NCU_ARGS=...]: that benchmark's kernels under ncu,
#            a table per kernel (time, share, achieved occupancy, % of DRAM and issue bandwidth)
#            in $OUT/profile.md (tools/ncu_table.py)
#   verify   after a kernel change: all GPU tests, sanitizers, the CLI's GPU tests, roofline
#   kriging-goals  issue 25's goals: experiments 7 and 8 at scale 10 with 10 and 1000 wells (paper
#            preset, spread flagged), and `krige` of 470 wells onto 1000 x 1000 with its time split
#   ab       before/after timing on one warm machine: AB_OLD=<folder> holds the old versions of
#            some source files (same relative paths); runs the paper preset's benchmarks
#            matching FILTER (SUITE) with the tree's code, then with the old files swapped in,
#            then the tree's again (drift shows as new-1 vs new-2), and prints each name's
#            median time per build. The tree's files are restored afterwards.
#   two-cards  issue 35's checks on a host of two GPUs: the noise rules' GPU test, `quick` on both
#            cards side by side (--devices 0,1: every benchmark on each; the CPU benchmarks take
#            the host-wide lock, so the two cards' CPU times must agree), the card-to-card
#            spread of CPU and GPU benchmarks, and SAMPO's compiled tiles above 12K against SoA
#            at the paper's sizes (the like-for-like claim); run folders tarred to $OUT
#   traffic-levers  issue 38 §1's step schedules side by side at the paper's scale (AoS and SoA,
#            every array full; LEVERS=<schedules, comma-separated> replaces the default list):
#            each validated against the CPU reference and timed; a table of ms per 1000 steps
#            (median) and the instrumented run's split, in $OUT/traffic-levers.md
#   traffic  the traffic simulation: lower Manhattan (data/lowermanhattan.graphml: carry it) on
#            the CPU reference and on the GPU in two layouts (the checksums must agree), the
#            paper's scale (8 x 8 copies, 229,376 cars, 1000 steps) timed on the GPU, memcheck
#            of the small GPU tests
# Never run `make source-commit` here: the GPU machine may hold a stale .git; the carried
# .source-commit written on the development machine is what names the source.
set -uo pipefail
export LB_REQUIRE_GPU=1  # on the GPU machine, a GPU test that cannot find its GPU fails
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/lb-round}
mkdir -p "$OUT"
# Python wheels carried in .whl (e.g. pykrige for the PyKrige cross-check; the GPU machines
# have no network): installed to a private folder, nothing else on the machine changes.
if compgen -G ".whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/lb-site .whl/*.whl \
    && export PYTHONPATH=/tmp/lb-site${PYTHONPATH:+:$PYTHONPATH}
fi
export PYTHONUNBUFFERED=1
phase=${1:-check}
# The build names its source from .source-commit (git-ignored: carry it); without it, from this
# machine's .git, which may be stale (a paper run once recorded the session's first commit).
[ -f .source-commit ] || echo "gpu_round: warning: no .source-commit here: results will name this machine's .git (run \`make source-commit\` and carry .source-commit)" >&2
jobs=$(nproc)

stamp() { echo "=== $(date +%T) $*"; }

case "$phase" in
  check)
    stamp "device"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
    # The README's test command as a user runs it (build included), all cores, GPU required.
    stamp "make test"; start=$SECONDS
    make test JOBS="$jobs" 2>&1 | tee "$OUT/test.log" | grep -vE "^\s+Start|Test +#" | tail -40
    status=${PIPESTATUS[0]}
    stamp "make test: exit $status, $((SECONDS - start)) s wall"
    cp build/Testing/Temporary/LastTest.log "$OUT/ctest-last.log" 2>/dev/null
    echo "slowest ctest tests:"; grep -E "Test +#[0-9]+: " "$OUT/test.log" | sed -E 's/.*Test +#[0-9]+: //' \
      | awk '{print $(NF-1), $0}' | sort -rn | head -12 | cut -d' ' -f2-
    grep -h -E "^compute-sanitizer --tool|^slowest under" "$OUT/ctest-last.log" 2>/dev/null
    [ "$status" -eq 0 ]
    ;;
  traffic)
    make build JOBS="$jobs" 2>&1 | tail -1
    net=${NETWORK:-data/lowermanhattan.graphml}
    if [ -f "$net" ]; then
      stamp "CPU reference"; build/layoutbench traffic --network "$net" --cars 5000 --steps 1000 --seed 7 --out /tmp/cpu.csv 2>&1 | tail -1
      for l in soa aos; do
        stamp "GPU $l, Car::path partial 6"
        build/layoutbench traffic --network "$net" --cars 5000 --steps 1000 --seed 7 --device gpu --layout $l \
          --field path --strategy partial --inline 6 --out /tmp/gpu.csv 2>&1 | tail -1
      done
      for l in soa aos; do
        stamp "paper scale, GPU $l"
        build/layoutbench traffic --network "$net" --tile 8x8 --cars 229376 --steps 1000 --seed 7 --device gpu \
          --layout $l --out /tmp/paper.csv 2>&1 | tail -1
      done
    else
      echo "gpu_round traffic: no $net (carry data/lowermanhattan.graphml): the CLI checks are left out"
    fi
    stamp "memcheck, small traffic GPU tests"
    compute-sanitizer --tool memcheck --error-exitcode 3 build/tests/lb_gpu_tests --gtest_filter='TrafficGpu.*' 2>&1 | tail -3
    ;;
  traffic-levers)
    make build JOBS="$jobs" 2>&1 | tail -1
    levers=${LEVERS:-base,block64,block128,lanes2,lanes4,lanes8,lanes4-split,lanes8-split,lanes4-block64,fused,graph,lanes4-fused-graph,lanes8-split-fused-graph,lanes8-split-block64-fused-graph}
    list=$(python3 -c 'import json, sys; print(json.dumps(sys.argv[1].split(",")))' "$levers")
    printf '{"extends": "paper", "suites": {"inner": {"traffic": {"fields": ["none"], "schedules": %s}}}}\n' "$list" \
      > /tmp/lb-levers.json
    rm -f "$OUT/traffic-levers.jsonl"
    stamp "traffic levers: $levers"
    build/layoutbench run --suite inner --preset /tmp/lb-levers.json --filter '^inner/traffic/' \
      --journal "$OUT/traffic-levers.jsonl" > "$OUT/traffic-levers.log" 2>&1
    status=$?
    tail -3 "$OUT/traffic-levers.log"
    python3 - "$OUT/traffic-levers.jsonl" <<'PY' | tee "$OUT/traffic-levers.md"
import json, statistics, sys
units = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
rows, ok = {}, {}
for line in open(sys.argv[1]):
    d = json.loads(line)
    if d.get("type") == "done":
        ok[d["name"]] = d["ok"]
    if d.get("type") != "run" or d["run"].get("run_type") != "iteration" or d["run"].get("error_occurred"):
        continue
    r = d["run"]
    rows.setdefault(d["name"], []).append((r["real_time"] * units[r["time_unit"]], r))
print("| layout | schedule | ms per 1000 steps (median) | cars (split) | controllers (split) | validated |")
print("|---|---|---|---|---|---|")
for name in ok:
    parts = dict(p.split(":", 1) for p in name.split("/") if ":" in p)
    layout, schedule = name.split("/")[3], parts.get("schedule", "base")
    runs = rows.get(name, [])
    if not runs:
        print(f"| {layout} | {schedule} | failed | | | {ok[name]} |")
        continue
    per_k = 1000 / float(parts["steps"])
    ms = statistics.median(t for t, _ in runs) * per_k
    split = lambda key: next((f"{r[key] * 1e3 * per_k:.1f}" for _, r in runs if key in r), "")
    print(f"| {layout} | {schedule} | {ms:.1f} | {split('cars_s')} | {split('controllers_s')} | {ok[name]} |")
PY
    [ "$status" -eq 0 ]
    ;;
  mutate)
    make build JOBS="$jobs" 2>&1 | tail -1
    stamp "mutation pass"; python3 tools/mutate.py --jobs "$jobs" 2>&1 | tee "$OUT/mutate.log" | tail -15
    ;;
  sanitize)
    # Full coverage: every small case of every GPU test under every tool (opt-in, slow).
    stamp "make sanitize"; make sanitize JOBS="$jobs" 2>&1 | tee "$OUT/sanitize.log" | tail -8
    cp build/sanitize-*.log "$OUT/" 2>/dev/null
    ;;
  quick)
    stamp "make reproduce (quick)"; time make reproduce JOBS="$jobs" 2>&1 | tee "$OUT/reproduce.log" | tail -25
    tar czf "$OUT/runs.tgz" results/runs
    ;;
  two-cards)
    make build JOBS="$jobs" 2>&1 | tail -1
    py=python3; [ -x build/venv/bin/python ] && py=build/venv/bin/python
    stamp "noise rules on the GPU"; LB_REQUIRE_GPU=1 $py -m pytest -q -p no:cacheprovider \
      tests/python/test_run_noise.py 2>&1 | tail -3
    stamp "quick on cards 0,1 side by side"; start=$SECONDS
    $py harness/run.py --bin build/layoutbench --preset quick --devices 0,1 --results-root results/runs 2>&1 | tee "$OUT/two-cards.log" | tail -8
    stamp "quick, two cards: $((SECONDS - start)) s"
    run=$(ls -td results/runs/*quick* | head -1)
    $py - "$run" <<'PY' 2>&1 | tee "$OUT/card-spread.txt"
import glob, gzip, json, statistics, sys
def medians(path):
    doc = json.load(open(path))
    return {e["run_name"]: e["real_time"] for e in doc["benchmarks"] if e.get("aggregate_name") == "median"}
for suite in sorted({p.split("/")[-1].split(".")[0] for p in glob.glob(sys.argv[1] + "/*.gpu0.json")}):
    a, b = (medians(f"{sys.argv[1]}/{suite}.gpu{k}.json") for k in (0, 1))
    for kind, pick in (("cpu", lambda n: "/cpu" in n), ("gpu", lambda n: "/cpu" not in n)):
        spreads = sorted(abs(a[n] / b[n] - 1) * 100 for n in a if n in b and pick(n) and b[n] > 0)
        if spreads:
            print(f"{suite:12s} {kind}: {len(spreads):4d} benchmarks, card-to-card |a/b-1| median "
                  f"{statistics.median(spreads):.2f} %, 90th {spreads[int(0.9 * (len(spreads) - 1))]:.2f} %, worst {spreads[-1]:.2f} %")
PY
    stamp "SAMPO at the paper's sizes: compiled tiles above 12K against SoA"
    $py harness/run.py --bin build/layoutbench --preset paper --suites kofler --devices 0 --results-root results/runs \
      --filter 'sampo/gpu/(soa|tiled-ct|tiled)/mixed/(tile:(16384|32768|65536)/)?size' 2>&1 | tail -4
    tar czf "$OUT/runs.tgz" results/runs
    ;;
  probe)
    for l in aoas soa; do cuobjdump --dump-sass build/CMakeFiles/lb_idw.dir/kernels/idw/device_$l.cu.o > "$OUT/sass_$l.txt"; done
    stamp "1000K float p=2 probe"
    build/layoutbench run --preset paper --filter '(tiled|roofline)/aoas/float/p:2/size:1024000|cdp-improved/soa/float/p:2/size:512000' \
      --journal /tmp/probe.jsonl 2>&1 | tail -6
    stamp "does memcheck follow the CDP child grids?"
    LB_GPU_TEST_VERSIONS=cdp-original,cdp-improved compute-sanitizer --tool memcheck build/tests/lb_gpu_tests \
      --gtest_filter='*Small*' 2>&1 | grep -E "not supported|ERROR SUMMARY|PASSED|FAILED" | head -5
    ;;
  resume)
    stamp "quick run, killed after 40 s"
    python3 harness/run.py --preset quick --no-figures --results-root /tmp/resume-demo > "$OUT/resume-1.log" 2>&1 &
    pid=$!; sleep 40; kill -INT $pid; wait $pid; echo "orchestrator exit: $?"
    run=$(ls -d /tmp/resume-demo/*/ | head -1)
    done_before=$(grep -c '"type": *"done"' "$run"/idw.gpu0.journal.jsonl)
    stamp "resume $run ($done_before done before the kill)"
    time make reproduce RESUME="$run" 2>&1 | tee "$OUT/resume-2.log" | tail -8
    python3 - "$run" <<'PY'
import collections, json, sys
starts = collections.Counter()
for line in open(sys.argv[1] + "/idw.gpu0.journal.jsonl"):
    r = json.loads(line)
    if r["type"] == "start": starts[r["name"]] += 1
again = [n for n, c in starts.items() if c > 1]
print(f"benchmarks: {len(starts)}, started more than once: {len(again)} {again}")
PY
    ;;
  paper)
    make build JOBS="$jobs" 2>&1 | tail -1
    python3 -m pytest -q tests/python/test_cli_interpolate.py 2>&1 | tail -1
    if [ -n "${GTESTS:-}" ]; then
      stamp "GPU tests: $GTESTS"
      build/tests/lb_gpu_tests --gtest_filter="$GTESTS" 2>&1 | tee "$OUT/gtests.log" \
        | grep -E "^\[ +(OK|FAILED|PASSED|SKIPPED) |Failure|Expected|Which|actual" | tail -60
      [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "gpu_round paper: GPU tests failed: no run"; exit 1; }
      stamp "memcheck: $GTESTS"
      compute-sanitizer --tool memcheck --error-exitcode 3 build/tests/lb_gpu_tests --gtest_filter="$GTESTS" \
        > "$OUT/gtests-memcheck.log" 2>&1 || { tail -20 "$OUT/gtests-memcheck.log"; echo "gpu_round paper: memcheck failed: no run"; exit 1; }
      grep -E "ERROR SUMMARY" "$OUT/gtests-memcheck.log" | tail -1
    fi
    if ! compgen -G "results/runs/*_paper" >/dev/null && [ -f results/runs/resume.tgz ]; then
      stamp "unpacking results/runs/resume.tgz"; tar xzf results/runs/resume.tgz
    fi
    run=$(ls -d results/runs/*_paper 2>/dev/null | head -1)
    if [ -n "$run" ]; then args=(--resume "$run"); else args=(--preset paper ${SUITES:+--suites "$SUITES"}); fi
    stamp "paper run: ${args[*]} (stopped after ${CHUNK:=520} s if unfinished)"
    timeout -s INT "$CHUNK" python3 harness/run.py "${args[@]}" --bin build/layoutbench 2>&1 \
      | tee -a "$OUT/paper.log" | grep -vE "benchmarks done, " | tail -40
    # In parts of at most 15 MiB (a file brought back from the GPU machine may not exceed 16 MiB):
    # cat "$OUT"/paper.tgz.part-* | tar xz
    tar czf - --exclude=results/runs/resume.tgz results/runs | split -b 15M - "$OUT/paper.tgz.part-"
    ;;
  kriging)
    stamp "build"; make build JOBS="$jobs" 2>&1 | tail -2
    stamp "kriging GPU tests"; build/tests/lb_gpu_tests --gtest_filter='*Kriging*' 2>&1 | tee "$OUT/kriging-tests.log" \
      | grep -E "^\[ +(OK|FAILED|PASSED) |Failure|SKIPPED|Expected|Which|actual|error" | head -80
    for tool in memcheck initcheck racecheck; do
      stamp "compute-sanitizer $tool (kriging, small cases)"
      compute-sanitizer --tool $tool --error-exitcode 1 build/tests/lb_gpu_tests \
        --gtest_filter='*Kriging*:-*Scale2*:*Scales*:*Thousand*' > "$OUT/kriging-$tool.log" 2>&1; echo "exit $?"
      grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$OUT/kriging-$tool.log" | head -4
    done
    stamp "kriging quick preset"
    build/layoutbench run --suite kriging --preset quick --journal "$OUT/kriging-quick.jsonl" 2>&1 | tail -45
    stamp "kriging paper preset at scale 10 (${PROBE_FILTER:=scale:10/})"
    timeout 300 build/layoutbench run --suite kriging --preset paper --filter "$PROBE_FILTER" \
      --journal "$OUT/kriging-scale10.jsonl" 2>&1 | tail -30
    ;;
  profile)
    # One benchmark's timed kernels under ncu (issue 38): per kernel its time, achieved occupancy,
    # % of DRAM bandwidth and of issue slots (tools/ncu_table.py), so a change starts from a
    # profile. BENCH: the name as `layoutbench plan` prints it; PRESET (default paper) is run with
    # one repetition of one iteration; LAUNCHES caps the kernels profiled (default 200).
    [ -n "${BENCH:-}" ] || { echo "gpu_round profile: set BENCH=<one benchmark's name>"; exit 2; }
    make build JOBS="$jobs" 2>&1 | tail -1
    suite=${BENCH%%/*}
    exact=$(python3 -c 'import re, sys; print(re.sub(r"([.+|()\[\]{}^$*?\\])", r"\\\1", sys.argv[1]))' "$BENCH")
    tree=(); [ "$suite" = kofler ] && [ -n "${KOFLER_TREE:-}" ] && tree=(--kofler-tree "$KOFLER_TREE")
    printf '{"extends": "%s", "repetitions": 1, "min_time_s": 1e-9, "noise_target_pct": 0}\n' "${PRESET:-paper}" \
      > /tmp/lb-profile.json
    stamp "ncu: $BENCH"
    # ncu's defaults flush the caches before each kernel and lock the base clock: a latency-bound
    # kernel that reuses L2 across launches (the traffic step) then takes several times its
    # benchmark time; NCU_ARGS="--cache-control none --clock-control none" profiles it as it runs.
    # shellcheck disable=SC2086
    ncu ${NCU_ARGS:-} --nvtx --nvtx-include "regex:${exact//\//.}/" --launch-count "${LAUNCHES:-200}" --csv --print-units base \
      --metrics gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__inst_issued.avg.pct_of_peak_sustained_active \
      --log-file "$OUT/profile.csv" build/layoutbench run --suite "$suite" --preset /tmp/lb-profile.json "${tree[@]}" \
      --filter "^${exact}\$" --journal /tmp/lb-profile.jsonl > "$OUT/profile-run.log" 2>&1
    tail -3 "$OUT/profile-run.log"
    python3 tools/ncu_table.py "$OUT/profile.csv" --title "$BENCH" | tee "$OUT/profile.md"
    ;;
  roofline)
    # Block-size sweep of the roofline kernel at 1000K (float, p = 2), then ncu on it.
    make build JOBS="$jobs" 2>&1 | tail -1
    BLOCKS=${BLOCKS:-128 256 512} bash "$0" roofline-time
    stamp "ncu (roofline aoas float p=2, 1000K, block 256)"
    ncu --nvtx --nvtx-include 'regex:roofline.aoas.float.p:2.size:1024000.block:256/' --launch-count 1 \
      --section SpeedOfLight --section WarpStateStats --section Occupancy --section InstructionStats --section LaunchStats \
      build/layoutbench run --suite idw --preset /tmp/roofline-256.json --journal /tmp/ncu.jsonl > "$OUT/ncu-roofline.txt" 2>&1
    grep -E "Duration|Issue Slots Busy|Issued Ipc|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Limit|Stall|Warp Cycles Per Issued|SM Busy|Waves Per SM|Executed Ipc" "$OUT/ncu-roofline.txt" | head -40
    ;;
  verify)
    # After a kernel change: the GPU tests of IDW and kriging (with the 1000K CDP cases),
    # sanitizers on the small cases, the CLI's GPU tests, and the roofline at 1000K.
    make build JOBS="$jobs" 2>&1 | tail -1
    stamp "GPU tests"; build/tests/lb_gpu_tests 2>&1 | tee "$OUT/gpu-tests.log" \
      | grep -E "^\[ +(OK|FAILED|PASSED) |Failure|Expected|Which|actual" | grep -vE "OK \] (Kriging|Experiments|PaperScales)" | head -40
    LB_GPU_TEST_VERSIONS=tiled,roofline compute-sanitizer --tool memcheck --error-exitcode 1 build/tests/lb_gpu_tests \
      --gtest_filter='*Small*' 2>&1 | grep -E "ERROR SUMMARY|PASSED|FAILED" | head -3
    bash tests/run_sanitizer.sh racecheck build/tests/lb_gpu_tests 2>&1 | grep -E "RACECHECK SUMMARY|PASSED|FAILED" | head -3
    stamp "CLI GPU tests"; python3 -m pytest -q tests/python/test_cli_krige.py tests/python/test_cli_interpolate.py 2>&1 | tail -2
    stamp "roofline, p = 2, 512K and 1000K"
    SIZES=512000,1024000 PRECISIONS='"float","double"' bash "$0" roofline-time
    ;;
  roofline-time)
    # The roofline version alone (p = 2, aoas), one preset file per block size:
    # BLOCKS, SIZES and PRECISIONS (JSON lists' items) default to 256, 1024000 and float.
    precisions=${PRECISIONS:-'"float"'}
    for block in ${BLOCKS:-256}; do
      cat > /tmp/roofline-$block.json <<JSON
{"description": "roofline probe", "repetitions": 3, "min_time_s": 0.05, "spread_flag_pct": 5,
 "suites": {"idw": {"sizes": [${SIZES:-1024000}], "versions": ["roofline"], "layouts": ["aoas"],
                    "precisions": [$precisions], "powers": [2], "block": $block, "cpu_baselines": false}}}
JSON
      build/layoutbench run --suite idw --preset /tmp/roofline-$block.json --journal /tmp/roofline-$block.jsonl 2>&1 | grep -E "^\[[0-9]+/"
    done
    ;;
  ab)
    : "${AB_OLD:?AB_OLD=<folder of old files>}" "${FILTER:?FILTER=<regex>}"
    suite=${SUITE:-kofler}
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build build -j "$jobs" --target layoutbench | tail -1
    files=$(cd "$AB_OLD" && find . -type f | sed 's|^\./||')
    mkdir -p /tmp/ab-new && for f in $files; do mkdir -p "/tmp/ab-new/$(dirname "$f")"; cp "$f" "/tmp/ab-new/$f"; done
    swap() { for f in $files; do cp "$1/$f" "$f"; done; cmake --build build -j "$jobs" --target layoutbench | tail -1; }
    timed() {
      stamp "ab: $1"; rm -f "$OUT/ab-$1.jsonl"
      build/layoutbench run --suite "$suite" --preset paper --filter "$FILTER" --journal "$OUT/ab-$1.jsonl" 2>&1 | tail -2
    }
    timed new-1; swap "$AB_OLD"; timed old; swap /tmp/ab-new; timed new-2
    python3 - "$OUT" <<'PY'
import json, sys, statistics, pathlib
out = pathlib.Path(sys.argv[1]); runs = {}
for tag in ("new-1", "old", "new-2"):
    for line in (out / f"ab-{tag}.jsonl").read_text().splitlines():
        d = json.loads(line)
        if d.get("type") == "run" and d["run"].get("run_type") == "iteration":
            runs.setdefault(d["name"], {}).setdefault(tag, []).append(d["run"]["real_time"])
runs = {n: {tag: statistics.median(ts) for tag, ts in t.items()} for n, t in runs.items()}
print(f"{'benchmark':64} {'new-1':>10} {'old':>10} {'new-2':>10} {'old/new':>8}")
for name, t in runs.items():
    new = min(t.get("new-1", float("inf")), t.get("new-2", float("inf")))
    print(f"{name:64} {t.get('new-1', 0):10.1f} {t.get('old', 0):10.1f} {t.get('new-2', 0):10.1f} {t.get('old', 0) / new:8.3f}")
PY
    ;;
  kriging-goals)
    make build JOBS="$jobs" 2>&1 | tail -1
    stamp "experiments 7 and 8 at scale 10"
    build/layoutbench run --suite kriging --preset paper --filter 'gpu-exp[78]/dense/(float|double)/scale:10/wells:(10|1000)$' \
      --journal "$OUT/kriging-goals.jsonl" 2>&1 | tail -12
    python3 - "$OUT/kriging-goals.jsonl" <<'PY'
import json, sys, statistics
rows = {}
for line in open(sys.argv[1]):
    d = json.loads(line)
    if d.get("type") == "run" and d["run"].get("run_type") == "iteration":
        rows.setdefault(d["name"], []).append(d["run"])
for name, reps in rows.items():
    t = sorted(r["real_time"] for r in reps); r0 = reps[0]
    print(f"{name}: median {statistics.median(t):.1f} {r0['time_unit']}, spread {(t[-1] - t[0]) / t[0]:.1%}, "
          f"bound {r0.get('bound_s', 0) * 1e6:.1f} us ({r0.get('pct_of_bound', 0):.0f} %), device bound "
          f"{r0.get('device_bound_s', 0) * 1e6:.1f} us, bus bound {r0.get('bus_bound_s', 0) * 1e6:.1f} us, "
          f"solve on device {r0.get('solve_on_device', '-')}, trials host {r0.get('solve_trial_host_s', 0) * 1e3:.2f} ms "
          f"device {r0.get('solve_trial_device_s', 0) * 1e3:.2f} ms")
PY
    stamp "krige: 470 wells onto 1000 x 1000"
    build/layoutbench krige --scale 3 --well-count 470 --device cpu --experiment 8 --out /tmp/u.npy --wells-out /tmp/w470.csv 2>&1 | tail -2
    grid=0:15000:1000,0:27000:1000
    for e in "--experiment 7" "--experiment 8 --solve device" "--experiment 8 --solve host"; do
      stamp "krige $e (.npy)"
      /usr/bin/time -f "%e s end to end" build/layoutbench krige --wells /tmp/w470.csv --grid $grid --device gpu $e --out /tmp/m.npy --timing 2>&1 | tail -14
    done
    stamp "krige --experiment 8 (.csv)"
    /usr/bin/time -f "%e s end to end" build/layoutbench krige --wells /tmp/w470.csv --grid $grid --device gpu --experiment 8 --out /tmp/m.csv --timing 2>&1 | tail -14
    ;;
  *) echo "unknown phase $phase (check | sanitize | mutate | quick | two-cards | probe | resume | paper | kriging | roofline | roofline-time | verify | ab | kriging-goals)"; exit 2 ;;
esac

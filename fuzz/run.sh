#!/usr/bin/env bash
# Runs one loader fuzz target: first every regression input (tests/fuzz_regressions/NAME/)
# and every seed once, then SECONDS of fuzzing from the seeds with a fixed seed; fails on
# any crash, sanitizer report or check, saving the input under ARTIFACTS.
#   fuzz/run.sh BINARY NAME DICT SEED...   (DICT: a libFuzzer dictionary or -; a SEED: a file
#                                          or a folder of files)
# Environment: LB_FUZZ_SECONDS (4), LB_FUZZ_SEED (1), LB_FUZZ_MAX_LEN (bytes, 4096),
# LB_FUZZ_ARTIFACTS (folder for failing inputs; ./fuzz-artifacts).
set -euo pipefail
bin=$1 name=$2 dict=${3#-}
shift 3
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${LB_FUZZ_SECONDS:-4} seed=${LB_FUZZ_SEED:-1} max_len=${LB_FUZZ_MAX_LEN:-4096}
artifacts=${LB_FUZZ_ARTIFACTS:-$PWD/fuzz-artifacts}
work=$(mktemp -d "${TMPDIR:-/tmp}/lb_fuzz_$name.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/seeds" "$work/corpus" "$work/out"

# Seeds: the first max_len bytes of each file (a big dataset contributes its head).
n=0
for source in "$@"; do
  if [ ! -e "$source" ]; then echo "fuzz_$name: seed $source not there, left out"; continue; fi
  while IFS= read -r file; do
    n=$((n + 1))
    head -c "$max_len" "$file" > "$work/seeds/$n-$(basename "$file")"
  done < <(find "$source" -type f | sort)
done
regressions=()
if [ -d "$root/tests/fuzz_regressions/$name" ]; then
  while IFS= read -r file; do regressions+=("$file"); done < <(find "$root/tests/fuzz_regressions/$name" -type f | sort)
fi

fail() {  # $1: what failed, $2: its log
  tail -n 60 "$2"
  mkdir -p "$artifacts"
  for f in "$work"/out/*; do
    [ -e "$f" ] || continue
    cp "$f" "$artifacts/$name-$(basename "$f")"
    echo "fuzz_$name: failing input kept as $artifacts/$name-$(basename "$f")"
    echo "  to make it a regression input: cp $artifacts/$name-$(basename "$f") $root/tests/fuzz_regressions/$name/"
  done
  echo "fuzz_$name: FAILED ($1; seed $seed)"
  exit 1
}

replayed=("${regressions[@]}" "$work"/seeds/*)
if [ -e "${replayed[0]}" ]; then
  "$bin" -artifact_prefix="$work/out/" "${replayed[@]}" > "$work/replay.log" 2>&1 || fail "replaying regressions and seeds" "$work/replay.log"
fi
"$bin" -seed="$seed" -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
  ${dict:+-dict="$dict"} -artifact_prefix="$work/out/" -print_final_stats=1 "$work/corpus" "$work/seeds" \
  > "$work/fuzz.log" 2>&1 || fail "fuzzing" "$work/fuzz.log"
runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$work/fuzz.log" | tail -n 1)
[ -n "$runs" ] || fail "no run count in the log" "$work/fuzz.log"
echo "fuzz_$name: ${#regressions[@]} regression inputs and $n seeds replayed; $runs runs in ${seconds} s (seed $seed): no failure"

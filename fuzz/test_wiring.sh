#!/usr/bin/env bash
# fuzz/run.sh passes a target that keeps the rule and fails one that breaks it (a foreign
# exception, an error not naming the file), saying why.   fuzz/test_wiring.sh SELFTEST_BINARY
set -uo pipefail
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lb_fuzz_wiring.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
status=0
expect() {  # expect <0|1> <text the output must hold> <seed text>
  mkdir -p "$tmp/$3" && printf '%s' "$3" > "$tmp/$3/seed"
  out=$(LB_FUZZ_SECONDS=1 LB_FUZZ_ARTIFACTS="$tmp/artifacts" "$here/run.sh" "$bin" selftest - "$tmp/$3" 2>&1)
  rc=$?
  if [ $(( rc != 0 )) -ne "$1" ] || ! grep -qF "$2" <<< "$out"; then
    echo "FAIL: seed '$3': exit $rc, expected $([ "$1" = 1 ] && echo failure || echo success) saying '$2'; output:"
    echo "$out" | tail -n 20
    status=1
  else
    echo "ok: seed '$3': $(tail -n 1 <<< "$out")"
  fi
}
expect 0 "runs in 1 s (seed 1): no failure" "fine"
expect 1 "unexpected exception: std::logic_error: a foreign exception" "throw"
expect 1 "error does not name the file first: something is wrong" "vague"
exit $status

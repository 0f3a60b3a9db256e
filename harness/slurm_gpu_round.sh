#!/usr/bin/env bash
# Slurm on real GPUs (issue 40, docs/cluster.md "A GPU round"): on a host with two GPUs and no
# Slurm, bring up a one-node Slurm from the Debian packages carried in .slurm-debs/ (unpacked
# into a private prefix, never into /), with GresTypes=gpu and a gres.conf naming both GPUs,
# then run the quick preset through `make reproduce SLURM=1` as one task per GPU with --split
# and check what a lab would: each task saw only its GPU, the collect job wrote one report, the
# results are the local plan; a task cancelled midway resumes with only its missing
# benchmarks; a task whose GPU is lost fails with job id, node and log in REPORT.md and resume
# reruns it. Prints a summary table at the end; exit 0 only when every check passed.
#
#   harness/slurm_gpu_round.sh          on the GPU host (root; builds the project first)
#   harness/slurm_gpu_round.sh --dry    on a machine without a GPU: two stand-in GPUs on
#                                       device files and the fake layoutbench of the tests
#                                       (tests/python/fake_layoutbench.py), no build, no figures
#
# Everything goes to $OUT/slurm-round.log; the run folders (without figures) to
# $OUT/slurm-runs.tgz, the logs (submissions, build, daemons) to $OUT/slurm-logs.tgz (few files
# come back from a GPU machine). The daemons run in a private mount namespace in which /usr/sbin is
# overlaid with the prefix's slurmstepd (slurmd starts it from its compiled-in path) and any
# Slurm this machine has installed is hidden, so only the prefix's binaries can run. They are
# stopped by pid at the end, also after a failed step.
set -uo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
OUT=${OUT:-/tmp/lb-slurm-round}
DRY=0
case "${1:-}" in
  --dry) DRY=1 ;;
  "") ;;
  *) echo "usage: harness/slurm_gpu_round.sh [--dry]" >&2; exit 2 ;;
esac

if [ -z "${LB_SLURM_ROUND_NS:-}" ]; then
  mkdir -p "$OUT"
  if [ "$(id -u)" -ne 0 ]; then
    echo "slurm_gpu_round: needs root (slurmd starts the jobs; the mount namespace)" | tee "$OUT/slurm-round.log" >&2
    exit 2
  fi
  # A private mount namespace: the overlay and the hiding below end with this process.
  if LB_SLURM_ROUND_NS=1 unshare --mount --propagation private true 2>/dev/null; then
    LB_SLURM_ROUND_NS=1 exec unshare --mount --propagation private "$0" "$@"
  fi
  echo "slurm_gpu_round: cannot make a mount namespace (unshare --mount failed)" | tee "$OUT/slurm-round.log" >&2
  exit 2
fi

exec > >(tee "$OUT/slurm-round.log") 2>&1
TEE_PID=$!
ROOT=${LB_SLURM_ROOT:-/tmp/lb-slurm-round}   # the prefix, the daemons' state and logs
PREFIX=$ROOT/prefix
LOGS=$ROOT/logs      # each submission's output, the build's
PY=python3
START=$SECONDS
CHECKS=()            # "PASS|FAIL|NOTE<tab>what" per check, for the summary table
DAEMON_PIDS=()
RUNS=()

stamp() { echo "=== $(date +%T) (+$((SECONDS - START)) s) $*"; }
die() { echo "slurm_gpu_round: $*"; CHECKS+=("FAIL	$*"); finish 1; }
note() { echo "NOTE: $*"; CHECKS+=("NOTE	$*"); }
check() {  # check "what" command...: records PASS or FAIL of the command's status
  local what=$1; shift
  if "$@"; then CHECKS+=("PASS	$what"); echo "check passed: $what"
  else CHECKS+=("FAIL	$what"); echo "CHECK FAILED: $what"; fi
}
wait_for() {  # wait_for SECONDS "what" command...: polls every 0.5 s
  local limit=$1 what=$2; shift 2
  local deadline=$((SECONDS + limit))
  until "$@"; do
    if [ $SECONDS -ge $deadline ]; then echo "timed out after $limit s waiting for $what"; return 1; fi
    for pid in "${DAEMON_PIDS[@]}"; do
      kill -0 "$pid" 2>/dev/null || { echo "a daemon (pid $pid) exited while waiting for $what"; return 1; }
    done
    sleep 0.5
  done
}

finish() {
  local status=${1:-0}
  trap - EXIT INT TERM
  stamp "stopping Slurm"
  if [ ${#DAEMON_PIDS[@]} -gt 0 ] && [ -x "$ROOT/bin/scancel" ]; then
    "$ROOT/bin/scancel" --full --user root >/dev/null 2>&1
    sleep 1
  fi
  for (( k=${#DAEMON_PIDS[@]}-1; k>=0; k-- )); do
    pid=${DAEMON_PIDS[k]}
    kill -TERM "$pid" 2>/dev/null || continue
    for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL "$pid" 2>/dev/null && echo "killed daemon $pid (did not stop on SIGTERM)"
  done
  [ -n "${STEPD_LINK:-}" ] && rm -f "$STEPD_LINK" && echo "removed $STEPD_LINK"
  if [ ${#RUNS[@]} -gt 0 ]; then
    tar czf "$OUT/slurm-runs.tgz" --exclude=figures --exclude=report.html "${RUNS[@]}" 2>/dev/null \
      && echo "run folders: $OUT/slurm-runs.tgz (${RUNS[*]})"
  fi
  # Few files come back from a GPU machine: the logs and configuration as one tarball.
  (cd "$ROOT" 2>/dev/null && tar czf "$OUT/slurm-logs.tgz" logs ./*.log ./*.out slurm.conf gres.conf cgroup.conf 2>/dev/null) \
    && echo "logs: $OUT/slurm-logs.tgz (the submissions, build, daemons, slurm.conf, gres.conf)"
  echo
  echo "| check | result |"
  echo "|---|---|"
  local failed=0
  for entry in "${CHECKS[@]}"; do
    echo "| ${entry#*	} | ${entry%%	*} |"
    [ "${entry%%	*}" = FAIL ] && failed=$((failed + 1))
  done
  echo
  echo "slurm_gpu_round: ${#CHECKS[@]} checks, $failed failed, $((SECONDS - START)) s$([ $DRY = 1 ] && echo ' (--dry: stand-in GPUs, fake layoutbench)')"
  [ "$failed" -eq 0 ] && [ "$status" -eq 0 ] && status=0 || status=1
  exec >&- 2>&-
  wait "$TEE_PID" 2>/dev/null  # the log complete before the exit
  exit "$status"
}
trap 'finish 1' EXIT
trap 'echo "interrupted"; finish 130' INT TERM

# ---------------------------------------------------------------------------------------------
stamp "host: $(hostname), $(nproc) cores, $( [ $DRY = 1 ] && echo 'dry run' || nvidia-smi -L 2>&1 | tr '\n' ';')"
if [ $DRY = 1 ]; then
  GPU_FILES=(/dev/null /dev/zero)
else
  GPU_FILES=(/dev/nvidia0 /dev/nvidia1)
  [ "$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')" -ge 2 ] || die "nvidia-smi lists fewer than two GPUs"
fi
for f in "${GPU_FILES[@]}"; do [ -e "$f" ] || die "no $f: gres.conf names it as a GPU"; done
[ $DRY = 1 ] || [ -f .source-commit ] || echo "slurm_gpu_round: warning: no .source-commit here: results will name this machine's .git (run \`make source-commit\` and carry .source-commit)"
compgen -G ".slurm-debs/*.deb" >/dev/null || die "no .slurm-debs/*.deb here (carry .slurm-debs: docs/cluster.md)"
if pgrep -x slurmctld >/dev/null || pgrep -x slurmd >/dev/null; then
  die "a slurmctld or slurmd already runs on this machine: stop it first"
fi

stamp "unpacking .slurm-debs into $PREFIX (dpkg -x; nothing is installed)"
rm -rf "$ROOT" && mkdir -p "$PREFIX" "$ROOT/bin" "$ROOT/lib" "$ROOT/sbin" "$ROOT/logs" || die "cannot create $ROOT"
for deb in .slurm-debs/*.deb; do dpkg -x "$deb" "$PREFIX" || die "dpkg -x $deb failed"; done
MULTIARCH=usr/lib/x86_64-linux-gnu
PLUGINS=$PREFIX/$MULTIARCH/slurm-wlm
[ -f "$PLUGINS/libslurmfull.so" ] || die "the debs hold no $MULTIARCH/slurm-wlm/libslurmfull.so"
# The carried libraries (by soname: the packages' symlinks) that the machine lacks, and always
# libmunge: the machine's own stay in use where it has them. --dry links them all, so that the
# carried ones are the ones tried.
for lib in "$PREFIX"/$MULTIARCH/lib*.so.* "$PREFIX"/lib/x86_64-linux-gnu/lib*.so.*; do
  soname=$(basename "$lib")
  [ -L "$lib" ] || [[ "$soname" =~ \.so\.[0-9]+$ ]] || continue
  if [ $DRY = 1 ] || [[ "$soname" == libmunge.so.* ]] || ! ldconfig -p | grep -q "^[[:space:]]*$soname "; then
    ln -sf "$lib" "$ROOT/lib/$soname"
  fi
done
LIBPATH=$PLUGINS:$ROOT/lib
echo "libraries from the prefix: $(ls "$ROOT/lib" | tr '\n' ' ')"
LDSO=$(ls /lib64/ld-linux-x86-64.so.2 2>/dev/null || ls /lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)
# The commands run through the dynamic loader with the prefix's libraries, so LD_LIBRARY_PATH
# is never set where sbatch would copy it into the jobs' environment.
for cmd in sbatch squeue scontrol scancel sinfo srun; do
  printf '#!/bin/sh\nexec %s --library-path %s %s "$@"\n' "$LDSO" "$LIBPATH" "$PREFIX/usr/bin/$cmd" > "$ROOT/bin/$cmd"
  chmod +x "$ROOT/bin/$cmd"
done
# Debian's daemons are <name>-wlm, started through links named <name>: Slurm reads its
# program's name (a slurmctld started as slurmctld-wlm ignores every node's gres).
for daemon in slurmctld slurmd slurmstepd; do ln -s "$PREFIX/usr/sbin/$daemon-wlm" "$ROOT/sbin/$daemon"; done
missing=$(for b in "$PREFIX"/usr/sbin/{slurmctld-wlm,slurmd-wlm,slurmstepd-wlm,munged} "$PREFIX"/usr/bin/sbatch "$PLUGINS"/*munge*.so; do
  LD_LIBRARY_PATH=$LIBPATH ldd "$b" | grep "not found" | sed "s|^|$(basename "$b"): |"; done)
[ -z "$missing" ] || die "libraries missing: $missing"

stamp "mount namespace: /usr/sbin overlaid with the prefix's daemons; this machine's Slurm hidden"
STEPD_LINK=""
if ! mount -t overlay overlay -o "lowerdir=$ROOT/sbin:/usr/sbin" /usr/sbin; then
  # No overlayfs: slurmd still needs /usr/sbin/slurmstepd; a link made here is removed at the end.
  [ -e /usr/sbin/slurmstepd ] && die "cannot overlay /usr/sbin, and this machine has its own /usr/sbin/slurmstepd"
  ln -s "$ROOT/sbin/slurmstepd" /usr/sbin/slurmstepd || die "cannot overlay /usr/sbin nor link /usr/sbin/slurmstepd"
  STEPD_LINK=/usr/sbin/slurmstepd
  echo "no overlayfs: linked $STEPD_LINK -> $ROOT/sbin/slurmstepd (removed at the end)"
fi
empty=$ROOT/empty && mkdir -p "$empty" && : > "$ROOT/empty-file"
for path in /usr/sbin/{slurmctld-wlm,slurmd-wlm,slurmstepd-wlm,munged} /usr/bin/{sbatch,squeue,scontrol,scancel,sinfo,srun,munge} \
            /$MULTIARCH/libslurm*.so* /$MULTIARCH/libmunge.so* /lib/x86_64-linux-gnu/libmunge.so*; do
  [ -e "$path" ] && mount --bind "$ROOT/empty-file" "$path" && echo "hidden: $path"
done
[ -d /$MULTIARCH/slurm-wlm ] && mount --bind "$empty" /$MULTIARCH/slurm-wlm && echo "hidden: /$MULTIARCH/slurm-wlm"
[ "$(readlink -f /usr/sbin/slurmstepd)" = "$(readlink -f "$PREFIX/usr/sbin/slurmstepd-wlm")" ] \
  || die "/usr/sbin/slurmstepd is not the prefix's"
export PATH=$ROOT/bin:$PATH

# ---------------------------------------------------------------------------------------------
# The runs go through the user's command, make reproduce SLURM=1. --dry: the make variable BUILD
# names a folder holding the fake binary, and `-o build` skips the build.
if [ $DRY = 1 ]; then
  BUILD=$ROOT/fake-build && mkdir -p "$BUILD"
  BIN=$BUILD/layoutbench   # the tests' fake binary; two stand-in GPUs as CUDA would number them
  printf '#!/bin/sh\nexport FAKE_LB_DEVICES=2 FAKE_LB_SUITES=idw,kriging FAKE_LB_DELAY=%s FAKE_LB_GPU_NAME="NVIDIA H200"\nexec %s -S %s "$@"\n' \
    "${FAKE_DELAY:-0.4}" "$(command -v python3)" "$REPO/tests/python/fake_layoutbench.py" > "$BIN"
  chmod +x "$BIN"
  CANCEL_JOURNAL=kriging.gpu1.journal.jsonl CANCEL_AFTER=1
  MAKE_ARGS=(-o build BUILD="$BUILD")
  EXTRA=(--results-root "$ROOT/runs")
  SUITES=(--suites idw,kriging)   # the suites the fake knows
  FINAL_FIGURES=(--no-figures)
else
  BIN=build/layoutbench
  CANCEL_JOURNAL=kofler.gpu1.journal.jsonl CANCEL_AFTER=3   # midway through task 1's suites
  MAKE_ARGS=()
  EXTRA=()
  SUITES=()          # every suite of the preset
  FINAL_FIGURES=()   # the figures once, by the resume's collect job
  stamp "make build JOBS=$(nproc)"
  make build JOBS="$(nproc)" > "$LOGS/build.log" 2>&1 || { tail -20 "$LOGS/build.log"; die "make build failed (build.log in $OUT/slurm-logs.tgz)"; }
  tail -1 "$LOGS/build.log"
fi

stamp "Slurm: munged, slurmctld, slurmd ($(basename "$PREFIX") binaries; gres gpu on ${GPU_FILES[*]})"
mkdir -p "$ROOT/munge" "$ROOT/state" "$ROOT/spool" && chmod 755 "$ROOT/munge"
head -c 1024 /dev/urandom > "$ROOT/munge.key" && chmod 600 "$ROOT/munge.key"
# TaskProlog simulates a lost GPU: while $ROOT/lost-gpu names an array task, that task's
# CUDA_VISIBLE_DEVICES names a GPU that is not there (its `export` replaces what gres set).
cat > "$ROOT/task_prolog.sh" <<EOF
#!/bin/sh
lost=\$(cat "$ROOT/lost-gpu" 2>/dev/null)
if [ -n "\$lost" ] && [ "\$SLURM_ARRAY_TASK_ID" = "\$lost" ]; then
  echo "export CUDA_VISIBLE_DEVICES=GPU-00000000-dead-0000-0000-000000000000"
fi
EOF
chmod 755 "$ROOT/task_prolog.sh"
read -r CTLD_PORT SLURMD_PORT < <($PY -c 'import socket
s=[socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1", 0)) for x in s]
print(*[x.getsockname()[1] for x in s])')
# The GPU machines run no systemd or D-Bus, and slurmd's cgroup/v2 plugin asks systemd for its
# stepd scope unless told not to (slurmd then failed: "cannot connect to dbus system daemon").
printf 'CgroupPlugin=cgroup/v2\nIgnoreSystemd=yes\n' > "$ROOT/cgroup.conf"
# Without systemd there is no system.slice for slurmd to put its stepd scope under.
[ $DRY = 1 ] || [ ! -d /sys/fs/cgroup ] || mkdir -p /sys/fs/cgroup/system.slice 2>/dev/null \
  || echo "slurm_gpu_round: warning: cannot create /sys/fs/cgroup/system.slice"
: > "$ROOT/gres.conf"
for f in "${GPU_FILES[@]}"; do echo "NodeName=lbnode Name=gpu File=$f" >> "$ROOT/gres.conf"; done
cat > "$ROOT/slurm.conf" <<EOF
ClusterName=lbgpu
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$ROOT/munge/socket
CredType=cred/munge
PluginDir=$PLUGINS
StateSaveLocation=$ROOT/state
SlurmdSpoolDir=$ROOT/spool
SlurmctldPidFile=$ROOT/slurmctld.pid
SlurmdPidFile=$ROOT/slurmd.pid
SlurmctldLogFile=$ROOT/slurmctld.log
SlurmdLogFile=$ROOT/slurmd.log
TaskProlog=$ROOT/task_prolog.sh
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
GresTypes=gpu
MpiDefault=none
ReturnToService=2
MinJobAge=3600
KillWait=5
InactiveLimit=0
NodeName=lbnode NodeAddr=127.0.0.1 CPUs=$(nproc) Gres=gpu:${#GPU_FILES[@]} State=UNKNOWN
PartitionName=gpu Nodes=lbnode MaxTime=INFINITE State=UP Default=YES
EOF
export SLURM_CONF=$ROOT/slurm.conf
sbatch --version | grep -qE "^slurm(-wlm)? [0-9]" || die "the prefix's sbatch does not run"
echo "sbatch: $(command -v sbatch) ($(sbatch --version))"
daemon() {  # daemon NAME argv...: started with the prefix's libraries, pid kept for the end
  local name=$1; shift
  LD_LIBRARY_PATH=$LIBPATH "$@" > "$ROOT/$name.out" 2>&1 < /dev/null &
  DAEMON_PIDS+=($!)
}
daemon munged "$PREFIX/usr/sbin/munged" -F --force --socket="$ROOT/munge/socket" --key-file="$ROOT/munge.key" \
  --log-file="$ROOT/munged.log" --pid-file="$ROOT/munged.pid" --seed-file="$ROOT/munged.seed"
wait_for 15 "munged's socket" test -S "$ROOT/munge/socket" || die "munged did not start: $(tail -3 "$ROOT/munged.out")"
daemon slurmctld "$ROOT/sbin/slurmctld" -D -i -f "$SLURM_CONF"
controller_up() { scontrol ping 2>/dev/null | grep -q "is UP"; }
wait_for 30 "slurmctld to answer" controller_up || die "slurmctld did not answer: $(tail -3 "$ROOT/slurmctld.log")"
daemon slurmd "$ROOT/sbin/slurmd" -D -N lbnode -f "$SLURM_CONF"
node_idle() { [ "$(sinfo -h -N -o %T 2>/dev/null)" = idle ]; }
wait_for 45 "the node to be idle" node_idle || die "slurmd did not register: $(tail -3 "$ROOT/slurmd.log")"
sinfo -N -o "%N %P %T %c %G"
check "slurmctld, slurmd and munged run from the prefix (/proc/<pid>/exe)" bash -c '
  for pid in '"${DAEMON_PIDS[*]}"'; do readlink /proc/$pid/exe | grep -q "^'"$PREFIX"'/" || exit 1; done'
check "the node offers gres gpu:${#GPU_FILES[@]}" bash -c "scontrol show node lbnode | grep -q 'Gres=gpu:${#GPU_FILES[@]}'"

# ---------------------------------------------------------------------------------------------
# Helpers reading a run folder (Python: JSON).
submit() {  # submit LOGNAME [--resume DIR] [--preset P] [--filter RE] run.py-options...: make
  # reproduce SLURM=1 with RESUME, PRESET, FILTER and SLURM_ARGS; sets RUN to its run folder
  local log=$1; shift
  local vars=() rest=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --resume) vars+=(RESUME="$2"); shift 2 ;;
      --preset) vars+=(PRESET="$2"); shift 2 ;;
      --filter) vars+=(FILTER="$2"); shift 2 ;;
      *) rest+=("$1"); shift ;;
    esac
  done
  echo "make ${MAKE_ARGS[*]} reproduce SLURM=1 ${vars[*]} SLURM_ARGS='${rest[*]}'"
  make "${MAKE_ARGS[@]}" reproduce SLURM=1 JOBS="$(nproc)" "${vars[@]}" SLURM_ARGS="${rest[*]}" > "$LOGS/$log" 2>&1
  local status=$?
  grep -E "submitted|run folder|error|harness/run.py:" "$LOGS/$log"
  [ $status -eq 0 ] || die "submission failed (exit $status): $LOGS/$log"
  RUN=$(sed -n 's/.*run folder: //p' "$LOGS/$log" | tail -1)
  [ -d "$RUN" ] || die "no run folder named in $LOGS/$log"
}
last_collect() { $PY -c 'import json,sys; print(json.load(open(sys.argv[1]+"/run.json"))["slurm"]["submissions"][-1]["collect"]["job"])' "$RUN"; }
last_array() { $PY -c 'import json,sys; print(json.load(open(sys.argv[1]+"/run.json"))["slurm"]["submissions"][-1]["arrays"][0]["job"])' "$RUN"; }
job_state() { scontrol show job -o "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -1 | cut -d= -f2; }
job_ended() { case "$(job_state "$1")" in COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY) return 0 ;; esac; return 1; }
done_count() { [ -f "$1" ] && grep -cE '"type": ?"done"' "$1" || true; }
# report.py: REPORT.md's tasks and the checks on a run folder (asserts print what differs)
cat > "$ROOT/inspect.py" <<'PY'
"""Checks on a Slurm run folder of harness/run.py; each prints what it found, exit 1 when wrong."""
import collections, json, re, subprocess, sys
from pathlib import Path

def records(journal):
    return [json.loads(line) for line in journal.read_text().splitlines() if line.strip()]

def card_uuids(journal):
    """The GPU UUIDs the journal's contexts name (one per `layoutbench run` it holds)."""
    return {((r["context"].get("lb") or {}).get("gpu") or {}).get("uuid") for r in records(journal)
            if r["type"] == "context"} - {None}

def results(run):
    """{suite: set of result names} over every <suite>.gpu<k>.json of the run folder."""
    found = collections.defaultdict(set)
    for path in run.glob("*.gpu*.json"):
        suite = path.name.split(".gpu")[0]
        # Google Benchmark names a manually timed run "<name>/manual_time"; the plan has <name>
        found[suite] |= {e["run_name"].removesuffix("/manual_time")
                         for e in json.loads(path.read_text())["benchmarks"]}
    return found

def plan_equal(run, binary, *extra):
    meta = json.loads((run / "run.json").read_text())
    args, ok = meta["args"], True
    for suite in args["suites"]:
        cmd = [binary, "plan", "--preset", args["preset"], "--suite", suite, *extra]
        planned = set(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split())
        got = results(run)[suite]
        print(f"  {suite}: local plan {len(planned)} ({' '.join(cmd[1:])}), Slurm results {len(got)}"
              + ("" if got == planned else f": missing {sorted(planned - got)[:3]}, extra {sorted(got - planned)[:3]}"))
        ok &= got == planned
    return ok

def gpus_apart(run):
    """Each task's CUDA_VISIBLE_DEVICES, list-devices UUID and result contexts' UUID."""
    seen = {}
    for status in sorted((run / "slurm").glob("task-*.json")):
        task = json.loads(status.read_text())
        uuids = {d["uuid"] for d in task["devices"]}
        contexts = set()
        for path in run.glob("*.gpu*.journal.jsonl"):
            slot = int(path.name.split(".gpu")[1].split(".")[0])
            if slot == task["task"]:  # one GPU per task: slot k is task k's
                contexts |= card_uuids(path)
        print(f"  task {task['task']}: job {task['job']}, node {task['node']}, "
              f"CUDA_VISIBLE_DEVICES={task.get('cuda_visible_devices')}, list-devices {sorted(uuids)}, "
              f"result contexts {sorted(contexts)}")
        seen[task["task"]] = (task.get("cuda_visible_devices"), uuids, contexts)
    (a, b) = seen.values()
    return (len(seen) == 2 and a[0] != b[0] and not (a[1] & b[1]) and a[2] == a[1] and b[2] == b[1])

def done_names(run, slot):
    return {r["name"] for j in run.glob(f"*.gpu{slot}.journal.jsonl") for r in records(j) if r["type"] == "done"}

def only_missing_ran(run, kept_file):
    """Every benchmark task 1 finished before the cancel started once; at most one (the one
    it was running) started twice."""
    kept = set(Path(kept_file).read_text().split("\n")) - {""}
    starts = collections.Counter(r["name"] for j in run.glob("*.gpu1.journal.jsonl")
                                 for r in records(j) if r["type"] == "start")
    again = [n for n, c in starts.items() if c > 1]
    rerun = [n for n in kept if starts[n] != 1]
    print(f"  task 1: {len(kept)} benchmarks done before the cancel, none started again: {not rerun}; "
          f"started twice: {len(again)} {again[:2]}; done now {len(done_names(run, 1))}")
    return not rerun and len(again) <= 1

def section(run):
    text = (run / "REPORT.md").read_text()
    return text.count("## Slurm tasks") == 1, text[text.index("## Slurm tasks"):] if "## Slurm tasks" in text else ""

def row(run, task):
    one, text = section(run)
    line = [l for l in text.splitlines() if l.startswith(f"| {task} |")]
    return [c.strip() for c in line[0].strip("|").split("|")] if line else []

def report_task(run, task, state, job):
    """REPORT.md's row of the task: its state starts with `state`, job id, node, log named
    (and the log exists)."""
    cells = row(run, task)
    print(f"  REPORT.md task {task}: {' | '.join(cells)}")
    if not cells:
        return False
    log = cells[7].strip("`")
    ok = cells[5].startswith(state) and cells[3].startswith(f"{job}_{task}") and cells[4] == "lbnode"
    return ok and Path(log).is_file()

def failure_named(run, task, words):
    one, text = section(run)
    lines = [l for l in text.splitlines() if l.startswith(f"- task {task}:")]
    print("  " + (lines[0] if lines else f"no failure line for task {task}"))
    return bool(lines) and all(w in lines[0] for w in words.split("|"))

def cards(run):
    """Whether each slot's journals name one card (a resumed task may be given another GPU)."""
    one = True
    for slot in (0, 1):
        uuids = {u for j in run.glob(f"*.gpu{slot}.journal.jsonl") for u in card_uuids(j)}
        print(f"  slot {slot}'s journals: cards {sorted(uuids)}")
        one &= len(uuids) == 1
    return one

def one_report(run):
    one, text = section(run)
    reports = list(run.rglob("REPORT.md"))
    print(f"  REPORT.md files: {[str(p) for p in reports]}; one Slurm tasks section: {one}")
    return one and len(reports) == 1

if __name__ == "__main__":
    check, run, *rest = sys.argv[1:]
    run = Path(run)
    if check == "kept":   # the names task 1 finished, written to a file
        Path(rest[0]).write_text("\n".join(sorted(done_names(run, 1))) + "\n")
        sys.exit(0)
    sys.exit(0 if globals()[check](run, *rest) else 1)
PY
inspect() { $PY "$ROOT/inspect.py" "$@"; }

# ---------------------------------------------------------------------------------------------
stamp "run 1: the quick preset, one task per GPU, split: make reproduce SLURM=1 SLURM_ARGS='--tasks 2 --gpus-per-task 1 --split'"
submit run1-submit.log --preset quick "${SUITES[@]}" --tasks 2 --gpus-per-task 1 --split --no-figures "${EXTRA[@]}"
RUNS+=("$RUN"); ARRAY=$(last_array); COLLECT=$(last_collect)
echo "run folder $RUN, array $ARRAY, collect $COLLECT"
squeue -o "%i %j %T %b %R"
journal=$RUN/$CANCEL_JOURNAL
task_midway() { [ "$(done_count "$journal")" -ge "$CANCEL_AFTER" ] 2>/dev/null; }
if wait_for 400 "task 1 to finish $CANCEL_AFTER benchmark(s) of $CANCEL_JOURNAL" task_midway; then
  stamp "scancel ${ARRAY}_1 (task 1 midway: $(done_count "$journal") done in $CANCEL_JOURNAL)"
  scancel "${ARRAY}_1"
  CANCELLED=1
else
  CANCELLED=0
fi
check "task 1 cancelled midway (after $CANCEL_AFTER benchmarks of $CANCEL_JOURNAL)" test $CANCELLED = 1
wait_for 400 "the collect job $COLLECT" job_ended "$COLLECT" || die "collect job $COLLECT did not end"
echo "collect job $COLLECT: $(job_state "$COLLECT"); array tasks: $(job_state "${ARRAY}_0"), $(job_state "${ARRAY}_1")"
check "task 0 COMPLETED, task 1 CANCELLED" test "$(job_state "${ARRAY}_0") $(job_state "${ARRAY}_1")" = "COMPLETED CANCELLED"
check "each task saw only its GPU (CUDA_VISIBLE_DEVICES, list-devices and result context UUIDs differ)" inspect gpus_apart "$RUN"
check "REPORT.md names task 1 CANCELLED with its job id, node and log" inspect report_task "$RUN" 1 CANCELLED "$ARRAY"
inspect kept "$RUN" "$ROOT/kept-before-resume.txt"
task0_sums=$(cat "$RUN"/*.gpu0.journal.jsonl | md5sum)

stamp "resume: make reproduce SLURM=1 RESUME=$RUN"
submit run1-resume.log --resume "$RUN" "${FINAL_FIGURES[@]}"
RESUMED_TASKS=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]+"/run.json"))["slurm"]["submissions"][-1]["tasks"])' "$RUN")
COLLECT=$(last_collect); ARRAY2=$(last_array)
wait_for 400 "the collect job $COLLECT" job_ended "$COLLECT" || die "collect job $COLLECT did not end"
echo "resume array $ARRAY2 (tasks $RESUMED_TASKS), collect job $COLLECT: $(job_state "$COLLECT")"
check "resume resubmitted task 1 alone" test "$RESUMED_TASKS" = "[1]"
check "the resume's collect job COMPLETED" test "$(job_state "$COLLECT")" = COMPLETED
check "only task 1's missing benchmarks ran (none it finished started again)" inspect only_missing_ran "$RUN" "$ROOT/kept-before-resume.txt"
check "task 0's journals unchanged by the resume" test "$(cat "$RUN"/*.gpu0.journal.jsonl | md5sum)" = "$task0_sums"
check "the results equal the local plan (layoutbench plan --preset quick, each suite)" inspect plan_equal "$RUN" "$BIN"
if ! inspect cards "$RUN"; then
  note "the resumed task 1 was given the other GPU: its result files name the latest card (docs/cluster.md)"
  check "REPORT.md lists task 1 as run on several cards" \
    bash -c "grep -A3 'ran on several cards' '$RUN/REPORT.md' | grep -q '^- task 1: '"
fi
check "the collect job wrote one report (one REPORT.md, one Slurm tasks section, task 1 completed)" \
  bash -c "$PY $ROOT/inspect.py one_report '$RUN' && $PY $ROOT/inspect.py report_task '$RUN' 1 completed '$ARRAY2'"
if [ $DRY = 0 ]; then
  check "REPORT.md has the figures (the collect job drew them)" test -n "$(ls "$RUN"/figures/*.png 2>/dev/null)"
fi

# ---------------------------------------------------------------------------------------------
LOST_FILTER=${LOST_FILTER:-naive/(soa|aos)/float/p:2}
stamp "run 2: a lost GPU (TaskProlog gives task 1 a CUDA_VISIBLE_DEVICES naming no GPU), idw --filter '$LOST_FILTER'"
echo 1 > "$ROOT/lost-gpu"
submit run2-submit.log --preset quick --filter "$LOST_FILTER" --suites idw --tasks 2 --gpus-per-task 1 --split --no-figures "${EXTRA[@]}"
RUNS+=("$RUN"); ARRAY=$(last_array); COLLECT=$(last_collect)
wait_for 300 "the collect job $COLLECT" job_ended "$COLLECT" || die "collect job $COLLECT did not end"
rm -f "$ROOT/lost-gpu"
echo "collect job $COLLECT: $(job_state "$COLLECT"); array tasks: $(job_state "${ARRAY}_0"), $(job_state "${ARRAY}_1")"
check "the task whose GPU is lost FAILED, the other COMPLETED" test "$(job_state "${ARRAY}_0") $(job_state "${ARRAY}_1")" = "COMPLETED FAILED"
check "REPORT.md names the lost-GPU task FAILED with its job id, node and log" inspect report_task "$RUN" 1 FAILED "$ARRAY"
check "REPORT.md says why: it sees 0 devices with the CUDA_VISIBLE_DEVICES it was given" \
  inspect failure_named "$RUN" 1 "sees 0 on lbnode|CUDA_VISIBLE_DEVICES=GPU-00000000-dead"
stamp "resume: make reproduce SLURM=1 RESUME=$RUN"
submit run2-resume.log --resume "$RUN" --no-figures
COLLECT=$(last_collect); ARRAY2=$(last_array)
wait_for 300 "the collect job $COLLECT" job_ended "$COLLECT" || die "collect job $COLLECT did not end"
check "resume reran the lost-GPU task: COMPLETED, results equal the plan" \
  bash -c "test '$(job_state "$COLLECT")' = COMPLETED && $PY $ROOT/inspect.py report_task '$RUN' 1 completed '$ARRAY2' && $PY $ROOT/inspect.py plan_equal '$RUN' '$BIN' --filter '$LOST_FILTER'"
echo
sed -n '/^## Slurm tasks/,$p' "${RUNS[0]}/REPORT.md"
finish 0

#!/usr/bin/env python3
"""A stand-in for the `layoutbench` binary, for testing harness/run.py without a GPU.

It honours the binary's command-line and journal contract (list-devices, suites, plan, run)
and is configured through environment variables:

  FAKE_LB_DEVICES      number of the machine's devices (default 1; 0 = no GPU); list-devices
                       shows them as CUDA would under CUDA_VISIBLE_DEVICES: its entries (an
                       index or a GPU-fake-<i> UUID) up to the first that names none of them
                       (a lost GPU: none visible)
  FAKE_LB_GPU_NAME     device name (default "NVIDIA H100 80GB HBM3")
  FAKE_LB_SUITES       suites `plan` accepts and `suites --json` lists (default "idw")
  FAKE_LB_LAYOUTS      layouts in the generated names (default "soa,aos,aoas")
  FAKE_LB_CPU_VERSIONS CPU versions (e.g. "cpu-serial,cpu-omp"; default none) planned after each
                       precision's layouts, as `<suite>/shepard/<version>/aos/...`: `plan --json`
                       says they run on the CPU, and `run` gives each one's median entry
                       `host_lock` {held_from_unix_s, held_to_unix_s}: when it ran, as the
                       real one's (it takes no lock: a test sees whether two overlap)
  FAKE_LB_REPS         repetitions per benchmark (default 2)
  FAKE_LB_DELAY        seconds spent in each benchmark, after its first repetition (default 0)
  FAKE_LB_CRASH        "REGEX=ACTION[;REGEX=ACTION...]": the first time (per journal) a planned
                       name matching REGEX starts, the process fails. ACTION is
                         3        record the benchmark as failed, then exit 3 (sticky CUDA error);
                         N        any other exit code: die mid-benchmark with exit code N;
                         SIGSEGV  (any signal name): die mid-benchmark by that signal;
                         torn     write half a journal line, then die by SIGKILL.
  FAKE_LB_STARTUP_EXIT exit code to die with in `run` before any benchmark starts
  FAKE_LB_KRIGE_EXIT   exit code `krige` fails with (after printing an error), writing nothing
  FAKE_LB_GIT_COMMIT   the commit `build-info` prints and each context's lb.build names (default
                       0123456789abcdef0123456789abcdef01234567; empty: none, as an older binary's)
  FAKE_LB_GIT_DIRTY    1: the build is dirty (default 0)
  FAKE_LB_NO_BUILD_INFO 1: a binary older than `build-info` (--help lists no such subcommand)
                       and than `plan --json`
  FAKE_LB_NO_PLAN_JSON 1: a binary older than `plan --json` (`plan --help` lists no --json)
  FAKE_LB_CALLS        file to which each invocation appends one JSON line
                       {"argv": [...], "cuda_visible_devices": ...}

Names are `<suite>/shepard/naive/<layout>/<precision>/p:2/size:<n>/manual_time` for each
precision (default float,double), layout and size (quick: 1024; paper: 1024,4096; any other
preset: 2048); suite kofler-tree plans the decision tree's training names instead
(`kofler-tree/synthetic/gpu/<aos|soa|tiled>/float[/tile:32]/fields:<4|8>/n:128`), timed so
that a 16-byte cluster is fastest with tile 32 and a 32-byte one with SoA. Suite kofler also
plans the Kofler method's values per size, the same with or without `--kofler-tree FILE`
(`kofler/nbody/gpu/kdlg/float/partition:pos|vel/size:<n>`, `.../tiled-tree/float/size:<n>`,
`.../kdlg-tree/float/partition:pos|vel/size:<n>`, `.../kdlg-tree-plus/float/partition:pos|vel/size:<n>`);
`run` without a tree fails tiled-tree, kdlg-tree and kdlg-tree-plus, each with the binary's
message, and goes on. `run` takes any further `--key value`
option and ignores it. A preset is a name of the preset folder (LB_PRESET_DIR, else harness/presets, as
the binary's) or an existing file; one containing the word "bad" is rejected. `suites --json`
prints the registry as the real binary does: the suites FAKE_LB_SUITES names as REGISTRY has
them (the binary's `suites --json`, kept equal to it by test_suite_registry.py; a suite it lacks
has no programs, steps or inputs, and an input from a suite not named is left out) and the
presets.
`plan --json` prints `[{"name", "where": "gpu" | "cpu"}]`, as the real one does.
`build-info` prints the build block (FAKE_LB_GIT_COMMIT, FAKE_LB_GIT_DIRTY) every context of
`run` carries as lb.build.
`krige --scale S --experiment E --device gpu --out F [--wells-out W]` writes a 2 x 2 model
with two surfaces to F (and two wells to W), as the real one's CSV.
"""
import json
import os
import re
import resource
import signal
import sys
import time

PRESET_SIZES = {"quick": ["1024"], "paper": ["1024", "4096"]}
PRESET_DIR = os.environ.get("LB_PRESET_DIR") or os.path.normpath(os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "harness", "presets"))
REGISTRY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "registry.json")


def fail(message, code=2):
    print(f"layoutbench: error: {message}\nRun with --help for more information.", file=sys.stderr)
    sys.exit(code)


def parse_options(args):
    options = {}
    i = 0
    while i < len(args):
        key = args[i]
        if not key.startswith("--") or i + 1 >= len(args):
            fail(f"bad argument '{key}'")
        options[key[2:]] = args[i + 1]
        i += 2
    return options


TREE_CLASSES = ("aos/float", "soa/float", "tiled/float/tile:32")


def tree_names():
    return [f"kofler-tree/synthetic/gpu/{c}/fields:{m}/n:128/manual_time"
            for m in (4, 8) for c in TREE_CLASSES]


def fake_time(name):
    """100 us, but for the training names: the known answer (fields 4: tile 32, 8: SoA)."""
    if not name.startswith("kofler-tree/"):
        return 100.0
    fastest = "/tiled/" if "/fields:4/" in name else "/soa/"
    return 100.0 if fastest in name else 150.0


def _kinds():
    with open(REGISTRY) as f:
        return json.load(f)["layouts"]["kinds"]


# The Kofler method's values as the binary names them (the kinds with a label, their parameters
# from the registry's table: a partition) and those that need the tree (the tree chooses, or
# a trial among the tree's values does).
METHOD_VALUES = tuple(k["name"] + "/float" + "".join(f"/{p}:pos|vel" for p in k["params"])
                      for k in _kinds() if k["label"])
TREE_LAYOUTS = tuple(k["name"] for k in _kinds() if k["tree"] or k.get("trial"))


def needs_tree(name, options):
    """The binary's failure of a tree's value made without --kofler-tree (None: it runs)."""
    layout = name.split("/")[3]
    if name.startswith("kofler/") and layout in TREE_LAYOUTS and "kofler-tree" not in options:
        return (f"layout '{layout}' needs a decision tree: give --kofler-tree FILE (make reproduce trains "
                "one: suite kofler-tree, docs/kofler-tree.md)")
    return None


def plan(options):
    suite = options.get("suite")
    if suite not in os.environ.get("FAKE_LB_SUITES", "idw").split(","):
        fail(f"unknown suite '{suite}'")
    if suite == "kofler-tree":
        return tree_names()
    preset = options.get("preset", "quick")
    named = "/" not in preset and not preset.endswith(".json")
    path = os.path.join(PRESET_DIR, preset + ".json") if named else preset
    if not os.path.isfile(path):
        fail(f"unknown preset '{preset}'")
    with open(path) as f:
        if "bad" in f.read():
            fail(f"{path}:1: malformed preset")
    sizes = PRESET_SIZES.get(preset, ["2048"])
    if "sizes" in options:
        sizes = options["sizes"].split(",")
        if not all(s.isdigit() for s in sizes):
            fail(f"bad --sizes '{options['sizes']}'")
    precisions = options.get("precision", "float,double").split(",")
    layouts = os.environ.get("FAKE_LB_LAYOUTS", "soa,aos,aoas").split(",")
    names = [f"{suite}/shepard/{version}/{layout}/{precision}/p:2/size:{size}/manual_time"
             for precision in precisions
             for version, layout in [*(("naive", layout) for layout in layouts),
                                     *((version, "aos") for version in cpu_versions())]
             for size in sizes]
    if suite == "kofler":  # planned whether a tree is given or not
        names += [f"kofler/nbody/gpu/{value}/size:{size}/manual_time"
                  for size in sizes for value in METHOD_VALUES]
    if "filter" in options:
        names = [n for n in names if re.search(options["filter"], n)]
    return names


def cpu_versions():
    return [v for v in os.environ.get("FAKE_LB_CPU_VERSIONS", "").split(",") if v]


def on_cpu(name):
    return name.split("/")[2] in cpu_versions()


def crash_action(name):
    for spec in filter(None, os.environ.get("FAKE_LB_CRASH", "").split(";")):
        pattern, action = spec.rsplit("=", 1)
        if re.search(pattern, name):
            return action
    return None


def iteration(name, rep, reps, real_time):
    return {"name": name, "family_index": 0, "per_family_instance_index": 0,
            "run_name": name, "run_type": "iteration", "repetitions": reps,
            "repetition_index": rep, "threads": 1, "iterations": 10,
            "real_time": real_time, "cpu_time": real_time / 2, "time_unit": "us",
            "interactions": 1048576.0, "interactions_per_s": 1.0e12}


def failed_iteration(name, rep, reps, message):
    return {"name": name, "run_name": name, "run_type": "iteration", "repetitions": reps,
            "repetition_index": rep, "threads": 1, "error_occurred": True, "error_message": message,
            "iterations": 0, "real_time": 0, "cpu_time": 0, "time_unit": "ms"}


def aggregate(name, kind, reps, value, unit="time"):
    entry = {"name": f"{name}_{kind}", "family_index": 0, "per_family_instance_index": 0,
             "run_name": name, "run_type": "aggregate", "repetitions": reps,
             "threads": 1, "aggregate_name": kind, "aggregate_unit": unit,
             "iterations": reps, "time_unit": "us"}
    if unit == "time":
        entry.update(real_time=value, cpu_time=value / 2)
    else:
        entry.update(real_time=value, cpu_time=value)
    return entry


def build_block():
    """What `build-info` prints and each context holds as lb.build."""
    commit = os.environ.get("FAKE_LB_GIT_COMMIT", "0123456789abcdef0123456789abcdef01234567")
    build = {"build_type": "Release", "cxx_compiler": "fake"}
    if commit:
        build.update(git_commit=commit, git_dirty=os.environ.get("FAKE_LB_GIT_DIRTY", "0") == "1")
    return build


def run(options):
    if os.environ.get("FAKE_LB_STARTUP_EXIT"):
        print("layoutbench: cannot initialise the device", file=sys.stderr)
        sys.exit(int(os.environ["FAKE_LB_STARTUP_EXIT"]))
    names = plan(options)
    skip = set()
    if "skip-file" in options and os.path.exists(options["skip-file"]):
        with open(options["skip-file"]) as f:
            skip = {line.strip() for line in f if line.strip()}
    started_before = set()
    if os.path.exists(options["journal"]):
        with open(options["journal"]) as f:
            for line in f:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if record.get("type") == "start":
                    started_before.add(record["name"])
    device = os.environ.get("CUDA_VISIBLE_DEVICES", "")
    if not re.fullmatch(r"\d+", device):
        fail(f"CUDA_VISIBLE_DEVICES must name one device, got '{device}'", 1)
    reps = int(os.environ.get("FAKE_LB_REPS", "2"))
    delay = float(os.environ.get("FAKE_LB_DELAY", "0"))
    journal = open(options["journal"], "a")

    def append(record):
        journal.write(json.dumps(record) + "\n")
        journal.flush()

    context = {"date": time.strftime("%Y-%m-%dT%H:%M:%S"), "host_name": "fake",
               "executable": sys.argv[0], "num_cpus": 1, "mhz_per_cpu": 1000,
               "caches": [], "library_build_type": "release", "json_schema_version": 1,
               "lb": {"gpu": {"name": os.environ.get("FAKE_LB_GPU_NAME", "NVIDIA H100 80GB HBM3"),
                              "uuid": f"GPU-fake-{device}"},
                      "build": build_block(),
                      "run": {"preset": options.get("preset"), "suite": options.get("suite"),
                              "device_index": int(device)}}}
    append({"type": "context", "context": context})
    todo = [n for n in names if n not in skip]
    for k, name in enumerate(todo, 1):
        append({"type": "start", "name": name})
        started = time.time()
        print(f"[{k}/{len(todo)}] {name} ...", file=sys.stderr, flush=True)
        action = crash_action(name) if name not in started_before else None
        if action == "3":
            append({"type": "run", "name": name, "run": failed_iteration(
                name, 0, reps, "CUDA error: an illegal memory access was encountered")})
            append({"type": "done", "name": name, "ok": False})
            print("layoutbench: sticky CUDA error, exiting", file=sys.stderr, flush=True)
            sys.exit(3)
        why = needs_tree(name, options)
        if why:  # fails each repetition, as Google Benchmark reports a skipped-with-error run
            for rep in range(reps):
                append({"type": "run", "name": name, "run": failed_iteration(name, rep, reps, why)})
            append({"type": "done", "name": name, "ok": False})
            print(f"[{k}/{len(todo)}] {name} FAILED: {why}", file=sys.stderr, flush=True)
            continue
        append({"type": "run", "name": name, "run": iteration(name, 0, reps, fake_time(name))})
        time.sleep(delay)  # an interruption now leaves a partial benchmark in the journal
        if action == "torn":
            journal.write('{"type": "run", "name": "' + name[:10])
            journal.flush()
            os.kill(os.getpid(), signal.SIGKILL)
        elif action is not None and action.startswith("SIG"):
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            signal.signal(getattr(signal, action), signal.SIG_DFL)
            os.kill(os.getpid(), getattr(signal, action))
        elif action is not None:
            os._exit(int(action))
        for rep in range(1, reps):
            append({"type": "run", "name": name, "run": iteration(name, rep, reps, fake_time(name))})
        t = fake_time(name)
        median = aggregate(name, "median", reps, t)
        if on_cpu(name):
            median["host_lock"] = {"held_from_unix_s": started, "held_to_unix_s": time.time()}
        for entry in (aggregate(name, "mean", reps, t), median,
                      aggregate(name, "cv", reps, 0.01, "percentage")):
            append({"type": "run", "name": name, "run": entry})
        append({"type": "done", "name": name, "ok": True})
        print(f"[{k}/{len(todo)}] {name} 100 us ± 1%", file=sys.stderr, flush=True)
    sys.exit(0)


def visible_devices():
    """The machine's devices CUDA shows, as their indices on the machine: all of them, or
    CUDA_VISIBLE_DEVICES's entries up to the first naming none (CUDA ignores the rest)."""
    count = int(os.environ.get("FAKE_LB_DEVICES", "1"))
    given = os.environ.get("CUDA_VISIBLE_DEVICES")
    if given is None:
        return list(range(count))
    shown = []
    for entry in (e.strip() for e in given.split(",")):
        match = re.fullmatch(r"(?:GPU-fake-)?(\d+)", entry)
        if not match or int(match[1]) >= count:
            break
        shown.append(int(match[1]))
    return shown


def registry():
    with open(REGISTRY) as f:
        fixture = json.load(f)
    known = {s["name"]: s for s in fixture["suites"]}
    suites = [known.get(name, {"name": name, "section": "programs", "programs": [], "steps": [],
                               "inputs": []})
              for name in os.environ.get("FAKE_LB_SUITES", "idw").split(",")]
    # An input from a suite not listed goes with it, as in a binary without that suite.
    listed = [s["name"] for s in suites]
    suites = [dict(s, inputs=[i for i in s.get("inputs", []) if "from" not in i
                              or i["from"]["suite"] in listed[:listed.index(s["name"])]])
              for s in suites]
    presets = []
    for name in sorted(e[:-len(".json")] for e in os.listdir(PRESET_DIR) if e.endswith(".json")):
        path = os.path.join(PRESET_DIR, name + ".json")
        with open(path) as f:
            document = json.load(f)
        presets.append({"name": name, "file": path,
                        "description": document.get("description", "")})
    return {"suites": suites, "presets": presets, "layouts": fixture["layouts"]}


def krige(options):
    device = os.environ.get("CUDA_VISIBLE_DEVICES", "")
    if options.get("device", "gpu") == "gpu" and not re.fullmatch(r"\d+", device):
        fail(f"CUDA_VISIBLE_DEVICES must name one device, got '{device}'", 1)
    for key in ("scale", "experiment", "out"):
        if key not in options:
            fail(f"krige needs --{key}")
    if os.environ.get("FAKE_LB_KRIGE_EXIT"):
        print("kriging CUDA experiment 6: setting up the device", file=sys.stderr)
        fail("kriging CUDA experiment 6: out of memory (fake failure)",
             int(os.environ["FAKE_LB_KRIGE_EXIT"]))
    with open(options["out"], "w") as f:
        f.write("x,y,surface0,surface1\n50,50,500,600\n150,50,501,601\n"
                "50,150,502,602\n150,150,503,603\n")
    if "wells-out" in options:
        with open(options["wells-out"], "w") as f:
            f.write("x,y,surface0,surface1\n60,70,500.5,600.5\n140,120,502.5,602.5\n")
    print(f"kriged 4 points x 2 surfaces from 2 wells: experiment {options['experiment']}, "
          f"gpu, float, 0.001 s -> {options['out']}", file=sys.stderr)
    sys.exit(0)


def main():
    if os.environ.get("FAKE_LB_CALLS"):
        with open(os.environ["FAKE_LB_CALLS"], "a") as f:
            call = {"argv": sys.argv[1:],
                    "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES")}
            f.write(json.dumps(call) + "\n")
    if len(sys.argv) < 2:
        fail("usage: layoutbench list-devices|build-info|suites|plan|run|krige ...")
    command = sys.argv[1]
    old = os.environ.get("FAKE_LB_NO_BUILD_INFO") == "1"
    if command == "--help":
        print("Subcommands:\n  list-devices\n" + ("" if old else "  build-info\n")
              + "  suites\n  plan\n  run\n  krige")
        return
    if command == "build-info" and not old:
        print(json.dumps(build_block()))
        return
    if command == "suites":
        if sys.argv[2:] != ["--json"]:
            fail("the fake binary prints the registry only as JSON (suites --json)")
        print(json.dumps(registry(), indent=2))
        return
    plan_json = not old and os.environ.get("FAKE_LB_NO_PLAN_JSON") != "1"
    if command == "plan" and sys.argv[2:] == ["--help"]:
        print("print the benchmark names a preset runs\nOptions:\n  --suite TEXT\n  --preset TEXT"
              + ("\n  --json                      print them as JSON" if plan_json else ""))
        return
    as_json = command == "plan" and plan_json and "--json" in sys.argv[2:]
    options = parse_options([a for a in sys.argv[2:] if not (as_json and a == "--json")])
    if command == "list-devices":
        name = os.environ.get("FAKE_LB_GPU_NAME", "NVIDIA H100 80GB HBM3")
        devices = [{"index": i, "name": name, "uuid": f"GPU-fake-{physical}"}
                   for i, physical in enumerate(visible_devices())]
        print(json.dumps(devices))
    elif command == "plan" and as_json:
        print(json.dumps([{"name": n, "where": "cpu" if on_cpu(n) else "gpu"}
                          for n in plan(options)]))
    elif command == "plan":
        print("\n".join(plan(options)))
    elif command == "run":
        run(options)
    elif command == "krige":
        krige(options)
    else:
        fail(f"unknown command '{command}'")


if __name__ == "__main__":
    main()

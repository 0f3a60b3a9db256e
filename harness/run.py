#!/usr/bin/env python3
"""Run the layoutbench suites on every selected GPU and assemble Google Benchmark JSON.

The orchestrator behind `make reproduce`. It plans each suite with `layoutbench plan`, then
runs one `layoutbench run` process per device (CUDA_VISIBLE_DEVICES = that device), each
appending to a crash-safe journal per suite. When a process dies in a benchmark (sticky CUDA
error, segfault, ...), that benchmark is recorded as failed and the process restarts for the
rest; when the orchestrator itself is interrupted, nothing is recorded as failed and
`--resume DIR` later runs only what is missing, with a binary of the build the run's results
came from: a journal whose latest context names another commit, or a clean build where the
binary is dirty (or the reverse), is refused (exit 2), since the result file names one build
for all its results (`layoutbench build-info` prints the binary's). Each journal is assembled into
`<suite>.gpu<k>.json` (Google Benchmark JSON, see results/README.md), then `python3 -m plots`
draws the figures. The suites, their order, their artifact steps and the named presets come
from the binary's registry (`layoutbench suites --json`), read once. A step runs when its
suite runs and the suite's preset object has the step's key (its parameters). A layoutbench
step runs `layoutbench <argv>` on each device after all its suites, writing
`<suite>-<output>.gpu<k>.csv` (a figure's data). A Python step runs `python3 -m <argv>` on each
device right after its suite, writing `<suite>/<output>.gpu<k>.json`, which a later suite may
take as an input: its run gets `--<input> FILE`, the file made on the same GPU, the run's own
or a committed copy (orchestrator/inputs.py); a preset may reuse committed copies, leaving
the step's suite out where one fits every GPU. A step's failure is a warning, not an error.
With --split the devices of a host (or the array tasks of a Slurm partition) share each suite's
benchmarks, every n-th each (orchestrator/shards.py); a suite whose results feed a per-device
Python step is not split: each device runs it whole and the step reads all of it.
Without --split, a CPU benchmark (`layoutbench plan --json`: "where": "cpu") runs once per
host, on the first device of the selection (of a Slurm array task): it depends on no GPU. The
others skip it, said in the log and run.json ("cpu_once_per_host"), not counted as missing.
Paths inside the repository are named relative to its root in everything the run records
(run.json, run.log, the children's command lines, the report), so committed results name no
one's checkout; children run from that root. Paths outside it are named absolute.

With --slurm the same runs on a Slurm cluster (docs/cluster.md): the tasks (orchestrator/shards.py)
become sbatch job arrays, each array task runs this script's workers for its GPUs
(--slurm-task), and a job after them (--slurm-collect) assembles, draws and writes REPORT.md;
where a task runs is the executor's business (orchestrator/executors.py, orchestrator/slurm.py),
the journals, resume and figures are shared.

Exit status: 0 every planned benchmark is done (failed benchmarks are results, not errors);
1 the run is incomplete; 2 bad input or no GPU (nothing is created); 3 the figures failed
(results kept); 128+N interrupted by signal N (resume with --resume). With --slurm: 0 submitted
(or printed, --dry-run), 2 bad input or sbatch refused (nothing is left submitted or created).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the orchestrator package beside it

from orchestrator.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())

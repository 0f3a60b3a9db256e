"""The suites' inputs (the registry's "inputs" of a suite, lb/harness/suite.hpp's SuiteInput):
the file a suite's run gets as `--<input> FILE` on a GPU, and a new run that leaves a suite
out where committed copies of its Python step's output fit every device.

An input comes from the output of another suite's Python step ("from": {suite, step,
output}), which the step writes per device as JSON at `<run>/<suite>/<output>.gpu<k>.json`,
naming the GPU it was made on ("gpu": {"name", "uuid"}). A step with "committed" copies
({folder, format, reuse}) also has one per GPU model in a folder of the repository,
`<folder>/<gpu-name-slug>.json`, copied there by hand from a real run; every copy and every
output of the step carries "format". LB_COMMITTED_DIR replaces every such folder (the tests
point it at their own)."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from orchestrator.common import REPO_ROOT, repo_path
from orchestrator.presets import slug, step_output

COMMITTED_DIR_ENV = "LB_COMMITTED_DIR"


def gpu_slug(name: str) -> str:
    """A GPU name as a file name: "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3"."""
    return slug(name)


def _gpu(document: dict) -> dict:
    gpu = document.get("gpu")
    return gpu if isinstance(gpu, dict) else {}


@dataclass(frozen=True)
class StepOutput:
    """One output of a suite's Python step (the registry's step), as other suites take it."""
    suite: str
    step: dict
    output: str

    @property
    def committed(self) -> dict:
        return self.step.get("committed") or {}

    def committed_dir(self) -> Path | None:
        """The folder of committed copies (LB_COMMITTED_DIR when set); None: the step has none."""
        if not self.committed:
            return None
        return Path(os.environ.get(COMMITTED_DIR_ENV) or REPO_ROOT / self.committed["folder"])

    def read(self, path: Path) -> dict | None:
        """The JSON object at `path`, or None when it is missing, unreadable or not of the
        step's format."""
        try:
            document = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(document, dict):
            return None
        fmt = self.committed.get("format")
        return document if not fmt or document.get("format") == fmt else None

    def own(self, run_folder: Path, index: int) -> Path:
        """Where the step writes this output on device `index` of the run."""
        return step_output(Path(run_folder), self.suite, self.output, index)

    def committed_copy(self, gpu_name: str | None, gpu_uuid: str | None,
                       folder: Path | None = None) -> Path | None:
        """The committed copy for this GPU: the one whose gpu.uuid is `gpu_uuid`, else the one
        named after the GPU's name (<slug>.json); None when there is none."""
        folder = folder or self.committed_dir()
        if folder is None or not folder.is_dir():
            return None
        if gpu_uuid:
            for path in sorted(folder.glob("*.json")):
                document = self.read(path)
                if document and _gpu(document).get("uuid") == gpu_uuid:
                    return path
        if gpu_name:
            path = folder / f"{gpu_slug(gpu_name)}.json"
            if self.read(path):
                return path
        return None

    def find(self, run_folder: Path | None, gpu_name: str | None, gpu_uuid: str | None,
             folder: Path | None = None) -> Path | None:
        """The file a run uses on a GPU: the run's own output for that GPU (one of
        `run_folder` whose gpu.uuid is `gpu_uuid`; with no uuid known, whose gpu.name is
        `gpu_name`), else a committed copy by UUID, else by name, else None."""
        if run_folder is not None and Path(run_folder).is_dir():
            for path in sorted(self.own(run_folder, 0).parent.glob(f"{self.output}.gpu*.json")):
                gpu = _gpu(self.read(path) or {})
                if gpu and (gpu.get("uuid") == gpu_uuid if gpu_uuid
                            else gpu_name and gpu.get("name") == gpu_name):
                    return path
        return self.committed_copy(gpu_name, gpu_uuid, folder)


@dataclass(frozen=True)
class SuiteInput:
    """An input a suite's run takes (`--<name> FILE`) and where it comes from."""
    name: str
    source: StepOutput


def suite_inputs(registry) -> dict[str, list[SuiteInput]]:
    """Each suite's inputs that a step makes (read_registry checked that the step exists)."""
    return {suite: [SuiteInput(given["name"], StepOutput(
                        given["from"]["suite"],
                        registry.step(given["from"]["suite"], given["from"]["step"]),
                        given["from"]["output"]))
                    for given in listed if given.get("from")]
            for suite, listed in registry.inputs.items()}


def input_args(inputs: list[SuiteInput], run_folder: Path | None, gpu_name: str | None,
               gpu_uuid: str | None) -> list[str]:
    """What the run of a suite with `inputs` on a GPU adds to `layoutbench run`:
    `--<input> <file>` for each input whose file is found, nothing for the others (the
    suite's own code says what it cannot run without it)."""
    args = []
    for given in inputs:
        path = given.source.find(run_folder, gpu_name, gpu_uuid)
        if path:
            args += [f"--{given.name}", repo_path(path)]
    return args


def recorded_gpu(sources, folder: Path, index: int) -> tuple[str | None, str | None]:
    """(name, uuid) of the GPU device `index` made one of its step outputs on (a Slurm task's
    GPU is known only from what ran there); (None, None) when none names one."""
    for source in sources:
        gpu = _gpu(source.read(source.own(folder, index)) or {})
        if gpu:
            return gpu.get("name"), gpu.get("uuid")
    return None, None


def reuse_committed(spec, devices: list[dict]) -> dict[int, Path] | None:
    """With the step's reuse parameter at 1 and a committed copy for every device: each
    device's copy (the suite need not run); else None."""
    if spec is None or not spec.python or not devices:
        return None
    source = StepOutput(spec.suite, spec.step, spec.step["outputs"][0])
    reuse = source.committed.get("reuse")
    if not reuse or not spec.values.get(reuse):
        return None
    found = {d["index"]: source.committed_copy(d.get("name"), d.get("uuid")) for d in devices}
    return found if all(found.values()) else None


def skip_reused_suites(selection, plans: dict, steps: list, devices: list[dict], console) -> list[str]:
    """A new local run whose preset reuses a step's committed copies and has one for every
    selected GPU: each such suite dropped from the selection, the plans and the steps, saying
    so. The suites dropped."""
    dropped = []
    for spec in list(steps):
        if spec.suite not in selection.suites:
            continue
        reused = reuse_committed(spec, devices)
        if not reused:
            continue
        output = spec.step["outputs"][0]
        for index, path in reused.items():
            console.info(f"[gpu {index}] {spec.suite}: skipped: the committed {output} "
                         f"{repo_path(path)} fits this GPU (the preset's {spec.step['name']} step "
                         f"has {spec.step['committed']['reuse']} 1)")
        selection.suites.remove(spec.suite)
        plans.pop(spec.suite, None)
        steps[:] = [s for s in steps if s.suite != spec.suite]
        dropped.append(spec.suite)
    return dropped

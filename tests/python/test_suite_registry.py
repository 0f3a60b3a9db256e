"""The registries agree: the binary's suites (`layoutbench suites --json`, from
benches/suites.cpp) are the papers plots/ draws and the suites the shipped presets configure;
its presets are harness/presets/*.json; and the fake binary the orchestrator tests run against
prints the same registry (from tests/python/fixtures/registry.json: regenerate it with
`build/layoutbench suites --json` less its presets when a program's axes or a step change).
Skipped when the binary has not been built."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from plots.papers import PAPERS

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "harness"))  # as run.py finds them
from orchestrator.presets import read_preset  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
BIN = REPO / "build" / "layoutbench"
FAKE = Path(__file__).with_name("fake_layoutbench.py")
PRESET_DIR = REPO / "harness" / "presets"

pytestmark = pytest.mark.skipif(not BIN.exists(), reason=f"needs the built binary {BIN}")


def registry(command, **env):
    result = subprocess.run([*command, "suites", "--json"], capture_output=True, text=True,
                            env=dict(os.environ, LB_PRESET_DIR=str(PRESET_DIR), **env), timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def binary_registry():
    return registry([str(BIN)])


def test_binary_suites_are_the_papers_plots_draws(binary_registry):
    assert sorted(s["name"] for s in binary_registry["suites"]) == sorted(PAPERS)


def test_binary_presets_are_the_preset_folder_and_configure_registered_suites(binary_registry):
    presets = {p["name"]: p for p in binary_registry["presets"]}
    assert sorted(presets) == sorted(p.stem for p in PRESET_DIR.glob("*.json"))
    suites = [s["name"] for s in binary_registry["suites"]]
    named = {name: Path(preset["file"]) for name, preset in presets.items()}
    for name, preset in presets.items():
        document = read_preset(named[name], named).document  # with what it extends
        assert preset["description"] == document["description"]
        configured = list(document["suites"])
        assert configured == [s for s in suites if s in configured], f"{name}: not in run order"
        if name in ("quick", "paper"):  # these two cover every paper
            assert configured == suites, name


def test_fake_binary_prints_the_binary_registry(binary_registry):
    suites = ",".join(s["name"] for s in binary_registry["suites"])
    assert registry([sys.executable, str(FAKE)], FAKE_LB_SUITES=suites) == binary_registry


def test_binary_suites_without_json_lists_suites_steps_and_presets(binary_registry):
    result = subprocess.run([str(BIN), "suites"], capture_output=True, text=True, timeout=60,
                            env=dict(os.environ, LB_PRESET_DIR=str(PRESET_DIR)))
    assert result.returncode == 0, result.stderr
    for suite in binary_registry["suites"]:
        assert f"  {suite['name']}\n" in result.stdout
        for step in suite["steps"]:
            assert f"step {step['name']}: when the preset has '{step['preset_key']}'" in result.stdout
    for preset in binary_registry["presets"]:
        assert f"  {preset['name']}: " in result.stdout

"""The CPU reference of the traffic simulation (`layoutbench traffic`) against an oracle that
shares no code with it (tests/python/traffic_oracle.py: the documents' rules written again in
plain Python): a generated network of 290 cells with lights, yield controllers, sinks and two
hubs of more than 8 streets, 200 cars for 100 steps, compared car by car (cell, velocity, path)
and by checksum (which covers every field of the state: lights, signals, counters) at 12 of the
steps (issue 42; one CLI run per compared step, ~0.1 s each). Skipped when the binary has not
been built."""
import csv
import subprocess
from pathlib import Path

import pytest

from tests.python import traffic_oracle as oracle

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "build" / "layoutbench"
CARS, STEPS, SEED = 200, 100, 9
COMPARED = (0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 100)  # steps after which the states are compared

pytestmark = pytest.mark.skipif(not BIN.exists(), reason=f"needs the built binary {BIN}")


@pytest.fixture(scope="module")
def city(tmp_path_factory):
    nodes, streets = oracle.city()
    path = tmp_path_factory.mktemp("oracle") / "city.graphml"
    path.write_text(oracle.graphml(nodes, streets))
    return path, oracle.Network(nodes, streets)


def reference(path, steps, out):
    """The CLI's summary line and its CSV rows after `steps` steps."""
    r = subprocess.run([str(BIN), "traffic", "--network", str(path), "--cars", str(CARS), "--steps", str(steps),
                        "--seed", str(SEED), "--out", str(out)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    with out.open() as f:
        rows = [(row["car"], row["active"], row["cell"], row["velocity"], row["max_velocity"], row["path"])
                for row in csv.DictReader(f)]
    return r.stdout, rows


def test_the_network_is_built_as_the_oracle_builds_it(city, tmp_path):
    path, net = city
    stdout, _ = reference(path, 0, tmp_path / "s.csv")
    assert f"cells {net.cells()} of 4 m" in stdout
    assert f"{len(net.lights)} traffic lights, {len(net.yields)} yield controllers, {net.signal_streets} signal groups" \
        in stdout
    fan_in, fan_out = max(map(len, net.incoming)), max(map(len, net.outgoing))
    assert (f"simulation: {net.turns} turns, {sum(net.sink)} sink cells; cell fan-in at most {fan_in}, fan-out at most "
            f"{fan_out}; {net.crowded} intersections of more than 8 streets in or out: {net.dropped} turns dropped, "
            f"0 dead ends made sinks; 2 lights of more than 6 incoming streets share signal groups\n") in stdout
    assert net.crowded == 2


def test_the_reference_steps_as_the_oracle(city, tmp_path):
    path, net = city
    sim = oracle.Simulation(net, CARS, SEED)
    for step in range(STEPS + 1):
        if step in COMPARED:
            stdout, rows = reference(path, step, tmp_path / f"s{step}.csv")
            assert rows == sim.rows(), f"after step {step}"
            summary = stdout.splitlines()[-1]
            assert f"{sim.left} left at sinks, {sim.reactivated} reactivated, {sim.conflicts} stopped" in summary, \
                f"after step {step}: {summary}"
            assert f"checksum {sim.checksum():016x} " in summary, f"after step {step}: {summary}"
        sim.advance()
    # The run shows what it is meant to: cars leave at sinks and come back, and cars meet where
    # a light's group holds several cells (the conflict rule decides).
    assert sim.left > 0 and sim.reactivated > 0 and sim.conflicts > 0

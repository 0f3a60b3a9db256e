"""An independent oracle of the traffic simulation (docs/traffic.md, docs/street-networks.md):
a small street network generated here and written as GraphML, the simulation's network built
from it, the initial state, one step and the checksum, all written again in plain Python from
the documents, sharing no code with kernels/traffic (issue 42). tests/python/test_traffic_oracle.py
compares it with `layoutbench traffic` (the CPU reference) step by step.

The network (`city`): a grid of nodes joined by one-way and two-way streets of random types,
limits and lengths, dead ends whose last cells are sinks, and a hub of 9 streets in and 10 out
and a merge of 18 streets into 3 (the building step's turn selection above 8, lights whose
streets share groups, so cars meet and the conflict rule decides).
"""

import random

MASK64 = (1 << 64) - 1
NONE = 0xFFFFFFFF
NO_LIMIT = 0xFF
TYPES = ["service", "residential", "unclassified", "tertiary", "secondary", "primary", "trunk", "motorway"]
MAX_TURNS = 8  # a cell's incoming and outgoing cells
MAX_LIGHT_GROUPS = 6
DAWDLE = 858993459  # floor(0.2 * 2^32)
# Purposes of the random numbers (docs/traffic.md, "Random numbers").
ACCELERATE, PATH, DAWDLING, REACTIVATE, PLACE, MAX_VELOCITY, PHASE_TIME, TIMER, PHASE = range(1, 10)


# --- random numbers and the checksum's hash ---------------------------------------------------
def mix(z):
    """SplitMix64's finaliser."""
    z = (z + 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def bits(seed, purpose, obj, step, draw=0):
    h = mix(seed)
    h = mix(h ^ ((obj << 32) | step))
    return mix(h ^ ((purpose << 32) | draw))


def below(b, n):
    return ((b >> 32) * n) >> 32


# --- the street network, as GraphML -------------------------------------------------------------
def city(seed=6, side=5):
    """(nodes, streets): nodes as (x, y) metres; streets as dicts from, to, cells, limit, type in
    the order the GraphML lists them (a directed graph: one street per edge)."""
    rng = random.Random(seed)
    nodes = [(40.0 * (i % side), 40.0 * (i // side)) for i in range(side * side)]
    streets = []

    def street(a, b, cells=None):
        streets.append({"from": a, "to": b, "cells": cells or rng.randint(1, 6), "limit": rng.randint(1, 8),
                        "type": rng.randrange(len(TYPES))})

    for v in range(side * side):
        x, y = v % side, v // side
        for w in ([v + 1] if x + 1 < side else []) + ([v + side] if y + 1 < side else []):
            kind = rng.random()
            if kind < 0.6:  # two-way: two edges
                street(v, w)
                street(w, v)
            else:
                street(*((v, w) if kind < 0.8 else (w, v)))
    for k in range(3):  # dead ends: a node without outgoing streets
        nodes.append((-40.0, 40.0 * k))
        street(side * k, len(nodes) - 1)
    grid = list(range(side * side))
    # A hub of 9 streets in and 10 out (turns selected; 9 streets onto 6 groups), and a merge of
    # 18 one-cell streets into 3 (groups of 3 cells that go together: the conflict rule decides).
    for ins, outs, cells in ((9, 10, None), (18, 3, 1)):
        hub = len(nodes)
        nodes.append((20.0 * hub, -40.0))
        rng.shuffle(grid)
        for v in grid[:ins]:
            street(v, hub, cells)
        for v in grid[ins:ins + outs]:
            street(hub, v)
    return nodes, streets


def graphml(nodes, streets):
    """The network as OSMnx's GraphML (a projected crs: x and y are metres)."""
    out = ['<?xml version="1.0" encoding="utf-8"?>',
           '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">',
           '<key id="d0" for="graph" attr.name="crs" attr.type="string"/>',
           '<key id="d1" for="node" attr.name="x" attr.type="string"/>',
           '<key id="d2" for="node" attr.name="y" attr.type="string"/>',
           '<key id="d3" for="edge" attr.name="length" attr.type="string"/>',
           '<key id="d4" for="edge" attr.name="highway" attr.type="string"/>',
           '<key id="d5" for="edge" attr.name="maxspeed" attr.type="string"/>',
           '<graph edgedefault="directed"><data key="d0">epsg:32618</data>']
    for i, (x, y) in enumerate(nodes):
        out.append(f'<node id="n{i}"><data key="d1">{x}</data><data key="d2">{y}</data></node>')
    for k, s in enumerate(streets):
        # 7.2 km/h is one 4 m cell a 2 s step; 1 km/h more keeps rounding away from the edge.
        out.append(f'<edge source="n{s["from"]}" target="n{s["to"]}" id="{k}"><data key="d3">{4.0 * s["cells"]}</data>'
                   f'<data key="d4">{TYPES[s["type"]]}</data><data key="d5">{7.2 * s["limit"] + 1:.1f} km/h</data></edge>')
    out += ["</graph>", "</graphml>"]
    return "\n".join(out) + "\n"


# --- the simulation's network ---------------------------------------------------------------------
def turns_kept(p, q):
    """The turns (i, j) from in-street i to out-street j an intersection of p in and q out keeps
    (docs/traffic.md, "Fan-in and fan-out above 8")."""
    if p <= MAX_TURNS and q <= MAX_TURNS:
        return {(i, j) for i in range(p) for j in range(q)}
    kept, outs, ins = set(), [0] * p, [0] * q

    def fits(i, j):
        return (i, j) not in kept and outs[i] < MAX_TURNS and ins[j] < MAX_TURNS

    def keep(i, j):
        kept.add((i, j))
        outs[i] += 1
        ins[j] += 1

    for i in range(p):  # (1) the first out-street from i mod q on
        j = next((j for j in ((i + k) % q for k in range(q)) if fits(i, j)), None)
        if j is not None:
            keep(i, j)
    for j in range(q):  # (2) an out-street without a turn: the first in-street from j mod p on
        if ins[j] == 0:
            i = next((i for i in ((j + k) % p for k in range(p)) if fits(i, j)), None)
            if i is not None:
                keep(i, j)
    for i in range(p):  # (3) further out-streets while both sides have room
        for j in ((i + k) % q for k in range(q)):
            if fits(i, j):
                keep(i, j)
    return kept


class Network:
    """Cells (limit, type, sink, outgoing and incoming cells), signal groups (their cells),
    lights and yield controllers (their groups), built by the documented rules."""

    def __init__(self, nodes, streets):
        self.first, cell = [], 0
        for s in streets:
            self.first.append(cell)
            cell += s["cells"]
        last = [self.first[k] + s["cells"] - 1 for k, s in enumerate(streets)]
        self.limit = [s["limit"] for s in streets for _ in range(s["cells"])]
        self.type = [s["type"] for s in streets for _ in range(s["cells"])]
        self.outgoing = [[] for _ in range(cell)]
        self.incoming = [[] for _ in range(cell)]
        self.sink = [False] * cell
        self.turns = self.dropped = self.crowded = 0  # links across intersections; left out; where
        for k, s in enumerate(streets):  # along each street
            for c in range(self.first[k], last[k]):
                self.outgoing[c].append(c + 1)
                self.incoming[c + 1].append(c)
        into = [[k for k, s in enumerate(streets) if s["to"] == v] for v in range(len(nodes))]
        out_of = [[k for k, s in enumerate(streets) if s["from"] == v] for v in range(len(nodes))]
        for v in range(len(nodes)):  # across intersections
            kept = turns_kept(len(into[v]), len(out_of[v]))
            self.dropped += len(into[v]) * len(out_of[v]) - len(kept)
            self.crowded += len(into[v]) > MAX_TURNS or len(out_of[v]) > MAX_TURNS
            for i, a in enumerate(into[v]):
                for j, b in enumerate(out_of[v]):
                    if (i, j) in kept:
                        self.outgoing[last[a]].append(self.first[b])
                        self.incoming[self.first[b]].append(last[a])
                        self.turns += 1
                if not out_of[v]:
                    self.sink[last[a]] = True  # a node without outgoing streets
        for c in range(cell):
            if not self.outgoing[c]:
                self.sink[c] = True  # a street's last cell left without a turn
        self.groups, self.lights, self.yields = [], [], []
        self.signal_streets = 0  # the loader's signal groups: one per incoming street
        for v in range(len(nodes)):
            ins = into[v]
            if len(ins) < 2 or not out_of[v]:
                continue
            self.signal_streets += len(ins)
            if len(ins) == 2 and streets[ins[0]]["type"] != streets[ins[1]]["type"]:
                ins = sorted(ins, key=lambda k: -streets[k]["type"])  # the larger type has priority
                self.yields.append([len(self.groups), len(self.groups) + 1])
                self.groups += [[last[ins[0]]], [last[ins[1]]]]
            else:
                n = min(len(ins), MAX_LIGHT_GROUPS)  # streets dealt round-robin onto 6 groups
                self.lights.append(list(range(len(self.groups), len(self.groups) + n)))
                self.groups += [[last[ins[k]] for k in range(g, len(ins), n)] for g in range(n)]

    def cells(self):
        return len(self.limit)


# --- the state and a step -------------------------------------------------------------------------
class Car:
    def __init__(self, cell, max_velocity):
        self.cell, self.max_velocity = cell, max_velocity
        self.velocity, self.active, self.path = 0, True, []


class Simulation:
    def __init__(self, net, cars, seed):
        self.net, self.seed, self.step = net, seed, 0
        self.left = self.reactivated = self.conflicts = 0
        free = [c for c in range(net.cells()) if not net.sink[c]]
        assert cars <= len(free)
        self.cars = []
        for k in range(cars):  # a partial Fisher-Yates shuffle of the free cells
            j = k + below(bits(seed, PLACE, k, 0), len(free) - k)
            free[k], free[j] = free[j], free[k]
            self.cars.append(Car(free[k], 10 + below(bits(seed, MAX_VELOCITY, k, 0), 20)))
        self.car_in = [None] * net.cells()
        for k, car in enumerate(self.cars):
            self.car_in[car.cell] = k
        self.lights = []  # [timer, phase time, phase]
        for l, groups in enumerate(net.lights):
            phase_time = 40 + below(bits(seed, PHASE_TIME, l, 0), 20)
            self.lights.append([below(bits(seed, TIMER, l, 0), phase_time), phase_time,
                                below(bits(seed, PHASE, l, 0), len(groups))])
        self.signal = [NO_LIMIT] * net.cells()  # the controller limit per cell
        for cells in net.groups:
            for c in cells:
                self.signal[c] = 0

    # (a) controllers
    def traffic(self, group):
        """A car in one of the group's cells, or up to that cell's street limit upstream."""
        for c in self.net.groups[group]:
            level = {c}
            for _ in range(self.net.limit[c] + 1):
                if any(self.car_in[x] is not None for x in level):
                    return True
                level = {up for x in level for up in self.net.incoming[x]}
        return False

    def set_signal(self, group, go):
        for c in self.net.groups[group]:
            self.signal[c] = NO_LIMIT if go else 0

    def controllers(self):
        for light, groups in zip(self.lights, self.net.lights):
            busy = [g for g in range(len(groups)) if self.traffic(groups[g])]
            if len(busy) == 1:
                for g in range(len(groups)):
                    self.set_signal(groups[g], g == busy[0])
                light[0], light[2] = 0, busy[0]
                continue
            light[0] = (light[0] + 1) % light[1]
            if light[0] == 0:
                self.set_signal(groups[light[2]], False)
                light[2] = (light[2] + 1) % len(groups)
                self.set_signal(groups[light[2]], True)
        for groups in self.net.yields:
            first = True
            for g in groups:
                if self.traffic(g):
                    self.set_signal(g, first)
                    first = False

    # (b) plan
    def limit(self, c):
        return min(self.net.limit[c], self.signal[c])

    def plan(self, k, car):
        net = self.net
        v = min(car.velocity + 1 + below(bits(self.seed, ACCELERATE, k, self.step), 2), car.max_velocity, 30)
        car.path, c = [], car.cell
        while len(car.path) < v and not net.sink[c]:
            outs = net.outgoing[c]
            if len(outs) > 1:  # the biased walk toward larger streets
                weights = [max(0, net.type[o] - net.type[c]) + 1 for o in outs]
                pick = below(bits(self.seed, PATH, k, self.step, len(car.path)), sum(weights))
                for o, w in zip(outs, weights):
                    if pick < w:
                        break
                    pick -= w
                c = o
            else:
                c = outs[0]
            car.path.append(c)
        v = min(len(car.path), self.limit(car.cell))
        d = 0  # cells passed so far
        while d < v:
            c = car.path[d]
            if self.car_in[c] is not None:
                v = d
            elif self.limit(c) < v:
                v = self.limit(c) if self.limit(c) > d else d
            if d < v:
                d += 1
        if v > 0 and (bits(self.seed, DAWDLING, k, self.step) & 0xFFFFFFFF) < DAWDLE:
            v -= 1
        car.velocity = v

    def advance(self):
        """One step: controllers, plans, claims and the conflict rule, moves, reactivation."""
        net = self.net
        self.controllers()
        active = [(k, car) for k, car in enumerate(self.cars) if car.active]
        for k, car in active:
            self.plan(k, car)
        claim = {}
        for k, car in active:
            for c in car.path[:car.velocity]:
                claim[c] = min(claim.get(c, k), k)
        for k, car in active:
            lost = [i for i, c in enumerate(car.path[:car.velocity]) if claim[c] != k]
            if lost:
                car.velocity = lost[0]
                self.conflicts += 1
        for k, car in active:
            if car.velocity == 0:
                continue
            self.car_in[car.cell] = None
            car.cell = car.path[car.velocity - 1]
            if net.sink[car.cell]:
                car.active, car.velocity, car.path = False, 0, []
                self.left += 1
            else:
                self.car_in[car.cell] = k
        n, cells = len(self.cars), net.cells()
        shift = bits(self.seed, REACTIVATE, 0, self.step) >> 32
        for k, car in enumerate(self.cars):
            if car.active:
                continue
            start = cells * ((k + shift) % n) // n
            for c in ((start + i) % cells for i in range(cells // n)):
                if not net.sink[c] and self.car_in[c] is None:
                    car.cell, car.active = c, True
                    self.car_in[c] = k
                    self.reactivated += 1
                    break
        self.step += 1

    def rows(self):
        """The state CSV's columns car, active, cell, velocity, max_velocity, path (as text)."""
        return [(str(k), str(int(c.active)), str(c.cell), str(c.velocity), str(c.max_velocity),
                 " ".join(map(str, c.path))) for k, c in enumerate(self.cars)]

    def checksum(self):
        """docs/traffic.md, "Validation": the hash chain over every field of the state."""
        h = mix(self.step)

        def add(value):
            nonlocal h
            h = mix(h ^ value)

        for value in (self.seed, DAWDLE, self.left, self.reactivated, self.conflicts):
            add(value)
        for c in self.cars:
            add((c.cell << 32) | (c.velocity << 24) | (c.max_velocity << 16) | (len(c.path) << 8) | int(c.active))
            for cell in c.path:
                add(cell)
        for cell in range(self.net.cells()):
            occupant = NONE if self.car_in[cell] is None else self.car_in[cell]
            if occupant != NONE or self.signal[cell] != NO_LIMIT:  # claims are empty between steps
                add((cell << 40) | (self.signal[cell] << 32) | occupant)
                add(NONE)
        for timer, phase_time, phase in self.lights:
            add((timer << 32) | phase)
            add(phase_time)
        return h

#!/usr/bin/env python3
"""The statistics of a street network built from an OSMnx GraphML file by the rules of
docs/street-networks.md, computed independently of the C++ loader (datasets/street_network.cpp):
xml.etree reads the file, and the rules are written again here from the document. The C++ test
of the shared lower Manhattan file compares its numbers with what this prints:

    python3 datasets/street_network_stats.py ../shared/datasets/lowermanhattan.graphml

Only the statistics are computed (no cell positions).
"""
import math
import re
import sys
import xml.etree.ElementTree as ET

TYPES = ["service", "residential", "unclassified", "tertiary", "secondary", "primary", "trunk", "motorway"]
DEFAULT_TYPE = TYPES.index("residential")
DEFAULT_SPEED = 13.8  # m/s
# Speed limits (mph) of streets without a usable maxspeed, by highway value (docs/street-networks.md).
HIGHWAY_MPH = {"motorway": 55, "motorway_link": 35, "trunk": 45, "trunk_link": 30, "primary": 35,
               "primary_link": 25, "secondary": 30, "secondary_link": 25, "tertiary": 25, "tertiary_link": 25,
               "unclassified": 25, "residential": 25, "living_street": 10, "service": 15}
CELL, STEP = 4.0, 2.0


def entries(value):
    """A Python-list string "['a', 'b']" as its items, else the value alone."""
    value = value.strip()
    if value.startswith("[") and value.endswith("]"):
        return [item.strip().strip("'\"").strip() for item in value[1:-1].split(",")]
    return [value]


def maxspeed(value):
    """m/s, the largest understood entry; 0 when none is (bare numbers are km/h)."""
    best = 0.0
    for entry in entries(value):
        for part in entry.split(";"):
            m = re.fullmatch(r"\s*([0-9.]+)\s*(.*?)\s*", part)
            if not m:
                continue
            try:
                number = float(m.group(1))
            except ValueError:
                continue
            unit = m.group(2).lower()
            factor = {"": 1, "km/h": 1, "kmh": 1, "kph": 1, "mph": 1.609344, "knots": 1.852}.get(unit)
            if factor is None:
                continue
            kmh = number * factor
            if 0 < kmh <= 300:
                best = max(best, kmh / 3.6)
    return best


def highway(value):
    """(type index, known): the largest type named by an entry (substring match)."""
    found = [max(i for i, name in enumerate(TYPES) if name in e) for e in entries(value)
             if any(name in e for name in TYPES)]
    return (max(found), True) if found else (DEFAULT_TYPE, False)


def highway_speed(value):
    """m/s from HIGHWAY_MPH, the fastest entry the table has; 0 when it has none."""
    return max([HIGHWAY_MPH[e.lower()] * 0.44704 for e in entries(value) if e.lower() in HIGHWAY_MPH], default=0.0)


def is_true(value):
    return any(e.lower() in ("true", "1", "yes") for e in entries(value))


def stats(path):
    root = ET.parse(path).getroot()
    ns = root.tag[: root.tag.index("}") + 1] if root.tag.startswith("{") else ""
    keys = {k.get("id"): (k.get("for", "all"), k.get("attr.name")) for k in root.iter(ns + "key")}
    graph = root.find(ns + "graph")
    directed = graph.get("edgedefault", "directed") == "directed"

    def data(element, domain):
        out = {}
        for d in element.findall(ns + "data"):
            dom, name = keys[d.get("key")]
            if dom in (domain, "all"):
                out[name] = d.text or ""
        return out

    node_ids = [n.get("id") for n in graph.findall(ns + "node")]
    index = {n: i for i, n in enumerate(node_ids)}
    streets = []  # (from, to, cells, type, speed source, type_known, length, speed m/s)
    self_loops = parallel = 0
    pairs = set()
    for e in graph.findall(ns + "edge"):
        d = data(e, "edge")
        u, v = index[e.get("source")], index[e.get("target")]
        undirected = not directed if e.get("directed") is None else e.get("directed") == "false"
        pair = (min(u, v), max(u, v)) if undirected else (u, v)
        self_loops += u == v
        parallel += pair in pairs
        pairs.add(pair)
        length = float(d["length"])  # every edge of the files this script is for has one
        cells = max(1, math.floor(length / CELL + 0.5))  # halves up, not Python's round
        speed, source = maxspeed(d.get("maxspeed", "")), "maxspeed"
        if speed <= 0:
            speed, source = highway_speed(d.get("highway", "")), "highway"
        if speed <= 0:
            speed, source = DEFAULT_SPEED, "default"
        t, known = highway(d["highway"]) if "highway" in d else (DEFAULT_TYPE, False)
        two_way = undirected and not is_true(d.get("oneway", "False"))
        for a, b in [(u, v), (v, u)] if two_way else [(u, v)]:
            streets.append((a, b, cells, t, source, known, length, speed))

    n = len(node_ids)
    incoming = [[] for _ in range(n)]
    out_degree = [0] * n
    for s in streets:
        incoming[s[1]].append(s)
        out_degree[s[0]] += 1
    lights = yields = groups = 0
    for v in range(n):
        if out_degree[v] == 0 or len(incoming[v]) < 2:
            continue
        groups += len(incoming[v])
        if len(incoming[v]) == 2 and incoming[v][0][3] != incoming[v][1][3]:
            yields += 1
        else:
            lights += 1
    sink_nodes = [v for v in range(n) if out_degree[v] == 0 and incoming[v]]
    parent = list(range(n))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for s in streets:
        a, b = find(s[0]), find(s[1])
        parent[max(a, b)] = min(a, b)
    sizes = {}
    for v in range(n):
        sizes[find(v)] = sizes.get(find(v), 0) + 1
    touched = {s[0] for s in streets} | {s[1] for s in streets}
    # A street's last cell leads to the first cell of every street leaving its end node; the
    # first cell of a street is entered from the last cell of every street entering its start.
    # Inside a street of 2 cells or more, a cell has one before and one after it.
    inside = 1 if any(s[2] >= 2 for s in streets) else 0
    fan_out = max([inside] + [out_degree[s[1]] for s in streets])
    fan_in = max([inside] + [len(incoming[s[0]]) for s in streets])
    limits = {}
    for s in streets:
        cells = max(1, math.floor(s[7] * STEP / CELL + 1e-9))
        limits[cells] = limits.get(cells, 0) + 1
    return {
        "nodes": n,
        "edges": len(graph.findall(ns + "edge")),
        "self_loops": self_loops,
        "parallel_edges": parallel,
        "streets": len(streets),
        "cells": sum(s[2] for s in streets),
        "length_m": round(sum(s[6] for s in streets), 3),
        "lights": lights,
        "yield_controllers": yields,
        "signal_groups": groups,
        "sink_cells": sum(len(incoming[v]) for v in sink_nodes),
        "sink_nodes": len(sink_nodes),
        "components": len(sizes),
        "largest_component": max(sizes.values()),
        "isolated_nodes": n - len(touched),
        "max_cell_in": fan_in,
        "max_cell_out": fan_out,
        "speed_from_file": sum(s[4] == "maxspeed" for s in streets),
        "speed_from_highway": sum(s[4] == "highway" for s in streets),
        "speed_default": sum(s[4] == "default" for s in streets),
        "unknown_highway": sum(not s[5] for s in streets),
        "streets_per_speed_limit": dict(sorted(limits.items())),  # cells a step: streets
    }


if __name__ == "__main__":
    for name, value in stats(sys.argv[1]).items():
        print(f"{name} {value}")

#!/usr/bin/env python3
"""roadNet-PA's degree distribution as the road-like generator targets it (datasets/graph.cpp,
kRoadNetPaDegrees), derived from the shipped head of SNAP's file and published statistics.

Usage: python3 datasets/roadnet_pa_degrees.py ../shared/datasets/roadNet-PA.head.txt

Sources:
- The head (the first 16,230 edge lines of SNAP's roadNet-PA.txt) lists each vertex's
  neighbours on consecutive lines, so every vertex whose list it holds entirely (all but the
  last) has its exact degree. Caveat: the head is the start of the file, a crawl-ordered
  neighbourhood of vertex 0, not a uniform sample; its mean degree (2.953) is above the whole
  graph's.
- SNAP: 1,088,092 nodes, 1,541,898 undirected edges (3,083,796 directed): mean degree 2.834.
- The Network Repository report of roadNet-PA (as rendered by the ensmallen graph library,
  2021): median and mode degree 3; the five highest-degree vertices have degrees 9, 9, 9, 9, 8.
  Taken as four vertices of degree 9 and one of 8.

The head's distribution p is tilted to SNAP's mean, q_d ~ p_d exp(lambda d) (the distribution
closest to p in relative entropy with that mean), for the other vertices; counts by largest
remainder; degree-3 vertices moved to 4 (or 2) for the exact degree sum.
"""
import collections
import math
import sys

VERTICES, DIRECTED_EDGES = 1_088_092, 3_083_796  # SNAP
TOP_DEGREES = {9: 4, 8: 1}  # Network Repository report


def head_degrees(path):
    lists = []  # [from id, edge lines], in file order
    for line in open(path):
        a, _ = line.split()
        if lists and lists[-1][0] == a:
            lists[-1][1] += 1
        else:
            lists.append([a, 1])
    assert len({a for a, _ in lists}) == len(lists), "a vertex's lines are not consecutive"
    return collections.Counter(c for _, c in lists[:-1])  # the last list may be cut off


def main(path):
    head = head_degrees(path)
    n = VERTICES - sum(TOP_DEGREES.values())
    e = DIRECTED_EDGES - sum(d * c for d, c in TOP_DEGREES.items())
    p = {d: c / sum(head.values()) for d, c in sorted(head.items())}

    def tilt(lam):
        w = {d: x * math.exp(lam * d) for d, x in p.items()}
        return {d: x / sum(w.values()) for d, x in w.items()}

    lo, hi = -5.0, 5.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if sum(d * x for d, x in tilt(mid).items()) < e / n else (lo, mid)
    q = tilt(lo)
    count = {d: math.floor(q[d] * n) for d in q}
    for d in sorted(q, key=lambda d: q[d] * n - count[d], reverse=True)[: n - sum(count.values())]:
        count[d] += 1
    moved = e - sum(d * c for d, c in count.items())
    count[3] -= abs(moved)
    count[4 if moved > 0 else 2] += abs(moved)
    count.update(TOP_DEGREES)
    assert sum(count.values()) == VERTICES and sum(d * c for d, c in count.items()) == DIRECTED_EDGES

    def inlined(hist, n_inline=3):
        return sum(min(d, n_inline) * c for d, c in hist.items()) / sum(d * c for d, c in hist.items())

    print("head: %d complete lists, degrees %s, mean %.3f, inlined at N = 3: %.5f"
          % (sum(head.values()), dict(sorted(head.items())),
             sum(d * c for d, c in head.items()) / sum(head.values()), inlined(head)))
    print("lambda %.4f, degree-3 vertices moved: %d" % (lo, moved))
    print("counts (index = degree):", [count.get(d, 0) for d in range(10)])
    print("fractions:", " ".join("%d: %.5f" % (d, count.get(d, 0) / VERTICES) for d in range(1, 10)))
    print("degree >= 5: %.5f" % (sum(c for d, c in count.items() if d >= 5) / VERTICES))
    print("inlined at N = 3: %.5f" % inlined(count))


if __name__ == "__main__":
    main(sys.argv[1])

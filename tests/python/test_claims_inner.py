"""The inner-array claims of issue 21 section 3 (l.137: N = 3 inlines more than 80 % of BFS's
elements; l.288: the partial-inlining branch costs nothing notable) on hand-built results:
each gives its designed verdict, and one reversed part gives "not reproduced"."""

from dataclasses import replace

import pytest

from plots.claims import NOT_MEASURED, NOT_REPRODUCED, REPRODUCED, Scope, evaluate_claim
from plots.papers import PAPERS

from tests.python.test_claims_parts import bench, inner_claim

SHARE = "bfs-partial-3-inlines-over-80pct"
BRANCH = "synthetic-partial-branch-negligible"


def bfs_scope(arena_at_3, arena_at_0=1000.0):
    """BFS partial SoA at N = 0 and 3 on each graph of `arena_at_3` {graph: arena bytes},
    with the footprint counters the benchmark records."""
    rows = []
    for graph, at_3 in arena_at_3.items():
        for n, arena in ((0, arena_at_0), (3, at_3)):
            row = bench(f"inner/bfs/partial/soa/int/inline:{n}/graph:{graph}", 1.0)
            rows.append(replace(row, counters={"footprint_arena_bytes": arena,
                                               "footprint_inline_bytes": 5000.0 - arena}))
    return Scope(tuple(rows), {}, {}, PAPERS["inner"].sweep)


def test_the_share_inlined_is_one_minus_the_arena_left_at_3():
    result = evaluate_claim(inner_claim(SHARE), bfs_scope({"road-like": 150.0}))
    assert result.verdict == REPRODUCED
    assert result.measured == "graph road-like 0.850"
    assert "'more than 0.8': band 0.8 – …" in result.note
    assert "1 − footprint_arena_bytes 150 / 1000 (inline:3 / inline:0)" in result.note


@pytest.mark.parametrize("reversed_graph", ["road-like", "roadNet-PA"])
def test_one_graph_under_80_percent_fails_the_claim(reversed_graph):
    graphs = {"road-like": 150.0, "roadNet-PA": 100.0, reversed_graph: 280.0}
    result = evaluate_claim(inner_claim(SHARE), bfs_scope(graphs))
    assert result.verdict == NOT_REPRODUCED
    assert "1 not reproduced, 1 reproduced" in result.note
    assert f"graph {reversed_graph} 0.720" in result.measured


def test_a_share_without_the_footprint_counter_is_not_measured():
    scope = bfs_scope({"road-like": 150.0})
    bare = Scope(tuple(replace(b, counters={}) for b in scope.benchmarks), {}, {}, scope.sweep)
    result = evaluate_claim(inner_claim(SHARE), bare)
    assert result.verdict == NOT_MEASURED
    assert "no footprint_arena_bytes counter: inner/bfs/partial/soa/int/inline:3" in result.note


def synthetic_scope(partial_over_full):
    """Synthetic at 262,144 objects: full 1 ms, partial N = 64 × the layout's factor."""
    rows = []
    for layout, factor in partial_over_full.items():
        rows.append(bench(f"inner/synthetic/full/{layout}/int/inline:64/objects:262144", 1e-3))
        rows.append(bench(f"inner/synthetic/partial/{layout}/int/inline:64/objects:262144",
                          1e-3 * factor))
    return Scope(tuple(rows), {}, {}, PAPERS["inner"].sweep)


def test_partial_as_fast_as_full_in_both_layouts_reproduces():
    result = evaluate_claim(inner_claim(BRANCH), synthetic_scope({"soa": 1.0, "aos": 0.99}))
    assert result.verdict == REPRODUCED
    assert "2 reproduced" in result.note and "soa 1.00×, aos 0.99×" == result.measured


@pytest.mark.parametrize("layout", ["soa", "aos"])
def test_a_branch_that_costs_in_one_layout_fails_the_claim(layout):
    result = evaluate_claim(inner_claim(BRANCH),
                            synthetic_scope({"soa": 1.0, "aos": 1.0, layout: 1.2}))
    assert result.verdict == NOT_REPRODUCED
    assert "1 not reproduced, 1 reproduced" in result.note
    assert f"{layout} 1.20×" in result.measured

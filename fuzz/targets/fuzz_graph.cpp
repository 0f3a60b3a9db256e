// SNAP edge lists through load_snap_edge_list, then what `layoutbench bfs` and the BFS
// benchmark do with a loaded graph: the CSR's invariants, the statistics (a BFS sweep
// included) and id lookups.

#include <algorithm>

#include "fuzz_support.hpp"
#include "lb/datasets/graph.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static lb::fuzz::InputFile file;
  const std::string& path = file.write(data, size);
  lb::fuzz::expect_clean<lb::datasets::InputError>(path, [&] {
    const lb::datasets::EdgeListLoad load = lb::datasets::load_snap_edge_list(path);
    const lb::datasets::Graph& g = load.graph;
    const std::size_t n = g.vertices();
    LB_FUZZ_CHECK(n >= 1 && g.original_id.size() == n);
    LB_FUZZ_CHECK(std::adjacent_find(g.original_id.begin(), g.original_id.end(),
                                     [](auto a, auto b) { return a >= b; }) == g.original_id.end());
    LB_FUZZ_CHECK(g.offsets.front() == 0 && g.offsets.back() == g.edges());
    for (std::size_t v = 0; v < n; ++v) {
      LB_FUZZ_CHECK(g.offsets[v] <= g.offsets[v + 1]);
      for (std::uint32_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
        LB_FUZZ_CHECK(g.targets[e] < n && g.targets[e] != v);
        LB_FUZZ_CHECK(e == g.offsets[v] || g.targets[e - 1] < g.targets[e]);
      }
    }
    LB_FUZZ_CHECK(g.edges() + load.duplicate_edges + load.self_loops == load.edge_lines);
    const lb::datasets::GraphStats stats = lb::datasets::graph_stats(g, 1);
    LB_FUZZ_CHECK(stats.vertices == n && stats.components >= 1 && stats.largest_component <= n);
    LB_FUZZ_CHECK(g.dense_id(g.original_id.back()) == n - 1);
  });
  return 0;
}

// Frontier BFS under access recording (programs.hpp): the search's kernels as the CPU search
// runs them (kernels/bfs/cpu_search.cpp: set_distance, then relax_neighbours per level until a
// level changes nothing), one vertex after another, over a recording view of the vertices laid
// out AoS with every neighbour array full.

#include <string>

#include "lb/bfs/frontier.hpp"
#include "lb/bfs/laid_out.hpp"
#include "lb/datasets/graph.hpp"
#include "lb/layout/inner_recording.hpp"
#include "lb/recorded/programs.hpp"

namespace lb::recorded {

BfsRecordedRun bfs_recorded_run() {
  using M = bfs::VertexMapping<layout::InnerLayout::aos, layout::InnerStrategy::full>;
  // roadNet-PA's mean degree (2.83) at this size, as the benchmark's road-like graph has it.
  const datasets::Graph g = datasets::generate_road_like({.vertices = kBfsRecordedVertices, .directed_edges = 726});
  layout::HostStorage<M> storage = bfs::lay_out<M>(g, 0);
  constexpr std::size_t source = 0;
  BfsRecordedRun run;
  std::vector<layout::KernelTrace>& kernels = run.program.kernels;
  const std::size_t n = storage.size();
  {
    kernels.push_back({"set_distance", {}});
    const layout::InnerRecordingView<M> v(storage.view(), kernels.back().accesses);
    for (std::size_t i = 0; i < n; ++i) bfs::set_distance(v, i, bfs::kInfinity, source);
  }
  int level = 0;
  for (bool changed = true; changed; ++level) {
    kernels.push_back({"relax_neighbours (level " + std::to_string(level) + ")", {}});
    const layout::InnerRecordingView<M> v(storage.view(), kernels.back().accesses);
    changed = false;
    for (std::size_t i = 0; i < n; ++i) changed |= bfs::relax_neighbours(v, i, level);
  }
  run.levels = bfs::levels_of(storage);
  run.expected = datasets::bfs_levels(g, source);
  run.program.program = "bfs";
  run.program.field_names = {"distance", "degree", "neighbours"};
  run.program.field_bytes = layout::inner_field_bytes<bfs::VertexRecord<bfs::kMaxDegree>>();
  run.program.problem = "a road-like graph of " + std::to_string(n) + " vertices and " +
                        std::to_string(g.targets.size()) + " directed edges, from vertex 0: set_distance, then " +
                        std::to_string(level) + " relax launches (one per level), one vertex after another";
  run.program.record = "vertex";
  return run;
}

}  // namespace lb::recorded

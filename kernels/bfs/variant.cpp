#include <stdexcept>

#include <fmt/format.h>

#include "lb/bfs/bfs.hpp"
#include "lb/bfs/frontier.hpp"
#include "lb/bfs/laid_out.hpp"

namespace lb::bfs {

using layout::InnerLayout, layout::InnerStrategy;

void check_variant(const Variant& v, const datasets::Graph& g) {
  if (v.strategy != InnerStrategy::partial && v.inline_count != 0)
    throw std::invalid_argument(fmt::format("--inline: an inline count ({}) is for the partial strategy only, not {}",
                                            v.inline_count, inner::to_string(v.strategy)));
  if (v.inline_count > kMaxInline)
    throw std::invalid_argument(
        fmt::format("--inline: {} is above the largest inline count built, {}", v.inline_count, kMaxInline));
  if (v.strategy == InnerStrategy::full || v.strategy == InnerStrategy::object)
    for (std::size_t u = 0; u < g.vertices(); ++u)
      if (g.degree(u) > kMaxDegree)
        throw std::invalid_argument(fmt::format(
            "{}: vertex {} has degree {}, above the {} slots the {} strategy reserves (use none or partial)", g.source,
            g.original_id.empty() ? u : g.original_id[u], g.degree(u), kMaxDegree, inner::to_string(v.strategy)));
}

std::unique_ptr<FrontierBfs> make_frontier_bfs(const datasets::Graph& g, const Variant& v, Device device) {
  return device == Device::gpu ? make_gpu_search(g, v) : make_cpu_search(g, v);
}

std::size_t traversed_edges(const datasets::Graph& g, const std::vector<int>& levels) {
  std::size_t edges = 0;
  for (std::size_t v = 0; v < g.vertices(); ++v)
    if (levels[v] != datasets::kUnreachable) edges += g.degree(v);
  return edges;
}

}  // namespace lb::bfs

#include <algorithm>
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

std::string_view to_string(Search s) {
  switch (s) {
    case Search::persistent: return "persistent";
    case Search::queue: return "queue";
    case Search::per_level: break;
  }
  return "per-level";
}

Search parse_search(std::string_view text) {
  for (Search s : {Search::per_level, Search::persistent, Search::queue})
    if (text == to_string(s)) return s;
  throw std::invalid_argument(fmt::format("unknown search '{}' (per-level, persistent or queue)", text));
}

std::unique_ptr<FrontierBfs> make_frontier_bfs(const datasets::Graph& g, const Variant& v, Device device,
                                               Search search) {
  if (device == Device::cpu && search != Search::per_level)
    throw std::invalid_argument(
        fmt::format("the {} search runs on the GPU only (the CPU loops over the levels serially)", to_string(search)));
  return device == Device::gpu ? make_gpu_search(g, v, search) : make_cpu_search(g, v);
}

unsigned persistent_grid(Search search, bool cooperative, int per_sm, int sms, std::size_t vertices, int block) {
  if (!cooperative)
    throw std::runtime_error(fmt::format(
        "{} BFS: this GPU cannot launch kernels cooperatively (cudaDevAttrCooperativeLaunch is 0); "
        "run the per-level search",
        to_string(search)));
  if (per_sm < 1 || sms < 1)
    throw std::runtime_error(fmt::format(
        "{} BFS: no block of {} threads of its kernel fits on an SM ({} a multiprocessor, {} "
        "multiprocessors), so a cooperative launch cannot hold its grid; run the per-level search",
        to_string(search), block, per_sm, sms));
  const std::size_t needed = std::max<std::size_t>(1, (vertices + block - 1) / static_cast<std::size_t>(block));
  return static_cast<unsigned>(std::min(needed, static_cast<std::size_t>(per_sm) * static_cast<std::size_t>(sms)));
}

std::size_t traversed_edges(const datasets::Graph& g, const std::vector<int>& levels) {
  std::size_t edges = 0;
  for (std::size_t v = 0; v < g.vertices(); ++v)
    if (levels[v] != datasets::kUnreachable) edges += g.degree(v);
  return edges;
}

}  // namespace lb::bfs

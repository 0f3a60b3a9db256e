#pragma once
//! Shared by the CPU and GPU searches: a graph copied into a host storage of one vertex
//! mapping, the distances read back, and the dispatch from a Variant to the instantiation
//! of a device's search template.

#include <memory>
#include <vector>

#include "lb/bfs/bfs.hpp"
#include "lb/bfs/frontier.hpp"
#include "lb/layout/host_storage.hpp"

namespace lb::bfs {

//! Neighbour arrays as the CSR lists them, every distance kPoison.
template <class M>
layout::HostStorage<M> lay_out(const datasets::Graph& g, std::size_t inline_count) {
  auto storage = layout::inner_host_storage<M>(layout::lengths_from_csr(g.offsets), inline_count);
  const auto view = storage.view();
  for (std::size_t v = 0; v < g.vertices(); ++v) {
    view.template get<Distance>(v) = kPoison;
    for (std::uint32_t k = 0; k < g.degree(v); ++k)
      view.template get<Neighbours>(v, k) = static_cast<int>(g.targets[g.offsets[v] + k]);
  }
  return storage;
}

template <class M>
std::vector<int> levels_of(const layout::HostStorage<M>& storage) {
  const auto view = storage.view();
  std::vector<int> levels(storage.size());
  for (std::size_t v = 0; v < levels.size(); ++v) {
    const int d = view.template get<Distance>(v);
    levels[v] = d == kInfinity ? datasets::kUnreachable : d;
  }
  return levels;
}

//! Search<M> for the variant's mapping, constructed from (g, v.inline_count).
template <template <class> class Search>
std::unique_ptr<FrontierBfs> make_search(const datasets::Graph& g, const Variant& v) {
  check_variant(v, g);
  return inner::dispatch_inner(v.layout, v.strategy,
                               [&]<layout::InnerLayout L, layout::InnerStrategy S>() -> std::unique_ptr<FrontierBfs> {
                                 return std::make_unique<Search<VertexMapping<L, S>>>(g, v.inline_count);
                               });
}

}  // namespace lb::bfs

namespace lb::bfs {
//! The two devices' factories (cpu_search.cpp, gpu_search.cu), behind make_frontier_bfs.
std::unique_ptr<FrontierBfs> make_cpu_search(const datasets::Graph& g, const Variant& v);
std::unique_ptr<FrontierBfs> make_gpu_search(const datasets::Graph& g, const Variant& v, Search search);

//! The grid of a device-loop search (persistent or queue), in blocks of `block` threads: a
//! cooperative launch needs every block resident at once, so at most `per_sm`
//! (cudaOccupancyMaxActiveBlocksPerMultiprocessor, capped by the search's blocks an SM) on
//! each of `sms` SMs, and no more than `vertices` need (at least one). Throws
//! std::runtime_error, naming the search and why, where the device cannot launch it
//! cooperatively (`cooperative` false: cudaDevAttrCooperativeLaunch) or no block fits on an SM.
unsigned persistent_grid(Search search, bool cooperative, int per_sm, int sms, std::size_t vertices, int block);
}  // namespace lb::bfs

#pragma once
//! BFS over the inner-array layouts: which layout a run uses (Variant), and a graph laid out
//! in one variant on one device (FrontierBfs), built by make_frontier_bfs. The CPU runs the
//! same kernel body (frontier.hpp) serially over the same layout: a reference for the layouts
//! and a fallback without a GPU; datasets::bfs_levels (a queue) is the independent reference.
//! The GPU has three searches (Search): the paper's, a launch per level, and beyond the paper
//! two that run every level in one cooperative launch: a persistent kernel over the same body,
//! and a frontier queue.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "lb/datasets/graph.hpp"
#include "lb/inner/strategies.hpp"

namespace lb::bfs {

enum class Device { cpu, gpu };

//! How the GPU loops over the levels: `per_level` (the paper's: a launch per level, the host
//! reading a flag per batch of levels), `persistent` (one cooperative launch, the levels
//! separated by grid-wide barriers, every vertex scanned each level; beyond the paper) or
//! `queue` (one cooperative launch over an explicit frontier queue: a level touches only its
//! frontier; beyond the paper). The CPU has only its serial loop (per_level).
enum class Search { per_level, persistent, queue };
//! "per-level", "persistent", "queue" (the names' `search:` values).
std::string_view to_string(Search s);
//! The inverse of to_string; std::invalid_argument naming the values otherwise.
Search parse_search(std::string_view text);

struct Variant {
  layout::InnerLayout layout = layout::InnerLayout::soa;
  layout::InnerStrategy strategy = layout::InnerStrategy::full;
  std::size_t inline_count = 0;  //!< N, for the partial strategy only
};

//! Throws std::invalid_argument when the variant cannot hold the graph or is malformed: an
//! inline count for a strategy other than partial or above kMaxInline, a degree above
//! kMaxDegree under full or object (they reserve kMaxDegree slots per vertex).
void check_variant(const Variant& v, const datasets::Graph& g);

class FrontierBfs {
 public:
  virtual ~FrontierBfs() = default;
  //! Sets every distance to kPoison (before a run, untimed).
  virtual void poison() = 0;
  //! Searches from `source` (a dense id); returns the relax iterations, which is the number
  //! of levels (0 .. the largest): the last, over the farthest vertices, changes nothing. The
  //! GPU works on `stream` and has finished when run returns (it waits for each batch's flags).
  virtual int run(std::uint32_t source, cudaStream_t stream = nullptr) = 0;
  //! The distances of the last run, datasets::kUnreachable where no path leads (kPoison
  //! where the run left a vertex unset).
  virtual std::vector<int> levels() const = 0;
  virtual const layout::InnerFootprint& footprint() const = 0;
};

//! Lays `g` out in `v` on `device` (the GPU: uploaded once here) for `search`. Throws
//! std::invalid_argument as check_variant, and for a search other than per_level on the CPU;
//! the persistent and queue searches throw std::runtime_error where the GPU cannot launch them
//! (persistent_grid).
std::unique_ptr<FrontierBfs> make_frontier_bfs(const datasets::Graph& g, const Variant& v, Device device,
                                               Search search = Search::per_level);

//! Edges a search from `source` traverses: the out-degrees of the vertices it reaches
//! (`levels` from any BFS of that source).
std::size_t traversed_edges(const datasets::Graph& g, const std::vector<int>& levels);

}  // namespace lb::bfs

#pragma once
//! BFS over the inner-array layouts: which layout a run uses (Variant), and a graph laid out
//! in one variant on one device (FrontierBfs), built by make_frontier_bfs. The CPU runs the
//! same kernel body (frontier.hpp) serially over the same layout: a reference for the layouts
//! and a fallback without a GPU; datasets::bfs_levels (a queue) is the independent reference.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "lb/datasets/graph.hpp"
#include "lb/inner/strategies.hpp"

namespace lb::bfs {

enum class Device { cpu, gpu };

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

//! Lays `g` out in `v` on `device` (the GPU: uploaded once here). Throws std::invalid_argument
//! as check_variant.
std::unique_ptr<FrontierBfs> make_frontier_bfs(const datasets::Graph& g, const Variant& v, Device device);

//! Edges a search from `source` traverses: the out-degrees of the vertices it reaches
//! (`levels` from any BFS of that source).
std::size_t traversed_edges(const datasets::Graph& g, const std::vector<int>& levels);

}  // namespace lb::bfs

#pragma once
//! Frontier BFS (Springer et al. 2018, Sec. 3 and Fig. 10b) over the inner-array layouts: the
//! vertex record {int distance, int degree, int neighbours[]} (the degree is the inner array's
//! length, which every strategy keeps beside the record), and the one kernel body every
//! layout, strategy and device runs: in iteration i every vertex at distance i sets each
//! neighbour farther than i + 1 to i + 1; the search stops after an iteration that changes
//! nothing.

#include <climits>
#include <cstddef>
#include <cstdint>

#include "lb/layout/config.hpp"
#include "lb/layout/inner_array.hpp"
#include "lb/layout/record.hpp"

namespace lb::bfs {

struct Distance {};
struct Neighbours {};

//! Capacity of the inlined neighbour arrays. Full and array-as-object reserve kMaxDegree
//! slots (roadNet-PA's and the road-like graph's max degree); none and partial take any
//! degree, and partial inlines up to kMaxInline (the paper's sweep 0-10).
inline constexpr std::size_t kMaxDegree = 9;
inline constexpr std::size_t kMaxInline = 10;

template <std::size_t Max>
using VertexRecord =
    layout::Record<layout::Field<Distance, int>, layout::Field<Neighbours, layout::InnerArray<int, Max>>>;

//! The capacity each strategy's record uses.
template <layout::InnerStrategy S>
inline constexpr std::size_t capacity_of =
    S == layout::InnerStrategy::full || S == layout::InnerStrategy::object ? kMaxDegree : kMaxInline;

template <layout::InnerLayout L, layout::InnerStrategy S>
using VertexMapping = layout::InnerArrayMapping<VertexRecord<capacity_of<S>>, L, S>;

//! A distance no path has set yet ("infinity" while the search runs).
inline constexpr int kInfinity = INT_MAX;
//! What every distance holds before a run's initialisation: negative, so a vertex the
//! initialisation missed is never relaxed (d > level + 1 fails) and never taken for a level or
//! for unreachable (-1): it stays, and validation names it.
inline constexpr int kPoison = -0x5A5A5A5A;

//! The kernel body: vertex i, if it is at distance `level`, relaxes its neighbours to
//! level + 1. Returns whether it changed a distance. Neighbours on other threads may write
//! the same value at once (a benign race on the GPU; the CPU runs the loop serially). Any view
//! of the vertices: a layout::View, or a recording view (lb/layout/inner_recording.hpp).
template <class View>
LB_HD LB_FORCEINLINE bool relax_neighbours(const View& v, std::size_t i, int level) {
  if (v.template get<Distance>(i) != level) return false;
  bool changed = false;
  const std::uint32_t degree = v.template length<Neighbours>(i);
  for (std::uint32_t k = 0; k < degree; ++k) {
    auto&& d = v.template get<Distance>(static_cast<std::size_t>(v.template get<Neighbours>(i, k)));
    if (d > level + 1) {
      d = level + 1;
      changed = true;
    }
  }
  return changed;
}

//! Vertex i's distance: 0 for the source, else `value` (kInfinity to start a search, kPoison
//! before one, with no source).
template <class View>
LB_HD LB_FORCEINLINE void set_distance(const View& v, std::size_t i, int value, std::size_t source) {
  v.template get<Distance>(i) = i == source ? 0 : value;
}
inline constexpr std::size_t kNoSource = SIZE_MAX;

}  // namespace lb::bfs

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

//! The relax of vertex i, known to be at `level`: each neighbour farther than level + 1 is set
//! to level + 1. Returns whether it changed a distance.
template <class View>
LB_HD LB_FORCEINLINE bool relax_from(const View& v, std::size_t i, int level) {
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

//! The kernel body: vertex i, if it is at distance `level`, relaxes its neighbours to
//! level + 1. Returns whether it changed a distance. Neighbours on other threads may write
//! the same value at once (a benign race on the GPU; the CPU runs the loop serially). Any view
//! of the vertices: a layout::View, or a recording view (lb/layout/inner_recording.hpp).
//! The two pieces: the frontier test (vertex i's distance equal to `level`) and relax_from.
template <class View>
LB_HD LB_FORCEINLINE bool relax_neighbours(const View& v, std::size_t i, int level) {
  if (v.template get<Distance>(i) != level) return false;
  return relax_from(v, i, level);
}

//! The lowest set bit's index of a non-zero mask.
LB_HD LB_FORCEINLINE int lowest_bit(std::uint32_t mask) {
#if defined(__CUDA_ARCH__)
  return __ffs(static_cast<int>(mask)) - 1;
#else
  return __builtin_ctz(mask);
#endif
}

//! One thread's share of a level in the persistent search: relax_neighbours over the vertices
//! first, first + stride, ... below n, the distances of K of them loaded before any is
//! relaxed (K independent loads in flight instead of one after another: a relax writes
//! distances, so the compiler may not hoist the next vertex's load above it). Returns whether
//! it changed a distance; computes what relax_neighbours over the same vertices does.
//!
//! Why reading early is safe: within a level a write only lowers a distance above level + 1
//! (kInfinity) to level + 1, never to `level`, and a vertex at `level` (or below) is never
//! written. So a distance read before or after any other thread's writes of the level equals
//! `level` alike: the frontier test gives the same answer whenever it is read.
template <int K, class View>
LB_HD LB_FORCEINLINE bool relax_strided(const View& v, std::size_t first, std::size_t stride, std::size_t n,
                                        int level) {
  static_assert(K >= 1 && K <= 32, "one bit a vertex of the chunk");
  bool changed = false;
  for (std::size_t base = first; base < n; base += K * stride) {
    int d[K];
    LB_UNROLL
    for (int j = 0; j < K; ++j) {
      const std::size_t i = base + j * stride;
      d[j] = i < n ? static_cast<int>(v.template get<Distance>(i)) : kInfinity;
    }
    std::uint32_t at_level = 0;
    LB_UNROLL
    for (int j = 0; j < K; ++j) at_level |= static_cast<std::uint32_t>(d[j] == level) << j;
    // One relax_from in the code, not K: the vertices at the level one after another.
    for (; at_level != 0; at_level &= at_level - 1)
      changed |= relax_from(v, base + lowest_bit(at_level) * stride, level);
  }
  return changed;
}

//! The queue search's body (beyond the paper; kernels/bfs/gpu_search.cu): frontier vertex i
//! hands each neighbour u still at kInfinity to `claim(distance of u, u)`, which sets it to
//! the next level where it is still kInfinity (the GPU: atomicCAS, so one thread alone claims
//! a vertex) and queues u. The neighbours' ids, then their distances, are read K at a time
//! before any claim (independent loads, as relax_strided's). Reading a distance early is safe:
//! within a level a distance only goes from kInfinity to the next level, so one read as set
//! is set, and one read as kInfinity is claimed only where it still is.
template <int K, class View, class Claim>
LB_HD LB_FORCEINLINE void discover_neighbours(const View& v, std::size_t i, Claim&& claim) {
  static_assert(K >= 1 && K <= 32, "one bit a neighbour of the chunk");
  const std::uint32_t degree = v.template length<Neighbours>(i);
  for (std::uint32_t k0 = 0; k0 < degree; k0 += K) {
    int ids[K];
    LB_UNROLL
    for (int j = 0; j < K; ++j) ids[j] = k0 + j < degree ? static_cast<int>(v.template get<Neighbours>(i, k0 + j)) : -1;
    std::uint32_t unset = 0;
    LB_UNROLL
    for (int j = 0; j < K; ++j)
      unset |= static_cast<std::uint32_t>(ids[j] >= 0 && v.template get<Distance>(static_cast<std::size_t>(ids[j])) ==
                                                             kInfinity)
               << j;
    // The id read again (from cache) rather than picked from ids[] by a run-time index,
    // which would put ids[] in local memory.
    for (; unset != 0; unset &= unset - 1) {
      const auto u = static_cast<std::size_t>(v.template get<Neighbours>(i, k0 + lowest_bit(unset)));
      claim(v.template get<Distance>(u), u);
    }
  }
}

//! Vertex i's distance: 0 for the source, else `value` (kInfinity to start a search, kPoison
//! before one, with no source).
template <class View>
LB_HD LB_FORCEINLINE void set_distance(const View& v, std::size_t i, int value, std::size_t source) {
  v.template get<Distance>(i) = i == source ? 0 : value;
}
inline constexpr std::size_t kNoSource = SIZE_MAX;

}  // namespace lb::bfs

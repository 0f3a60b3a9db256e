#pragma once
//! The tiled IDW version's per-thread body (device_impl.cuh's tiled_kernel) in the phases its
//! __syncthreads separate, over any views: the kernel calls them on the GPU, and
//! idw_tiled_replay_block runs a whole block of them on the host in the GPU's order (every
//! thread's phase, then the next phase), over a View or a RecordingView (the access recording
//! of lb/layout/recording.hpp).

#include <cstddef>
#include <vector>

#include "lb/idw/interaction.hpp"
#include "lb/idw/layouts.hpp"

#if defined(__CUDACC__)
#define LB_IDW_UNROLL_8 _Pragma("unroll 8")
#else
#define LB_IDW_UNROLL_8 _Pragma("GCC unroll 8")
#endif

namespace lb::idw {

//! One staged data point in shared memory: padded to 4 values so a thread reads it with
//! 128-bit loads (all threads read the same entry: a broadcast, no bank conflicts).
template <class T>
struct alignas(16) TileEntry {
  T x, y, z, pad;
};

//! Phase 0: prediction point i's position (left at zero past the last point).
template <class PredView, class T>
LB_HD LB_FORCEINLINE void idw_tiled_own_point(const PredView& pred, std::size_t i, T& qx, T& qy) {
  if (i < pred.size()) {
    const auto q = pred.load(i);
    qx = q.template get<X>();
    qy = q.template get<Y>();
  }
}

//! Phase 1 of each tile: thread t stages data point tile + t, where it is below `end`.
template <class T, class DataView>
LB_HD LB_FORCEINLINE void idw_stage(const DataView& data, TileEntry<T>* tile_points, unsigned t, std::size_t tile,
                                    std::size_t end) {
  const std::size_t j = tile + t;
  if (j < end) {
    const auto d = data.load(j);
    tile_points[t] = {d.template get<X>(), d.template get<Y>(), d.template get<Z>(), T(0)};
  }
}

//! Data points a tile of `threads` starting at `tile` holds, up to `end`.
LB_HD LB_FORCEINLINE unsigned idw_tile_count(std::size_t tile, std::size_t end, unsigned threads) {
  return end - tile < threads ? static_cast<unsigned>(end - tile) : threads;
}

//! Phase 2 of each tile (shared memory only): the thread's sums over the `count` staged points
//! (a full tile of `threads` unrolled by 8).
template <class T, class Power>
LB_HD LB_FORCEINLINE void idw_sum_tile(const TileEntry<T>* tile_points, unsigned count, unsigned threads, T qx, T qy,
                                       const Power& power, Sums<T>& sums) {
  auto add = [&](unsigned k) {
    const TileEntry<T> e = tile_points[k];
    sums.add(qx, qy, e.x, e.y, e.z, power);
  };
  if (count == threads) {
    LB_IDW_UNROLL_8
    for (unsigned k = 0; k < threads; ++k) add(k);
  } else {
    for (unsigned k = 0; k < count; ++k) add(k);
  }
}

//! Phase 3: prediction point i's value (none past the last point).
template <class PredView, class T>
LB_HD LB_FORCEINLINE void idw_tiled_finish(const PredView& pred, std::size_t i, const Sums<T>& sums) {
  if (i < pred.size()) pred.template get<Z>(i) = sums.value();
}

//! Block `block` of `threads` threads of the tiled kernel on the host, phase by phase in
//! thread order, as the kernel's __syncthreads order them.
template <class DataView, class PredView, class Power>
void idw_tiled_replay_block(const DataView& data, const PredView& pred, const Power& power, std::size_t block,
                            unsigned threads) {
  using T = typename DataView::record::template field_type<0>;
  const std::size_t m = data.size();
  std::vector<TileEntry<T>> tile(threads);
  std::vector<T> qx(threads, T(0)), qy(threads, T(0));
  std::vector<Sums<T>> sums(threads);
  const auto index = [&](unsigned t) { return block * threads + t; };
  for (unsigned t = 0; t < threads; ++t) idw_tiled_own_point(pred, index(t), qx[t], qy[t]);
  for (std::size_t base = 0; base < m; base += threads) {
    for (unsigned t = 0; t < threads; ++t) idw_stage(data, tile.data(), t, base, m);
    const unsigned count = idw_tile_count(base, m, threads);
    for (unsigned t = 0; t < threads; ++t) idw_sum_tile(tile.data(), count, threads, qx[t], qy[t], power, sums[t]);
  }
  for (unsigned t = 0; t < threads; ++t) idw_tiled_finish(pred, index(t), sums[t]);
}

}  // namespace lb::idw

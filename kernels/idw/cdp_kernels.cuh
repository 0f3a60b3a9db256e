#pragma once
//! CDP kernels and their host launcher; included only by cdp_float.cu / cdp_double.cu
//! (compiled with -rdc=true). See lb/idw/cdp.hpp.

#include <algorithm>
#include <cmath>
#include <tuple>

#include "lb/common/cuda_check.hpp"
#include "lb/idw/cdp.hpp"
#include "lb/idw/interaction.hpp"

namespace lb::idw::cdp {

//! Block-wide reduction with `op` (warp shuffles, then one warp over the warp results).
//! The result is valid in thread 0. blockDim.x must be a multiple of 32.
template <class T, class Op>
__device__ T block_reduce(T v, Op op) {
  __shared__ T warp_results[32];
  for (int offset = 16; offset > 0; offset >>= 1) v = op(v, __shfl_down_sync(0xffffffffu, v, offset));
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  if (lane == 0) warp_results[warp] = v;
  __syncthreads();
  if (warp == 0) {
    const unsigned warps = blockDim.x >> 5;
    v = warp_results[lane < warps ? lane : 0];
    for (int offset = 16; offset > 0; offset >>= 1) {
      const T other = __shfl_down_sync(0xffffffffu, v, offset);
      if (lane + offset < warps) v = op(v, other);
    }
  }
  __syncthreads();  // warp_results may be reused by the next reduction
  return v;
}

struct Plus {
  template <class T>
  __device__ T operator()(T a, T b) const { return a + b; }
};
//! fmax returns the other operand when one is NaN: reduces "the coincident value, if any".
struct AnyCoincident {
  template <class T>
  __device__ T operator()(T a, T b) const { return fmax(a, b); }
};

//! Reduces each thread's Sums over the block; the total is valid in thread 0.
template <class T>
__device__ Sums<T> block_sums(const Sums<T>& mine) {
  Sums<T> total;
  total.weights = block_reduce(mine.weights, Plus{});
  total.weighted_values = block_reduce(mine.weighted_values, Plus{});
  total.coincident_value = block_reduce(mine.coincident_value, AnyCoincident{});
  return total;
}

// --- original (Mei 2014): one child thread per data point, blocks combined atomically -------

template <class DataView, class PredView, class Power, class T>
__global__ void original_child(DataView data, PredView pred, Power power, T qx, T qy, std::size_t i,
                               CdpAccumulator<T>* acc) {
  const std::size_t j = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  Sums<T> mine;
  if (j < data.size()) {
    const auto d = data.load(j);
    mine.add(qx, qy, d.template get<X>(), d.template get<Y>(), d.template get<Z>(), power);
  }
  const Sums<T> block = block_sums(mine);
  if (threadIdx.x != 0) return;
  atomicAdd(&acc->weights, block.weights);
  atomicAdd(&acc->weighted_values, block.weighted_values);
  if (block.coincident_value == block.coincident_value) {
    acc->coincident_value = block.coincident_value;
    atomicExch(&acc->coincident, 1u);
  }
  __threadfence();  // this block's sums are visible before it counts itself done
  if (atomicAdd(&acc->blocks_done, 1u) != gridDim.x - 1) return;
  // The last block of this prediction point: every other block's sums are in.
  __threadfence();
  Sums<T> total;
  total.weights = atomicAdd(&acc->weights, T(0));
  total.weighted_values = atomicAdd(&acc->weighted_values, T(0));
  if (atomicAdd(&acc->coincident, 0u) != 0) total.coincident_value = *static_cast<volatile T*>(&acc->coincident_value);
  pred.template get<Z>(i) = total.value();
}

template <class DataView, class PredView, class Power, class T>
__global__ void original_parent(DataView data, PredView pred, Power power, CdpAccumulator<T>* acc, unsigned* failures,
                                std::size_t first, std::size_t end) {
  const std::size_t i = first + static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= end) return;
  const auto q = pred.load(i);
  const auto grid = static_cast<unsigned>((data.size() + blockDim.x - 1) / blockDim.x);
  original_child<<<grid, blockDim.x, 0, cudaStreamFireAndForget>>>(data, pred, power, q.template get<X>(),
                                                                      q.template get<Y>(), i, acc + i);
  if (cudaGetLastError() != cudaSuccess) atomicAdd(failures, 1u);
}

// --- improved (Mei & Tian 2016): one child block of 1024 threads per prediction point ------

constexpr unsigned kImprovedChildThreads = 1024;

template <class DataView, class PredView, class Power, class T>
__global__ void __launch_bounds__(kImprovedChildThreads)
    improved_child(DataView data, PredView pred, Power power, T qx, T qy, std::size_t i) {
  Sums<T> mine;
  for (std::size_t j = threadIdx.x; j < data.size(); j += blockDim.x) {
    const auto d = data.load(j);
    mine.add(qx, qy, d.template get<X>(), d.template get<Y>(), d.template get<Z>(), power);
  }
  const Sums<T> total = block_sums(mine);
  if (threadIdx.x == 0) pred.template get<Z>(i) = total.value();
}

template <class DataView, class PredView, class Power>
__global__ void improved_parent(DataView data, PredView pred, Power power, unsigned* failures, std::size_t first,
                                std::size_t end) {
  const std::size_t i = first + static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= end) return;
  const auto q = pred.load(i);
  improved_child<<<1, kImprovedChildThreads, 0, cudaStreamFireAndForget>>>(data, pred, power, q.template get<X>(),
                                                                            q.template get<Y>(), i);
  if (cudaGetLastError() != cudaSuccess) atomicAdd(failures, 1u);
}

}  // namespace lb::idw::cdp

namespace lb::idw {

template <class Layout, class T>
void launch_cdp(Version version, const layout::View<MappingOf<Layout, T>>& data,
                const layout::View<MappingOf<Layout, T>>& pred, double p, int block, const CdpScratch& scratch,
                cudaStream_t stream) {
  with_power(p, [&](auto power) {
    if (version == Version::cdp_original) {
      auto* acc = static_cast<CdpAccumulator<T>*>(scratch.accumulators);
      check(cudaMemsetAsync(acc, 0, pred.size() * sizeof(CdpAccumulator<T>), stream), "cudaMemset (CDP accumulators)");
    }
    // One parent grid per batch of kCdpBatchPoints: a grid completes only with all its
    // children, so at most a batch of child launches is ever pending.
    for (std::size_t first = 0; first < pred.size(); first += kCdpBatchPoints) {
      const std::size_t end = std::min(pred.size(), first + kCdpBatchPoints);
      const auto grid = static_cast<unsigned>((end - first + block - 1) / block);
      if (version == Version::cdp_original) {
        auto* acc = static_cast<CdpAccumulator<T>*>(scratch.accumulators);
        cdp::original_parent<<<grid, block, 0, stream>>>(data, pred, power, acc, scratch.launch_failures, first, end);
        check_launch("idw cdp original_parent");
      } else {
        cdp::improved_parent<<<grid, block, 0, stream>>>(data, pred, power, scratch.launch_failures, first, end);
        check_launch("idw cdp improved_parent");
      }
    }
  });
}

}  // namespace lb::idw

namespace lb::idw {

//! The launcher of every layout of a list in precision T. Explicitly instantiating
//! CdpLaunchers<T, LayoutsFor<T>> (cdp_<precision>.cu) emits the table of their addresses, so
//! each launcher is instantiated there: a layout added to the matrix needs no line here.
template <class T, class List>
struct CdpLaunchers;
template <class T, class... Ls>
struct CdpLaunchers<T, layout::LayoutList<Ls...>> {
  [[gnu::used]] static const std::tuple<decltype(&launch_cdp<Ls, T>)...> functions;
};
template <class T, class... Ls>
const std::tuple<decltype(&launch_cdp<Ls, T>)...> CdpLaunchers<T, layout::LayoutList<Ls...>>::functions{
    &launch_cdp<Ls, T>...};

}  // namespace lb::idw

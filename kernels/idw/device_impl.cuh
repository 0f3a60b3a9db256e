#pragma once
//! Device kernels of the IDW versions and the DeviceProblem implementation for one layout.
//! Included only by the per-layout translation units.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>

#include "lb/common/cuda_check.hpp"
#include "lb/exec/gpu_launcher.cuh"
#include "lb/idw/cdp.hpp"
#include "lb/idw/device.hpp"
#include "lb/idw/naive_body.hpp"
#include "lb/layout/device_storage.hpp"

namespace lb::idw {

//! One staged data point in shared memory: padded to 4 values so a thread reads it with
//! 128-bit loads (all threads read the same entry: a broadcast, no bank conflicts).
template <class T>
struct alignas(16) TileEntry {
  T x, y, z, pad;
};

//! Tiled version: data points are staged through shared memory one tile (= block size) at
//! a time, read from global memory through the layout; each thread keeps its two sums in
//! registers.
template <class T, class DataView, class PredView, class Power>
__global__ void tiled_kernel(DataView data, PredView pred, Power power) {
  extern __shared__ __align__(16) unsigned char idw_tile_smem[];
  TileEntry<T>* const tile_points = reinterpret_cast<TileEntry<T>*>(idw_tile_smem);
  const std::size_t n = pred.size();
  const std::size_t m = data.size();
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool active = i < n;
  T qx = 0, qy = 0;
  if (active) {
    const auto q = pred.load(i);
    qx = q.template get<X>();
    qy = q.template get<Y>();
  }
  Sums<T> sums;
  for (std::size_t tile = 0; tile < m; tile += blockDim.x) {
    const std::size_t j = tile + threadIdx.x;
    if (j < m) {
      const auto d = data.load(j);
      tile_points[threadIdx.x] = {d.template get<X>(), d.template get<Y>(), d.template get<Z>(), T(0)};
    }
    __syncthreads();
    const unsigned count = m - tile < blockDim.x ? static_cast<unsigned>(m - tile) : blockDim.x;
    auto add = [&](unsigned k) {
      const TileEntry<T> e = tile_points[k];
      sums.add(qx, qy, e.x, e.y, e.z, power);
    };
    if (count == blockDim.x) {
#pragma unroll 8
      for (unsigned k = 0; k < blockDim.x; ++k) add(k);
    } else {
      for (unsigned k = 0; k < count; ++k) add(k);
    }
    __syncthreads();
  }
  if (active) pred.template get<Z>(i) = sums.value();
}

//! Roofline version (beyond the paper), written for throughput: each thread keeps P
//! prediction points in registers, so one 128-bit broadcast load of a staged data point feeds
//! P interactions; float uses the SFU reciprocal. The coincidence test leaves the loop: a data
//! point with d^2 < kCoincidentD2 has weight above w(kCoincidentD2), so only a weight sum that
//! large (rare) sends a point to a second scan for it. Per interaction that leaves 6 FP32
//! instructions and one MUFU.RCP, so the SFU, not instruction issue, is the limit.
//! P = 4 when the grid still fills the GPU, else fewer.

//! The value of a data point within the coincidence distance of (qx, qy), or `otherwise`.
template <class T, class DataView>
__device__ T coincident_value_or(const DataView& data, T qx, T qy, T otherwise) {
  for (std::size_t j = 0; j < data.size(); ++j) {
    const auto d = data.load(j);
    if (squared_distance(qx, qy, d.template get<X>(), d.template get<Y>()) < T(kCoincidentD2)) return d.template get<Z>();
  }
  return otherwise;
}

//! Partial sums of the roofline version when the data points are split across blocks
//! (blockIdx.y = slice): slice s's sums for point i at [s * n + i].
template <class T>
struct RooflinePartials {
  T* weights = nullptr;
  T* weighted = nullptr;
  std::size_t slice_length = 0;  //!< data points per slice, a multiple of the block size
};

//! The final value of prediction point i from its sums: the weighted mean, or a coincident
//! data point's value when the weight sum is large enough to hide one.
template <class T, class DataView, class PredView, class Power>
__device__ LB_FORCEINLINE void finish_roofline_point(const DataView& data, PredView& pred, Power power, std::size_t i,
                                                     T qx, T qy, T weights, T weighted) {
  // Half the weight of a point at the coincidence distance: margin for the reciprocal's ulp.
  const T suspicious_weights = T(0.5) * power.template weight<T>(T(kCoincidentD2));
  const T value = weighted / weights;
  pred.template get<Z>(i) = weights < suspicious_weights ? value : coincident_value_or(data, qx, qy, value);
}

template <int P, class T, class DataView, class PredView, class Power>
__global__ void roofline_kernel(DataView data, PredView pred, Power power, RooflinePartials<T> partials) {
  extern __shared__ __align__(16) unsigned char idw_tile_smem[];
  TileEntry<T>* const tile_points = reinterpret_cast<TileEntry<T>*>(idw_tile_smem);
  const std::size_t n = pred.size();
  const std::size_t begin = static_cast<std::size_t>(blockIdx.y) * partials.slice_length;
  const std::size_t end =
      gridDim.y == 1 || begin + partials.slice_length > data.size() ? data.size() : begin + partials.slice_length;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x * P + threadIdx.x;
  T qx[P], qy[P], weights[P], weighted[P];
#pragma unroll
  for (int k = 0; k < P; ++k) {
    const std::size_t i = first + static_cast<std::size_t>(k) * blockDim.x;
    qx[k] = qy[k] = weights[k] = weighted[k] = T(0);
    if (i < n) {
      const auto q = pred.load(i);
      qx[k] = q.template get<X>();
      qy[k] = q.template get<Y>();
    }
  }
  for (std::size_t tile = begin; tile < end; tile += blockDim.x) {
    const std::size_t j = tile + threadIdx.x;
    if (j < end) {
      const auto d = data.load(j);
      tile_points[threadIdx.x] = {d.template get<X>(), d.template get<Y>(), d.template get<Z>(), T(0)};
    }
    __syncthreads();
    const unsigned count = end - tile < blockDim.x ? static_cast<unsigned>(end - tile) : blockDim.x;
    auto interact = [&](unsigned e) {
      const TileEntry<T> d = tile_points[e];
#pragma unroll
      for (int k = 0; k < P; ++k) {
        const T w = power.template weight<T>(squared_distance(qx[k], qy[k], d.x, d.y));
        weights[k] += w;
        weighted[k] += w * d.z;
      }
    };
    if (count == blockDim.x) {
#pragma unroll 4
      for (unsigned e = 0; e < blockDim.x; ++e) interact(e);
    } else {
      for (unsigned e = 0; e < count; ++e) interact(e);
    }
    __syncthreads();
  }
#pragma unroll
  for (int k = 0; k < P; ++k) {
    const std::size_t i = first + static_cast<std::size_t>(k) * blockDim.x;
    if (i >= n) continue;
    if (gridDim.y == 1) {
      finish_roofline_point(data, pred, power, i, qx[k], qy[k], weights[k], weighted[k]);
    } else {
      partials.weights[blockIdx.y * n + i] = weights[k];
      partials.weighted[blockIdx.y * n + i] = weighted[k];
    }
  }
}

//! Adds the slices' partial sums of each prediction point (in slice order: deterministic)
//! and writes its value.
template <class T, class DataView, class PredView, class Power>
__global__ void roofline_combine_kernel(DataView data, PredView pred, Power power, RooflinePartials<T> partials,
                                        unsigned slices) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t n = pred.size();
  if (i >= n) return;
  T weights = T(0), weighted = T(0);
  for (unsigned s = 0; s < slices; ++s) {
    weights += partials.weights[s * n + i];
    weighted += partials.weighted[s * n + i];
  }
  const auto q = pred.load(i);
  finish_roofline_point(data, pred, power, i, q.template get<X>(), q.template get<Y>(), weights, weighted);
}

template <class T>
T poison_value() {
  // A quiet NaN with a payload no arithmetic produces (GPUs return the canonical NaN).
  if constexpr (sizeof(T) == 4) {
    const std::uint32_t bits = 0x7FA5A5A5u;
    T v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  } else {
    const std::uint64_t bits = 0x7FF4A5A5A5A5A5A5ull;
    T v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
}

template <class Layout, class T>
class DeviceProblemImpl final : public DeviceProblem {
  using M = MappingOf<Layout, T>;

 public:
  DeviceProblemImpl(const datasets::PointSet& data, const datasets::PointSet& pred)
      : data_dev_(M{data.size()}), pred_dev_(M{pred.size()}), pred_host_(pred.size()) {
    layout::HostStorage<M> data_host(data.size());
    layout::fill(data_host.view(), [&](std::size_t i) { return point(data, i, static_cast<T>(data.z[i])); });
    data_dev_.upload(data_host);
    layout::fill(pred_host_.view(), [&](std::size_t i) { return point(pred, i, poison_value<T>()); });
    pred_dev_.upload(pred_host_);
    check(cudaDeviceSynchronize(), "upload IDW points");
  }

  void launch(Version version, double p, int block, cudaStream_t stream) override {
    const auto data = data_dev_.view();
    const auto pred = pred_dev_.view();
    if (version == Version::cdp_original || version == Version::cdp_improved) {
      launch_cdp<Layout, T>(version, data, pred, p, block, cdp_scratch(version), stream);
      return;
    }
    const std::size_t smem = sizeof(TileEntry<T>) * static_cast<std::size_t>(block);
    with_power(p, [&](auto power) {
      if (version == Version::naive) {
        exec::launch_for_each(pred.size(), block, stream, NaiveBody{data, pred, power});
      } else if (version == Version::tiled) {
        const auto grid = static_cast<unsigned>((pred.size() + block - 1) / block);
        tiled_kernel<T><<<grid, block, smem, stream>>>(data, pred, power);
        check_launch("idw tiled_kernel");
      } else {
        launch_roofline(data, pred, power, block, smem, stream);
      }
    });
  }

  std::size_t failed_device_launches() override {
    if (!cdp_.launch_failures) return 0;
    unsigned failures = 0;
    check(cudaMemcpy(&failures, cdp_.launch_failures, sizeof failures, cudaMemcpyDeviceToHost), "read CDP failures");
    check(cudaMemset(cdp_.launch_failures, 0, sizeof failures), "reset CDP failures");
    return failures;
  }

  ~DeviceProblemImpl() override {
    cudaFree(roofline_weights_);
    cudaFree(roofline_weighted_);
    cudaFree(cdp_.accumulators);
    cudaFree(cdp_.launch_failures);
  }

  void poison_output(cudaStream_t stream) override { pred_dev_.upload(pred_host_, stream); }

  Output read_output(cudaStream_t stream) override {
    layout::HostStorage<M> result(pred_host_.size());
    pred_dev_.download(result, stream);
    const auto view = result.view();
    const T poison = poison_value<T>();
    Output out;
    out.z.resize(view.size());
    for (std::size_t i = 0; i < view.size(); ++i) {
      const T z = view.template get<Z>(i);
      if (std::memcmp(&z, &poison, sizeof z) == 0 && out.unwritten++ == 0) out.first_unwritten = i;
      out.z[i] = static_cast<double>(z);
    }
    return out;
  }

  std::size_t footprint_bytes() const override {
    return layout::footprint_bytes(M{pred_host_.size()}) + layout::footprint_bytes(data_dev_.view().mapping);
  }

 private:
  //! The most points per thread (4, 2 or 1) that still gives every SM four blocks; then the
  //! data points are split into S slices (blockIdx.y) so the grid is several waves of
  //! resident blocks with a small last wave: 1000K points in blocks of 256 x 4 are 1000
  //! blocks for 792 resident slots on an H100, i.e. 1.26 waves and 52 % achieved occupancy
  //! (ncu); 4 slices make 5.05 waves. A combine kernel adds the slices' sums.
  template <class Power>
  void launch_roofline(const layout::View<M>& data, const layout::View<M>& pred, Power power, int block,
                       std::size_t smem, cudaStream_t stream) {
    static const int sms = [] {
      int device = 0, count = 0;
      check(cudaGetDevice(&device), "cudaGetDevice");
      check(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
      return count;
    }();
    auto grid_for = [&](int points) {
      const std::size_t per_block = static_cast<std::size_t>(block) * points;
      return static_cast<unsigned>((pred.size() + per_block - 1) / per_block);
    };
    auto run = [&]<int P>() {
      auto kernel = roofline_kernel<P, T, layout::View<M>, layout::View<M>, Power>;
      // Resident blocks per SM, asked once per block size (not on every timed launch).
      static std::map<int, int> per_sm_by_block;
      auto found = per_sm_by_block.find(block);
      if (found == per_sm_by_block.end()) {
        int per_sm = 0;
        check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, smem), "roofline occupancy");
        found = per_sm_by_block.emplace(block, per_sm).first;
      }
      const int per_sm = found->second;
      const unsigned blocks = grid_for(P);
      const unsigned slices = roofline_slices(blocks, static_cast<unsigned>(std::max(per_sm, 1) * sms), data.size(), block);
      RooflinePartials<T> partials;
      if (slices > 1) {
        partials = roofline_scratch(slices * pred.size());
        const std::size_t per_slice = (data.size() + slices - 1) / slices;
        partials.slice_length = (per_slice + block - 1) / block * static_cast<std::size_t>(block);
      }
      kernel<<<dim3(blocks, slices), block, smem, stream>>>(data, pred, power, partials);
      check_launch("idw roofline_kernel");
      if (slices > 1) {
        const auto combine_grid = static_cast<unsigned>((pred.size() + 255) / 256);
        roofline_combine_kernel<T><<<combine_grid, 256, 0, stream>>>(data, pred, power, partials, slices);
        check_launch("idw roofline_combine_kernel");
      }
    };
    if (grid_for(4) >= 4u * sms)
      run.template operator()<4>();
    else if (grid_for(2) >= 4u * sms)
      run.template operator()<2>();
    else
      run.template operator()<1>();
  }

  //! Slices S in 1..16 (each at least 4 tiles long) minimising the idle share of the last
  //! wave, among those giving at least 4 waves when the data allows; S = 1 when one wave's
  //! tail is already small.
  static unsigned roofline_slices(unsigned blocks, unsigned resident, std::size_t m, int block) {
    auto idle = [&](unsigned s) {
      const double waves = double(blocks) * s / resident;
      return (std::ceil(waves) - waves) / std::ceil(waves);
    };
    unsigned best = 1;
    const unsigned most = static_cast<unsigned>(std::min<std::size_t>(16, std::max<std::size_t>(1, m / (4 * std::size_t(block)))));
    for (unsigned s = 2; s <= most; ++s)
      if (idle(s) + 1e-9 < idle(best) && (idle(best) > 0.05 || double(blocks) * best / resident < 4)) best = s;
    return best;
  }

  //! Scratch for the slices' partial sums (grown on demand, freed with the problem).
  RooflinePartials<T> roofline_scratch(std::size_t count) {
    if (count > roofline_capacity_) {
      cudaFree(roofline_weights_);
      cudaFree(roofline_weighted_);
      roofline_weights_ = roofline_weighted_ = nullptr;
      check(cudaMalloc(&roofline_weights_, count * sizeof(T)), "cudaMalloc (roofline partial sums)");
      check(cudaMalloc(&roofline_weighted_, count * sizeof(T)), "cudaMalloc (roofline partial sums)");
      roofline_capacity_ = count;
    }
    return {roofline_weights_, roofline_weighted_, 0};
  }

  //! CDP scratch, allocated on first use (the other versions need none).
  const CdpScratch& cdp_scratch(Version version) {
    if (!cdp_.launch_failures) {
      check(cudaMalloc(&cdp_.launch_failures, sizeof(unsigned)), "cudaMalloc (CDP failure count)");
      check(cudaMemset(cdp_.launch_failures, 0, sizeof(unsigned)), "cudaMemset (CDP failure count)");
      reserve_device_launches(std::min(pred_host_.size(), kCdpBatchPoints) + 1024);
    }
    if (version == Version::cdp_original && !cdp_.accumulators)
      check(cudaMalloc(&cdp_.accumulators, pred_host_.size() * sizeof(CdpAccumulator<T>)), "cudaMalloc (CDP accumulators)");
    return cdp_;
  }

  static layout::RecordValue<Point<T>> point(const datasets::PointSet& s, std::size_t i, T z) {
    layout::RecordValue<Point<T>> v;
    v.template get<X>() = static_cast<T>(s.x[i]);
    v.template get<Y>() = static_cast<T>(s.y[i]);
    v.template get<Z>() = z;
    return v;
  }

  layout::DeviceStorage<M> data_dev_;
  layout::DeviceStorage<M> pred_dev_;
  layout::HostStorage<M> pred_host_;  //!< prediction points with poisoned values
  CdpScratch cdp_;
  T* roofline_weights_ = nullptr;
  T* roofline_weighted_ = nullptr;
  std::size_t roofline_capacity_ = 0;
};

template <class Layout>
std::unique_ptr<DeviceProblem> make_device_problem_for(Precision prec, const datasets::PointSet& data,
                                                       const datasets::PointSet& pred) {
  if (prec == Precision::f32) {
    if constexpr (Layout::template supports<float>) return std::make_unique<DeviceProblemImpl<Layout, float>>(data, pred);
  } else {
    if constexpr (Layout::template supports<double>)
      return std::make_unique<DeviceProblemImpl<Layout, double>>(data, pred);
  }
  check_layout(Layout::name, prec);  // throws: this layout does not exist in that precision
  return nullptr;
}

}  // namespace lb::idw

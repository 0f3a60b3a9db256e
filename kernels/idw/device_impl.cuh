#pragma once
//! Device kernels of the IDW versions and the DeviceProblem implementation for one layout.
//! Included only by the per-layout translation units.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "lb/common/cuda_check.hpp"
#include "lb/exec/gpu_launcher.cuh"
#include "lb/idw/cdp.hpp"
#include "lb/idw/device.hpp"
#include "lb/idw/naive_body.hpp"
#include "lb/idw/tiled_body.hpp"
#include "lb/layout/device_storage.hpp"

namespace lb::idw {

//! The block's tile of staged data points (dynamic shared memory, blockDim.x entries).
template <class T>
__device__ LB_FORCEINLINE TileEntry<T>* tile_memory() {
  extern __shared__ __align__(16) unsigned char idw_tile_smem[];
  return reinterpret_cast<TileEntry<T>*>(idw_tile_smem);
}

//! Stages data points [tile, min(tile + blockDim.x, end)), one per thread, waits for the
//! block and returns how many were staged. The caller syncs again before the next tile.
template <class T, class DataView>
__device__ LB_FORCEINLINE unsigned stage_tile(const DataView& data, TileEntry<T>* tile_points, std::size_t tile,
                                              std::size_t end) {
  idw_stage(data, tile_points, threadIdx.x, tile, end);
  __syncthreads();
  return idw_tile_count(tile, end, blockDim.x);
}

//! Tiled version: data points are staged through shared memory one tile (= block size) at
//! a time, read from global memory through the layout; each thread keeps its two sums in
//! registers. Its phases are lb/idw/tiled_body.hpp's (the host replays them under recording).
template <class T, class DataView, class PredView, class Power>
__global__ void tiled_kernel(DataView data, PredView pred, Power power) {
  TileEntry<T>* const tile_points = tile_memory<T>();
  const std::size_t m = data.size();
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  T qx = 0, qy = 0;
  idw_tiled_own_point(pred, i, qx, qy);
  Sums<T> sums;
  for (std::size_t tile = 0; tile < m; tile += blockDim.x) {
    const unsigned count = stage_tile(data, tile_points, tile, m);
    idw_sum_tile(tile_points, count, blockDim.x, qx, qy, power, sums);
    __syncthreads();
  }
  idw_tiled_finish(pred, i, sums);
}

//! Roofline version (beyond the paper), written for throughput: each thread keeps P
//! prediction points in registers, so one 128-bit broadcast load of a staged data point feeds
//! P interactions; float uses the SFU reciprocal. The coincidence test leaves the loop: a data
//! point with d^2 < kCoincidentD2 has weight above w(kCoincidentD2), so only a weight sum that
//! large (rare) sends a point to a second scan for it. Per interaction that leaves 6 FP32
//! instructions and one MUFU.RCP: 8 SFU cycles against 7.6 issue cycles per warp, so for
//! p = 2 some prediction points take their data points in pairs, one reciprocal per pair
//! (add_pair), which moves work from the SFU to the FP32 units (see launch_roofline).

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

//! Two interactions of one prediction point with data points at squared distances a and b,
//! for p = 2, through one reciprocal: 1/a + 1/b = (a + b) / (ab) and
//! z0/a + z1/b = (b z0 + a z1) / (ab): 15 instructions and one reciprocal instead of 14 and
//! two. Only coincident points (ab flushed to 0: weights inf or NaN) and spans beyond 1e9 (ab
//! overflow: the host then picks the unpaired form) leave the usual range.
template <class T>
__device__ LB_FORCEINLINE void add_pair(T a, T b, T z0, T z1, T& weights, T& weighted) {
  const T r = reciprocal(a * b);
  weights += (a + b) * r;
  weighted += (b * z0 + a * z1) * r;
}

//! P prediction points per thread; the first Q of them take data points in pairs (add_pair),
//! the others one at a time, which balances the SFU against instruction issue.
template <int P, int Q, class T, class DataView, class PredView, class Power>
__global__ void roofline_kernel(DataView data, PredView pred, Power power, RooflinePartials<T> partials) {
  static_assert(Q == 0 || std::is_same_v<Power, PowerTwo>, "paired reciprocals are the p = 2 form");
  TileEntry<T>* const tile_points = tile_memory<T>();
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
    const unsigned count = stage_tile(data, tile_points, tile, end);
    auto add = [&](int k, T d2, T z) {
      const T w = power.template weight<T>(d2);
      weights[k] += w;
      weighted[k] += w * z;
    };
    auto interact = [&](unsigned e) {
      const TileEntry<T> d = tile_points[e];
#pragma unroll
      for (int k = 0; k < P; ++k) add(k, squared_distance(qx[k], qy[k], d.x, d.y), d.z);
    };
    auto interact_pair = [&](unsigned e) {
      const TileEntry<T> d0 = tile_points[e], d1 = tile_points[e + 1];
#pragma unroll
      for (int k = 0; k < P; ++k) {
        const T a = squared_distance(qx[k], qy[k], d0.x, d0.y);
        const T b = squared_distance(qx[k], qy[k], d1.x, d1.y);
        if constexpr (Q > 0) {
          if (k < Q) {
            add_pair(a, b, d0.z, d1.z, weights[k], weighted[k]);
            continue;
          }
        }
        add(k, a, d0.z);
        add(k, b, d1.z);
      }
    };
    if (count == blockDim.x && blockDim.x % 4 == 0) {
#pragma unroll 1
      for (unsigned e = 0; e < blockDim.x; e += 4) {
        interact_pair(e);
        interact_pair(e + 2);
      }
    } else {
      unsigned e = 0;
      for (; e + 1 < count; e += 2) interact_pair(e);
      if (e < count) interact(e);
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
      : data_dev_(M{data.size()}), pred_dev_(M{pred.size()}), pred_host_(M{pred.size()}) {
    layout::HostStorage<M> data_host(M{data.size()});
    layout::fill(data_host.view(), [&](std::size_t i) { return point(data, i, static_cast<T>(data.z[i])); });
    data_dev_.upload(data_host);
    layout::fill(pred_host_.view(), [&](std::size_t i) { return point(pred, i, poison_value<T>()); });
    pred_dev_.upload(pred_host_);
    check(cudaDeviceSynchronize(), "upload IDW points");
    pairs_in_range_ = pair_products_fit(data, pred);
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

  // pairs_in_range_ keeps its first answer: the launch stays the timed one (probes lie within
  // the data's extent).
  void set_prediction_points(const datasets::PointSet& pred, cudaStream_t stream) override {
    if (pred.size() != pred_host_.size())
      throw std::invalid_argument("set_prediction_points: " + std::to_string(pred.size()) + " points for a problem of " +
                                  std::to_string(pred_host_.size()));
    layout::fill(pred_host_.view(), [&](std::size_t i) { return point(pred, i, poison_value<T>()); });
    pred_dev_.upload(pred_host_, stream);
    check(cudaStreamSynchronize(stream), "upload IDW prediction points");
  }

  Output read_output(cudaStream_t stream) override {
    layout::HostStorage<M> result(pred_host_.mapping());
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
  //! The most points per thread P (4, 2 or 1) for which the grid still fills the GPU; then the
  //! data points are split into S slices (blockIdx.y) so the grid is several waves of
  //! resident blocks with a small last wave (1000K points in blocks of 256 x 4: 1000 blocks
  //! for 792 resident slots (unpaired kernel) on an H100 are 1.26 waves and 52 % achieved
  //! occupancy; 7 slices make 8.84 waves, 72 %). A combine kernel adds the slices' sums.
  //! For p = 2 the grid counts as filling the GPU once slices would make it so: one staged
  //! load feeds P interactions, and pairing needs the points. The general power is bound by
  //! pow, whose registers at P = 4 (80 in double) cost more occupancy than the reuse gains
  //! (p = 3, 50K, double: 23.9 ms at P = 1, 27.7 ms at P = 4), so it counts the grid unsliced.
  //! Pairing (p = 2, Q of the P points): in float the reciprocal is one MUFU.RCP on the SFU, so
  //! one point in four (Q = 1) balances the SFU (7 of 8 cycles per interaction) against issue
  //! (7.7): 1000K took 338 ms unpaired, 292 ms with Q = 1, 298-315 ms with P = 8 and Q = 0..8
  //! (H100, block 128 or 256). In double the division is a Newton sequence on the same FP64
  //! pipe as the rest, so every point pairs (Q = P).
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
    auto run = [&]<int P, int Q>() {
      auto kernel = roofline_kernel<P, Q, T, layout::View<M>, layout::View<M>, Power>;
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
    const unsigned most_slices = std::is_same_v<Power, PowerTwo> ? max_roofline_slices(data.size(), block) : 1u;
    auto with_points = [&]<int P>() {
      if constexpr (std::is_same_v<Power, PowerTwo>) {
        constexpr int Q = std::is_same_v<T, float> ? 1 : P;
        if (pairs_in_range_) return run.template operator()<P, Q>();
      }
      run.template operator()<P, 0>();
    };
    if (std::size_t(grid_for(4)) * most_slices >= 4u * sms)
      with_points.template operator()<4>();
    else if (std::size_t(grid_for(2)) * most_slices >= 4u * sms)
      with_points.template operator()<2>();
    else
      with_points.template operator()<1>();
  }

  //! At most 16 slices, each at least 4 tiles long.
  static unsigned max_roofline_slices(std::size_t m, int block) {
    return static_cast<unsigned>(std::min<std::size_t>(16, std::max<std::size_t>(1, m / (4 * std::size_t(block)))));
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
    const unsigned most = max_roofline_slices(m, block);
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

  //! Whether the product of two squared distances (the paired roofline form) stays finite in
  //! T for every pair of points: (span^2)^2 well below the largest T.
  static bool pair_products_fit(const datasets::PointSet& data, const datasets::PointSet& pred) {
    double lo_x = INFINITY, hi_x = -INFINITY, lo_y = INFINITY, hi_y = -INFINITY;
    for (const auto* s : {&data, &pred})
      for (std::size_t i = 0; i < s->size(); ++i) {
        lo_x = std::min(lo_x, s->x[i]), hi_x = std::max(hi_x, s->x[i]);
        lo_y = std::min(lo_y, s->y[i]), hi_y = std::max(hi_y, s->y[i]);
      }
    const double span2 = (hi_x - lo_x) * (hi_x - lo_x) + (hi_y - lo_y) * (hi_y - lo_y);
    return !(span2 * span2 > 0.01 * static_cast<double>(std::numeric_limits<T>::max()));
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
  bool pairs_in_range_ = true;  //!< see pair_products_fit
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

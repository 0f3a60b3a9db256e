#pragma once
//! Device kernels of the IDW versions and the DeviceProblem implementation for one layout.
//! Included only by the per-layout translation units.

#include <cstdint>
#include <cstring>

#include "lb/common/cuda_check.hpp"
#include "lb/exec/gpu_launcher.cuh"
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
    with_power(p, [&](auto power) {
      if (version == Version::naive) {
        exec::launch_for_each(pred.size(), block, stream, NaiveBody{data, pred, power});
      } else {
        const auto grid = static_cast<unsigned>((pred.size() + block - 1) / block);
        const std::size_t smem = sizeof(TileEntry<T>) * static_cast<std::size_t>(block);
        tiled_kernel<T><<<grid, block, smem, stream>>>(data, pred, power);
        check_launch("idw tiled_kernel");
      }
    });
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

#pragma once
// The traffic simulation on the GPU over one layout: one kernel per phase and object class
// (lights, yield controllers; cars: plan, claim, resolve, move, reactivate), each thread one
// object running lb/traffic/laid_out.hpp's function for it, the same code the host runs.
// Claims are an atomicMin per cell (the lowest car id wins) and are read only by the next
// kernel, so the step is the reference's, phase by phase. Included by gpu_aos.cu and
// gpu_soa.cu, which instantiate it for their layout.

#include <cuda_runtime_api.h>

#include "lb/common/cuda_check.hpp"
#include "lb/layout/device_storage.hpp"
#include "lb/traffic/factories.hpp"
#include "lb/traffic/laid_out.hpp"

namespace lb::traffic {
namespace gpu {

constexpr int kBlock = 256;
//! Per-step counters on the device: conflicts, cars that left, cars reactivated.
enum Counter { conflicts = 0, left = 1, reactivated = 2, counter_count = 3 };

__device__ inline std::uint32_t object_id() { return blockIdx.x * blockDim.x + threadIdx.x; }

template <class M>
__global__ void lights_kernel(Views<M> v, std::uint32_t n) {
  if (const std::uint32_t i = object_id(); i < n) light_object(v, i);
}
template <class M>
__global__ void yields_kernel(Views<M> v, std::uint32_t n) {
  if (const std::uint32_t i = object_id(); i < n) yield_object(v, i);
}
template <class M>
__global__ void plan_kernel(Views<M> v, StepParams p) {
  if (const std::uint32_t i = object_id(); i < p.cars) plan_object(v, i, p);
}
template <class M>
__global__ void claim_kernel(Views<M> v, std::uint32_t n) {
  if (const std::uint32_t i = object_id(); i < n) claim_object(v, i);
}
template <class M>
__global__ void resolve_kernel(Views<M> v, std::uint32_t n, unsigned long long* counters) {
  if (const std::uint32_t i = object_id(); i < n && resolve_object(v, i)) atomicAdd(counters + conflicts, 1ull);
}
template <class M>
__global__ void move_kernel(Views<M> v, StepParams p, unsigned long long* counters) {
  if (const std::uint32_t i = object_id(); i < p.cars && move_object(v, i, p)) atomicAdd(counters + left, 1ull);
}
template <class M>
__global__ void reactivate_kernel(Views<M> v, StepParams p, unsigned long long* counters) {
  if (const std::uint32_t i = object_id(); i < p.cars && reactivate_object(v, i, p))
    atomicAdd(counters + reactivated, 1ull);
}

inline unsigned blocks(std::size_t n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }

struct CudaFree {
  void operator()(void* p) const { cudaFree(p); }
};

template <class M>
class GpuTraffic final : public LaidOutBase<M> {
 public:
  GpuTraffic(const Network& net, const State& initial, const TrafficLayout& t, TrafficFault fault)
      : LaidOutBase<M>(net, initial, t, fault),
        cells_(this->set_.cells.mapping()),
        cars_(this->set_.cars.mapping()),
        groups_(this->set_.groups.mapping()),
        lights_(this->set_.lights.mapping()),
        yields_(this->set_.yields.mapping()) {
    void* p = nullptr;
    check(cudaMalloc(&p, counter_count * sizeof(unsigned long long)), "cudaMalloc (traffic counters)");
    counters_.reset(p);
    reset(initial);
  }

  void reset(const State& s) override {
    check(cudaDeviceSynchronize(), "traffic steps before a reset");  // runs on any stream are done
    this->store_host(s);
    cells_.upload(this->set_.cells);
    cars_.upload(this->set_.cars);
    groups_.upload(this->set_.groups);
    lights_.upload(this->set_.lights);
    yields_.upload(this->set_.yields);
    const unsigned long long counters[counter_count] = {s.conflicts, s.left, s.reactivated};
    check(cudaMemcpy(counters_.get(), counters, sizeof counters, cudaMemcpyHostToDevice), "cudaMemcpy (traffic counters)");
    check(cudaDeviceSynchronize(), "upload (traffic state)");
  }

  void run(std::uint32_t steps, cudaStream_t stream) override {
    const Views<M> v{cells_.view(), cars_.view(), groups_.view(), lights_.view(), yields_.view()};
    auto* counters = static_cast<unsigned long long*>(counters_.get());
    const auto lights = static_cast<std::uint32_t>(v.lights.size()), yields = static_cast<std::uint32_t>(v.yields.size());
    for (std::uint32_t t = 0; t < steps; ++t) {
      const StepParams p = this->params();
      if (lights > 0) lights_kernel<M><<<blocks(lights), kBlock, 0, stream>>>(v, lights);
      if (yields > 0) yields_kernel<M><<<blocks(yields), kBlock, 0, stream>>>(v, yields);
      if (p.cars > 0) {
        const unsigned grid = blocks(p.cars);
        plan_kernel<M><<<grid, kBlock, 0, stream>>>(v, p);
        claim_kernel<M><<<grid, kBlock, 0, stream>>>(v, p.cars);
        resolve_kernel<M><<<grid, kBlock, 0, stream>>>(v, p.cars, counters);
        move_kernel<M><<<grid, kBlock, 0, stream>>>(v, p, counters);
        reactivate_kernel<M><<<grid, kBlock, 0, stream>>>(v, p, counters);
      }
      check_launch("traffic step kernels");
      ++this->scalars_.step;
    }
  }
  void wait(cudaStream_t stream) override { check(cudaStreamSynchronize(stream), "traffic steps"); }

  State state() const override {
    check(cudaDeviceSynchronize(), "traffic steps");
    cars_.download(this->set_.cars);
    cells_.download(this->set_.cells);
    lights_.download(this->set_.lights);
    unsigned long long counters[counter_count];
    check(cudaMemcpy(counters, counters_.get(), sizeof counters, cudaMemcpyDeviceToHost), "cudaMemcpy (traffic counters)");
    State s = this->load_host();
    s.conflicts = counters[conflicts];
    s.left = counters[left];
    s.reactivated = counters[reactivated];
    return s;
  }

 private:
  layout::DeviceStorage<typename M::Cells> cells_;
  layout::DeviceStorage<typename M::Cars> cars_;
  layout::DeviceStorage<typename M::Groups> groups_;
  layout::DeviceStorage<typename M::Lights> lights_;
  layout::DeviceStorage<typename M::Yields> yields_;
  std::unique_ptr<void, CudaFree> counters_;
};

template <InnerLayout L>
std::unique_ptr<LaidOutTraffic> make(const Network& net, const State& initial, const TrafficLayout& t,
                                     TrafficFault fault) {
  return dispatch_maps<L>(t, [&]<class M>() -> std::unique_ptr<LaidOutTraffic> {
    return std::make_unique<GpuTraffic<M>>(net, initial, t, fault);
  });
}

}  // namespace gpu
}  // namespace lb::traffic

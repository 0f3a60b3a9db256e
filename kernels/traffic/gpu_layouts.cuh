#pragma once
// The traffic simulation on the GPU over one layout: one kernel per phase and object class
// (lights, yield controllers; cars: plan, claim, resolve, move, reactivate), each thread one
// object running lb/traffic/laid_out.hpp's function for it, the same code the host runs.
// Claims are an atomicMin per cell (the lowest car id wins) and are read only by the next
// kernel, so the step is the reference's, phase by phase. Included by gpu_aos.cu and
// gpu_soa.cu, which instantiate it for their layout.

#include <cuda_runtime_api.h>

#include <array>
#include <optional>
#include <stdexcept>
#include <vector>

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

//! run_split's marks: a CUDA event on the stream at every change of part (and one at the end),
//! the time between two marks the earlier mark's part's. The events are read back and reused
//! every kEvents - 1 intervals, so a long run holds no more than kEvents.
class EventMarks {
 public:
  EventMarks(cudaStream_t stream, StepSplit& split) : stream_(stream), split_(split) {}
  EventMarks(const EventMarks&) = delete;
  EventMarks& operator=(const EventMarks&) = delete;
  ~EventMarks() {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
  }
  void operator()(StepPart part) {
    if (marks_ > 0 && part == parts_[marks_ - 1]) return;
    make_room();
    record(part);
  }
  //! The end mark; waits for it and adds the intervals not yet read.
  void finish() {
    if (marks_ == 0) return;
    make_room();
    record(parts_[marks_ - 1]);
    add_intervals();
  }

 private:
  static constexpr std::size_t kEvents = 512;
  //! All events in use: reads back every interval but the last mark's, which becomes the first.
  void make_room() {
    if (marks_ < kEvents) return;
    add_intervals();
    std::swap(events_[0], events_[marks_ - 1]);
    parts_[0] = parts_[marks_ - 1];
    marks_ = 1;
  }
  void record(StepPart part) {
    if (events_.size() == marks_) {
      cudaEvent_t e = nullptr;
      check(cudaEventCreate(&e), "cudaEventCreate (traffic split)");
      events_.push_back(e);
    }
    check(cudaEventRecord(events_[marks_], stream_), "cudaEventRecord (traffic split)");
    parts_[marks_++] = part;
  }
  void add_intervals() {
    check(cudaEventSynchronize(events_[marks_ - 1]), "traffic steps (split)");
    for (std::size_t i = 0; i + 1 < marks_; ++i) {
      float ms = 0;
      check(cudaEventElapsedTime(&ms, events_[i], events_[i + 1]), "cudaEventElapsedTime (traffic split)");
      split_[parts_[i]] += ms * 1e-3;
    }
  }
  cudaStream_t stream_;
  StepSplit& split_;
  std::vector<cudaEvent_t> events_;
  std::array<StepPart, kEvents> parts_{};
  std::size_t marks_ = 0;
};

//! The layout's storages on the device, of the host copy's mappings.
template <class M>
struct DeviceSet {
  explicit DeviceSet(const HostSet<M>& h)
      : cells(h.cells.mapping()),
        cars(h.cars.mapping()),
        groups(h.groups.mapping()),
        lights(h.lights.mapping()),
        yields(h.yields.mapping()) {}
  layout::DeviceStorage<typename M::Cells> cells;
  layout::DeviceStorage<typename M::Cars> cars;
  layout::DeviceStorage<typename M::Groups> groups;
  layout::DeviceStorage<typename M::Lights> lights;
  layout::DeviceStorage<typename M::Yields> yields;
  Views<M> views() const { return {cells.view(), cars.view(), groups.view(), lights.view(), yields.view()}; }
};

//! Loads the step's kernels for M now (lazy loading would load each at its first launch):
//! the first run after set-up, the instrumented one, then times no loading.
template <class M>
void load_kernels() {
  const auto load = [](auto* kernel) {
    cudaFuncAttributes a;
    check(cudaFuncGetAttributes(&a, kernel), "cudaFuncGetAttributes (traffic kernels)");
  };
  load(lights_kernel<M>), load(yields_kernel<M>), load(plan_kernel<M>), load(claim_kernel<M>);
  load(resolve_kernel<M>), load(move_kernel<M>), load(reactivate_kernel<M>);
}

template <class M>
class GpuTraffic final : public LaidOutBase<M> {
 public:
  GpuTraffic(const Network& net, const State& initial, const TrafficLayout& t, TrafficFault fault)
      : LaidOutBase<M>(net, initial, t, fault), dev_(this->set_) {
    void* p = nullptr;
    // The live counters, then the snapshot's.
    check(cudaMalloc(&p, 2 * counter_count * sizeof(unsigned long long)), "cudaMalloc (traffic counters)");
    counters_.reset(p);
    load_kernels<M>();
    reset(initial);
  }

  void reset(const State& s) override {
    check(cudaDeviceSynchronize(), "traffic steps before a reset");  // runs on any stream are done
    this->store_host(s);
    dev_.cells.upload(this->set_.cells);
    dev_.cars.upload(this->set_.cars);
    dev_.groups.upload(this->set_.groups);
    dev_.lights.upload(this->set_.lights);
    dev_.yields.upload(this->set_.yields);
    const unsigned long long counters[counter_count] = {s.conflicts, s.left, s.reactivated};
    check(cudaMemcpy(counters_.get(), counters, sizeof counters, cudaMemcpyHostToDevice), "cudaMemcpy (traffic counters)");
    check(cudaDeviceSynchronize(), "upload (traffic state)");
  }

  void keep_snapshot() override {
    check(cudaDeviceSynchronize(), "traffic steps before a snapshot");  // runs on any stream are done
    snapshot_.reset();  // the old copy freed before the new one allocates
    snapshot_.emplace(dev_, this->scalars_, [](auto& to, const auto& from) { to.copy_from(from); });
    check(cudaMemcpy(kept_counters(), counters_.get(), counter_count * sizeof(unsigned long long),
                     cudaMemcpyDeviceToDevice),
          "cudaMemcpy (traffic counters snapshot)");
    check(cudaDeviceSynchronize(), "snapshot (traffic state)");
  }
  void restore_snapshot(cudaStream_t stream) override {
    if (!snapshot_) throw std::logic_error("restore_snapshot: no snapshot kept (keep_snapshot)");
    this->scalars_ = snapshot_->restore(dev_, [&](auto& to, const auto& from) { to.copy_from(from, stream); });
    check(cudaMemcpyAsync(counters_.get(), kept_counters(), counter_count * sizeof(unsigned long long),
                          cudaMemcpyDeviceToDevice, stream),
          "cudaMemcpy (traffic counters restored)");
  }

  void run(std::uint32_t steps, cudaStream_t stream) override {
    run_steps(steps, stream, [](StepPart) {});
  }
  StepSplit run_split(std::uint32_t steps, cudaStream_t stream) override {
    StepSplit split;
    EventMarks marks(stream, split);
    run_steps(steps, stream, marks);
    marks.finish();
    return split;
  }
  void wait(cudaStream_t stream) override { check(cudaStreamSynchronize(stream), "traffic steps"); }

  State state() const override {
    check(cudaDeviceSynchronize(), "traffic steps");
    dev_.cars.download(this->set_.cars);
    dev_.cells.download(this->set_.cells);
    dev_.lights.download(this->set_.lights);
    unsigned long long counters[counter_count];
    check(cudaMemcpy(counters, counters_.get(), sizeof counters, cudaMemcpyDeviceToHost), "cudaMemcpy (traffic counters)");
    State s = this->load_host();
    s.conflicts = counters[conflicts];
    s.left = counters[left];
    s.reactivated = counters[reactivated];
    return s;
  }

 private:
  //! `steps` steps, one kernel per phase (none for a class without objects); mark(part_of(phase))
  //! before each phase's launch.
  template <class Mark>
  void run_steps(std::uint32_t steps, cudaStream_t stream, Mark&& mark) {
    const Views<M> v = dev_.views();
    auto* counters = static_cast<unsigned long long*>(counters_.get());
    const auto lights = static_cast<std::uint32_t>(v.lights.size()), yields = static_cast<std::uint32_t>(v.yields.size());
    for (std::uint32_t t = 0; t < steps; ++t) {
      const StepParams p = this->params();
      const unsigned grid = blocks(p.cars);
      for (const Phase phase : kPhases) {
        mark(part_of(phase));
        if (part_of(phase) == StepPart::cars && p.cars == 0) continue;
        switch (phase) {
          case Phase::lights:
            if (lights > 0) lights_kernel<M><<<blocks(lights), kBlock, 0, stream>>>(v, lights);
            break;
          case Phase::yields:
            if (yields > 0) yields_kernel<M><<<blocks(yields), kBlock, 0, stream>>>(v, yields);
            break;
          case Phase::plan: plan_kernel<M><<<grid, kBlock, 0, stream>>>(v, p); break;
          case Phase::claim: claim_kernel<M><<<grid, kBlock, 0, stream>>>(v, p.cars); break;
          case Phase::resolve: resolve_kernel<M><<<grid, kBlock, 0, stream>>>(v, p.cars, counters); break;
          case Phase::move: move_kernel<M><<<grid, kBlock, 0, stream>>>(v, p, counters); break;
          case Phase::reactivate: reactivate_kernel<M><<<grid, kBlock, 0, stream>>>(v, p, counters); break;
        }
      }
      check_launch("traffic step kernels");
      ++this->scalars_.step;
    }
  }

  unsigned long long* kept_counters() const { return static_cast<unsigned long long*>(counters_.get()) + counter_count; }

  DeviceSet<M> dev_;
  std::unique_ptr<void, CudaFree> counters_;
  std::optional<StepSnapshot<DeviceSet<M>>> snapshot_;  //!< keep_snapshot's copy on the device
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

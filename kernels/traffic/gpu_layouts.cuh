#pragma once
// The traffic simulation on the GPU over one layout: one kernel per phase and object class
// (lights, yield controllers; cars: plan, claim, resolve, move, reactivate), each thread one
// object running lb/traffic/laid_out.hpp's function for it, the same code the host runs.
// Claims are an atomicMin per cell (the lowest car id wins) and are read only by the next
// kernel, so the step is the reference's, phase by phase. A StepSchedule (layouts.hpp) may
// share a controller among lanes of a warp, fuse lights with yields and plan with claim, set
// the block size and launch the step as a CUDA graph: the same state under each. Included by
// gpu_aos.cu and gpu_soa.cu, which instantiate it for their layout.

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

//! Plan and claim of one car in one thread (StepSchedule::fused): no plan reads a claim, and
//! the car's claims need only its own plan.
template <class M>
__global__ void plan_claim_kernel(Views<M> v, StepParams p) {
  if (const std::uint32_t i = object_id(); i < p.cars) {
    plan_object(v, i, p);
    claim_object(v, i);
  }
}

//! `lights` lights of `lanes` lanes each, then `yields` yield controllers of `yield_lanes`
//! (lanes 1: a thread each); `split`: StepSchedule::split.
struct Controllers {
  std::uint32_t lights, yields, lanes, yield_lanes;
  bool split;
  std::size_t threads() const { return std::size_t{lights} * lanes + std::size_t{yields} * yield_lanes; }
};

//! v ORed over each aligned group of `width` lanes of the warp (a power of two up to `widest`,
//! the same in every lane); every lane of the warp calls it.
__device__ inline std::uint32_t or_over_lanes(std::uint32_t v, std::uint32_t width, std::uint32_t widest) {
  for (std::uint32_t offset = 1; offset < widest; offset <<= 1) {
    const std::uint32_t other = __shfl_xor_sync(0xffffffffu, v, offset);
    if (offset < width) v |= other;
  }
  return v;
}

//! Controllers under a schedule's lanes or fused (the host's order: run_phase_on_host): each
//! lane searches its share of its controller's groups, the lanes' bits are ORed, and each lane
//! signals its share (lane 0 also the light's timer). A controller's lanes are aligned in one
//! warp (lanes divide 32, the block is whole warps); threads past the last controller join
//! the shuffles with no bits.
template <class M>
__global__ void controllers_kernel(Views<M> v, Controllers c) {
  const std::uint32_t t = object_id();
  if (c.lanes == 1) {
    if (t < c.lights)
      light_object(v, t);
    else if (t - c.lights < c.yields)
      yield_object(v, t - c.lights);
    return;
  }
  const std::uint32_t light_threads = c.lights * c.lanes;
  const bool light = t < light_threads;
  const std::uint32_t width = light ? c.lanes : c.yield_lanes;
  const std::uint32_t u = light ? t : t - light_threads;  // light_threads: whole groups of either width
  const std::uint32_t id = u / width, lane = u % width;
  const bool live = light || id < c.yields;
  std::uint32_t traffic = 0;
  if (live)
    traffic = light ? light_lane_traffic(v, id, lane, width, c.split) : yield_lane_traffic(v, id, lane, width, c.split);
  traffic = or_over_lanes(traffic, width, c.lanes);
  if (!live) return;
  if (light)
    light_lane_signals(v, id, traffic, lane, width);
  else
    yield_lane_signals(v, id, traffic, lane, width);
}

//! One kernel launch of a step: the phase it runs (the first, where fused: the split's part),
//! the kernel, its grid, pointers to its arguments (in the simulation's LaunchArgs), and
//! whether they include the step's StepParams (a graph's node then takes them every step).
struct Launch {
  Phase phase;
  const void* kernel;
  unsigned grid;
  std::array<void*, 3> args;
  bool per_step;
};

inline cudaKernelNodeParams node_params(Launch& l, unsigned block) {
  cudaKernelNodeParams k{};
  k.func = const_cast<void*>(l.kernel);
  k.gridDim = dim3(l.grid);
  k.blockDim = dim3(block);
  k.kernelParams = l.args.data();
  return k;
}

//! The step's launches as one CUDA graph (a chain of kernel nodes), launched once a step; the
//! nodes that take StepParams are given the step's before each launch (launches already
//! enqueued keep theirs).
class StepGraph {
 public:
  StepGraph(std::vector<Launch>& launches, unsigned block) {
    check(cudaGraphCreate(&graph_, 0), "cudaGraphCreate (traffic step)");
    cudaGraphNode_t before = nullptr;
    for (Launch& l : launches) {
      const cudaKernelNodeParams k = node_params(l, block);
      cudaGraphNode_t node = nullptr;
      check(cudaGraphAddKernelNode(&node, graph_, before ? &before : nullptr, before ? 1 : 0, &k),
            "cudaGraphAddKernelNode (traffic step)");
      nodes_.push_back(node);
      before = node;
    }
    check(cudaGraphInstantiate(&exec_, graph_, 0), "cudaGraphInstantiate (traffic step)");
  }
  StepGraph(const StepGraph&) = delete;
  StepGraph& operator=(const StepGraph&) = delete;
  ~StepGraph() {
    if (exec_) cudaGraphExecDestroy(exec_);
    if (graph_) cudaGraphDestroy(graph_);
  }
  //! One step with the launches' arguments as they are now.
  void launch(std::vector<Launch>& launches, unsigned block, cudaStream_t stream) {
    for (std::size_t i = 0; i < launches.size(); ++i) {
      if (!launches[i].per_step) continue;
      const cudaKernelNodeParams k = node_params(launches[i], block);
      check(cudaGraphExecKernelNodeSetParams(exec_, nodes_[i], &k), "cudaGraphExecKernelNodeSetParams (traffic step)");
    }
    check(cudaGraphLaunch(exec_, stream), "cudaGraphLaunch (traffic step)");
  }

 private:
  cudaGraph_t graph_ = nullptr;  // kept: its nodes name the executable graph's in updates
  cudaGraphExec_t exec_ = nullptr;
  std::vector<cudaGraphNode_t> nodes_;
};

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

//! What the step's kernels take, in one place for the launches' argument pointers.
template <class M>
struct LaunchArgs {
  Views<M> v;
  StepParams p;  //!< the step's: set before each step
  std::uint32_t lights, yields, cars;
  Controllers controllers, yield_controllers;  //!< the lights' launch (with the yields' where fused); the yields'
  unsigned long long* counters;
};

//! The launches of a step under `s` (none for a class without objects; a phase `s` folds runs
//! in the one before), their arguments in `a`.
template <class M>
std::vector<Launch> step_launches(const StepSchedule& s, LaunchArgs<M>& a) {
  std::vector<Launch> out;
  const auto add = [&](Phase phase, const void* kernel, std::size_t threads, std::array<void*, 3> args,
                       bool per_step = false) {
    if (threads > 0) out.push_back({phase, kernel, static_cast<unsigned>((threads + s.block - 1) / s.block), args, per_step});
  };
  const auto k = [](auto* kernel) { return reinterpret_cast<const void*>(kernel); };
  const bool lanes = s.lanes > 1;
  a.controllers = {a.lights, s.fused ? a.yields : 0, s.lanes, yield_lanes(s), s.split};
  a.yield_controllers = {0, a.yields, s.lanes, yield_lanes(s), s.split};
  for (const Phase phase : kPhases) {
    if (folded(phase, s)) continue;
    switch (phase) {
      case Phase::lights:
        if (lanes || s.fused)
          add(phase, k(controllers_kernel<M>), a.controllers.threads(), {&a.v, &a.controllers});
        else
          add(phase, k(lights_kernel<M>), a.lights, {&a.v, &a.lights});
        break;
      case Phase::yields:
        if (lanes)
          add(phase, k(controllers_kernel<M>), a.yield_controllers.threads(), {&a.v, &a.yield_controllers});
        else
          add(phase, k(yields_kernel<M>), a.yields, {&a.v, &a.yields});
        break;
      case Phase::plan: add(phase, s.fused ? k(plan_claim_kernel<M>) : k(plan_kernel<M>), a.cars, {&a.v, &a.p}, true); break;
      case Phase::claim: add(phase, k(claim_kernel<M>), a.cars, {&a.v, &a.cars}); break;
      case Phase::resolve: add(phase, k(resolve_kernel<M>), a.cars, {&a.v, &a.cars, &a.counters}); break;
      case Phase::move: add(phase, k(move_kernel<M>), a.cars, {&a.v, &a.p, &a.counters}, true); break;
      case Phase::reactivate: add(phase, k(reactivate_kernel<M>), a.cars, {&a.v, &a.p, &a.counters}, true); break;
    }
  }
  return out;
}

//! Loads the launches' kernels now (lazy loading would load each at its first launch): the
//! first run after set-up, the instrumented one, then times no loading.
inline void load_kernels(const std::vector<Launch>& launches) {
  for (const Launch& l : launches) {
    cudaFuncAttributes a;
    check(cudaFuncGetAttributes(&a, l.kernel), "cudaFuncGetAttributes (traffic kernels)");
  }
}

template <class M>
class GpuTraffic final : public LaidOutBase<M> {
 public:
  GpuTraffic(const Network& net, const State& initial, const TrafficLayout& t, TrafficFault fault,
             const StepSchedule& schedule)
      : LaidOutBase<M>(net, initial, t, fault),
        dev_(this->set_),
        schedule_(schedule),
        counters_(device_counters()),
        // The storages never move, so the launches' arguments (and a graph of them) hold for good.
        args_{dev_.views(),
              {},
              static_cast<std::uint32_t>(this->set_.lights.size()),
              static_cast<std::uint32_t>(this->set_.yields.size()),
              static_cast<std::uint32_t>(this->set_.cars.size()),
              {},
              {},
              static_cast<unsigned long long*>(counters_.get())},
        launches_(step_launches(schedule_, args_)) {
    load_kernels(launches_);
    if (schedule_.graph && !launches_.empty()) graph_.emplace(launches_, schedule_.block);
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
    run_steps(steps, stream, [](StepPart) {}, graph_ ? &*graph_ : nullptr);
  }
  //! With stream launches under every schedule (a graph's kernels take no events between them).
  StepSplit run_split(std::uint32_t steps, cudaStream_t stream) override {
    StepSplit split;
    EventMarks marks(stream, split);
    run_steps(steps, stream, marks, nullptr);
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
  //! `steps` steps: the launches on `stream`, mark(part_of(phase)) before each, or one launch
  //! of `graph` a step (no marks).
  template <class Mark>
  void run_steps(std::uint32_t steps, cudaStream_t stream, Mark&& mark, StepGraph* graph) {
    const dim3 block(schedule_.block);
    for (std::uint32_t t = 0; t < steps; ++t) {
      args_.p = this->params();
      if (graph) {
        graph->launch(launches_, schedule_.block, stream);
      } else {
        for (Launch& l : launches_) {
          mark(part_of(l.phase));
          check(cudaLaunchKernel(l.kernel, dim3(l.grid), block, l.args.data(), 0, stream), "traffic step kernels");
        }
      }
      ++this->scalars_.step;
    }
  }

  //! The live counters, then the snapshot's.
  static std::unique_ptr<void, CudaFree> device_counters() {
    void* p = nullptr;
    check(cudaMalloc(&p, 2 * counter_count * sizeof(unsigned long long)), "cudaMalloc (traffic counters)");
    return std::unique_ptr<void, CudaFree>(p);
  }
  unsigned long long* kept_counters() const { return static_cast<unsigned long long*>(counters_.get()) + counter_count; }

  DeviceSet<M> dev_;
  StepSchedule schedule_;
  std::unique_ptr<void, CudaFree> counters_;
  LaunchArgs<M> args_;
  std::vector<Launch> launches_;  //!< one step's, pointing into args_
  std::optional<StepGraph> graph_;  //!< of launches_, under schedule_.graph
  std::optional<StepSnapshot<DeviceSet<M>>> snapshot_;  //!< keep_snapshot's copy on the device
};

template <InnerLayout L>
std::unique_ptr<LaidOutTraffic> make(const Network& net, const State& initial, const TrafficLayout& t,
                                     TrafficFault fault, const StepSchedule& schedule) {
  return dispatch_maps<L>(t, [&]<class M>() -> std::unique_ptr<LaidOutTraffic> {
    return std::make_unique<GpuTraffic<M>>(net, initial, t, fault, schedule);
  });
}

}  // namespace gpu
}  // namespace lb::traffic

#pragma once
// The traffic simulation over the inner-array layouts on the host: the GPU version's template
// code (lb/traffic/laid_out.hpp) run phase by phase over host views, so the CPU tests check
// every layout's accessors against the reference. Included by host_aos.cpp and host_soa.cpp,
// which instantiate it for their layout.

#include <chrono>
#include <optional>
#include <stdexcept>

#include "lb/traffic/factories.hpp"
#include "lb/traffic/laid_out.hpp"

namespace lb::traffic {
namespace host {

//! The phases one after another, each over its objects in id order, on the host copy (under
//! the schedule's lanes and fused; block and graph are the GPU's).
template <class M>
class HostTraffic final : public LaidOutBase<M> {
 public:
  HostTraffic(const Network& net, const State& initial, const TrafficLayout& t, TrafficFault fault,
              const StepSchedule& schedule)
      : LaidOutBase<M>(net, initial, t, fault), schedule_(schedule) {
    reset(initial);
  }
  void reset(const State& s) override { this->store_host(s); }
  void keep_snapshot() override { snapshot_.emplace(this->set_, this->scalars_, copy); }
  void restore_snapshot(cudaStream_t) override {
    if (!snapshot_) throw std::logic_error("restore_snapshot: no snapshot kept (keep_snapshot)");
    this->scalars_ = snapshot_->restore(this->set_, copy);
  }
  void run(std::uint32_t steps, cudaStream_t) override {
    run_steps(steps, [](StepPart) {});
  }
  StepSplit run_split(std::uint32_t steps, cudaStream_t) override {
    using Clock = std::chrono::steady_clock;
    StepSplit split;
    StepPart current = StepPart::controllers;
    Clock::time_point since{};
    bool started = false;
    const auto stop = [&] {
      const Clock::time_point now = Clock::now();
      if (started) split[current] += std::chrono::duration<double>(now - since).count();
      since = now;
      started = true;
    };
    run_steps(steps, [&](StepPart part) {
      if (started && part == current) return;
      stop();
      current = part;
    });
    stop();
    return split;
  }
  void wait(cudaStream_t) override {}
  State state() const override { return this->load_host(); }

 private:
  static constexpr auto copy = [](auto& to, const auto& from) { to.copy_from(from); };

  //! `steps` steps, each phase over its objects in id order; mark(part_of(phase)) before each
  //! phase (a phase the schedule folds into the one before runs there).
  template <class Mark>
  void run_steps(std::uint32_t steps, Mark&& mark) {
    const Views<M> v = this->set_.views();
    State& s = this->scalars_;
    const auto lights = static_cast<std::uint32_t>(v.lights.size()), yields = static_cast<std::uint32_t>(v.yields.size());
    for (std::uint32_t t = 0; t < steps; ++t) {
      const StepParams p = this->params();
      for (const Phase phase : kPhases) {
        if (folded(phase, schedule_)) continue;
        mark(part_of(phase));
        run_phase_on_host(v, phase, p, lights, yields, s, schedule_);
      }
      ++s.step;
    }
  }

  StepSchedule schedule_;
  std::optional<StepSnapshot<HostSet<M>>> snapshot_;
};

template <InnerLayout L>
std::unique_ptr<LaidOutTraffic> make(const Network& net, const State& initial, const TrafficLayout& t,
                                     TrafficFault fault, const StepSchedule& schedule) {
  return dispatch_maps<L>(t, [&]<class M>() -> std::unique_ptr<LaidOutTraffic> {
    return std::make_unique<HostTraffic<M>>(net, initial, t, fault, schedule);
  });
}

}  // namespace host
}  // namespace lb::traffic

// The traffic simulation over the inner-array layouts on the host: the GPU version's template
// code (lb/traffic/laid_out.hpp) run phase by phase over host views, so the CPU tests check
// every layout's accessors against the reference. Also the layouts' names and checks.

#include <fmt/format.h>

#include <stdexcept>

#include "lb/traffic/gpu_layouts.hpp"
#include "lb/traffic/laid_out.hpp"

namespace lb::traffic {

std::string_view to_string(SweptField f) {
  switch (f) {
    case SweptField::incoming: return "incoming";
    case SweptField::outgoing: return "outgoing";
    case SweptField::path: return "path";
    case SweptField::none: break;
  }
  return "none";
}

SweptField parse_swept_field(std::string_view name) {
  for (SweptField f : {SweptField::none, SweptField::incoming, SweptField::outgoing, SweptField::path})
    if (name == to_string(f)) return f;
  throw std::invalid_argument(
      fmt::format("unknown traffic array field '{}' (expected one of: incoming, outgoing, path, none)", name));
}

std::size_t max_elements(SweptField f) {
  switch (f) {
    case SweptField::incoming: return kMaxIncoming;
    case SweptField::outgoing: return kMaxOutgoing;
    case SweptField::path: return kMaxPath;
    case SweptField::none: break;
  }
  return 0;
}

namespace {
std::string_view field_name(SweptField f) {
  switch (f) {
    case SweptField::incoming: return "Cell::incoming";
    case SweptField::outgoing: return "Cell::outgoing";
    case SweptField::path: return "Car::path";
    case SweptField::none: break;
  }
  return "none";
}
}  // namespace

void check_layout(const TrafficLayout& t) {
  if (t.field == SweptField::none && t.strategy != InnerStrategy::full)
    throw std::invalid_argument(fmt::format("--strategy {}: give the array field it is for (--field incoming, outgoing "
                                            "or path); without one every array is fully inlined",
                                            inner::to_string(t.strategy)));
  if (t.strategy != InnerStrategy::partial && t.inline_count != 0)
    throw std::invalid_argument(fmt::format("--inline: an inline count ({}) is for the partial strategy only, not {}",
                                            t.inline_count, inner::to_string(t.strategy)));
  if (t.inline_count > max_elements(t.field))
    throw std::invalid_argument(fmt::format("--inline {}: {} holds at most {} elements", t.inline_count,
                                            field_name(t.field), max_elements(t.field)));
}

std::string describe(const TrafficLayout& t) {
  if (t.field == SweptField::none) return fmt::format("{}, every array full", inner::to_string(t.layout));
  return fmt::format("{}, {} {}{}, the other arrays full", inner::to_string(t.layout), field_name(t.field),
                     inner::to_string(t.strategy),
                     t.strategy == InnerStrategy::partial ? fmt::format(" N = {}", t.inline_count) : std::string());
}

namespace {

//! The phases one after another, each over its objects in id order, on the host copy.
template <class M>
class HostTraffic final : public LaidOutBase<M> {
 public:
  HostTraffic(const Network& net, const State& initial, const TrafficLayout& t, TrafficFault fault)
      : LaidOutBase<M>(net, initial, t, fault) {
    reset(initial);
  }
  void reset(const State& s) override { this->store_host(s); }
  void run(std::uint32_t steps, cudaStream_t) override {
    const Views<M> v = this->set_.views();
    State& s = this->scalars_;
    const auto each = [](std::size_t n, auto&& f) {
      for (std::uint32_t i = 0; i < n; ++i) f(i);
    };
    for (std::uint32_t t = 0; t < steps; ++t) {
      const StepParams p = this->params();
      const std::size_t cars = v.cars.size();
      each(v.lights.size(), [&](std::uint32_t l) { light_object(v, l); });
      each(v.yields.size(), [&](std::uint32_t y) { yield_object(v, y); });
      each(cars, [&](std::uint32_t k) { plan_object(v, k, p); });
      each(cars, [&](std::uint32_t k) { claim_object(v, k); });
      each(cars, [&](std::uint32_t k) { s.conflicts += resolve_object(v, k); });
      each(cars, [&](std::uint32_t k) { s.left += move_object(v, k, p); });
      if (cars > 0) each(cars, [&](std::uint32_t k) { s.reactivated += reactivate_object(v, k, p); });
      ++s.step;
    }
  }
  void wait(cudaStream_t) override {}
  State state() const override { return this->load_host(); }
};

}  // namespace

std::unique_ptr<LaidOutTraffic> make_laid_out_traffic(const Network& net, const State& initial, const TrafficLayout& t,
                                                      Device device, TrafficFault fault) {
  check_layout(t);
  if (device == Device::gpu)
    return t.layout == InnerLayout::aos ? make_gpu_traffic_aos(net, initial, t, fault)
                                        : make_gpu_traffic_soa(net, initial, t, fault);
  const auto make = [&]<class M>() -> std::unique_ptr<LaidOutTraffic> {
    return std::make_unique<HostTraffic<M>>(net, initial, t, fault);
  };
  return t.layout == InnerLayout::aos ? dispatch_maps<InnerLayout::aos>(t, make)
                                      : dispatch_maps<InnerLayout::soa>(t, make);
}

}  // namespace lb::traffic

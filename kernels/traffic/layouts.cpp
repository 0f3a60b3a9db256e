// The traffic simulation's layouts: their names and checks, and the one factory over the host
// (host_aos.cpp, host_soa.cpp) and GPU (gpu_aos.cu, gpu_soa.cu) units.

#include <fmt/format.h>

#include <stdexcept>

#include "lb/inner/strategies.hpp"
#include "lb/traffic/factories.hpp"

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
  inner::check_inner_layout(t.layout, inner::TrafficInnerLayouts{});
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

std::unique_ptr<LaidOutTraffic> make_laid_out_traffic(const Network& net, const State& initial, const TrafficLayout& t,
                                                      Device device, TrafficFault fault) {
  check_layout(t);
  const bool gpu = device == Device::gpu;
  switch (t.layout) {
    case InnerLayout::aos:
      return gpu ? make_gpu_traffic_aos(net, initial, t, fault) : make_host_traffic_aos(net, initial, t, fault);
    case InnerLayout::soa:
      return gpu ? make_gpu_traffic_soa(net, initial, t, fault) : make_host_traffic_soa(net, initial, t, fault);
    case InnerLayout::aosoa32:
      break;
  }
  return gpu ? make_gpu_traffic_aosoa32(net, initial, t, fault) : make_host_traffic_aosoa32(net, initial, t, fault);
}

}  // namespace lb::traffic

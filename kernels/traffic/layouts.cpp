// The traffic simulation's layouts: their names and checks, and the one factory over the host
// (host_aos.cpp, host_soa.cpp) and GPU (gpu_aos.cu, gpu_soa.cu) units.

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "lb/inner/strategies.hpp"
#include "lb/traffic/factories.hpp"

namespace lb::traffic {

std::string_view to_string(SweptField f) {
  switch (f) {
    case SweptField::incoming: return "incoming";
    case SweptField::outgoing: return "outgoing";
    case SweptField::path: return "path";
    case SweptField::cells: return "cells";
    case SweptField::none: break;
  }
  return "none";
}

SweptField parse_swept_field(std::string_view name) {
  for (SweptField f : {SweptField::none, SweptField::incoming, SweptField::outgoing, SweptField::path,
                       SweptField::cells})
    if (name == to_string(f)) return f;
  throw std::invalid_argument(
      fmt::format("unknown traffic array field '{}' (expected one of: incoming, outgoing, path, cells, none)", name));
}

std::size_t max_elements(SweptField f) {
  switch (f) {
    case SweptField::incoming: return kMaxIncoming;
    case SweptField::outgoing: return kMaxOutgoing;
    case SweptField::path: return kMaxPath;
    case SweptField::cells: return std::max(kMaxIncoming, kMaxOutgoing);
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
    case SweptField::cells: return "Cell::incoming and Cell::outgoing";
    case SweptField::none: break;
  }
  return "none";
}
}  // namespace

void check_layout(const TrafficLayout& t) {
  inner::check_inner_layout(t.layout, inner::TrafficInnerLayouts{});
  if (t.field == SweptField::none && t.strategy != InnerStrategy::full)
    throw std::invalid_argument(fmt::format("--strategy {}: give the array field it is for (--field incoming, outgoing, "
                                            "path or cells); without one every array is fully inlined",
                                            inner::to_string(t.strategy)));
  if (t.strategy != InnerStrategy::partial && t.inline_count != 0)
    throw std::invalid_argument(fmt::format("--inline: an inline count ({}) is for the partial strategy only, not {}",
                                            t.inline_count, inner::to_string(t.strategy)));
  if (t.field == SweptField::cells && !cells_apart_runs(t.layout, t.strategy))
    throw std::invalid_argument(fmt::format(
        "--field cells ({} {}): both cell arrays apart run in soa with strategy object or none only (the "
        "method's choice for the cell; the other layouts and strategies are not built)",
        inner::to_string(t.layout), inner::to_string(t.strategy)));
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

std::string to_string(const StepSchedule& s) {
  const StepSchedule base;
  std::string text;
  const auto add = [&](const std::string& part) { text += (text.empty() ? "" : "-") + part; };
  if (s.lanes != base.lanes) add(fmt::format("lanes{}", s.lanes));
  if (s.split) add("split");
  if (s.block != base.block) add(fmt::format("block{}", s.block));
  if (s.fused) add("fused");
  if (s.graph) add("graph");
  return text.empty() ? "base" : text;
}

StepSchedule parse_step_schedule(std::string_view text) {
  const auto refuse = [&](std::string_view why) {
    return std::invalid_argument(fmt::format(
        "traffic step schedule '{}': {} (expected base, or parts joined by '-' in this order: lanes2|lanes4|lanes8, "
        "split, block<32..1024, a multiple of 32>, fused, graph)",
        text, why));
  };
  StepSchedule s;
  if (text == "base") return s;
  const auto number = [](std::string_view digits, std::uint32_t& out) {
    if (digits.empty() || digits.size() > 4 || digits.front() == '0') return false;
    out = 0;
    for (const char c : digits) {
      if (c < '0' || c > '9') return false;
      out = out * 10 + static_cast<std::uint32_t>(c - '0');
    }
    return true;
  };
  for (std::size_t at = 0; at <= text.size();) {
    const std::size_t end = std::min(text.find('-', at), text.size());
    const std::string_view part = text.substr(at, end - at);
    at = end + 1;
    if (part.starts_with("lanes")) {
      if (!number(part.substr(5), s.lanes) || (s.lanes != 2 && s.lanes != 4 && s.lanes != 8))
        throw refuse(fmt::format("'{}': lanes are 2, 4 or 8 (1 is base)", part));
    } else if (part.starts_with("block")) {
      if (!number(part.substr(5), s.block) || s.block % 32 != 0 || s.block > 1024 || s.block == StepSchedule{}.block)
        throw refuse(fmt::format("'{}': a block is a multiple of 32 up to 1024 other than 256 (base)", part));
    } else if (part == "split") {
      s.split = true;
    } else if (part == "fused") {
      s.fused = true;
    } else if (part == "graph") {
      s.graph = true;
    } else {
      throw refuse(fmt::format("unknown part '{}'", part));
    }
  }
  if (s.split && s.lanes == 1) throw refuse("split shares lanes: give lanes2, lanes4 or lanes8 with it");
  // One spelling a schedule (a name and --axis compare texts): parts once, in order.
  if (const std::string canonical = to_string(s); canonical != text)
    throw refuse(fmt::format("write it '{}'", canonical));
  return s;
}

std::unique_ptr<LaidOutTraffic> make_laid_out_traffic(const Network& net, const State& initial, const TrafficLayout& t,
                                                      Device device, TrafficFault fault, const StepSchedule& schedule) {
  check_layout(t);
  parse_step_schedule(to_string(schedule));  // refuses what no text names (lanes 3, block 100)
  const bool gpu = device == Device::gpu;
  switch (t.layout) {
    case InnerLayout::aos:
      return gpu ? make_gpu_traffic_aos(net, initial, t, fault, schedule)
                 : make_host_traffic_aos(net, initial, t, fault, schedule);
    case InnerLayout::soa:
      return gpu ? make_gpu_traffic_soa(net, initial, t, fault, schedule)
                 : make_host_traffic_soa(net, initial, t, fault, schedule);
    case InnerLayout::aosoa32:
      break;
  }
  return gpu ? make_gpu_traffic_aosoa32(net, initial, t, fault, schedule)
             : make_host_traffic_aosoa32(net, initial, t, fault, schedule);
}

}  // namespace lb::traffic

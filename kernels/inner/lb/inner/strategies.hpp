#pragma once
//! The inner-array layouts and strategies by name (benchmark names, presets, CLIs) and the one
//! dispatch from names to the mapping's template arguments, shared by the inner suite's
//! programs (synthetic, BFS).

#include <stdexcept>
#include <string>
#include <string_view>

#include "lb/layout/inner_array.hpp"

namespace lb::inner {

using layout::InnerLayout;
using layout::InnerStrategy;

constexpr std::string_view to_string(InnerLayout l) { return l == InnerLayout::aos ? "aos" : "soa"; }
constexpr std::string_view to_string(InnerStrategy s) {
  switch (s) {
    case InnerStrategy::none: return "none";
    case InnerStrategy::partial: return "partial";
    case InnerStrategy::full: return "full";
    case InnerStrategy::object: return "object";
  }
  return "?";
}

//! Throw std::invalid_argument("unknown ... 'x' (expected one of: ...)").
inline InnerLayout parse_inner_layout(std::string_view name) {
  if (name == "aos") return InnerLayout::aos;
  if (name == "soa") return InnerLayout::soa;
  throw std::invalid_argument("unknown inner-array layout '" + std::string(name) + "' (expected one of: aos, soa)");
}
inline InnerStrategy parse_inner_strategy(std::string_view name) {
  for (InnerStrategy s : {InnerStrategy::none, InnerStrategy::partial, InnerStrategy::full, InnerStrategy::object})
    if (name == to_string(s)) return s;
  throw std::invalid_argument("unknown inner-array strategy '" + std::string(name) +
                              "' (expected one of: none, partial, full, object)");
}

//! Calls f.template operator()<L, S>() for the run-time (layout, strategy) and returns its result.
template <class F>
decltype(auto) dispatch_inner(InnerLayout l, InnerStrategy s, F&& f) {
  auto with_strategy = [&]<InnerLayout L>() -> decltype(auto) {
    switch (s) {
      case InnerStrategy::none: return f.template operator()<L, InnerStrategy::none>();
      case InnerStrategy::partial: return f.template operator()<L, InnerStrategy::partial>();
      case InnerStrategy::full: return f.template operator()<L, InnerStrategy::full>();
      case InnerStrategy::object: break;
    }
    return f.template operator()<L, InnerStrategy::object>();
  };
  if (l == InnerLayout::aos) return with_strategy.template operator()<InnerLayout::aos>();
  return with_strategy.template operator()<InnerLayout::soa>();
}

}  // namespace lb::inner

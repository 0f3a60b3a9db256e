#pragma once
//! The inner-array layouts and strategies by name (benchmark names, presets, CLIs) and the one
//! dispatch from names to the mapping's template arguments, shared by the inner suite's
//! programs (synthetic, BFS, traffic), each over the layouts it runs.

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "lb/layout/inner_array.hpp"

namespace lb::inner {

using layout::InnerLayout;
using layout::InnerStrategy;

constexpr std::string_view to_string(InnerLayout l) {
  switch (l) {
    case InnerLayout::aos: return "aos";
    case InnerLayout::soa: return "soa";
    case InnerLayout::aosoa32: return "aosoa32";
  }
  return "?";
}
constexpr std::string_view to_string(InnerStrategy s) {
  switch (s) {
    case InnerStrategy::none: return "none";
    case InnerStrategy::partial: return "partial";
    case InnerStrategy::full: return "full";
    case InnerStrategy::object: return "object";
  }
  return "?";
}

//! The layouts a program runs: the paper's AoS and SoA (every inner program), and beyond the
//! paper aosoa32 (Kofler's method's choice for the synthetic object and the traffic car,
//! docs/advisor.md §6).
template <InnerLayout... Ls>
struct InnerLayoutList {};
using PaperInnerLayouts = InnerLayoutList<InnerLayout::aos, InnerLayout::soa>;
using SyntheticInnerLayouts = InnerLayoutList<InnerLayout::aos, InnerLayout::soa, InnerLayout::aosoa32>;
using TrafficInnerLayouts = InnerLayoutList<InnerLayout::aos, InnerLayout::soa, InnerLayout::aosoa32>;

template <InnerLayout... Ls>
std::vector<std::string> layout_names(InnerLayoutList<Ls...>) {
  return {std::string(to_string(Ls))...};
}

//! Throw std::invalid_argument("unknown ... 'x' (expected one of: ...)").
inline InnerLayout parse_inner_layout(std::string_view name) {
  for (InnerLayout l : {InnerLayout::aos, InnerLayout::soa, InnerLayout::aosoa32})
    if (name == to_string(l)) return l;
  throw std::invalid_argument("unknown inner-array layout '" + std::string(name) +
                              "' (expected one of: aos, soa, aosoa32)");
}
inline InnerStrategy parse_inner_strategy(std::string_view name) {
  for (InnerStrategy s : {InnerStrategy::none, InnerStrategy::partial, InnerStrategy::full, InnerStrategy::object})
    if (name == to_string(s)) return s;
  throw std::invalid_argument("unknown inner-array strategy '" + std::string(name) +
                              "' (expected one of: none, partial, full, object)");
}

//! Throws std::invalid_argument unless `l` is one of the program's layouts.
template <InnerLayout... Ls>
void check_inner_layout(InnerLayout l, InnerLayoutList<Ls...> list) {
  if (((l == Ls) || ...)) return;
  std::string names;
  for (const auto& n : layout_names(list)) names += (names.empty() ? "" : ", ") + n;
  throw std::invalid_argument("inner-array layout '" + std::string(to_string(l)) +
                              "' is not one this program runs (expected one of: " + names + ")");
}

namespace detail {
template <InnerLayout L, InnerLayout... Rest, class G>
decltype(auto) dispatch_layout(InnerLayout l, G& g) {
  if constexpr (sizeof...(Rest) == 0) {
    return g.template operator()<L>();  // checked: the last candidate is the one named
  } else {
    if (l == L) return g.template operator()<L>();
    return dispatch_layout<Rest...>(l, g);
  }
}
}  // namespace detail

//! Calls f.template operator()<L, S>() for the run-time (layout, strategy) and returns its
//! result; a layout outside the program's `Layouts` throws as check_inner_layout says.
template <class Layouts = PaperInnerLayouts, class F>
decltype(auto) dispatch_inner(InnerLayout l, InnerStrategy s, F&& f) {
  check_inner_layout(l, Layouts{});
  auto with_strategy = [&]<InnerLayout L>() -> decltype(auto) {
    switch (s) {
      case InnerStrategy::none: return f.template operator()<L, InnerStrategy::none>();
      case InnerStrategy::partial: return f.template operator()<L, InnerStrategy::partial>();
      case InnerStrategy::full: return f.template operator()<L, InnerStrategy::full>();
      case InnerStrategy::object: break;
    }
    return f.template operator()<L, InnerStrategy::object>();
  };
  return [&]<InnerLayout... Ls>(InnerLayoutList<Ls...>) -> decltype(auto) {
    return detail::dispatch_layout<Ls...>(l, with_strategy);
  }(Layouts{});
}

}  // namespace lb::inner

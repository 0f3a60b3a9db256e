//! Springer, Sun & Masuhara 2018 (inner array inlining): what the suite's programs share, their
//! ids and axes. Each program lives in benches/inner/ and plans its own benchmarks from its
//! object in the preset.

#include <algorithm>

#include "inner/programs.hpp"

namespace lb::harness {
namespace inner {

BenchmarkId inner_id(InnerStrategy s, InnerLayout l, std::size_t inline_count, std::string key, std::string value) {
  return {.version = std::string(lb::inner::to_string(s)),
          .layout = std::string(lb::inner::to_string(l)),
          .precision = "int",
          .params = {{"inline", std::to_string(inline_count)}, {std::move(key), std::move(value)}}};
}

std::vector<Axis> inner_axes(Axis last) {
  Axis strategies{"strategy", {}}, layouts{"layout", {}};
  for (InnerStrategy s : {InnerStrategy::none, InnerStrategy::partial, InnerStrategy::full, InnerStrategy::object})
    strategies.values.emplace_back(lb::inner::to_string(s));
  for (InnerLayout l : {InnerLayout::aos, InnerLayout::soa}) layouts.values.emplace_back(lb::inner::to_string(l));
  return {strategies, layouts, {"precision", {"int"}}, {"inline", {}}, std::move(last)};
}

std::vector<std::size_t> inline_counts(InnerStrategy s, const std::vector<std::size_t>& inline_sizes, std::size_t max) {
  if (s == InnerStrategy::none) return {0};
  if (s != InnerStrategy::partial) return {max};
  std::vector<std::size_t> out;
  std::copy_if(inline_sizes.begin(), inline_sizes.end(), std::back_inserter(out), [&](std::size_t n) { return n <= max; });
  return out;
}

}  // namespace inner

}  // namespace lb::harness

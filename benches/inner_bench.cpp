//! Springer, Sun & Masuhara 2018 (inner array inlining): the suite's planner. Each program
//! lives in benches/inner/ and plans its own benchmarks from its object in the preset.

#include <algorithm>

#include <fmt/format.h>

#include "inner/programs.hpp"

namespace lb::harness {
namespace inner {

const std::vector<Program>& programs() {
  static const std::vector<Program> all = {
      {"synthetic", plan_inner_synthetic},
      {"bfs", plan_inner_bfs},
  };
  return all;
}

std::string benchmark_name(std::string_view app, InnerStrategy s, InnerLayout l, std::size_t inline_count,
                           std::string_view last) {
  return fmt::format("inner/{}/{}/{}/int/inline:{}/{}", app, lb::inner::to_string(s), lb::inner::to_string(l),
                     inline_count, last);
}

std::vector<std::size_t> inline_counts(InnerStrategy s, const std::vector<std::size_t>& inline_sizes, std::size_t max) {
  if (s == InnerStrategy::none) return {0};
  if (s != InnerStrategy::partial) return {max};
  std::vector<std::size_t> out;
  std::copy_if(inline_sizes.begin(), inline_sizes.end(), std::back_inserter(out), [&](std::size_t n) { return n <= max; });
  return out;
}

}  // namespace inner

std::vector<PlannedBenchmark> plan_inner(const Preset& preset, const Overrides& overrides) {
  if (!preset.suites.contains("inner")) throw preset.error_at("suites", "this preset has no 'inner' suite");
  const auto& j = preset.suites["inner"];
  if (!j.is_object()) throw preset.error_at("inner", "'inner' must be an object of programs");
  const auto& all = inner::programs();
  for (const auto& [name, config] : j.items())
    if (std::none_of(all.begin(), all.end(), [&](const inner::Program& p) { return p.name == name; })) {
      std::string known;
      for (const auto& p : all) known += (known.empty() ? "" : ", ") + std::string(p.name);
      throw preset.error_at(name, fmt::format("unknown inner-array program '{}' (expected one of: {})", name, known), "inner");
    }
  std::vector<PlannedBenchmark> plan;
  for (const auto& program : all)  // run order is the suite's, not the file's
    if (j.contains(program.name)) {
      auto part = program.plan(preset, j[std::string(program.name)], program.name, overrides);
      plan.insert(plan.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
    }
  if (plan.empty()) throw preset.no_benchmark("inner", overrides.precisions);
  return plan;
}

}  // namespace lb::harness

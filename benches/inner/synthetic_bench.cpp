//! Springer et al. 2018, Fig. 10a: the synthetic program's planner. For every (AoS | SoA) x
//! (none | partial N | full | object), the inlining sweep at the paper's 262,144 objects and a
//! sweep of object counts (the variant: synthetic_variant.cu).
//!
//!   "synthetic": {"objects": 262144, "inline_sizes": [0, 8, ..., 64], "layouts": ["aos", "soa"],
//!                 "strategies": ["none", "partial", "full", "object"],
//!                 "object_counts": [16384, ...], "scaling_inline_sizes": [0, 32, 64], "block": 256}

#include <set>

#include <fmt/format.h>

#include "inner/programs.hpp"
#include "lb/inner/synthetic.hpp"

namespace lb::harness::inner {
namespace {

using lb::inner::kSyntheticMax;

struct Config {
  std::vector<std::size_t> objects;  //!< the inlining sweep's object counts (the paper: 262,144)
  std::vector<std::size_t> inline_sizes;
  std::vector<InnerLayout> layouts;
  std::vector<InnerStrategy> strategies;
  std::vector<std::size_t> object_counts;         //!< the scaling sweep
  std::vector<std::size_t> scaling_inline_sizes;  //!< partial's N in the scaling sweep
  int block = 256;
};

Config read_config(const Preset& preset, const nlohmann::json& j, std::string_view where, const Overrides& overrides) {
  preset.check_keys(j, where, {"objects", "inline_sizes", "layouts", "strategies", "object_counts",
                               "scaling_inline_sizes", "block"});
  Config c;
  if (!j.contains("objects") || !j["objects"].is_number_unsigned() || j["objects"].get<std::size_t>() < 1)
    throw preset.error_at(where, "'synthetic' needs 'objects', a positive integer", "inner");
  c.objects = {j["objects"].get<std::size_t>()};
  const auto sizes = preset.list_at<int>(j, "inline_sizes", where);
  for (int n : sizes) {
    if (n < 0 || n > static_cast<int>(kSyntheticMax))
      throw preset.error_at("inline_sizes", fmt::format("inline sizes must lie in [0, {}]; got {}", kSyntheticMax, n), where);
    c.inline_sizes.push_back(static_cast<std::size_t>(n));
  }
  c.layouts = preset.parsed_list_at(j, "layouts", where, lb::inner::parse_inner_layout);
  c.strategies = preset.parsed_list_at(j, "strategies", where, lb::inner::parse_inner_strategy);
  if (j.contains("object_counts")) c.object_counts = preset.list_at<std::size_t>(j, "object_counts", where);
  if (!overrides.sizes.empty()) {  // --sizes: the inlining sweep at those object counts only
    c.objects = overrides.sizes;
    c.object_counts.clear();
  }
  if (j.contains("scaling_inline_sizes")) {
    for (int n : preset.list_at<int>(j, "scaling_inline_sizes", where)) {
      if (n < 0 || n > static_cast<int>(kSyntheticMax))
        throw preset.error_at("scaling_inline_sizes", fmt::format("inline sizes must lie in [0, {}]; got {}", kSyntheticMax, n), where);
      c.scaling_inline_sizes.push_back(static_cast<std::size_t>(n));
    }
  }
  if (j.contains("block")) {
    if (!j["block"].is_number_integer() || j["block"].get<int>() < 32 || j["block"].get<int>() > 1024 ||
        j["block"].get<int>() % 32 != 0)
      throw preset.error_at("block", "'block' must be a multiple of 32 in [32, 1024]", where);
    c.block = j["block"].get<int>();
  }
  return c;
}

std::vector<PlannedCase> plan_synthetic(const Preset& preset, const nlohmann::json& j, std::string_view where,
                                        const Overrides& overrides) {
  const Config c = read_config(preset, j, where, overrides);
  Cases plan;  // counted against the plan limit
  std::set<std::string> planned;
  auto add = [&](InnerLayout l, InnerStrategy s, std::size_t inline_count, std::size_t objects) {
    const SyntheticCase sc{l, s, s == InnerStrategy::partial ? inline_count : 0, objects, c.block};
    BenchmarkId id = inner_id(s, l, inline_count, "objects", std::to_string(objects));
    if (!planned.insert(benchmark_name(id)).second) return;
    plan.push_back({std::move(id), {Where::gpu, synthetic_memory_need(sc),
                                    [sc] { return std::unique_ptr<Variant>(make_synthetic_variant(sc)); }}});
  };
  auto sweep = [&](const std::vector<std::size_t>& object_counts, const std::vector<std::size_t>& inline_sizes) {
    for (std::size_t objects : object_counts)  // outermost: the inputs are made once per count
      for (InnerLayout l : c.layouts)
        for (InnerStrategy s : c.strategies)
          for (std::size_t n : inline_counts(s, inline_sizes, kSyntheticMax)) add(l, s, n, objects);
  };
  sweep(c.objects, c.inline_sizes);
  sweep(c.object_counts, c.scaling_inline_sizes.empty() ? c.inline_sizes : c.scaling_inline_sizes);
  return plan;
}

}  // namespace

Program synthetic_program() {
  return {"synthetic",
          inner_axes({"objects", {}}),
          {"objects", "inline", "footprint_inline_bytes", "footprint_arena_bytes", "footprint_wasted_bytes"},
          plan_synthetic};
}

}  // namespace lb::harness::inner

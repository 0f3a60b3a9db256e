//! Springer et al. 2018, Fig. 10a: the synthetic program's axes and expansion. For every (AoS | SoA) x
//! (none | partial N | full | object), the inlining sweep at the paper's 262,144 objects and a
//! sweep of object counts (the variant: synthetic_variant.cu); beyond the paper the same for
//! aosoa32 (value and size in tiles of 32 objects: Kofler's method's choice, docs/advisor.md §6).
//!
//!   "synthetic": {"objects": 262144, "inline_sizes": [0, 8, ..., 64], "layouts": ["aos", "soa", "aosoa32"],
//!                 "strategies": ["none", "partial", "full", "object"],
//!                 "object_counts": [16384, ...], "scaling_inline_sizes": [0, 32, 64], "block": 256}

#include <set>

#include <fmt/format.h>

#include "inner/synthetic_bench.hpp"
#include "lb/inner/synthetic.hpp"

namespace lb::benches::inner {
namespace {

using lb::inner::kSyntheticMax;

//! The settings of the program's object: the object-count sweep and the block.
struct Settings {
  std::vector<std::size_t> object_counts;       //!< the scaling sweep
  std::vector<AxisValue> scaling_inline_sizes;  //!< partial's N in the scaling sweep (none: inline_sizes')
  int block = 256;
};

Settings read_settings(const Reader& read) {
  const Preset& preset = read.preset();
  const nlohmann::json& j = read.object();
  const std::string_view where = read.where();
  Settings c;
  if (j.contains("object_counts")) c.object_counts = preset.list_at<std::size_t>(j, "object_counts", where);
  if (j.contains("scaling_inline_sizes")) {
    for (int n : preset.list_at<int>(j, "scaling_inline_sizes", where)) {
      if (n < 0 || n > static_cast<int>(kSyntheticMax))
        throw preset.error_at("scaling_inline_sizes", fmt::format("inline sizes must lie in [0, {}]; got {}", kSyntheticMax, n), where);
      c.scaling_inline_sizes.push_back({std::to_string(n), std::int64_t{n}});
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

//! The inlining sweep at `objects`: each layout x strategy x its inline counts; then the
//! object-count sweep: each of object_counts the same at scaling_inline_sizes (a name the
//! first planned is planned once).
Expansion expand_synthetic(const Reader& read) {
  const Settings c = read_settings(read);
  const Steps inlining = [](const Point& at, const Reader& r) {
    return inline_steps(at, r.values("inline"), kSyntheticMax);
  };
  const Steps counts = [c](const Point&, const Reader&) {
    std::vector<Step> out;
    for (std::size_t n : c.object_counts) out.push_back({{"objects", {std::to_string(n), n}}});
    return out;
  };
  const Steps scaling = [c](const Point& at, const Reader& r) {
    return inline_steps(at, c.scaling_inline_sizes.empty() ? r.values("inline") : c.scaling_inline_sizes,
                        kSyntheticMax);
  };
  // Outermost: the inputs are made once per object count.
  auto per_objects = [](Steps inline_values) {
    return std::vector<Loop>{
        over("layout", {over("strategy", {over("precision", {over("inline", std::move(inline_values))})})})};
  };
  return {.loops = {over("objects", per_objects(inlining)), over("objects", counts, per_objects(scaling))},
          .make = [block = c.block](const Point& at) {
            const InnerStrategy s = strategy_of(at);
            const std::size_t n = static_cast<std::size_t>(at.get<std::int64_t>("inline"));
            const SyntheticCase sc{layout_of(at), s, s == InnerStrategy::partial ? n : 0,
                                   at.get<std::size_t>("objects"), block};
            return ProgramCase{Where::gpu, synthetic_memory_need(sc),
                               [sc] { return std::unique_ptr<Variant>(make_synthetic_variant(sc)); }};
          }};
}

}  // namespace

Program synthetic_program() {
  return {"synthetic",
          inner_axes(kSyntheticMax, true,
                     {{.name = "objects",
                       .type = AxisType::count,
                       .key = "objects",
                       .limits =
                           [](const nlohmann::json& v) {
                             return v.is_number_unsigned() && v.get<std::uint64_t>() >= 1
                                        ? ""
                                        : "'synthetic' needs 'objects', a positive integer";
                           },
                       .shorthand = Shorthand::sizes,
                       .scalar = true}},
                     lb::inner::layout_names(lb::inner::SyntheticInnerLayouts{})),
          {"objects", "inline", "footprint_inline_bytes", "footprint_arena_bytes", "footprint_wasted_bytes"},
          {"object_counts", "scaling_inline_sizes", "block"},
          expand_synthetic};
}

}  // namespace lb::benches::inner

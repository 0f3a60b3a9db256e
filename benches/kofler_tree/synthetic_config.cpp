#include "kofler_tree/synthetic_config.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "lb/kofler/tree_synthetic.hpp"
#include "lb/layout/decision_tree.hpp"

namespace lb::benches::kofler_tree {

namespace {

namespace tree = lb::kofler::tree;

//! The integers of `key`, each checked by `ok` (else "<key>: <requirement>; <value> is not").
template <class Ok>
std::vector<std::size_t> integers(const harness::Preset& preset, const nlohmann::json& j, const char* key, std::string_view where,
                                  Ok ok, std::string_view requirement) {
  const auto values = preset.list_at<std::size_t>(j, key, where);
  for (std::size_t v : values)
    if (!ok(v)) throw preset.error_at(key, fmt::format("'{}' must be {}; {} is not", key, requirement, v), where);
  return values;
}

//! Whether `v` is an integer in [low, high] as written (a value never wrapped or cut to fit).
bool integer_within(const nlohmann::json& v, std::uint64_t low, std::uint64_t high) {
  if (v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() < 0) return false;
  return v.is_number_integer() && v.get<std::uint64_t>() >= low && v.get<std::uint64_t>() <= high;
}

//! A positive number (`key` of j), or `fallback` where the object has none.
double positive_number(const harness::Preset& preset, const nlohmann::json& j, const char* key, std::string_view where,
                       double fallback, double max) {
  if (!j.contains(key)) return fallback;
  if (!j[key].is_number() || j[key].get<double>() <= 0 || j[key].get<double>() > max)
    throw preset.error_at(key, fmt::format("'{}' must be a number in (0, {}]", key, max), where);
  return j[key].get<double>();
}

}  // namespace

TreeSection read_tree_section(const harness::Preset& preset, const nlohmann::json& j, std::string_view where) {
  preset.check_keys(j, where, {"records", "threads", "iterations", "fields", "layouts", "tiles", "block",
                               "repetitions", "min_time_s", "fit"});
  TreeSection s;
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  if (!j.contains("records") || !integer_within(j["records"], 1, kMax))
    throw preset.error_at(where, "'kofler-tree' needs 'records', a positive integer");
  s.records = j["records"].get<std::size_t>();
  // Optional: one thread count for every n (docs/kofler-tree.md); without it records / n.
  if (j.contains("threads")) {
    if (!integer_within(j["threads"], 1, kMax)) throw preset.error_at("threads", "'threads' must be a positive integer", where);
    s.threads = j["threads"].get<std::size_t>();
  }
  s.iterations = integers(preset, j, "iterations", where, power_of_two, "a power of two");
  s.fields = integers(preset, j, "fields", where, [](std::size_t m) { return m >= 1 && m <= tree::kMaxFields; },
                      fmt::format("a field count from 1 to {}", tree::kMaxFields));
  s.layouts = preset.list_at<std::string>(j, "layouts", where);
  for (const auto& l : s.layouts)
    if (std::find(kTreeLayouts.begin(), kTreeLayouts.end(), l) == kTreeLayouts.end())
      throw preset.error_at("layouts", fmt::format("unknown layout '{}' (expected one of: {})", l, fmt::join(kTreeLayouts, ", ")),
                            where);
  // The training's tiles are the classes a tree may name (lb::layout::kMaxTreeTile).
  if (std::find(s.layouts.begin(), s.layouts.end(), "tiled") != s.layouts.end())
    s.tiles = integers(preset, j, "tiles", where,
                       [](std::size_t t) { return t >= 2 && t <= layout::kMaxTreeTile && power_of_two(t); },
                       fmt::format("a power of two from 2 to {}", layout::kMaxTreeTile));
  if (j.contains("block")) {
    if (!integer_within(j["block"], 32, 1024) || j["block"].get<int>() % 32 != 0)
      throw preset.error_at("block", "'block' must be a multiple of 32 in [32, 1024]", where);
    s.block = j["block"].get<int>();
  }
  if (j.contains("repetitions")) {
    if (!integer_within(j["repetitions"], 1, 100))
      throw preset.error_at("repetitions", "'repetitions' must be an integer from 1 to 100", where);
    s.repetitions = j["repetitions"].get<int>();
  }
  s.min_time_s = positive_number(preset, j, "min_time_s", where, 0, 10);
  // Whole tiles only: a partial tile's padding would hold words the validation's checksum of
  // every word does not expect.
  for (std::size_t t : s.tiles)
    if (s.records % t != 0)
      throw preset.error_at("records", fmt::format("'records' {} must be a multiple of every tile ({} is not a divisor)",
                                                   s.records, t), where);
  for (std::size_t n : s.iterations)
    if (const char* why = tree::Geometry{s.records, static_cast<std::uint32_t>(n), s.threads}.problem(); *why)
      throw preset.error_at(s.threads ? "threads" : "records",
                            s.threads ? fmt::format("'threads' {} with 'records' {} and {} iterations: {}", s.threads,
                                                    s.records, n, why)
                                      : fmt::format("'records' {} with {} iterations: {}", s.records, n, why),
                            where);
  return s;
}

}  // namespace lb::benches::kofler_tree

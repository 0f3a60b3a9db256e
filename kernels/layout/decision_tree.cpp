#include "lb/layout/decision_tree.hpp"

#include <functional>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lb/datasets/json_text.hpp"
#include "lb/datasets/points.hpp"
#include "lb/datasets/text.hpp"
#include "lb/layout/choice.hpp"

namespace lb::layout {

const ClusterLayout& DecisionTree::class_for(std::uint64_t cluster_bytes) const {
  if (cluster_bytes == 0) throw std::invalid_argument(source + ": a cluster of 0 bytes has no class");
  for (const Interval& i : intervals)
    if (cluster_bytes >= i.from_bytes && cluster_bytes <= i.to_bytes) return i.layout;
  throw std::invalid_argument(fmt::format("{}: no interval holds {} bytes", source, cluster_bytes));
}

namespace {

//! `object[key]` as a string, or the tree's error naming what it is for.
std::string string_at(const nlohmann::json& object, const char* key, const std::string& what,
                      const std::function<std::invalid_argument(const std::string&)>& fail) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_string())
    throw fail(fmt::format("{} needs '{}' (a string)", what, key));
  return object[key].get<std::string>();
}

//! The layout of a class: "aos", "soa", or "tiled:<t>" with t from 1 to kMaxTreeTile (a tile of
//! any more digits is named out of range, not an unknown class).
ClusterLayout tree_class(const std::string& text, const std::string& at,
                         const std::function<std::invalid_argument(const std::string&)>& fail) {
  constexpr std::string_view kTiled = "tiled:";
  const std::string_view digits = std::string_view(text).substr(text.starts_with(kTiled) ? kTiled.size() : text.size());
  std::size_t tile = 0;
  if (!digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos &&
      (!datasets::text::parse_size(digits, tile) || tile < 1 || tile > kMaxTreeTile))
    throw fail(fmt::format("{}: class '{}': the tile is out of range (1 to {} records, the training's tiles)", at, text,
                           kMaxTreeTile));
  const auto layout = parse_cluster_layout(text);
  if (!layout) throw fail(fmt::format("{}: unknown class '{}' (aos, soa or tiled:<t>)", at, text));
  return *layout;
}

//! An integer ≥ 1, however the JSON stores it (parsed: unsigned; built in code: signed).
bool positive_integer(const nlohmann::json& v) {
  return v.is_number_unsigned() ? v.get<std::uint64_t>() >= 1 : v.is_number_integer() && v.get<std::int64_t>() >= 1;
}

}  // namespace

DecisionTree decision_tree_from_json(const nlohmann::json& j, const std::string& source) {
  const auto fail = [&](const std::string& problem) { return std::invalid_argument(source + ": " + problem); };
  if (!j.is_object()) throw fail("a decision tree is a JSON object");
  if (const std::string format = string_at(j, "format", "the tree", fail); format != kTreeFormat)
    throw fail(fmt::format("format '{}' is not '{}'", format, kTreeFormat));
  if (const std::string feature = string_at(j, "feature", "the tree", fail); feature != "cluster_bytes")
    throw fail(fmt::format("feature '{}' is not 'cluster_bytes'", feature));
  if (const std::string unit = string_at(j, "tile_unit", "the tree", fail); unit != "records")
    throw fail(fmt::format("tile_unit '{}' is not 'records'", unit));
  DecisionTree tree;
  tree.source = source;
  if (!j.contains("gpu")) throw fail("the tree needs 'gpu' ({\"name\", \"uuid\"})");
  tree.gpu_name = string_at(j["gpu"], "name", "'gpu'", fail);
  tree.gpu_uuid = string_at(j["gpu"], "uuid", "'gpu'", fail);
  if (!j.contains("intervals") || !j["intervals"].is_array() || j["intervals"].empty())
    throw fail("'intervals' must be a non-empty list");
  const auto& intervals = j["intervals"];
  for (std::size_t k = 0; k < intervals.size(); ++k) {
    const auto& i = intervals[k];
    const std::string at = fmt::format("interval {}", k + 1);
    if (!i.is_object() || !i.contains("from_bytes") || !positive_integer(i["from_bytes"]))
      throw fail(at + ": 'from_bytes' must be a positive integer");
    const std::uint64_t from = i["from_bytes"].get<std::uint64_t>();
    const bool last = k + 1 == intervals.size();
    if (!i.contains("to_bytes") || !(i["to_bytes"].is_null() || positive_integer(i["to_bytes"])))
      throw fail(at + ": 'to_bytes' must be a positive integer or null");
    if (i["to_bytes"].is_null() != last)
      throw fail(last ? at + ": the last interval's 'to_bytes' must be null (no upper end)"
                      : at + ": only the last interval's 'to_bytes' is null");
    const std::uint64_t to = last ? DecisionTree::kUnbounded : i["to_bytes"].get<std::uint64_t>();
    if (to < from) throw fail(fmt::format("{}: to_bytes {} is below from_bytes {}", at, to, from));
    const std::uint64_t expected = tree.intervals.empty() ? 1 : tree.intervals.back().to_bytes + 1;
    if (from != expected)
      throw fail(tree.intervals.empty()
                     ? fmt::format("{}: the intervals must start at 1 byte, not {}", at, from)
                     : fmt::format("{}: from_bytes {} {} the previous interval, which ends at {}", at, from,
                                   from < expected ? "overlaps" : "leaves a gap after", expected - 1));
    tree.intervals.push_back({from, to, tree_class(string_at(i, "class", at, fail), at, fail)});
  }
  return tree;
}

DecisionTree read_decision_tree(const std::string& path) {
  // Read as presets are: a size limit (an endless input is refused), errors at a line, a key
  // given twice in one object refused.
  try {
    const std::string text =
        datasets::text::read_bounded(path, datasets::text::max_input_bytes(datasets::text::kMaxPresetBytes));
    return decision_tree_from_json(datasets::parse_json_text(text, path), path);
  } catch (const datasets::InputError& e) {
    throw std::invalid_argument(e.what());
  }
}

}  // namespace lb::layout

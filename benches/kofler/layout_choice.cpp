#include "layout_choice.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace lb::harness::kofler {

std::vector<LayoutChoice> layout_choices(const Preset& preset, const nlohmann::json& j, std::string_view where,
                                         std::size_t size, const std::vector<std::string>& field_names,
                                         const std::vector<std::size_t>& compile_time_tiles,
                                         const std::vector<std::string>& compile_time_partitions) {
  const layout::ChoiceLists lists{
      [&](const char* key) { return preset.list_at<std::string>(j, key, where); },
      [&](const char* key) { return preset.list_at<std::size_t>(j, key, where); },
      [&](const nlohmann::json& object, std::string_view in, std::initializer_list<std::string_view> allowed) {
        preset.check_keys(object, in, allowed);
      }};
  try {
    return layout::read_choices(j, where, lists, size, field_names, compile_time_tiles, compile_time_partitions);
  } catch (const layout::ChoiceError& e) {
    throw preset.error_at(e.key, e.what(), e.within);
  }
}

std::vector<std::size_t> program_sizes(const Preset& preset, const nlohmann::json& j, const char* key,
                                       std::string_view where, const Overrides& overrides,
                                       const std::function<bool(std::size_t)>& ok, std::string_view requirement) {
  const bool overridden = !overrides.sizes.empty();
  const auto sizes = overridden ? overrides.sizes : preset.list_at<std::size_t>(j, key, where);
  for (const std::size_t n : sizes) {
    if (ok(n)) continue;
    const std::string problem = fmt::format("{} must be {}; {} is not", key, requirement, n);
    if (overridden) throw std::invalid_argument(fmt::format("--sizes: {} (for {})", problem, where));
    throw preset.error_at(key, problem, where);
  }
  return sizes;
}

bool precision_wanted(const Overrides& overrides, std::string_view precision) {
  return overrides.precisions.empty() ||
         std::find(overrides.precisions.begin(), overrides.precisions.end(), precision) != overrides.precisions.end();
}

void refuse_split_layouts(const Preset& preset, const nlohmann::json& j, std::string_view where,
                          std::string_view program) {
  for (const auto& l : preset.list_at<std::string>(j, "layouts", where))
    if (l == "split" || l == "split-ct")
      throw preset.error_at("layouts", fmt::format("{} has no field partitions: layout '{}' (aos, soa, tiled, tiled-ct)",
                                                   program, l),
                            where);
}

BenchmarkId kofler_id(std::string version, const LayoutChoice& layout, std::string precision, std::size_t size) {
  BenchmarkId id{.version = std::move(version), .layout = layout.layout, .precision = std::move(precision)};
  if (const std::string param = layout.param(); !param.empty()) {
    const auto colon = param.find(':');
    id.params.emplace_back(param.substr(0, colon), param.substr(colon + 1));
  }
  id.params.emplace_back("size", std::to_string(size));
  return id;
}

std::vector<Axis> kofler_axes(std::vector<std::string> versions, std::vector<std::string> precisions, bool partitions,
                              const std::vector<std::size_t>& compile_time_tiles,
                              std::vector<std::string> compile_time_partitions) {
  Axis layouts{"layout", {"aos", "soa", "tiled", "tiled-ct"}};
  if (partitions) layouts.values.insert(layouts.values.end(), {"split", "split-ct"});
  Axis tiles{"compile_time_tile", {}};
  for (std::size_t t : compile_time_tiles) tiles.values.push_back(std::to_string(t));
  std::vector<Axis> axes{{"version", std::move(versions)}, layouts, {"precision", std::move(precisions)}, {"tile", {}},
                         tiles};
  if (partitions)
    axes.insert(axes.end(), {{"partition", {}}, {"compile_time_partition", std::move(compile_time_partitions)}});
  axes.push_back({"size", {}});
  return axes;
}

}  // namespace lb::harness::kofler

#include "layout_choice.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>

#include "lb/kofler/recorded.hpp"
#include "lb/layout/decision_tree.hpp"

namespace lb::harness::kofler {

namespace {

//! `program`'s KDLG partition from its recorded accesses, recorded once per process.
layout::KdlgPartition recorded_partition(const std::string& program, const std::vector<std::string>& field_names) {
  static std::mutex mutex;
  static std::map<std::string, layout::KdlgPartition> partitions;
  std::lock_guard lock(mutex);
  if (const auto it = partitions.find(program); it != partitions.end()) return it->second;
  const lb::kofler::RecordedProgram r = lb::kofler::record_program(program);
  if (r.field_names != field_names)
    throw std::invalid_argument(fmt::format("{} records the fields {}, not the program's {}", program,
                                            fmt::join(r.field_names, ", "), fmt::join(field_names, ", ")));
  return partitions[program] = layout::kdlg_partition(layout::program_kdlg(r.field_bytes, r.kernels));
}

//! The tree at `path`, read once per process: the planners of every program ask for it, and
//! the method's choices point at it while planning.
const layout::DecisionTree& tree_at(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<const layout::DecisionTree>> trees;
  std::lock_guard lock(mutex);
  auto& tree = trees[path];
  if (!tree) tree = std::make_unique<const layout::DecisionTree>(layout::read_decision_tree(path));
  return *tree;
}

}  // namespace

SuiteInput tree_input() {
  return {.name = kTreeInput,
          .description = "the GPU's decision tree (JSON) for the Kofler method's tiled-tree and kdlg-tree layouts",
          .read = [](const std::string& path) { tree_at(path); },
          .from = {.suite = "kofler-tree", .step = "fit", .output = "tree"}};
}

const layout::DecisionTree* decision_tree(const Overrides& overrides) {
  const auto it = overrides.inputs.find(kTreeInput);
  return it == overrides.inputs.end() ? nullptr : &tree_at(it->second);
}

layout::MethodSource method_source(std::string program, std::vector<std::string> field_names,
                                   std::vector<std::size_t> field_bytes, const Overrides& overrides) {
  return {[program, names = std::move(field_names)] { return recorded_partition(program, names); },
          std::move(field_bytes), decision_tree(overrides),
          fmt::format("give --{} FILE (make reproduce trains one: suite kofler-tree, docs/kofler-tree.md)", kTreeInput)};
}

std::vector<LayoutChoice> layout_choices(const Preset& preset, const nlohmann::json& j, std::string_view where,
                                         std::size_t size, const std::vector<std::string>& field_names,
                                         const std::vector<std::size_t>& compile_time_tiles,
                                         const std::vector<std::string>& compile_time_partitions,
                                         const layout::MethodSource* method) {
  const layout::ChoiceLists lists{
      [&](const char* key) { return preset.list_at<std::string>(j, key, where); },
      [&](const char* key) { return preset.list_at<std::size_t>(j, key, where); },
      [&](const nlohmann::json& object, std::string_view in, std::initializer_list<std::string_view> allowed) {
        preset.check_keys(object, in, allowed);
      }};
  try {
    return layout::read_choices(j, where, lists, size, field_names, compile_time_tiles, compile_time_partitions,
                                method);
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

BenchmarkId kofler_id(std::string version, const LayoutChoice& layout, std::string precision, std::size_t size) {
  BenchmarkId id{.version = std::move(version), .layout = std::string(layout.name()), .precision = std::move(precision)};
  id.params = layout.params();
  id.params.emplace_back("size", std::to_string(size));
  return id;
}

PlannedCase kofler_case(std::string version, const LayoutChoice& layout, std::string precision, std::size_t size,
                        ProgramCase run) {
  run.label = layout.label();
  // Fails before the program makes anything (its reference): the tree's value without a tree.
  if (auto why = layout.unavailable(); !why.empty()) run.make = [why = std::move(why)]() -> std::unique_ptr<Variant> {
    throw std::invalid_argument(why);
  };
  return {kofler_id(std::move(version), layout, std::move(precision), size), std::move(run)};
}

std::vector<Axis> kofler_axes(std::vector<std::string> versions, std::vector<std::string> precisions,
                              const std::vector<std::size_t>& compile_time_tiles,
                              std::vector<std::string> compile_time_partitions) {
  const layout::ProgramKinds kinds{compile_time_tiles, compile_time_partitions};
  Axis tiles{"compile_time_tile", {}};
  for (std::size_t t : compile_time_tiles) tiles.values.push_back(std::to_string(t));
  std::vector<Axis> axes{{"version", std::move(versions)},
                         {"layout", kinds.taken()},
                         {"precision", std::move(precisions)},
                         {std::string(layout::kTileParam), {}},
                         tiles,
                         {std::string(layout::kPartitionParam), {}}};
  if (!compile_time_partitions.empty()) axes.push_back({"compile_time_partition", std::move(compile_time_partitions)});
  axes.push_back({std::string(layout::kTilesParam), {}});  // kdlg-tiles: each KDLG cluster of several fields's tile
  axes.push_back({"size", {}});
  return axes;
}

}  // namespace lb::harness::kofler

#include "kofler/layout_choice.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>

#include "lb/harness/noise.hpp"
#include "lb/kofler/recorded.hpp"
#include "lb/layout/decision_tree.hpp"

namespace lb::benches::kofler {

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
          .description = "the GPU's decision tree (JSON) for the Kofler method's tiled-tree and kdlg-tree layouts and kdlg-tree-plus",
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

std::vector<Step> layout_steps(const Reader& read, std::size_t size, const std::vector<std::string>& field_names,
                               const std::vector<std::size_t>& compile_time_tiles,
                               const std::vector<std::string>& compile_time_partitions,
                               const layout::MethodSource* method) {
  std::vector<Step> out;
  for (LayoutChoice& c : layout_choices(read.preset(), read.object(), read.where(), size, field_names,
                                        compile_time_tiles, compile_time_partitions, method)) {
    Step step;
    for (const auto& [key, value] : c.params()) step.emplace_back(key, AxisValue{value, value});
    // What a compile-time layout instantiates, for --axis to narrow (not in the name).
    if (const auto* t = std::get_if<kind::TiledCt>(&c.kind))
      step.emplace_back("compile_time_tile", AxisValue{std::to_string(t->tile), t->tile});
    if (const auto* p = std::get_if<kind::SplitCt>(&c.kind))
      step.emplace_back("compile_time_partition", AxisValue{p->partition, p->partition});
    std::string name(c.name());
    step.insert(step.begin(), {"layout", AxisValue{std::move(name), std::move(c)}});
    out.push_back(std::move(step));
  }
  return out;
}

ProgramCase kofler_run(const LayoutChoice& layout, Where where, MemoryNeed memory, MakeVariant make) {
  ProgramCase run{where, memory, [layout, make] { return make(layout); }, 0, 0, layout.label()};
  // Fails before the program makes anything (its reference): the tree's value without a tree.
  if (auto why = layout.unavailable(); !why.empty())
    run.make = [why = std::move(why)]() -> std::unique_ptr<Variant> { throw std::invalid_argument(why); };
  else if (const auto* plus = std::get_if<kind::KdlgTreePlus>(&layout.kind))
    run.make = [k = *plus, make] {
      if (!env().timer)
        throw std::logic_error(fmt::format("{}'s trial needs the run's GPU timer (RunEnv)", kind::KdlgTreePlus::name));
      return made_by_trial(k, make, gpu_trial_timing(*env().timer));
    };
  return run;
}

std::unique_ptr<Variant> made_by_trial(const kind::KdlgTreePlus& k, const MakeVariant& make, const TrialTiming& timing) {
  const std::vector<LayoutChoice> candidates = layout::trial_candidates(k);
  std::vector<TrialOutcome> outcomes;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    TrialOutcome& o = outcomes.emplace_back();
    for (std::size_t j = 0; j < i && !o.shares; ++j)
      if (!outcomes[j].shares && layout::same_code(candidates[j], candidates[i])) o.shares = j;
    if (!o.shares) o = trial_of(*make(candidates[i]), timing);  // freed before the next is made
  }
  const std::size_t chosen = trial_choice(outcomes);  // candidate 0: AoS
  auto v = make(candidates[chosen]);
  v->made_label = trial_label(candidates, outcomes, chosen, k.paper.tree_gpu);
  return v;
}

std::string trial_label(const std::vector<LayoutChoice>& candidates, const std::vector<TrialOutcome>& outcomes,
                        std::size_t chosen, std::string_view tree_gpu) {
  std::vector<std::string> trials;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const TrialOutcome& o = outcomes.at(i);
    std::string t;
    if (o.shares)
      t = fmt::format("as {}", candidates.at(*o.shares).name());
    else if (!o.invalid.empty())
      t = "invalid";
    else {
      const MedianInterval m = median_interval(o.seconds);
      t = fmt::format("{:.1f}[{:.1f},{:.1f}]", m.median * 1e6, m.low * 1e6, m.high * 1e6);
    }
    trials.push_back(fmt::format("{}:{}", candidates[i].name(), t));
  }
  return fmt::format("{}={};{}={};{}={};{}={}", layout::kChosenKey, candidates.at(chosen).name(), layout::kRunsAsKey,
                     layout::code_of(candidates[chosen]), layout::kTrialKey, fmt::join(trials, "|"),
                     layout::kTreeGpuKey, tree_gpu);
}

std::vector<Axis> kofler_axes(std::vector<std::string> versions, std::vector<std::string> precisions,
                              const std::vector<std::size_t>& compile_time_tiles,
                              std::vector<std::string> compile_time_partitions) {
  // The kinds this program takes, from the name table; another kind in a preset gets the
  // table's error (unknown, or what the program lacks to take it), as read_choices words it.
  const layout::ProgramKinds kinds{compile_time_tiles, compile_time_partitions};
  Axis layouts{.name = "layout",
               .values = kinds.taken(),
               .key = "layouts",
               .limits = [kinds](const nlohmann::json& v) { return kinds.refusal(v.get<std::string>()); }};
  Axis tiles{.name = "compile_time_tile",
             .type = AxisType::count,
             .key = "compile_time_tiles",
             .named = false,
             .required = false};
  for (std::size_t t : compile_time_tiles) tiles.values.push_back(std::to_string(t));
  tiles.limits = [compile_time_tiles](const nlohmann::json& v) -> std::string {
    const auto t = v.get<std::size_t>();
    if (std::find(compile_time_tiles.begin(), compile_time_tiles.end(), t) != compile_time_tiles.end()) return "";
    return fmt::format("tile {} is not compiled in (this program instantiates: {})", t,
                       fmt::join(compile_time_tiles, ", "));
  };
  std::vector<Axis> axes{{"version", std::move(versions)},
                         layouts,
                         {.name = "precision", .values = std::move(precisions), .shorthand = Shorthand::precision},
                         {.name = std::string(layout::kTileParam),
                          .type = AxisType::count,
                          .key = "tiles",
                          .limits =
                              [](const nlohmann::json& v) {
                                const auto t = v.get<std::size_t>();
                                return t > layout::kMaxRuntimeTile
                                           ? fmt::format("tile {} is not in 1..{} records", t, layout::kMaxRuntimeTile)
                                           : "";
                              },
                          .required = false,
                          .word = "sweep"},
                         tiles,
                         {std::string(layout::kPartitionParam), {}}};
  if (!compile_time_partitions.empty())
    axes.push_back({.name = "compile_time_partition", .values = std::move(compile_time_partitions), .named = false});
  axes.push_back({std::string(layout::kTilesParam), {}});  // kdlg-tiles: each KDLG cluster of several fields's tile
  axes.push_back(
      {.name = "kdlg_tile", .type = AxisType::count, .key = "kdlg_tiles", .named = false, .required = false});
  axes.push_back({.name = "size", .type = AxisType::count, .key = "sizes", .shorthand = Shorthand::sizes});
  return axes;
}

Axis& axis_named(std::vector<Axis>& axes, std::string_view name) {
  for (Axis& a : axes)
    if (a.name == name) return a;
  throw std::logic_error(fmt::format("no axis '{}'", name));
}

}  // namespace lb::benches::kofler

// Presets through load_preset, then the Preset helpers the planner reads every program's axes
// and settings with (check_keys, list_at, error_at), applied to each object of the 'suites'
// tree and each of its keys, and the kofler-tree section's own checks (read_tree_section, its
// expansion's first step, kept apart from its CUDA code for this). The programs' declarations
// live with the benchmarks (CUDA code), so their sections' own rules are left to `layoutbench plan`.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.hpp"
#include "kofler_tree/synthetic_config.hpp"
#include "lb/harness/preset.hpp"
#include "lb/layout/decision_tree.hpp"

namespace {

using lb::harness::Preset;
using lb::harness::PresetError;

//! Whether an error names a file of the preset's chain (itself or one it extends) first.
bool names_a_file(const Preset& p, std::string_view message, std::string_view after = "") {
  if (message.starts_with(p.path + std::string(after))) return true;
  for (const auto& f : p.extended)
    if (message.starts_with(f.path + std::string(after))) return true;
  return false;
}

//! The values as the files of the chain write them, laid over one another.
nlohmann::json written(const Preset& p) {
  nlohmann::json j = nlohmann::json::object();
  for (auto f = p.extended.rbegin(); f != p.extended.rend(); ++f)
    j = lb::harness::merge_preset(std::move(j), nlohmann::json::parse(f->text));
  return lb::harness::merge_preset(std::move(j), nlohmann::json::parse(p.text));
}

template <class T>
void try_list(const Preset& p, const nlohmann::json& object, const std::string& key, const std::string& where) {
  try {
    const std::vector<T> list = p.list_at<T>(object, key.c_str(), where);
    LB_FUZZ_CHECK(!list.empty());
  } catch (const PresetError& e) {
    LB_FUZZ_CHECK(names_a_file(p, e.what()));
  }
}

//! Every key of every object under `where` read as each kind of list a planner asks for.
void walk(const Preset& p, const nlohmann::json& object, const std::string& where, int depth) {
  if (!object.is_object() || depth > 4) return;
  try {
    p.check_keys(object, where, {"sizes", "layouts", "versions", "precisions"});
  } catch (const PresetError& e) {
    LB_FUZZ_CHECK(names_a_file(p, e.what()));
  }
  for (const auto& [key, value] : object.items()) {
    try_list<std::size_t>(p, object, key, where);
    try_list<int>(p, object, key, where);
    try_list<std::uint32_t>(p, object, key, where);
    try_list<double>(p, object, key, where);
    try_list<std::string>(p, object, key, where);
    const PresetError located = p.error_at(key, "problem", where);
    LB_FUZZ_CHECK(names_a_file(p, located.what(), ":"));
    walk(p, value, key, depth + 1);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static lb::fuzz::InputFile file;
  const std::string& path = file.write(data, size);
  lb::fuzz::expect_clean<PresetError>(path, [&] {
    const Preset p = lb::harness::load_preset(path);
    LB_FUZZ_CHECK(p.repetitions >= 1 && p.min_time_s >= 0 && p.spread_flag_pct >= 0);
    // A setting is kept as written (in the file or one it extends) or refused, never changed
    // (2.5 repetitions are not 2).
    const nlohmann::json j = written(p);
    const auto kept = [&](const char* key, double value) { return !j.contains(key) || j[key].get<double>() == value; };
    LB_FUZZ_CHECK(kept("repetitions", p.repetitions) && kept("min_time_s", p.min_time_s) &&
                  kept("spread_flag_pct", p.spread_flag_pct));
    LB_FUZZ_CHECK(p.suites.is_object() && !p.suites.empty());
    walk(p, p.suites, "suites", 0);
    // The training section: read as the planner reads it, or one error at a line; what it
    // accepts is what the planner and the kernels take.
    if (p.suites.contains("kofler-tree")) {
      const auto s = lb::benches::kofler_tree::read_tree_section(p, p.suites["kofler-tree"], "kofler-tree");
      LB_FUZZ_CHECK(s.records >= 1 && s.block >= 32 && s.block <= 1024 && s.block % 32 == 0);
      LB_FUZZ_CHECK(s.repetitions >= 0 && s.repetitions <= 100 && s.min_time_s >= 0 && s.min_time_s <= 10);
      LB_FUZZ_CHECK(!s.iterations.empty() && !s.fields.empty() && !s.layouts.empty());
      for (std::size_t t : s.tiles) LB_FUZZ_CHECK(t >= 2 && t <= lb::layout::kMaxTreeTile && s.records % t == 0);
      const nlohmann::json& written = j["suites"]["kofler-tree"];  // values kept as written
      LB_FUZZ_CHECK(!written.contains("block") || written["block"] == s.block);
      LB_FUZZ_CHECK(!written.contains("repetitions") || written["repetitions"] == s.repetitions);
    }
  });
  return 0;
}

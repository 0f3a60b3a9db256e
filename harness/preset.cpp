#include "lb/harness/preset.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "lb/datasets/json_text.hpp"
#include "lb/datasets/points.hpp"
#include "lb/datasets/text.hpp"

namespace lb::harness {
namespace {

using datasets::line_of_offset;

//! Where "name" first appears as an object key (followed by ':'), not as a string value.
std::size_t key_offset(const std::string& text, std::string_view name) {
  const std::string quoted = fmt::format("\"{}\"", name);
  for (std::size_t pos = text.find(quoted); pos != std::string::npos; pos = text.find(quoted, pos + 1)) {
    const std::size_t next = text.find_first_not_of(" \t\r\n", pos + quoted.size());
    if (next != std::string::npos && text[next] == ':') return pos;
  }
  return std::string::npos;
}

//! Parses the preset's text; a key repeated in one object (which JSON parsers silently
//! resolve to one of the values) is an error naming both lines.
nlohmann::json parse_preset_text(const Preset& p) {
  try {
    return datasets::parse_json_text(p.text, p.path);
  } catch (const datasets::InputError& e) {
    throw PresetError(e.what());
  }
}

}  // namespace

std::string preset_dir() {
  if (const char* dir = std::getenv("LB_PRESET_DIR")) return dir;
  return LB_PRESET_DIR;
}

std::string repo_relative(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code file_error, root_error;
  const fs::path file = fs::weakly_canonical(fs::absolute(path), file_error);
  const fs::path root = fs::weakly_canonical(LB_SOURCE_DIR, root_error);
  if (file_error || root_error) return path;
  const fs::path relative = file.lexically_relative(root);
  if (relative.empty() || *relative.begin() == "..") return path;
  return relative.generic_string();
}

PresetError Preset::error_at(std::string_view key, const std::string& problem, std::string_view within) const {
  const std::size_t from = within.empty() ? std::string::npos : key_offset(text, within);
  const std::size_t pos = text.find(fmt::format("\"{}\"", key), from == std::string::npos ? 0 : from);
  const std::size_t line = pos == std::string::npos ? 1 : line_of_offset(text, pos);
  return PresetError(fmt::format("{}:{}: {}", path, line, problem));
}

PresetError Preset::no_benchmark(std::string_view suite, const std::vector<std::string>& precisions) const {
  std::vector<std::string> programs;
  for (const auto& [name, config] : suites.at(std::string(suite)).items()) programs.push_back(name);
  const std::string why =
      programs.empty() ? fmt::format("'{}' names no program", suite)
                       : fmt::format("its programs ({}) plan none{}", fmt::join(programs, ", "),
                                     precisions.empty() ? "" : fmt::format(" at --precision {}", fmt::join(precisions, ",")));
  return error_at(suite, fmt::format("suite {} plans no benchmark: {}", suite, why), "suites");
}

void Preset::check_unique(const nlohmann::json& list, const char* key, std::string_view where) const {
  // Sorted, not pairwise: a list of 60,000 sizes took 18 s pairwise. Reported: the first
  // element (k) equal to an earlier one (m, the first of its value).
  std::vector<std::size_t> order(list.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return list[a] < list[b]; });
  std::size_t m = 0, k = list.size();
  for (std::size_t i = 0; i < order.size();) {  // each run of equal elements, in index order
    std::size_t j = i + 1;
    while (j < order.size() && list[order[j]] == list[order[i]]) ++j;
    if (j - i > 1 && order[i + 1] < k) std::tie(m, k) = std::pair{order[i], order[i + 1]};
    i = j;
  }
  if (k < list.size())
    throw error_at(key, fmt::format("'{}' lists {} twice (elements {} and {}): give each once", key, list[k].dump(),
                                    m + 1, k + 1),
                   where);
}

void Preset::check_keys(const nlohmann::json& object, std::string_view where,
                        std::initializer_list<std::string_view> allowed) const {
  if (!object.is_object()) throw error_at(where, fmt::format("'{}' must be an object", where));
  for (const auto& [key, value] : object.items()) {
    bool known = false;
    std::string list;
    for (auto a : allowed) {
      known = known || a == key;
      list += (list.empty() ? "" : ", ") + std::string(a);
    }
    if (!known) throw error_at(key, fmt::format("unknown key '{}' in {} (expected: {})", key, where, list));
  }
}

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(preset_dir(), ec))
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  if (ec) throw PresetError(fmt::format("{}: cannot list the preset folder ({})", preset_dir(), ec.message()));
  std::sort(names.begin(), names.end());
  return names;
}

Preset load_preset(const std::string& name_or_path) {
  Preset p;
  const bool is_path = name_or_path.find('/') != std::string::npos || name_or_path.ends_with(".json");
  p.path = is_path ? name_or_path : preset_dir() + "/" + name_or_path + ".json";
  p.name = std::filesystem::path(p.path).stem().string();
  std::error_code ec;
  if (!is_path && !std::filesystem::exists(p.path, ec))
    throw PresetError(fmt::format("unknown preset '{}' (expected one of: {}, or a path to a .json file)",
                                  name_or_path, fmt::join(preset_names(), ", ")));
  try {
    p.text = datasets::text::read_bounded(p.path, datasets::text::max_input_bytes(datasets::text::kMaxPresetBytes));
  } catch (const datasets::InputError& e) {
    throw PresetError(e.what());
  }
  const nlohmann::json j = parse_preset_text(p);
  p.check_keys(j, "preset",
               {"description", "repetitions", "min_time_s", "spread_flag_pct", "noise_target_pct", "noise_cap_s", "suites"});
  if (j.contains("repetitions")) {
    const auto& r = j["repetitions"];
    if (!r.is_number_integer() || r.get<std::int64_t>() < 1 || r.get<std::int64_t>() > kMaxRepetitions)
      throw p.error_at("repetitions",
                       fmt::format("'repetitions' must be an integer from 1 to {}; got {}", kMaxRepetitions, r.dump()));
    p.repetitions = r.get<int>();
  }
  auto number = [&](const char* key, double& out, double lo, double hi = std::numeric_limits<double>::max()) {
    if (!j.contains(key)) return;
    if (!j[key].is_number() || j[key].get<double>() < lo || j[key].get<double>() > hi)
      throw p.error_at(key, hi < std::numeric_limits<double>::max()
                                ? fmt::format("'{}' must be a number from {} to {}; got {}", key, lo, hi, j[key].dump())
                                : fmt::format("'{}' must be a number >= {}; got {}", key, lo, j[key].dump()));
    out = j[key].get<double>();
  };
  number("min_time_s", p.min_time_s, 0);
  number("spread_flag_pct", p.spread_flag_pct, 0);
  number("noise_target_pct", p.noise_target_pct, 0, 100);
  number("noise_cap_s", p.noise_cap_s, 0);
  if (!j.contains("suites") || !j["suites"].is_object() || j["suites"].empty())
    throw p.error_at("suites", "a preset needs a non-empty 'suites' object");
  p.suites = j["suites"];
  if (j.contains("description")) {
    if (!j["description"].is_string()) throw p.error_at("description", "'description' must be a string");
    p.description = j["description"].get<std::string>();
  }
  return p;
}

}  // namespace lb::harness

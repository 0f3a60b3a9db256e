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

//! Reads and parses one preset file (size-limited); a key repeated in one object (which JSON
//! parsers silently resolve to one of the values) is an error naming both lines.
nlohmann::json read_preset_file(PresetFile& file) {
  try {
    file.text = datasets::text::read_bounded(file.path, datasets::text::max_input_bytes(datasets::text::kMaxPresetBytes));
    return datasets::parse_json_text(file.text, file.path);
  } catch (const datasets::InputError& e) {
    throw PresetError(e.what());
  }
}

//! A Preset of one file, to check it and point at its lines.
Preset one_file(const PresetFile& file) {
  Preset p;
  p.path = file.path;
  p.text = file.text;
  return p;
}

//! Every key a preset file may have.
const std::initializer_list<std::string_view> kPresetKeys = {
    "extends", "description", "repetitions", "min_time_s", "spread_flag_pct", "noise_target_pct", "noise_cap_s", "suites"};

//! The file `file` (whose JSON is `j`) extends, checked: a string naming a named preset, not
//! a path (so no preset reaches outside the preset folder) and not one of `chain` (the files
//! read so far, as given, and their canonical paths).
std::string parent_of(const PresetFile& file, const nlohmann::json& j, const std::vector<std::string>& chain,
                      std::vector<std::string>& canonical) {
  const Preset at = one_file(file);
  const auto& e = j["extends"];
  const std::vector<std::string> names = preset_names();
  const std::string known = fmt::format("the preset folder {} holds {}", preset_dir(), fmt::join(names, ", "));
  if (!e.is_string()) throw at.error_at("extends", fmt::format("'extends' must name a preset as a string ({}); got {}", known, e.dump()));
  const std::string name = e.get<std::string>();
  if (name.find_first_of("/\\") != std::string::npos || name.ends_with(".json"))
    throw at.error_at("extends",
                      fmt::format("'extends' names a preset of the preset folder, not a path; got {} ({})", e.dump(), known));
  if (std::find(names.begin(), names.end(), name) == names.end())
    throw at.error_at("extends", fmt::format("'extends' names preset '{}', but there is no {}/{}.json ({})", name,
                                             preset_dir(), name, known));
  const std::string path = preset_dir() + "/" + name + ".json";
  std::error_code ec;
  const std::string real = std::filesystem::weakly_canonical(path, ec).string();
  if (const auto seen = std::find(canonical.begin(), canonical.end(), real); seen != canonical.end()) {
    std::vector<std::string> circle(chain.begin() + (seen - canonical.begin()), chain.end());
    circle.push_back(path);
    throw at.error_at("extends", fmt::format("'extends' goes round in a circle: {}", fmt::join(circle, " extends ")));
  }
  canonical.push_back(real);
  return path;
}

}  // namespace

nlohmann::json merge_preset(nlohmann::json parent, const nlohmann::json& child) {
  for (const auto& [key, value] : child.items()) {
    if (value.is_object() && parent.contains(key) && parent[key].is_object())
      parent[key] = merge_preset(std::move(parent[key]), value);
    else
      parent[key] = value;
  }
  return parent;
}

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
  std::vector<PresetFile> files{{path, text}};
  files.insert(files.end(), extended.begin(), extended.end());
  // First a file with `within` and `key` after it; else, as for a file of its own, one with `key`.
  for (const bool need_within : {!within.empty(), false}) {
    for (const auto& f : files) {
      const std::size_t from = within.empty() ? std::string::npos : key_offset(f.text, within);
      if (need_within && from == std::string::npos) continue;
      const std::size_t pos = f.text.find(fmt::format("\"{}\"", key), from == std::string::npos ? 0 : from);
      if (pos != std::string::npos) return PresetError(fmt::format("{}:{}: {}", f.path, line_of_offset(f.text, pos), problem));
    }
  }
  return PresetError(fmt::format("{}:1: {}", path, problem));
}

bool Preset::mentions(std::string_view s) const {
  if (text.find(s) != std::string::npos) return true;
  return std::any_of(extended.begin(), extended.end(), [&](const PresetFile& f) { return f.text.find(s) != std::string::npos; });
}

PresetError Preset::no_benchmark(std::string_view suite, const std::vector<std::string>& programs,
                                 std::string_view at) const {
  const std::string why = programs.empty() ? fmt::format("'{}' names no program", suite)
                                           : fmt::format("its programs ({}) plan none{}{}", fmt::join(programs, ", "),
                                                         at.empty() ? "" : " at ", at);
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
  check_keys(object, where, std::vector<std::string>(allowed.begin(), allowed.end()));
}

void Preset::check_keys(const nlohmann::json& object, std::string_view where,
                        const std::vector<std::string>& allowed) const {
  if (!object.is_object()) throw error_at(where, fmt::format("'{}' must be an object", where));
  for (const auto& [key, value] : object.items())
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      throw error_at(key, fmt::format("unknown key '{}' in {} (expected: {})", key, where, fmt::join(allowed, ", ")));
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
  // The chain of "extends", each file's keys checked in it, merged from the farthest up.
  PresetFile file{p.path, {}};
  nlohmann::json j = read_preset_file(file);
  p.text = file.text;
  std::vector<std::string> chain{p.path}, canonical{std::filesystem::weakly_canonical(p.path, ec).string()};
  std::vector<nlohmann::json> documents;
  for (;;) {
    one_file(file).check_keys(j, "preset", kPresetKeys);
    const bool extends = j.contains("extends");
    PresetFile parent{extends ? parent_of(file, j, chain, canonical) : std::string{}, {}};
    j.erase("extends");
    documents.push_back(std::move(j));
    if (!extends) break;
    j = read_preset_file(parent);
    chain.push_back(parent.path);
    p.extended.push_back(parent);
    file = std::move(parent);
  }
  j = std::move(documents.back());
  for (auto k = documents.size() - 1; k-- > 0;) j = merge_preset(std::move(j), documents[k]);
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

#pragma once
//! Presets: named JSON files (harness/presets/quick.json, paper.json) or a user's file,
//! saying what each suite runs (sizes, variants) and how (repetitions, minimum time).
//! Every mistake is reported once as "file:line: problem".

#include <cstddef>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace lb::harness {

class PresetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Preset {
  std::string name;  //!< "quick", "paper" or the file's stem
  std::string path;
  std::string text;  //!< the file's text, to point errors at lines
  int repetitions = 3;
  double min_time_s = 0.05;
  double spread_flag_pct = 5.0;
  nlohmann::json suites;

  //! A PresetError at the line where `key` first appears in the file.
  PresetError error_at(std::string_view key, const std::string& problem) const;
  //! Throws unless every key of `object` (found under `where`) is in `allowed`.
  void check_keys(const nlohmann::json& object, std::string_view where,
                  std::initializer_list<std::string_view> allowed) const;

  //! object[key] (found under `where`) as a non-empty list of T, or a PresetError at its line.
  template <class T>
  std::vector<T> list_at(const nlohmann::json& object, const char* key, std::string_view where) const {
    if (!object.contains(key)) throw error_at(where, "'" + std::string(where) + "' needs '" + key + "'");
    const auto& v = object[key];
    if (!v.is_array() || v.empty()) throw error_at(key, "'" + std::string(key) + "' must be a non-empty list");
    try {
      return v.get<std::vector<T>>();
    } catch (const nlohmann::json::exception&) {
      throw error_at(key, "'" + std::string(key) + "' has an element of the wrong type");
    }
  }
};

//! Directory of the named presets (compiled in; overridable with LB_PRESET_DIR).
std::string preset_dir();
//! "quick" / "paper" / a path to a JSON file.
Preset load_preset(const std::string& name_or_path);
//! `path` as results record it: relative to the source tree's root when it lies inside it
//! (committed results then name no one's checkout), any other path as given.
std::string repo_relative(const std::string& path);

}  // namespace lb::harness

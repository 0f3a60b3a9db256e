#pragma once
//! Presets: named JSON files (harness/presets/*.json: quick, paper, ...) or a user's file,
//! saying what each suite runs (sizes, variants) and how (repetitions, minimum time).
//! A preset may extend a named one ("extends": "paper"; merge_preset's rule, docs/cli.md).
//! Every mistake is reported once as "file:line: problem".

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

namespace lb::harness {

class PresetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

//! The most repetitions a preset may ask for.
inline constexpr int kMaxRepetitions = 1000;

//! One file of a preset's chain of "extends".
struct PresetFile {
  std::string path;
  std::string text;
};

struct Preset {
  std::string name;  //!< "quick", "paper" or the file's stem
  std::string path;
  std::string text;  //!< the file's text, to point errors at lines
  //! The presets it extends, the one it names first (each the next's child); empty without
  //! "extends". Their keys are merged under this file's (merge_preset).
  std::vector<PresetFile> extended;
  std::string description;
  int repetitions = 3;
  double min_time_s = 0.05;
  double spread_flag_pct = 5.0;
  //! Adaptive repetitions (docs/architecture.md, "Noise the run controls"): more rounds until
  //! the median's interval is within ± this % (0: off, `repetitions` only), their wall time
  //! per benchmark at most noise_cap_s.
  double noise_target_pct = 1.0;
  double noise_cap_s = 1.0;
  nlohmann::json suites;

  //! A PresetError at the line where `key` first appears (after `within`, the name of the
  //! object holding it, where given: a key of version_overrides is not the suite's key of the
  //! same name), in this file or else the first it extends that has it (`within` too).
  PresetError error_at(std::string_view key, const std::string& problem, std::string_view within = {}) const;
  //! Whether `s` appears in the text of this file or of one it extends.
  bool mentions(std::string_view s) const;
  //! Throws unless every key of `object` (found under `where`) is in `allowed`.
  void check_keys(const nlohmann::json& object, std::string_view where,
                  std::initializer_list<std::string_view> allowed) const;
  void check_keys(const nlohmann::json& object, std::string_view where, const std::vector<std::string>& allowed) const;

  template <class T>
  void check_integers(const nlohmann::json& list, const char* key, std::string_view where) const;
  //! Throws unless the elements of `list` differ (a repeat would plan one benchmark twice).
  void check_unique(const nlohmann::json& list, const char* key, std::string_view where) const;
  //! The error of a suite that plans no benchmark, at the suite's line: it names no program, or
  //! its `programs` plan none (at the command line's overrides `at`, as typed, where given).
  PresetError no_benchmark(std::string_view suite, const std::vector<std::string>& programs, std::string_view at) const;

  //! object[key] (found under `where`) as a non-empty list of T, or a PresetError at its line.
  template <class T>
  std::vector<T> list_at(const nlohmann::json& object, const char* key, std::string_view where) const {
    if (!object.contains(key)) throw error_at(where, "'" + std::string(where) + "' needs '" + key + "'");
    const auto& v = object[key];
    if (!v.is_array() || v.empty()) throw error_at(key, "'" + std::string(key) + "' must be a non-empty list", where);
    if constexpr (std::is_integral_v<T>) check_integers<T>(v, key, where);
    check_unique(v, key, where);
    try {
      return v.get<std::vector<T>>();
    } catch (const nlohmann::json::exception&) {
      throw error_at(key, "'" + std::string(key) + "' has an element of the wrong type", where);
    }
  }

  //! list_at<std::string>, each name through `parse` (a layout, strategy, field parser that
  //! throws std::invalid_argument naming the problem): a bad name is a PresetError at its line.
  template <class Parse>
  auto parsed_list_at(const nlohmann::json& object, const char* key, std::string_view where, Parse parse) const {
    std::vector<decltype(parse(std::string_view{}))> out;
    for (const auto& name : list_at<std::string>(object, key, where)) {
      try {
        out.push_back(parse(name));
      } catch (const std::invalid_argument& e) {
        throw error_at(key, e.what(), where);
      }
    }
    return out;
  }
};

//! Throws unless every element of `list` is an integer that fits T; for an unsigned T (sizes,
//! counts) also at least 1. JSON's 1024.5 or -1 never becomes 1024 or 2^64 - 1.
template <class T>
void Preset::check_integers(const nlohmann::json& list, const char* key, std::string_view where) const {
  for (std::size_t k = 0; k < list.size(); ++k) {
    const auto& e = list[k];
    bool ok = false;
    if (e.is_number_unsigned()) {  // a non-negative integer
      const auto u = e.template get<std::uint64_t>();
      ok = u >= (std::is_unsigned_v<T> ? 1u : 0u) && u <= static_cast<std::uint64_t>(std::numeric_limits<T>::max());
    } else if (e.is_number_integer() && std::is_signed_v<T>) {
      const auto i = e.template get<std::int64_t>();
      ok = i >= static_cast<std::int64_t>(std::numeric_limits<T>::min());
    }
    if (!ok)
      throw error_at(key, "'" + std::string(key) + "' must list " +
                              (std::is_unsigned_v<T> ? "positive integers" : "integers") + "; element " +
                              std::to_string(k + 1) + " is " + e.dump(),
                     where);
  }
}

//! Directory of the named presets (compiled in; overridable with LB_PRESET_DIR).
std::string preset_dir();
//! The named presets: the stems of preset_dir()'s *.json files, sorted.
std::vector<std::string> preset_names();
//! A named preset (see preset_names) or a path to a JSON file, read with a size limit
//! (lb::datasets::text::read_bounded: LB_MAX_INPUT_BYTES, else 4 MiB), each file it extends
//! too. Throws PresetError naming file:line for malformed JSON, a key repeated in one object,
//! an unknown key, an "extends" that is not the name of a named preset (a path, a missing
//! one, not a string) or that comes back round to a file of the chain, repetitions that are
//! not an integer in [1, kMaxRepetitions], and a noise target outside [0, 100] % or a
//! negative noise cap.
Preset load_preset(const std::string& name_or_path);
//! `child` over `parent`, the rule of "extends": objects merge key by key (recursively), any
//! other value (number, string, list, null) replaces; nothing removes a key.
nlohmann::json merge_preset(nlohmann::json parent, const nlohmann::json& child);
//! `path` as results record it: relative to the source tree's root when it lies inside it
//! (committed results then name no one's checkout), any other path as given.
std::string repo_relative(const std::string& path);

}  // namespace lb::harness

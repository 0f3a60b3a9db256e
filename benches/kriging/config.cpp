#include "kriging/config.hpp"

#include <fmt/format.h>

namespace lb::harness::kriging_bench {
namespace {

template <class T>
std::vector<T> list_of(const Preset& preset, const nlohmann::json& j, const char* key, const char* where) {
  return preset.list_at<T>(j, key, where);
}

Prec parse_prec(const Preset& preset, const std::string& s, const char* key) {
  if (s == "float") return Prec::f32;
  if (s == "double") return Prec::f64;
  throw preset.error_at(key, fmt::format("unknown precision '{}' (float or double)", s));
}

}  // namespace

Config read_config(const Preset& preset, const nlohmann::json& j, const Overrides& overrides) {
  preset.check_keys(j, "kriging",
                    {"scales", "experiments", "exp7_precisions", "cpu_programs", "cpu_sample_estimates", "well_sweep",
                     "model"});
  Config c;
  if (overrides.sizes.empty())
    c.scales = list_of<int>(preset, j, "scales", "kriging");
  else
    for (std::size_t s : overrides.sizes) {
      if (s > 100) throw std::invalid_argument(fmt::format("--sizes: scale {} is not in 1..100", s));
      c.scales.push_back(static_cast<int>(s));
    }
  for (int s : c.scales)
    if (s < 1 || s > 100) throw preset.error_at("scales", fmt::format("scale {} is not in 1..100", s));
  c.experiments = list_of<int>(preset, j, "experiments", "kriging");
  for (int e : c.experiments)
    if (e < 1 || e > 8) throw preset.error_at("experiments", fmt::format("no experiment {} (1..8)", e));
  if (j.contains("exp7_precisions"))
    for (const auto& p : list_of<std::string>(preset, j, "exp7_precisions", "kriging"))
      c.exp7_precisions.push_back(parse_prec(preset, p, "exp7_precisions"));
  else
    c.exp7_precisions = {Prec::f32, Prec::f64};
  for (const auto& p : overrides.precisions) c.precisions.push_back(parse_prec(preset, p, "precision"));
  if (j.contains("cpu_programs")) {
    if (!j["cpu_programs"].is_boolean()) throw preset.error_at("cpu_programs", "'cpu_programs' must be true or false");
    c.cpu_programs = j["cpu_programs"].get<bool>();
  }
  if (j.contains("cpu_sample_estimates")) {
    if (!j["cpu_sample_estimates"].is_number() || !(j["cpu_sample_estimates"].get<double>() >= 1000))
      throw preset.error_at("cpu_sample_estimates", "'cpu_sample_estimates' must be a number >= 1000");
    c.cpu_sample_estimates = j["cpu_sample_estimates"].get<double>();
  }
  if (j.contains("well_sweep")) {
    const auto& w = j["well_sweep"];
    preset.check_keys(w, "well_sweep", {"wells", "scales", "experiments"});
    c.sweep.wells = list_of<std::size_t>(preset, w, "wells", "well_sweep");
    c.sweep.scales = list_of<int>(preset, w, "scales", "well_sweep");
    c.sweep.experiments = list_of<int>(preset, w, "experiments", "well_sweep");
    for (std::size_t n : c.sweep.wells)
      if (n < 2 || n > 4096) throw preset.error_at("wells", fmt::format("{} wells is not in 2..4096", n));
    for (int e : c.sweep.experiments)
      if (e < 1 || e > 8) throw preset.error_at("experiments", fmt::format("no experiment {} (1..8)", e));
  }
  return c;
}

}  // namespace lb::harness::kriging_bench

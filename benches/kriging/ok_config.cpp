#include "kriging/ok_config.hpp"

#include <fmt/format.h>

namespace lb::benches::kriging {
namespace {

Prec parse_prec(const Preset& preset, const std::string& s, const char* key) {
  if (s == "float") return Prec::f32;
  if (s == "double") return Prec::f64;
  throw preset.error_at(key, fmt::format("unknown precision '{}' (float or double)", s));
}

}  // namespace

std::string experiment_problem(std::int64_t e) {
  return e < 1 || e > 8 ? fmt::format("no experiment {} (1..8)", e) : "";
}

Settings read_settings(const Reader& read) {
  const Preset& preset = read.preset();
  const nlohmann::json& j = read.object();
  Settings c;
  if (j.contains("exp7_precisions"))
    for (const auto& p : preset.list_at<std::string>(j, "exp7_precisions", "kriging"))
      c.exp7_precisions.push_back(parse_prec(preset, p, "exp7_precisions"));
  else
    c.exp7_precisions = {Prec::f32, Prec::f64};
  if (j.contains("exp4_layouts"))
    c.exp4_layouts = preset.parsed_list_at(j, "exp4_layouts", "kriging", lb::kriging::parse_well_layout);
  if (j.contains("cpu_programs")) {
    if (!j["cpu_programs"].is_boolean()) throw preset.error_at("cpu_programs", "'cpu_programs' must be true or false");
    c.cpu_programs = j["cpu_programs"].get<bool>();
  }
  if (j.contains("cpu_sample_estimates")) {
    if (!j["cpu_sample_estimates"].is_number() || !(j["cpu_sample_estimates"].get<double>() >= 1000))
      throw preset.error_at("cpu_sample_estimates", "'cpu_sample_estimates' must be a number >= 1000");
    c.cpu_sample_estimates = j["cpu_sample_estimates"].get<double>();
  }
  if (j.contains("well_sweep")) {  // its wells are the program's axis
    const auto& w = j["well_sweep"];
    preset.check_keys(w, "well_sweep", {"wells", "scales", "experiments"});
    c.sweep = true;
    c.well_sweep.scales = preset.list_at<std::int64_t>(w, "scales", "well_sweep");
    c.well_sweep.experiments = preset.list_at<std::int64_t>(w, "experiments", "well_sweep");
    for (const std::int64_t e : c.well_sweep.experiments)
      if (const std::string problem = experiment_problem(e); !problem.empty())
        throw preset.error_at("experiments", problem, "well_sweep");
  }
  return c;
}

}  // namespace lb::benches::kriging

#include <stdexcept>

#include "lb/harness/suite.hpp"

namespace lb::harness {

// Each paper's planner lives with its benchmarks (benches/<paper>_bench.cpp).
std::vector<PlannedBenchmark> plan_idw(const Preset&, const Overrides&);
std::vector<PlannedBenchmark> plan_kriging(const Preset&, const Overrides&);
std::vector<PlannedBenchmark> plan_kofler(const Preset&, const Overrides&);
std::vector<PlannedBenchmark> plan_inner(const Preset&, const Overrides&);

const std::vector<Suite>& suites() {
  static const std::vector<Suite> all = {
      {"idw", plan_idw, {}},
      {"kriging",
       plan_kriging,
       {{"model", "model", "krige",
         "Fig. 4: krige the generated case at the preset's {\"scale\", \"experiment\"} onto the model mesh"}}},
      {"kofler", plan_kofler, {}},
      {"inner", plan_inner, {}},
  };
  return all;
}

nlohmann::json registry_json() {
  nlohmann::json out{{"suites", nlohmann::json::array()}, {"presets", nlohmann::json::array()}};
  for (const auto& s : suites()) {
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& step : s.steps)
      steps.push_back({{"name", step.name},
                       {"preset_key", step.preset_key},
                       {"command", step.command},
                       {"description", step.description}});
    out["suites"].push_back({{"name", s.name}, {"steps", steps}});
  }
  for (const auto& name : preset_names()) {
    const Preset p = load_preset(name);
    out["presets"].push_back({{"name", name}, {"file", p.path}, {"description", p.description}});
  }
  return out;
}

const Suite& find_suite(const std::string& name) {
  std::string names;
  for (const auto& s : suites()) {
    if (s.name == name) return s;
    names += (names.empty() ? "" : ", ") + s.name;
  }
  throw std::invalid_argument("unknown suite '" + name + "' (expected one of: " + names + ")");
}

}  // namespace lb::harness

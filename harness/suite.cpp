//! The suite registry's generic part: a suite by name and the registry as JSON, over whichever
//! suite list the binary links (lb/harness/suite.hpp).

#include "lb/harness/suite.hpp"

#include <stdexcept>

#include "lb/layout/choice.hpp"

namespace lb::harness {

nlohmann::json registry_json(const std::vector<Suite>& all) {
  // the layout kinds' name table (lb/layout/choice.hpp), which Python reads instead of its own names
  nlohmann::json out{
      {"suites", nlohmann::json::array()}, {"presets", nlohmann::json::array()}, {"layouts", layout::layout_table_json()}};
  for (const auto& s : all) {
    nlohmann::json steps = nlohmann::json::array(), programs = nlohmann::json::array();
    for (const auto& step : s.steps) {
      nlohmann::json parameters = nlohmann::json::array();
      for (const auto& p : step.parameters) {
        parameters.push_back({{"key", p.key}, {"min", p.min}});
        if (p.max != 0) parameters.back()["max"] = p.max;
      }
      steps.push_back({{"name", step.name},
                       {"preset_key", step.preset_key},
                       {"command", step.command},
                       {"figure", step.figure},
                       {"description", step.description},
                       {"parameters", parameters},
                       {"argv", step.argv},
                       {"outputs", step.outputs},
                       {"runner", step.runner}});
      if (!step.committed.folder.empty())
        steps.back()["committed"] = {{"folder", step.committed.folder},
                                     {"format", step.committed.format},
                                     {"reuse", step.committed.reuse}};
    }
    nlohmann::json inputs = nlohmann::json::array();
    for (const auto& input : s.inputs) {
      inputs.push_back({{"name", input.name}, {"description", input.description}});
      if (!input.from.suite.empty())
        inputs.back()["from"] = {{"suite", input.from.suite}, {"step", input.from.step}, {"output", input.from.output}};
    }
    for (const auto& p : s.programs.programs) {
      nlohmann::json axes = nlohmann::json::array();
      for (const auto& a : p.axes) {
        axes.push_back({{"name", a.name},
                        {"type", to_string(a.type)},
                        {"key", a.key.empty() ? nlohmann::json() : nlohmann::json(a.key)},
                        {"values", a.values},
                        {"named", a.named}});
        if (a.shorthand != Shorthand::none)
          axes.back()["shorthand"] = a.shorthand == Shorthand::sizes ? "--sizes" : "--precision";
        if (!a.unnamed.empty()) axes.back()["unnamed"] = a.unnamed;
      }
      programs.push_back({{"name", p.name}, {"axes", axes}, {"counters", p.counters}, {"settings", p.settings}});
    }
    out["suites"].push_back({{"name", s.name},
                             {"section", s.programs.section == Section::programs ? "programs" : "one_program"},
                             {"programs", programs},
                             {"steps", steps},
                             {"inputs", inputs}});
  }
  for (const auto& name : preset_names()) {
    const Preset p = load_preset(name);
    out["presets"].push_back({{"name", name}, {"file", p.path}, {"description", p.description}});
  }
  return out;
}

const Suite& find_suite(const std::vector<Suite>& all, const std::string& name) {
  std::string names;
  for (const auto& s : all) {
    if (s.name == name) return s;
    names += (names.empty() ? "" : ", ") + s.name;
  }
  throw std::invalid_argument("unknown suite '" + name + "' (expected one of: " + names + ")");
}

}  // namespace lb::harness

#include <stdexcept>

#include "inner/programs.hpp"
#include "kofler/programs.hpp"
#include "lb/harness/suite.hpp"
#include "lb/layout/choice.hpp"
#include "lb/layout/decision_tree.hpp"

namespace lb::harness {

// Each program is declared with its benchmarks (benches/<paper>_bench.cpp, benches/<paper>/).
Program shepard_program();
Program ok_program();
Program kofler_tree_program();

const std::vector<Suite>& suites() {
  static const std::vector<Suite> all = {
      {"idw", {Section::one_program, "", {shepard_program()}}, {}},
      {"kriging",
       {Section::one_program, "", {ok_program()}},
       {{.name = "model",
         .preset_key = "model",
         .command = "krige",
         .figure = "Fig. 4",
         .description = "Fig. 4: krige the generated case at the preset's {\"scale\", \"experiment\"} onto the model mesh",
         .parameters = {{"scale", 1, 0}, {"experiment", 1, 8}},
         .argv = {"krige", "--scale", "{scale}", "--experiment", "{experiment}", "--device", "gpu", "--out",
                  "{out:model}", "--wells-out", "{out:wells}"},
         .outputs = {"model", "wells"}}}},
      {"kofler-tree",
       {Section::one_program, "", {kofler_tree_program()}},
       {{.name = "fit",
         .preset_key = "fit",
         .command = "plots.kofler_tree",
         .figure = "the decision tree",
         .description = "Kofler's per-GPU decision tree: fit on this device's training results (plots/kofler_tree.py; "
                        "{\"reuse\": 1} skips training where a committed tree fits every device)",
         .parameters = {{"reuse", 0, 1}},
         .argv = {"plots.kofler_tree", "fit", "--results", "{results}", "--out", "{out:tree}"},
         .outputs = {"tree"},
         .runner = "python",
         .committed = {.folder = "results/trees", .format = layout::kTreeFormat, .reuse = "reuse"}}}},
      {"kofler",
       {Section::programs, "Kofler program",
        {kofler::nbody_program(), kofler::black_scholes_program(), kofler::bitonic_program(), kofler::lavamd_program(),
         kofler::sampo_program()}},
       {},
       {kofler::tree_input()}},
      {"inner", {Section::programs, "inner-array program", {inner::synthetic_program(), inner::bfs_program(), inner::traffic_program()}}, {}},
  };
  return all;
}

nlohmann::json registry_json() {
  // the layout kinds' name table (lb/layout/choice.hpp), which Python reads instead of its own names
  nlohmann::json out{
      {"suites", nlohmann::json::array()}, {"presets", nlohmann::json::array()}, {"layouts", layout::layout_table_json()}};
  for (const auto& s : suites()) {
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

const Suite& find_suite(const std::string& name) {
  std::string names;
  for (const auto& s : suites()) {
    if (s.name == name) return s;
    names += (names.empty() ? "" : ", ") + s.name;
  }
  throw std::invalid_argument("unknown suite '" + name + "' (expected one of: " + names + ")");
}

}  // namespace lb::harness

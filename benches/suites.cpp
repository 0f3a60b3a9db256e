#include "idw/suite.hpp"
#include "inner/suite.hpp"
#include "kofler/layout_choice.hpp"
#include "kofler/suite.hpp"
#include "kofler_tree/suite.hpp"
#include "kriging/suite.hpp"
#include "lb/harness/suite.hpp"
#include "lb/layout/decision_tree.hpp"

namespace lb::harness {

// The binary's suite list (lb/harness/suite.hpp), each suite's programs as its
// benches/<suite>/suite.hpp declares them.
const std::vector<Suite>& suites() {
  static const std::vector<Suite> all = {
      {"idw", {Section::one_program, "", {benches::idw::shepard_program()}}, {}},
      {"kriging",
       {Section::one_program, "", {benches::kriging::ok_program()}},
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
       {Section::one_program, "", {benches::kofler_tree::synthetic_program()}},
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
        {benches::kofler::nbody_program(), benches::kofler::blackscholes_program(), benches::kofler::bitonic_program(),
         benches::kofler::lavamd_program(), benches::kofler::sampo_program()}},
       {},
       {benches::kofler::tree_input()}},
      {"inner",
       {Section::programs,
        "inner-array program",
        {benches::inner::synthetic_program(), benches::inner::bfs_program(), benches::inner::traffic_program()}},
       {}},
  };
  return all;
}

}  // namespace lb::harness

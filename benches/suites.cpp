#include "inner/suite.hpp"
#include "kofler/suite.hpp"
#include "lb/harness/suite.hpp"
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

}  // namespace lb::harness

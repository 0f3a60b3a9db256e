#include "advise.hpp"

#include <cstdio>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common.hpp"
#include "lb/kofler/recorded.hpp"
#include "lb/layout/advisor.hpp"
#include "lb/layout/decision_tree.hpp"

namespace lb::tools {

void add_advise_command(CLI::App& app, AdviseCommand& c) {
  c.cmd = app.add_subcommand("advise",
                             "Kofler et al.'s advisor: a program's KDLG clusters from its recorded accesses, and "
                             "each cluster's layout from a GPU's decision tree");
  c.cmd->add_option("--program", c.program, "a Kofler program whose bodies record (nbody, bitonic, ...)")->required();
  c.cmd->add_option("--tree", c.tree, "the GPU's decision tree (JSON, layoutbench-kofler-tree/1)")->check(not_empty());
  c.cmd->add_option("--epsilon", c.epsilon, "ε in bytes: fields closer than this join (the L1 line)")
      ->check(non_negative_integer())
      ->capture_default_str();
  c.cmd->add_flag("--json", c.json, "print the advice as one JSON object");
}

int AdviseCommand::run() const {
  std::optional<layout::DecisionTree> decision_tree;
  if (!tree.empty()) decision_tree = layout::read_decision_tree(tree);
  const kofler::RecordedProgram r = kofler::record_program(program);
  const layout::Advice a = layout::advise(r.field_names, r.field_bytes, r.kernels, epsilon,
                                          decision_tree ? &*decision_tree : nullptr);
  if (json) {
    nlohmann::json out = {{"program", r.program}, {"problem", r.problem}, {"kernels", nlohmann::json::array()}};
    for (const auto& k : r.kernels) out["kernels"].push_back({{"name", k.kernel}, {"accesses", k.accesses.size()}});
    out.update(layout::advice_json(a));
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::string kernels;
  for (const auto& k : r.kernels) kernels += fmt::format("{}{} ({} accesses)", kernels.empty() ? "" : ", ", k.kernel, k.accesses.size());
  std::printf("program %s, recorded at: %s\nkernels: %s\n%s", r.program.c_str(), r.problem.c_str(), kernels.c_str(),
              layout::advice_text(a).c_str());
  return 0;
}

}  // namespace lb::tools

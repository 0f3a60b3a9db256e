#include "advise.hpp"

#include <cstdio>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "common.hpp"
#include "lb/layout/advisor.hpp"
#include "lb/layout/decision_tree.hpp"
#include "lb/recorded/programs.hpp"

namespace lb::tools {

void add_advise_command(CLI::App& app, AdviseCommand& c) {
  c.cmd = app.add_subcommand("advise",
                             "Kofler et al.'s advisor: a program's KDLG clusters from its recorded accesses, and "
                             "each cluster's layout from a GPU's decision tree");
  c.cmd->add_option("--program", c.program,
                    fmt::format("the program whose bodies record: {}", fmt::join(recorded::recordable_programs(), ", ")))
      ->required();
  c.cmd->add_option("--tree", c.tree, "the GPU's decision tree (JSON, layoutbench-kofler-tree/1)")->check(not_empty());
  c.cmd->add_option("--epsilon", c.epsilon, "ε in bytes: fields closer than this join (the L1 line)")
      ->check(non_negative_integer())
      ->capture_default_str();
  c.cmd->add_flag("--json", c.json, "print the advice as one JSON object");
}

int AdviseCommand::run() const {
  std::optional<layout::DecisionTree> decision_tree;
  if (!tree.empty()) decision_tree = layout::read_decision_tree(tree);
  const layout::RecordedProgram r = recorded::record_program(program);
  const layout::Advice a = layout::advise(r.field_names, r.field_bytes, r.kernels, epsilon,
                                          decision_tree ? &*decision_tree : nullptr);
  if (json) {
    nlohmann::json out = {{"program", r.program}, {"problem", r.problem}, {"kernels", nlohmann::json::array()}};
    if (!r.record.empty()) out["record"] = r.record;
    for (const auto& k : r.kernels) out["kernels"].push_back({{"name", k.kernel}, {"accesses", k.accesses.size()}});
    out.update(layout::advice_json(a));
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::string kernels;
  for (const auto& k : r.kernels) kernels += fmt::format("{}{} ({} accesses)", kernels.empty() ? "" : ", ", k.kernel, k.accesses.size());
  const std::string record = r.record.empty() ? "" : fmt::format(" (record: {})", r.record);
  std::printf("program %s%s, recorded at: %s\nkernels: %s\n%s", r.program.c_str(), record.c_str(), r.problem.c_str(),
              kernels.c_str(), layout::advice_text(a).c_str());
  return 0;
}

}  // namespace lb::tools

#pragma once
//! `layoutbench advise --program <name> [--tree FILE] [--epsilon BYTES] [--json]`: Kofler et
//! al.'s advisor on any paper's program (docs/advisor.md; lb/recorded/programs.hpp lists them):
//! records its bodies, prints the problem size recorded, the KDLG's δ, the clusters with σ and
//! diameter, the merges, and with a decision tree each cluster's layout.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace lb::tools {

struct AdviseCommand {
  CLI::App* cmd = nullptr;
  std::string program, tree;
  std::uint64_t epsilon = 128;
  bool json = false;
  explicit operator bool() const { return cmd != nullptr && cmd->parsed(); }
  int run() const;
};

//! Adds the subcommand to `app`; the command object must outlive parsing.
void add_advise_command(CLI::App& app, AdviseCommand& c);

}  // namespace lb::tools

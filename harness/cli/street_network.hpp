#pragma once
//! `layoutbench street-network --network FILE`: loads an OSMnx GraphML street network by the
//! rules of docs/street-networks.md and prints its statistics (nodes, edges, cells, traffic
//! lights, yield controllers, signal groups, sinks, components, speed limits).

#include <CLI/CLI.hpp>
#include <string>

namespace lb::tools {

struct StreetNetworkCommand {
  CLI::App* cmd = nullptr;
  std::string network;
  explicit operator bool() const { return cmd != nullptr && cmd->parsed(); }
  int run() const;
};

//! Adds the subcommand to `app`; the command object must outlive parsing.
void add_street_network_command(CLI::App& app, StreetNetworkCommand& c);

}  // namespace lb::tools

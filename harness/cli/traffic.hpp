#pragma once
//! `layoutbench traffic`: the traffic simulation (Springer et al. 2018, experiment 3;
//! docs/traffic.md) on an OSMnx GraphML street network: prints the network's statistics, runs
//! the CPU reference (or, with --layout or --device gpu, the simulation over an inner-array
//! layout on the host or the GPU) for --steps steps of --cars cars, checks the invariants and
//! writes the final state as CSV (one row per car) with its checksum on stdout.

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace lb::tools {

struct TrafficCommand {
  CLI::App* cmd = nullptr;
  std::string network, out, device = "cpu";
  std::string tile;  //!< --tile KxL (street_network.hpp), "" when not given
  std::string layout, field = "none", strategy = "full";  //!< layout "": the reference (cpu), soa (gpu)
  std::size_t inline_count = 0;
  std::size_t cars = 0, steps = 0;
  std::uint64_t seed = 1;
  explicit operator bool() const { return cmd != nullptr && cmd->parsed(); }
  int run() const;
};

//! Adds the subcommand to `app`; the command object must outlive parsing.
void add_traffic_command(CLI::App& app, TrafficCommand& c);

}  // namespace lb::tools

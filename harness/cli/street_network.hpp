#pragma once
//! `layoutbench street-network --network FILE [--tile KxL]`: loads an OSMnx GraphML street
//! network by the rules of docs/street-networks.md (tiled into a city of K × L copies with
//! --tile) and prints its statistics (nodes, edges, cells, traffic lights, yield controllers,
//! signal groups, sinks, components, speed limits), with --tile beside the paper's city.
//! The --tile option and the loading it steers are shared with `layoutbench traffic`.

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "lb/datasets/street_network.hpp"

namespace lb::tools {

struct StreetNetworkCommand {
  CLI::App* cmd = nullptr;
  std::string network, tile;
  explicit operator bool() const { return cmd != nullptr && cmd->parsed(); }
  int run() const;
};

//! Adds the subcommand to `app`; the command object must outlive parsing.
void add_street_network_command(CLI::App& app, StreetNetworkCommand& c);

//! Adds --tile KxL to a subcommand (`tile` stays "" when not given).
void add_tile_option(CLI::App* cmd, std::string& tile);

//! The street network of --network and --tile ("" or "1x1": as loaded), within phases that
//! name the file and the tiling. A bad --tile is std::invalid_argument "--tile: ...", thrown
//! before the file is read.
datasets::StreetNetwork load_street_network_option(const std::string& network, const std::string& tile);

//! A table of cells, traffic lights, yield controllers, signal groups and cars: the paper's
//! city (datasets::PaperScale) beside `ours` (cars: "-" when not given), with ours / paper.
std::string paper_scale_table(const datasets::StreetNetworkStats& ours, std::optional<std::size_t> cars);

//! With --tile given (`tile` not ""): paper_scale_table of `net` on stdout.
void print_paper_scale(const datasets::StreetNetwork& net, const std::string& tile, std::optional<std::size_t> cars);

}  // namespace lb::tools

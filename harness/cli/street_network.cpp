#include "street_network.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "common.hpp"
#include "lb/datasets/street_network.hpp"

namespace lb::tools {

void add_street_network_command(CLI::App& app, StreetNetworkCommand& c) {
  c.cmd = app.add_subcommand("street-network",
                             "load an OSMnx GraphML street network and print its statistics (cells, controllers, ...)");
  c.cmd->add_option("--network", c.network, "GraphML file as OSMnx's save_graphml writes it")->required();
}

int StreetNetworkCommand::run() const {
  const datasets::StreetNetwork net = [&] {
    const Phase phase(fmt::format("loading the street network {} ({})", network, file_size_text(network)));
    return datasets::load_osmnx_graphml(network);
  }();
  std::printf("%s: %s\n", network.c_str(), datasets::describe(datasets::street_network_stats(net)).c_str());
  return 0;
}

}  // namespace lb::tools

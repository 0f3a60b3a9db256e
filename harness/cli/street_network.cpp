#include "street_network.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <stdexcept>

#include "common.hpp"
#include "lb/datasets/street_network.hpp"

namespace lb::tools {

void add_street_network_command(CLI::App& app, StreetNetworkCommand& c) {
  c.cmd = app.add_subcommand("street-network",
                             "load an OSMnx GraphML street network and print its statistics (cells, controllers, ...)");
  c.cmd->add_option("--network", c.network, "GraphML file as OSMnx's save_graphml writes it")->required();
  add_tile_option(c.cmd, c.tile);
}

void add_tile_option(CLI::App* cmd, std::string& tile) {
  cmd->add_option("--tile", tile,
                  "KxL: K x L copies of the network side by side, joined into one city (docs/street-networks.md, "
                  "\"Paper scale\"; 8x8 of lower Manhattan is about the paper's 8.3 M cells); prints a table beside "
                  "the paper's city")
      ->check(not_empty());
}

datasets::StreetNetwork load_street_network_option(const std::string& network, const std::string& tile) {
  datasets::Tiling tiling;
  if (!tile.empty()) {
    try {
      tiling = datasets::parse_tiling(tile);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("--tile {}", e.what()));
    }
  }
  datasets::StreetNetwork base = [&] {
    const Phase phase(fmt::format("loading the street network {} ({})", network, file_size_text(network)));
    return datasets::load_osmnx_graphml(network);
  }();
  if (tiling.x == 1 && tiling.y == 1) return base;
  const Phase phase(fmt::format("tiling the street network {} {}x{} times ({} cells each)", network, tiling.x,
                                tiling.y, base.cells.size()));
  return datasets::tile_street_network(base, tiling);
}

std::string paper_scale_table(const datasets::StreetNetworkStats& ours, std::optional<std::size_t> cars) {
  using P = datasets::PaperScale;
  const auto grouped = [](std::size_t v) {
    std::string digits = std::to_string(v), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
      if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
      out += digits[i];
    }
    return out;
  };
  std::string text = fmt::format("{:<18} {:>12} {:>12} {:>10}\n", "beside the paper", "paper", "ours", "ours/paper");
  const auto row = [&](const char* what, std::size_t paper, std::optional<std::size_t> value) {
    text += fmt::format("{:<18} {:>12} {:>12} {:>10}\n", what, grouped(paper), value ? grouped(*value) : "-",
                        value ? fmt::format("{:.3f}", static_cast<double>(*value) / static_cast<double>(paper)) : "-");
  };
  row("cells", P::cells, ours.cells);
  row("traffic lights", P::lights, ours.lights);
  row("yield controllers", P::yield_controllers, ours.yield_controllers);
  row("signal groups", P::signal_groups, ours.signal_groups);
  row("cars", P::cars, cars);
  return text + "(the paper: Springer et al. 2018, the authors' LARGE configuration, Denver-Aurora; 1000 steps)";
}

int StreetNetworkCommand::run() const {
  const datasets::StreetNetwork net = load_street_network_option(network, tile);
  const datasets::StreetNetworkStats stats = datasets::street_network_stats(net);
  std::printf("%s: %s\n", network.c_str(), datasets::describe(stats).c_str());
  if (!tile.empty()) std::printf("%s\n", paper_scale_table(stats, std::nullopt).c_str());
  return 0;
}

void print_paper_scale(const datasets::StreetNetwork& net, const std::string& tile, std::optional<std::size_t> cars) {
  if (!tile.empty()) std::printf("%s\n", paper_scale_table(datasets::street_network_stats(net), cars).c_str());
}

}  // namespace lb::tools

#include "lb/traffic/load_network.hpp"

namespace lb::traffic {

Network load_network(const std::string& path, std::size_t tile_x, std::size_t tile_y, NetworkInfo* info) {
  const datasets::StreetNetwork streets = datasets::load_street_network(path, {tile_x, tile_y});
  BuildReport report;
  Network net = build_network(streets, &report);
  if (info) *info = {datasets::street_network_stats(streets), report};
  return net;
}

}  // namespace lb::traffic

#pragma once
//! The simulation's network straight from a file: an OSMnx GraphML street network, loaded,
//! tiled into a city of copies where asked (datasets::tile_street_network, docs/street-networks.md
//! "Paper scale") and built (build_network), for a benchmark that takes "network" and "tile"
//! from a preset. The street network is dropped once built, so only the Network stays in memory.

#include <string>

#include "lb/datasets/street_network.hpp"
#include "lb/traffic/simulation.hpp"

namespace lb::traffic {

//! What load_network built, for a statistics line or a table beside the paper's.
struct NetworkInfo {
  datasets::StreetNetworkStats streets;  //!< of the (tiled) street network
  BuildReport build;                      //!< what build_network changed to fit the classes' limits
};

//! load_osmnx_graphml(path), tiled tile_x × tile_y times (1 × 1: as loaded), then
//! build_network. Throws datasets::InputError for a malformed file or a city over the limits,
//! std::invalid_argument for a tile count of 0 or above datasets::kMaxTiles.
Network load_network(const std::string& path, std::size_t tile_x = 1, std::size_t tile_y = 1,
                     NetworkInfo* info = nullptr);

}  // namespace lb::traffic

#pragma once
//! The street network builder's steps that the loader (street_network.cpp) and the tiling
//! (street_tiling.cpp) share, so that a tiled city gets its cells, cell graph, sinks and
//! controllers by the very code a loaded file gets them. Not a public header.

#include <array>
#include <cstdint>
#include <vector>

#include "lb/datasets/street_network.hpp"

namespace lb::datasets::detail {

//! Appends the cells of `street`: `cells` centres at equal distances along the polyline (the
//! middle of each of `cells` equal pieces), with the street's limit and type, not sinks.
void place_cells(const std::vector<std::array<double, 2>>& poly, std::uint32_t cells, std::uint32_t street,
                 std::uint8_t limit, StreetType type, std::vector<StreetNetwork::Cell>& out);

//! From the nodes, streets and cells: the cell graph (both CSRs), the sink flags of streets'
//! last cells, and the controllers with their signal groups (replacing any there were), by the
//! rules of docs/street-networks.md. Throws InputError naming net.source when the turns at
//! intersections exceed options.max_cells.
void connect_streets(StreetNetwork& net, const StreetNetworkOptions& options);

//! The strongly connected components of the node graph (a street is an arc from -> to): the
//! component of each node in `component` (numbered from 0 in the order Tarjan's algorithm
//! completes them); returns their number.
std::uint32_t strong_components(const StreetNetwork& net, std::vector<std::uint32_t>& component);

}  // namespace lb::datasets::detail

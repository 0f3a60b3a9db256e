#pragma once
//! Street networks for the traffic simulation (Springer et al. 2018, experiment 3) from the
//! GraphML files OSMnx writes: streets become chains of 4 m cells with speed limits, and
//! intersections get traffic lights or yield controllers acting through signal groups, by the
//! rules of the authors' network builder (prg-titech/traffic-simulation). docs/street-networks.md
//! states the format read, every rule and default, and where this differs from the authors.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lb/datasets/points.hpp"  // InputError

namespace lb::datasets {

inline constexpr double kCellMetres = 4.0;       //!< a cell's length (the paper's)
inline constexpr double kStepSeconds = 2.0;      //!< one simulation step (the authors' iteration)
inline constexpr double kDefaultSpeedMs = 13.8;  //!< streets without a usable maxspeed (the authors')
inline constexpr double kMaxSpeedKmh = 300;      //!< larger maxspeed values are not understood

//! Street types, in the authors' order (a yield controller lets the larger type go first).
enum class StreetType : std::uint8_t {
  service,
  residential,
  unclassified,
  tertiary,
  secondary,
  primary,
  trunk,
  motorway
};
inline constexpr StreetType kDefaultStreetType = StreetType::residential;  //!< the authors' default
std::string_view to_string(StreetType t);

enum class ControllerKind : std::uint8_t { traffic_light, yield };

//! Cells per step for a speed in m/s: floor(speed * kStepSeconds / kCellMetres), at least 1
//! (13.8 m/s: 6; 25 mph: 5; 50 km/h: 6).
std::uint8_t cells_per_step(double metres_per_second);

//! A maxspeed value as OSMnx writes it: "25 mph", "50", "50 km/h", a list "['40 mph', '35 mph']"
//! or "50;30" (the largest value counts). Bare numbers are km/h (OpenStreetMap's unit). Returns
//! m/s, or 0 where no value is understood (a word such as "signals", a unit not known, a value
//! not above 0 or above kMaxSpeedKmh).
double parse_maxspeed(std::string_view text);

//! A highway value, or a list of them ("['residential', 'unclassified']"): the largest street
//! type one of its entries names (matched as a substring, as the authors do: "primary_link" is
//! primary); `known` is false and the type kDefaultStreetType when none does.
StreetType parse_highway(std::string_view text, bool& known);

struct StreetNetwork {
  struct Node {
    std::string id;       //!< the GraphML node id (what edges name)
    std::uint64_t osmid;  //!< data osmid, else the id where it is an integer, else 0
    double x, y;          //!< metres, from the south-west corner of the nodes' bounding box
    std::size_t line;     //!< of the <node> element
  };
  //! One direction of travel: an edge of a directed graph (OSMnx's), or one of the two of a
  //! two-way edge of an undirected graph.
  struct Street {
    std::uint32_t from, to;           //!< node indices
    std::uint32_t first_cell, cells;  //!< its cells are first_cell .. first_cell + cells - 1, in driving order
    std::uint32_t edge;               //!< the <edge> it comes from (file order)
    double length;                    //!< metres (the edge's length, else its geometry's)
    std::uint8_t speed_limit;         //!< cells per step
    StreetType type;
    bool speed_from_file;  //!< maxspeed understood (else kDefaultSpeedMs)
    bool type_known;       //!< highway named a known type (else kDefaultStreetType)
  };
  struct Cell {
    double x, y;  //!< its centre, metres (as Node::x, y)
    std::uint32_t street;
    std::uint8_t speed_limit;  //!< the street's
    StreetType type;           //!< the street's
    bool sink;                 //!< the last cell of a street into a node without outgoing streets
  };
  //! A traffic light (one group per incoming street, in street order) or a yield controller (two
  //! groups, the larger street type's first).
  struct Controller {
    std::uint32_t node;
    ControllerKind kind;
    std::uint32_t first_group, groups;  //!< groups[first_group .. first_group + groups)
  };
  //! An incoming street's last cell, which the controller stops or lets go.
  struct SignalGroup {
    std::uint32_t controller, street, cell;
  };

  std::vector<Node> nodes;
  std::vector<Street> streets;
  std::vector<Cell> cells;
  std::vector<Controller> controllers;
  std::vector<SignalGroup> groups;
  //! The cell graph in CSR form: cell c leads to out_cells[out_offsets[c] .. out_offsets[c+1])
  //! (the next cell of its street, or at a street's end the first cell of every street leaving
  //! that node, U-turns included), and is entered from in_cells[in_offsets[c] ..).
  std::vector<std::uint32_t> out_offsets{0}, out_cells, in_offsets{0}, in_cells;

  std::size_t edges = 0;           //!< <edge> elements read
  std::size_t self_loops = 0;      //!< edges from a node to itself (kept: a street around the block)
  std::size_t parallel_edges = 0;  //!< edges joining the nodes an earlier edge joins (kept)
  bool directed = true;            //!< the graph's edgedefault
  std::string source;              //!< the file
};

struct StreetNetworkOptions {
  //! More cells than this is refused (an InputError naming the file): a bound on memory for
  //! absurd lengths (the fuzz target sets a small one).
  std::uint64_t max_cells = std::uint64_t{1} << 31;
};

//! Reads the GraphML file OSMnx's save_graphml writes (old and new networkx key styles; a
//! hand-written reader of the XML subset GraphML uses) with the input size limit
//! (text::read_bounded) and builds the street network. Throws InputError "<file>:<line>:
//! <problem>" for a file that is not well-formed XML (truncated included), not GraphML, or has
//! a node without an id or coordinates, an edge naming an unknown node, a length or coordinate
//! that is not a number, a geometry that is not a LINESTRING, a oneway that is not a boolean, an
//! edge key given twice; "<file>: <problem>" for a missing file, no nodes or no edges.
StreetNetwork load_osmnx_graphml(const std::string& path, const StreetNetworkOptions& options = {});

struct StreetNetworkStats {
  std::size_t nodes = 0, edges = 0, streets = 0, cells = 0;
  double length_m = 0;  //!< all streets together
  std::size_t lights = 0, yield_controllers = 0, signal_groups = 0;
  std::size_t sink_cells = 0, sink_nodes = 0;
  std::size_t components = 0;         //!< weakly connected, over nodes (an isolated node is one)
  std::size_t largest_component = 0;  //!< its nodes
  std::size_t isolated_nodes = 0;     //!< nodes no street touches
  std::size_t self_loops = 0, parallel_edges = 0;
  std::size_t speed_from_file = 0, speed_default = 0, unknown_highway = 0;  //!< streets
  std::uint32_t max_cell_in = 0, max_cell_out = 0;                          //!< cell fan-in, fan-out
};

StreetNetworkStats street_network_stats(const StreetNetwork& net);

//! The statistics as a few lines of text (no trailing newline), for `layoutbench street-network`
//! and the traffic simulation's CLI.
std::string describe(const StreetNetworkStats& s);

}  // namespace lb::datasets

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
inline constexpr double kDefaultSpeedMs = 13.8;  //!< streets without a usable maxspeed or a highway
                                                 //!< value kHighwaySpeeds has (the authors')
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

//! Speed limits of streets without a usable maxspeed, by highway value (the whole value, or a
//! list entry, compared without case). Our values, not the authors' (who give every street
//! 13.8 m/s): typical US urban limits, 25 mph being the usual statutory limit on city streets
//! (New York City's since 2014) and 55 mph a common urban freeway limit. A highway value the
//! table lacks (`elevator`, `road`, ...) gives kDefaultSpeedMs. docs/street-networks.md lists it.
struct HighwaySpeed {
  std::string_view highway;
  double mph;
};
inline constexpr HighwaySpeed kHighwaySpeeds[] = {
    {"motorway", 55},       {"motorway_link", 35},  {"trunk", 45},         {"trunk_link", 30},
    {"primary", 35},        {"primary_link", 25},   {"secondary", 30},     {"secondary_link", 25},
    {"tertiary", 25},       {"tertiary_link", 25},  {"unclassified", 25},  {"residential", 25},
    {"living_street", 10},  {"service", 15},
};
inline constexpr double kMetresPerSecondPerMph = 0.44704;

//! The speed (m/s) kHighwaySpeeds gives a highway value; for a list ("['residential',
//! 'unclassified']") the fastest of the entries the table has. 0 when it has none.
double highway_speed(std::string_view text);

//! Where a street's speed limit comes from.
enum class SpeedSource : std::uint8_t {
  maxspeed,  //!< its maxspeed
  highway,   //!< kHighwaySpeeds (no usable maxspeed)
  fallback   //!< kDefaultSpeedMs (neither; and tile_street_network's joints)
};

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
    SpeedSource speed_source;
    bool type_known;       //!< highway named a known type (else kDefaultStreetType)
    bool joint = false;    //!< a street tile_street_network added between two copies
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
  std::size_t tiles_x = 1, tiles_y = 1;  //!< copies of the file's network (tile_street_network)
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
  std::size_t strong_components = 0;         //!< strongly connected (streets as arcs), over nodes
  std::size_t largest_strong_component = 0;  //!< its nodes
  std::size_t tiles_x = 1, tiles_y = 1;      //!< the network's
  std::size_t joint_streets = 0;             //!< streets tile_street_network added
  std::size_t isolated_nodes = 0;     //!< nodes no street touches
  std::size_t self_loops = 0, parallel_edges = 0;
  std::size_t speed_from_file = 0, speed_from_highway = 0, speed_default = 0;  //!< streets, by SpeedSource
  std::size_t unknown_highway = 0;                                              //!< streets
  std::uint32_t max_cell_in = 0, max_cell_out = 0;                          //!< cell fan-in, fan-out
};

StreetNetworkStats street_network_stats(const StreetNetwork& net);

// --- a city of copies (docs/street-networks.md, "Paper scale") ------------------------------

inline constexpr double kTileGapMetres = 100;    //!< between neighbouring copies' bounding boxes
inline constexpr std::size_t kJointBands = 4;    //!< joints per border: at most one per band
inline constexpr StreetType kJointStreetType = StreetType::residential;  //!< joint streets'
inline constexpr double kJointSpeedMs = kDefaultSpeedMs;                 //!< joint streets' (6 cells a step)
inline constexpr std::size_t kMaxTiles = 1u << 16;  //!< copies along one axis, at most

//! The copies a tiling makes along x (east) and y (north).
struct Tiling {
  std::size_t x = 1, y = 1;
};

//! "KxL" (two decimal integers from 1 to kMaxTiles joined by 'x', e.g. "8x8") as a Tiling.
//! Throws std::invalid_argument "'3x' is not KxL ...", without an option name (the caller
//! adds one).
Tiling parse_tiling(std::string_view text);

//! `base` copied tiling.x × tiling.y times into one city. Copy (i, j) (column i of x, row j of y;
//! copy number t = j·x + i) is `base` shifted by (i·px, j·py), px and py the width and height of
//! the bounding box of base's nodes and cells plus kTileGapMetres; its nodes, streets, cells and
//! edges are base's with indices offset by t times base's counts, node ids "<id>@i,j". Then
//! neighbouring copies are joined: the base's "core" is its largest strongly connected component
//! (nodes; the first in node order among equals); for the border between copies (i, j) and
//! (i+1, j) the base's y range is cut into kJointBands equal bands, and in each band holding a
//! core node the core node of largest x in copy (i, j) (the first in node order among equals)
//! is joined with the core node of smallest x in copy (i+1, j); likewise between (i, j) and
//! (i, j+1) with x bands, largest y below and smallest y above. A joint is a two-way street (two
//! streets, two edges, appended after the copies' in border order: all x borders row by row,
//! then all y borders) along the straight line between the two nodes: its length that line's,
//! max(1, round(length / 4 m)) cells, kJointStreetType, kJointSpeedMs. Cell graph, sinks and
//! controllers are then recomputed by the loader's code for the whole city (so a node a joint
//! reaches may gain a light or yield controller). The city is weakly connected when base is,
//! and strongly connected when base is. 1 × 1 returns base unchanged. Throws
//! std::invalid_argument for a count of 0 or above kMaxTiles, InputError naming base.source when the city would
//! exceed options.max_cells cells (or turns) or 2^32 nodes or streets (checked before
//! allocating).
StreetNetwork tile_street_network(const StreetNetwork& base, Tiling tiling, const StreetNetworkOptions& options = {});

//! The file loaded, then tiled (1 × 1: just loaded).
StreetNetwork load_street_network(const std::string& path, Tiling tiling = {}, const StreetNetworkOptions& options = {});

//! The paper's city (Springer et al. 2018, the authors' LARGE configuration: the Denver–Aurora
//! urbanized area), for tables beside ours.
struct PaperScale {
  static constexpr std::size_t cells = 8'339'802, cars = 229'376, lights = 62'819, yield_controllers = 4'792,
                               signal_groups = 205'129, steps = 1000;
};
//! Lower Manhattan (../shared/datasets/lowermanhattan.graphml, 123,696 cells) tiled so: 64
//! copies, about 7.9 M cells (the paper's 8.34 M lies between 8 × 8 and 9 × 8).
inline constexpr Tiling kPaperScaleManhattanTiling{8, 8};

//! The statistics as a few lines of text (no trailing newline), for `layoutbench street-network`
//! and the traffic simulation's CLI.
std::string describe(const StreetNetworkStats& s);

}  // namespace lb::datasets

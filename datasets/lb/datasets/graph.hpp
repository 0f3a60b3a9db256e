#pragma once
//! Directed graphs for BFS (Springer et al. 2018, Fig. 10b): a SNAP edge-list loader, the
//! statistics checked after loading, and a generator of road-like graphs for when the real
//! file (SNAP roadNet-PA) is not there.
//!
//! Edges are kept directed, as listed. SNAP's roadNet-PA is an undirected road network
//! published with both directions of every road listed (3,083,796 directed edges), so
//! keeping the list as it is gives the undirected graph; a file listing one direction only
//! gives a directed graph, and BFS follows the listed direction.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lb/datasets/points.hpp"

namespace lb::datasets {

//! A directed graph in CSR form over dense vertex ids 0..vertices()-1: the neighbours of v
//! are targets[offsets[v] .. offsets[v+1]), sorted, without duplicates or self-loops.
struct Graph {
  std::vector<std::uint32_t> offsets{0};  //!< vertices() + 1 entries
  std::vector<std::uint32_t> targets;
  //! The id each dense vertex had in the file (ascending, so dense order is file-id order);
  //! for generated graphs, the dense id itself.
  std::vector<std::uint64_t> original_id;
  std::string source;  //!< file name or a description of the generator

  std::size_t vertices() const { return offsets.size() - 1; }
  std::size_t edges() const { return targets.size(); }
  std::uint32_t degree(std::size_t v) const { return offsets[v + 1] - offsets[v]; }
  //! The dense id of a file id; throws InputError naming the id when no edge mentions it.
  std::uint32_t dense_id(std::uint64_t original) const;
};

//! What the loader dropped: both are counted, reported, and left out of the graph.
struct EdgeListLoad {
  Graph graph;
  std::size_t edge_lines = 0;       //!< edges as listed in the file
  std::size_t duplicate_edges = 0;  //!< repeats of an earlier (from, to) pair
  std::size_t self_loops = 0;       //!< "v v" lines (their vertex still counts as a vertex)
};

//! Reads a SNAP edge list: one "from to" pair of non-negative integer ids per line,
//! separated by tabs or spaces; lines starting with '#' and blank lines are skipped; "\r\n"
//! line ends and a UTF-8 byte order mark are accepted; the file is read with the input size
//! limit (text::read_bounded). Ids need not be dense: they are renumbered 0..n-1 in ascending
//! order (Graph::original_id keeps them). Throws InputError naming file:line for a line
//! with one column or more than two, an id that is not an integer, negative, or beyond
//! 2^64-1; naming the file when it is missing, a directory, has no edges, or has more than
//! 2^32-1 distinct ids or edges (the CSR's 32-bit indices).
EdgeListLoad load_snap_edge_list(const std::string& path);

//! Builds a Graph from dense-id edge pairs (sorting, dropping duplicates and self-loops).
EdgeListLoad graph_from_edges(std::size_t vertices, std::vector<std::pair<std::uint32_t, std::uint32_t>> edges);

//! The level of a vertex BFS does not reach.
inline constexpr int kUnreachable = -1;

//! The CPU reference BFS (a queue): the level (hop count from `source`, following edge
//! directions) of every vertex, kUnreachable where there is no path.
std::vector<int> bfs_levels(const Graph& g, std::uint32_t source);

//! The statistics checked after loading (and reported for generated graphs).
struct GraphStats {
  std::size_t vertices = 0;
  std::uint64_t max_original_id = 0;
  std::size_t directed_edges = 0;
  std::size_t components = 0;         //!< weakly connected
  std::size_t largest_component = 0;  //!< vertices in the largest weakly connected component
  double mean_degree = 0;             //!< directed edges / vertices (out-degree)
  std::uint32_t max_degree = 0;       //!< out-degree
  //! A lower bound on the diameter (longest shortest path following edge directions): the
  //! largest BFS eccentricity found by `sweeps` double sweeps (BFS from a vertex of the
  //! largest component, then from the farthest vertex found), exact on trees and usually
  //! exact on road networks.
  std::uint32_t diameter_lower_bound = 0;
};

GraphStats graph_stats(const Graph& g, int sweeps = 2);

//! SNAP's published statistics of roadNet-PA (the paper's BFS input).
GraphStats roadnet_pa_reference();

//! One line per statistic where `got` differs from `expected` (for roadNet-PA: vertices, max
//! id, directed edges, components, largest component; mean and max degree are compared when
//! expected has them, the diameter bound within `diameter_tolerance`, as a fraction). Empty
//! when everything matches.
std::vector<std::string> stats_differences(const GraphStats& got, const GraphStats& expected,
                                           double diameter_tolerance = 0.05);

//! "vertices 1088092, max id 1090919, directed edges ..." for logs and CLI output.
std::string describe(const GraphStats& s);

//! A road-like graph (no file needed) with `vertices` vertices and exactly `directed_edges`
//! directed edges, every road listed in both directions, connected, with roadNet-PA's degree
//! distribution (at full size each degree's share within 1 percentage point of the target in graph.cpp,
//! derived from the shipped head of SNAP's file and SNAP's mean degree; max degree 9) and,
//! at full size, roadNet-PA's diameter (see graph.cpp for the construction and the sources).
//! Deterministic for a seed on every platform.
struct RoadLikeSpec {
  std::size_t vertices = 1'088'092;  //!< roadNet-PA's (SNAP)
  std::size_t directed_edges = 3'083'796;  //!< SNAP's: 1,541,898 roads, both directions
  //! How far a road reaches, squared, in grid steps (5 to 18): sets the diameter. At full
  //! size with the default seed the double-sweep bound is 1054 at 5, 878 at 9, 786 at 10 (SNAP's
  //! diameter of roadNet-PA: 786), 722 at 13 and 612 at 18; seeds 1, 2, 3 give 787, 808, 788 at 10.
  std::uint32_t reach_squared = 10;
  std::uint64_t seed = 20180618;
};
Graph generate_road_like(const RoadLikeSpec& spec = {});

}  // namespace lb::datasets

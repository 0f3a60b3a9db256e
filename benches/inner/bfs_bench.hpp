#pragma once
//! Fig. 10b's BFS variant (bfs_bench.cpp), for the planner and the tests.

#include <cstdint>
#include <memory>
#include <string>

#include "inner/suite.hpp"
#include "lb/bfs/bfs.hpp"

namespace lb::benches::inner {

//! One BFS variant (benches/inner/bfs_bench.cpp) on graph "road-like" or "roadnet-pa" from
//! the vertex with file id `source`, for the planner and the tests (the CPU runs the same
//! search serially), searched as `search` says. Its validation names a vertex whose level
//! differs from the queue BFS.
std::unique_ptr<Variant> make_bfs_variant(const std::string& graph, std::uint64_t source, const bfs::Variant& v,
                                          bfs::Device device, bfs::Search search = bfs::Search::per_level);

}  // namespace lb::benches::inner

#pragma once
//! `layoutbench bfs`: BFS levels of a SNAP edge list from one source, by the frontier search
//! over an inner-array layout on the GPU (the paper's launch per level, or the persistent or
//! queue search) or the CPU, checked against a CPU queue BFS, written
//! as CSV "id,level" (file ids, ascending; -1 where no path leads from the source).

#include <string>

#include <CLI/CLI.hpp>

namespace lb::tools {

struct BfsOptions {
  std::string graph, source, out;
  std::string device = "gpu", layout = "soa", strategy = "full", search = "per-level";
  std::size_t inline_count = 0;
};

void add_bfs_options(CLI::App* cmd, BfsOptions& o);
int bfs(const BfsOptions& o);

}  // namespace lb::tools

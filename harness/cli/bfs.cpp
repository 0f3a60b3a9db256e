#include "bfs.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "lb/bfs/bfs.hpp"
#include "lb/bfs/frontier.hpp"
#include "lb/common/cuda_check.hpp"
#include "lb/datasets/atomic_file.hpp"
#include "lb/datasets/graph.hpp"
#include "lb/datasets/grid_writer.hpp"
#include "lb/datasets/text.hpp"
#include "lb/harness/memory_fit.hpp"
#include "common.hpp"

namespace lb::tools {

void add_bfs_options(CLI::App* cmd, BfsOptions& o) {
  cmd->add_option("--graph", o.graph, "SNAP edge list: \"from to\" per line, tab or space separated, # comments")
      ->required();
  cmd->add_option("--source", o.source, "the vertex to search from (an id of the file)")->required();
  cmd->add_option("--out", o.out, ".csv file to write: id,level per vertex (level -1: not reachable from the source)")
      ->required();
  cmd->add_option("--device", o.device, "gpu or cpu (the same frontier search, serially)")->capture_default_str();
  cmd->add_option("--layout", o.layout, "vertex layout: aos or soa")->capture_default_str();
  cmd->add_option("--strategy", o.strategy,
                  fmt::format("neighbour arrays: none, partial (--inline N of them in the vertex), full or object "
                              "({} slots a vertex: max degree {})",
                              bfs::kMaxDegree, bfs::kMaxDegree))
      ->capture_default_str();
  cmd->add_option("--inline", o.inline_count, fmt::format("N for --strategy partial (0-{})", bfs::kMaxInline))
      ->check(non_negative_integer())
      ->capture_default_str();
  cmd->add_option("--search", o.search,
                  "per-level (the paper's: a launch per level), persistent (every level in one cooperative "
                  "launch) or queue (the same over a frontier queue; persistent and queue: GPU only)")
      ->capture_default_str();
}

int bfs(const BfsOptions& o) {
  if (o.device != "gpu" && o.device != "cpu")
    throw std::invalid_argument(fmt::format("--device: unknown device '{}' (gpu or cpu)", o.device));
  auto named = [](const char* option, auto parse, const std::string& text) {
    try {
      return parse(text);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("{}: {}", option, e.what()));
    }
  };
  const bfs::Variant variant{named("--layout", inner::parse_inner_layout, o.layout),
                             named("--strategy", inner::parse_inner_strategy, o.strategy), o.inline_count};
  const bfs::Search search = named("--search", bfs::parse_search, o.search);
  if (o.device == "cpu" && search != bfs::Search::per_level)
    throw std::invalid_argument(
        fmt::format("--search: the {} search runs on the GPU only (--device gpu)", bfs::to_string(search)));
  std::uint64_t source_id = 0;
  {
    std::size_t parsed = 0;
    if (!datasets::text::parse_size(o.source, parsed))
      throw std::invalid_argument(
          fmt::format("--source: {} is not a vertex id (a non-negative integer)", datasets::text::quote(o.source)));
    source_id = parsed;
  }
  // The output path is checked (and its temporary file made) before any work.
  datasets::AtomicFiles outputs({{"--out", o.out}}, {o.graph});
  datasets::output_extension({"--out", o.out}, {".csv"});
  if (o.device == "gpu") require_gpu_for_device_option("the same search on the CPU");

  // The loader holds the text, the edges as read (16 bytes each, 5 bytes of text at least)
  // and the ids: under 5 times the file.
  std::error_code ec;
  const auto file_bytes = static_cast<double>(std::filesystem::file_size(o.graph, ec));
  if (!ec) harness::require_memory({.host_bytes = 5 * file_bytes}, fmt::format("loading {}", o.graph));
  const datasets::EdgeListLoad load = [&] {
    const Phase phase(fmt::format("loading the graph {} ({})", o.graph, file_size_text(o.graph)));
    return datasets::load_snap_edge_list(o.graph);
  }();
  const datasets::Graph& g = load.graph;
  std::uint32_t source = 0;
  try {
    source = g.dense_id(source_id);
  } catch (const datasets::InputError& e) {
    throw std::invalid_argument(fmt::format("--source: {}", e.what()));
  }
  bfs::check_variant(variant, g);
  // A layout copy at most 16 bytes a vertex beside its inline slots, 4 an arena element.
  const double layout_bytes = static_cast<double>(g.vertices()) * (16 + 4.0 * bfs::kMaxInline) + 4.0 * g.edges();
  // The queue search's two queues: 8 bytes a vertex.
  const double queues_bytes = search == bfs::Search::queue ? 8.0 * g.vertices() : 0.0;
  const harness::MemoryNeed need{.host_bytes = layout_bytes + 12.0 * g.vertices(),
                                 .device_bytes = o.device == "gpu" ? layout_bytes + queues_bytes : 0.0};
  const std::string what = fmt::format("a BFS over {} vertices and {} edges", g.vertices(), g.edges());
  harness::require_memory(need, what);
  const Phase phase(fmt::format("running {} (about {} of host memory)", what, bytes_text(need.host_bytes)));
  const datasets::GraphStats stats = datasets::graph_stats(g);
  std::fprintf(stderr, "%s: %zu edge lines (%zu duplicates, %zu self-loops dropped); %s\n", o.graph.c_str(),
               load.edge_lines, load.duplicate_edges, load.self_loops, datasets::describe(stats).c_str());
  if (std::filesystem::path(o.graph).filename() == "roadNet-PA.txt") {
    const auto diff = datasets::stats_differences(stats, datasets::roadnet_pa_reference());
    std::fprintf(stderr, "%s\n",
                 diff.empty() ? "statistics match SNAP's roadNet-PA"
                              : fmt::format("differs from SNAP's roadNet-PA: {}", fmt::join(diff, "; ")).c_str());
  }

  auto frontier =
      bfs::make_frontier_bfs(g, variant, o.device == "gpu" ? bfs::Device::gpu : bfs::Device::cpu, search);
  frontier->poison();
  const auto t0 = std::chrono::steady_clock::now();
  const int iterations = frontier->run(source);
  const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::vector<int> levels = frontier->levels();
  const std::vector<int> expected = datasets::bfs_levels(g, source);
  for (std::size_t v = 0; v < g.vertices(); ++v)
    if (levels[v] != expected[v])
      throw std::runtime_error(
          fmt::format("the frontier search gave vertex {} level {}, the queue BFS {}; nothing "
                      "written",
                      g.original_id[v], levels[v], expected[v]));

  auto& out = outputs[0].stream();
  out << "id,level\n";
  for (std::size_t v = 0; v < g.vertices(); ++v) out << g.original_id[v] << ',' << levels[v] << '\n';
  outputs.commit();
  const std::size_t reached =
      g.vertices() - static_cast<std::size_t>(std::count(levels.begin(), levels.end(), datasets::kUnreachable));
  std::fprintf(stderr,
               "BFS from %llu (%s, %s, %s, inline %zu, %s search): %zu of %zu vertices reached, largest level %d, "
               "%.3f s (%.2f us a level), checked against the queue BFS -> %s\n",
               static_cast<unsigned long long>(source_id), o.device.c_str(), o.layout.c_str(), o.strategy.c_str(),
               o.inline_count, o.search.c_str(), reached, g.vertices(), iterations - 1, dt, 1e6 * dt / iterations,
               o.out.c_str());
  return 0;
}

}  // namespace lb::tools

//! Springer et al. 2018, Fig. 10b: the frontier BFS over the inner-array layouts on the GPU.
//! Names: inner/bfs/<strategy>/<aos|soa>/int/inline:<N>/graph:<name>[/search:<persistent|queue>], N the
//! neighbours held in the vertex (none 0, partial N, full and object kMaxDegree). The search
//! (preset key "searches", absent: the paper's) is `per-level`, the paper's launch per level
//! (left out of the name, so names from before the axis stay), `persistent`, every level in
//! one cooperative launch, or `queue`, the same over a frontier queue (both beyond the paper;
//! kernels/bfs/gpu_search.cu). Graphs: `roadnet-pa` (SNAP's
//! file, datasets/fetch.sh roadNet-PA, read from the data folder: $LB_DATA_DIR, else data/ in
//! the repository; its statistics are checked against SNAP's and a difference is reported on
//! stderr) and `road-like` (generated with roadNet-PA's size, degrees and diameter); `auto`
//! in a preset takes roadnet-pa when the file is there, else road-like.
//!
//! Each benchmark is validated (distances poisoned first) against the CPU queue BFS, every
//! vertex. Counters: edges (the out-degrees of the vertices reached: each is relaxed once)
//! and edges_per_s, levels and level_s (the time per level: what the searches differ in), the
//! footprint (inline part, arena, padding wasted). Declared
//! bytes: every iteration reads every distance (levels x n x 4; the queue search instead
//! writes and reads each reached vertex's queue entry once); each reached vertex once reads
//! its length (and its arena offset where it has neighbours there), its neighbour ids and
//! their distances (2 x 4 x degree); the reset writes n distances and the search writes each
//! reached vertex's once. Sector granularity is left out: the AoS scans'
//! record-stride reads are what the layouts differ in.

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "inner/bfs_bench.hpp"
#include "lb/bfs/bfs.hpp"
#include "lb/bfs/frontier.hpp"
#include "lb/datasets/graph.hpp"
#include "lb/harness/program.hpp"

namespace lb::benches::inner {
namespace {

//! Upper estimates at roadNet-PA's size: on the host the edge list as parsed (16 bytes an
//! edge, 8 an id), the CSR, the layout copy and the levels; on the device the layout (at most
//! 52 bytes a vertex and 4 an edge), the flags and the queue search's two queues (8 bytes a vertex).
constexpr MemoryNeed kMemoryNeed{.host_bytes = 400e6, .device_bytes = 200e6};

std::filesystem::path data_dir() {
  if (const char* dir = std::getenv("LB_DATA_DIR"); dir && *dir) return dir;
  return std::filesystem::path(LB_SOURCE_DIR) / "data";
}

std::filesystem::path roadnet_pa_path() { return data_dir() / "roadNet-PA.txt"; }

//! A benchmark graph with its source and the reference levels from it, built once per process.
struct BenchGraph {
  datasets::Graph graph;
  std::uint32_t source = 0;
  std::vector<int> levels;
  std::size_t edges = 0;  //!< traversed from the source
  datasets::GraphStats stats;
};

const BenchGraph& bench_graph(const std::string& name, std::uint64_t source_id) {
  static std::map<std::pair<std::string, std::uint64_t>, BenchGraph> cache;
  const auto key = std::make_pair(name, source_id);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  BenchGraph b;
  b.graph = name == "roadnet-pa" ? datasets::load_snap_edge_list(roadnet_pa_path().string()).graph
                                 : datasets::generate_road_like();
  b.stats = datasets::graph_stats(b.graph);
  const datasets::GraphStats real = datasets::roadnet_pa_reference();
  std::fprintf(stderr, "graph %s: %s\nSNAP's roadNet-PA: %s\n", b.graph.source.c_str(),
               datasets::describe(b.stats).c_str(), datasets::describe(real).c_str());
  if (const auto diff = datasets::stats_differences(b.stats, real); name == "roadnet-pa" && !diff.empty())
    std::fprintf(stderr, "warning: %s differs from SNAP's roadNet-PA: %s\n", roadnet_pa_path().c_str(),
                 fmt::format("{}", fmt::join(diff, "; ")).c_str());
  b.source = b.graph.dense_id(source_id);
  b.levels = datasets::bfs_levels(b.graph, b.source);
  b.edges = bfs::traversed_edges(b.graph, b.levels);
  return cache.emplace(key, std::move(b)).first->second;
}

class BfsProgram final : public Variant {
 public:
  BfsProgram(std::string graph, std::uint64_t source_id, bfs::Variant v, bfs::Device device, bfs::Search search)
      : graph_name_(std::move(graph)), source_id_(source_id), variant_(v), device_(device), search_kind_(search) {}

  void setup(cudaStream_t) override {
    graph_ = &bench_graph(graph_name_, source_id_);
    search_ = bfs::make_frontier_bfs(graph_->graph, variant_, device_, search_kind_);
  }
  void poison(cudaStream_t) override { search_->poison(); }
  void run(cudaStream_t stream) override { iterations_ = search_->run(graph_->source, stream); }

  //! Exact: every level equals the queue BFS's (max_abs_err is the largest difference).
  Check validate(cudaStream_t) override {
    const std::vector<int> got = search_->levels();
    const std::vector<int>& want = graph_->levels;
    Check c;
    double max_abs_err = 0;
    for (std::size_t v = 0; v < got.size(); ++v) {
      if (got[v] == want[v]) continue;
      max_abs_err = std::max(max_abs_err, std::abs(static_cast<double>(got[v]) - want[v]));
      if (c.message.empty())
        c.message =
            fmt::format("vertex {} (file id {}): level {}, the queue BFS says {}{}", v, graph_->graph.original_id[v],
                        got[v], want[v], got[v] == bfs::kPoison ? " (still poisoned)" : "");
    }
    c.counters = {{"checked", static_cast<double>(got.size())}, {"max_abs_err", max_abs_err}, {"tolerance", 0}};
    const int expected_iterations = *std::max_element(want.begin(), want.end()) + 1;
    if (c.message.empty() && iterations_ != expected_iterations)
      c.message = fmt::format("{} iterations, expected {}", iterations_, expected_iterations);
    c.ok = c.message.empty();
    return c;
  }

  Work work() const override {
    const datasets::Graph& g = graph_->graph;
    const bool arena = variant_.strategy == InnerStrategy::none || variant_.strategy == InnerStrategy::partial;
    // Reached vertices read their length; those with neighbours in the arena its offset too.
    double reached = 0, offsets = 0;
    for (std::size_t v = 0; v < g.vertices(); ++v) {
      if (graph_->levels[v] == datasets::kUnreachable) continue;
      reached += 1;
      offsets += arena && g.degree(v) > variant_.inline_count ? 1 : 0;
    }
    const double n = static_cast<double>(g.vertices()), edges = static_cast<double>(graph_->edges);
    const double iterations = *std::max_element(graph_->levels.begin(), graph_->levels.end()) + 1;
    const bool queue = search_kind_ == bfs::Search::queue;
    return {.unit = "edges",
            .units = edges,
            .bytes_read = (queue ? reached * 4 : iterations * n * 4) + (reached + offsets) * 4 + edges * 2 * 4,
            .bytes_written = n * 4 + reached * (queue ? 8 : 4)};
  }
  double footprint_bytes() const override { return static_cast<double>(search_->footprint().total()); }
  void add_counters(benchmark::State& state, double seconds) const override {
    const auto& f = search_->footprint();
    const double levels = *std::max_element(graph_->levels.begin(), graph_->levels.end()) + 1;
    state.counters["levels"] = levels;
    state.counters["level_s"] = seconds / levels;
    state.counters["graph_vertices"] = static_cast<double>(graph_->stats.vertices);
    state.counters["graph_edges"] = static_cast<double>(graph_->stats.directed_edges);
    state.counters["graph_components"] = static_cast<double>(graph_->stats.components);
    state.counters["graph_diameter_lower_bound"] = graph_->stats.diameter_lower_bound;
    state.counters["footprint_inline_bytes"] = static_cast<double>(f.inline_bytes);
    state.counters["footprint_arena_bytes"] = static_cast<double>(f.arena_bytes);
    state.counters["footprint_wasted_bytes"] = static_cast<double>(f.wasted_bytes);
  }

 private:
  std::string graph_name_;
  std::uint64_t source_id_;
  bfs::Variant variant_;
  bfs::Device device_;
  bfs::Search search_kind_;
  const BenchGraph* graph_ = nullptr;
  std::unique_ptr<bfs::FrontierBfs> search_;
  int iterations_ = 0;
};

}  // namespace

std::unique_ptr<Variant> make_bfs_variant(const std::string& graph, std::uint64_t source, const bfs::Variant& v,
                                          bfs::Device device, bfs::Search search) {
  return std::make_unique<BfsProgram>(graph, source, v, device, search);
}

namespace {

//! The graph a preset's value names: "auto" is roadnet-pa where its file is, else road-like;
//! roadnet-pa needs its file (else a PresetError at "graph").
std::string resolved_graph(const Reader& read, const std::string& graph) {
  if (graph == "auto") return std::filesystem::exists(roadnet_pa_path()) ? "roadnet-pa" : "road-like";
  if (graph == "roadnet-pa" && !std::filesystem::exists(roadnet_pa_path()))
    throw read.preset().error_at(
        "graph", fmt::format("graph 'roadnet-pa' needs {} (datasets/fetch.sh roadNet-PA)", roadnet_pa_path().string()),
        read.where());
  return graph;
}

//!   "bfs": {"inline_sizes": [0, 1, ..., 10], "layouts": ["aos", "soa"],
//!           "strategies": ["none", "partial", "full", "object"], "graph": "auto", "source": 0,
//!           "searches": ["per-level", "persistent", "queue"]}
//! Each strategy x layout x its inline counts on the graph, each search of it one after the
//! other (compared under the same conditions).
Expansion expand_bfs(const Reader& read) {
  const Preset& preset = read.preset();
  const nlohmann::json& j = read.object();
  std::uint64_t source = 0;
  if (j.contains("source")) {
    if (!j["source"].is_number_unsigned())
      throw preset.error_at("source", "'source' must be a vertex id (>= 0)", read.where());
    source = j["source"].get<std::uint64_t>();
  }
  std::vector<Step> graphs;
  for (const AxisValue& g : read.values("graph")) {
    const std::string name = resolved_graph(read, g.text);
    graphs.push_back({{"graph", {name, name}}});
  }
  const Steps counts = [](const Point& at, const Reader& r) {
    return inline_steps(at, r.values("inline"),
                        strategy_of(at) == InnerStrategy::partial ? bfs::kMaxInline : bfs::kMaxDegree);
  };
  const Steps graph = [graphs](const Point&, const Reader&) { return graphs; };
  const Steps searches = [](const Point&, const Reader& r) {
    if (!r.values("search").empty()) return r.steps("search");
    const std::string paper(bfs::to_string(bfs::Search::per_level));  // a preset without "searches"
    return std::vector<Step>{Step{{"search", AxisValue{paper, paper}}}};
  };
  return {.loops = {over("strategy", {over("layout", {over("precision", {over("inline", counts,
                                                                              {over("graph", graph,
                                                                                    {over("search", searches)})})})})})},
          .make = [source](const Point& at) {
            const InnerStrategy s = strategy_of(at);
            const auto n = static_cast<std::size_t>(at.get<std::int64_t>("inline"));
            const bfs::Variant v{layout_of(at), s, s == InnerStrategy::partial ? n : 0};
            const bfs::Search search = bfs::parse_search(at.text("search"));
            return ProgramCase{Where::gpu, kMemoryNeed, [graph = at.text("graph"), source, v, search] {
                                 return make_bfs_variant(graph, source, v, bfs::Device::gpu, search);
                               }};
          }};
}

}  // namespace

Program bfs_program() {
  return {"bfs",
          inner_axes(bfs::kMaxInline, true,
                     {{.name = "graph",
                       .values = {"roadnet-pa", "road-like"},
                       .key = "graph",
                       .limits = [](const nlohmann::json& v) -> std::string {
                         if (!v.is_string()) return "'graph' must be roadnet-pa, road-like or auto";
                         const auto g = v.get<std::string>();
                         if (g == "roadnet-pa" || g == "road-like" || g == "auto") return "";
                         return fmt::format("unknown graph '{}' (roadnet-pa, road-like or auto)", g);
                       },
                       .scalar = true,
                       .required = false,
                       .fallback = "auto"},
                      {.name = "search",
                       .values = {std::string(bfs::to_string(bfs::Search::per_level)),
                                  std::string(bfs::to_string(bfs::Search::persistent)),
                                  std::string(bfs::to_string(bfs::Search::queue))},
                       .key = "searches",
                       .required = false,
                       .unnamed = std::string(bfs::to_string(bfs::Search::per_level))}}),
          {"levels", "level_s", "graph_vertices", "graph_edges", "graph_components", "graph_diameter_lower_bound",
           "footprint_inline_bytes", "footprint_arena_bytes", "footprint_wasted_bytes"},
          {"source"},
          expand_bfs};
}

}  // namespace lb::benches::inner

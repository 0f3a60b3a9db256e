#pragma once
// BFS cases shared by the CPU and GPU tests: every layout variant and every search of the
// device against the queue BFS on a road-like graph (50–60 levels: several batches of GPU
// launches, or as many grid-wide barriers), a graph with one-way edges and unreachable
// vertices, a star of degree above kMaxDegree (none and partial), and (a test of its own,
// SKIPPED when the shared datasets are absent) the shared roadNet-PA excerpt.

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lb/bfs/bfs.hpp"
#include "lb/bfs/frontier.hpp"
#include "lb/datasets/graph.hpp"

namespace lb::bfs {

//! Vertex 0 linked both ways to 1..leaves.
inline datasets::Graph star_graph(std::uint32_t leaves) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> e;
  for (std::uint32_t v = 1; v <= leaves; ++v) {
    e.emplace_back(0, v);
    e.emplace_back(v, 0);
  }
  return datasets::graph_from_edges(leaves + 1, e).graph;
}

//! Every layout, strategy and inline count the paper sweeps.
inline std::vector<Variant> all_variants() {
  using layout::InnerLayout, layout::InnerStrategy;
  std::vector<Variant> out;
  for (InnerLayout l : {InnerLayout::aos, InnerLayout::soa}) {
    out.push_back({l, InnerStrategy::none, 0});
    for (std::size_t n = 0; n <= kMaxInline; ++n) out.push_back({l, InnerStrategy::partial, n});
    out.push_back({l, InnerStrategy::full, 0});
    out.push_back({l, InnerStrategy::object, 0});
  }
  return out;
}

inline std::string describe(const Variant& v) {
  return std::string(inner::to_string(v.layout)) + "/" + std::string(inner::to_string(v.strategy)) +
         "/inline:" + std::to_string(v.inline_count);
}

//! The searches a device has: the CPU its serial loop, the GPU the paper's, the persistent one
//! and the queue.
inline std::vector<Search> searches_of(Device device) {
  if (device == Device::cpu) return {Search::per_level};
  return {Search::per_level, Search::persistent, Search::queue};
}

struct BfsCase {
  std::string name;
  datasets::Graph graph;
  std::vector<std::uint32_t> sources;
};

inline std::vector<BfsCase> bfs_cases() {
  std::vector<BfsCase> cases;
  cases.push_back(
      {"road-like 5000", datasets::generate_road_like({.vertices = 5'000, .directed_edges = 14'170}), {0, 2'345}});
  // One-way edges and vertices no path reaches: 4 -> 0 -> 1 -> 2, 3 isolated, 5 <-> 6.
  cases.push_back(
      {"one-way", datasets::graph_from_edges(7, {{4, 0}, {0, 1}, {1, 2}, {5, 6}, {6, 5}}).graph, {0, 4, 3}});
  return cases;
}

//! Makes a search of one variant of a graph (a device's search, or a test's own).
using MakeSearch = std::function<std::unique_ptr<FrontierBfs>(const datasets::Graph&, const Variant&)>;

//! Every variant of `make` (named `search` in messages) against the queue BFS on `cases`.
inline void expect_variants_match(const std::string& search, const MakeSearch& make,
                                  const std::vector<BfsCase>& cases,
                                  const std::vector<Variant>& variants = all_variants()) {
  for (const BfsCase& c : cases)
    for (const Variant& v : variants) {
      auto frontier = make(c.graph, v);
      const std::string what = c.name + ", " + describe(v) + ", " + search;
      for (std::uint32_t source : c.sources) {
        frontier->poison();
        const int iterations = frontier->run(source);
        const std::vector<int> expected = datasets::bfs_levels(c.graph, source);
        const std::vector<int> got = frontier->levels();
        ASSERT_EQ(got.size(), expected.size());
        for (std::size_t u = 0; u < got.size(); ++u)
          ASSERT_EQ(got[u], expected[u]) << what << ", source " << source << ", vertex " << u;
        EXPECT_EQ(iterations, *std::max_element(expected.begin(), expected.end()) + 1) << what;
      }
    }
}

inline void expect_variants_match(Device device, const std::vector<BfsCase>& cases,
                                  const std::vector<Variant>& variants = all_variants()) {
  for (Search s : searches_of(device))
    expect_variants_match(
        std::string(to_string(s)),
        [&](const datasets::Graph& g, const Variant& v) { return make_frontier_bfs(g, v, device, s); }, cases,
        variants);
}

//! Vertices of a degree above kMaxDegree (the device loops read neighbours kMaxDegree at a
//! time: three rounds here), which only none and partial hold: a star from its hub and from a
//! leaf.
inline std::vector<BfsCase> high_degree_cases() {
  return {{"star of 2 x kMaxDegree + 3", star_graph(2 * kMaxDegree + 3), {0, 5}}};
}
inline std::vector<Variant> arena_variants() {
  std::vector<Variant> out;
  for (const Variant& v : all_variants())
    if (v.strategy == layout::InnerStrategy::none || v.strategy == layout::InnerStrategy::partial) out.push_back(v);
  return out;
}

inline void expect_every_variant_matches(Device device) {
  expect_variants_match(device, bfs_cases());
  expect_variants_match(device, high_degree_cases(), arena_variants());
}

//! The same on the shared roadNet-PA excerpt; the calling test reports SKIPPED, naming the
//! file, when the shared datasets are absent.
inline void expect_every_variant_matches_on_the_roadnet_excerpt(Device device) {
  const std::string excerpt = std::string(LB_SHARED_DATASETS) + "/roadNet-PA.head.txt";
  if (!std::filesystem::exists(excerpt)) GTEST_SKIP() << "shared dataset not present: " << excerpt;
  datasets::Graph g = datasets::load_snap_edge_list(excerpt).graph;
  const std::uint32_t far = g.dense_id(5000);
  expect_variants_match(device, {{"roadNet-PA excerpt", std::move(g), {0, far}}});
}

inline void expect_poison_then_levels(Device device) {
  const datasets::Graph g = datasets::generate_road_like({.vertices = 1000, .directed_edges = 2834});
  for (Search s : searches_of(device)) {
    auto search = make_frontier_bfs(g, {layout::InnerLayout::soa, layout::InnerStrategy::partial, 3}, device, s);
    search->poison();
    const std::vector<int> poisoned = search->levels();
    EXPECT_TRUE(std::all_of(poisoned.begin(), poisoned.end(), [](int d) { return d == kPoison; })) << to_string(s);
    search->run(7);
    EXPECT_EQ(search->levels(), datasets::bfs_levels(g, 7)) << to_string(s);
  }
}

}  // namespace lb::bfs

// The frontier BFS over every inner-array layout on the CPU (the GPU kernel's body), against
// the queue BFS; the variant checks. tests/cpp/test_bfs_gpu.cpp runs the same cases on the GPU.

#include <gtest/gtest.h>

#include "bfs_cases.hpp"

namespace {

using namespace lb::bfs;
using lb::datasets::Graph;

TEST(FrontierBfsCpu, EveryVariantMatchesTheQueueBfs) { expect_every_variant_matches(Device::cpu); }

TEST(FrontierBfsCpu, PoisonShowsUntilARun) { expect_poison_then_levels(Device::cpu); }

TEST(FrontierBfsCpu, VariantsThatCannotHoldTheGraphAreRefused) {
  const Graph star = star_graph(kMaxDegree + 1);
  for (auto s : {lb::layout::InnerStrategy::full, lb::layout::InnerStrategy::object})
    try {
      make_frontier_bfs(star, {lb::layout::InnerLayout::soa, s, 0}, Device::cpu);
      FAIL() << "a degree above the capacity was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("vertex 0 has degree 10, above the 9 slots"), std::string::npos) << e.what();
    }
  // none and partial take any degree.
  for (auto s : {lb::layout::InnerStrategy::none, lb::layout::InnerStrategy::partial}) {
    auto search = make_frontier_bfs(star, {lb::layout::InnerLayout::aos, s, 0}, Device::cpu);
    search->run(0);
    EXPECT_EQ(search->levels(), lb::datasets::bfs_levels(star, 0));
  }
  EXPECT_THROW(make_frontier_bfs(star, {lb::layout::InnerLayout::soa, lb::layout::InnerStrategy::none, 2}, Device::cpu),
               std::invalid_argument);  // an inline count without partial
  EXPECT_THROW(
      make_frontier_bfs(star, {lb::layout::InnerLayout::soa, lb::layout::InnerStrategy::partial, kMaxInline + 1}, Device::cpu),
      std::invalid_argument);
}

TEST(FrontierBfsCpu, NamesParseAndUnknownOnesAreNamed) {
  EXPECT_EQ(parse_layout("aos", "--layout"), lb::layout::InnerLayout::aos);
  EXPECT_EQ(parse_strategy("object", "--strategy"), lb::layout::InnerStrategy::object);
  try {
    parse_strategy("inline", "--strategy");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "--strategy: unknown strategy 'inline' (none, partial, full or object)");
  }
  EXPECT_THROW(parse_layout("aosoa", "--layout"), std::invalid_argument);
}

TEST(FrontierBfsCpu, TraversedEdgesAreTheReachedVerticesOutDegrees) {
  const Graph g = lb::datasets::graph_from_edges(4, {{0, 1}, {1, 0}, {1, 2}, {3, 0}}).graph;
  EXPECT_EQ(traversed_edges(g, lb::datasets::bfs_levels(g, 0)), 3u);  // 3 is not reached
  EXPECT_EQ(traversed_edges(g, lb::datasets::bfs_levels(g, 3)), 4u);
}

}  // namespace

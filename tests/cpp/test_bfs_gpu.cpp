// The frontier BFS on the GPU, every search (the paper's per level, the persistent one and the
// queue): every layout, strategy and inline count against the queue BFS (the cases of
// bfs_cases.hpp, as the CPU test), poisoned distances first. The Large tests (roadNet-PA's
// size: the device loops' full grid, several vertices a thread) are left out of the
// compute-sanitizer runs.

#include <gtest/gtest.h>

#include "bfs_cases.hpp"
#include "inner/bfs_bench.hpp"
#include "gpu_available.hpp"

namespace {

using namespace lb::bfs;

#define REQUIRE_GPU() \
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device visible"

TEST(FrontierBfsGpu, EveryVariantMatchesTheQueueBfs) {
  REQUIRE_GPU();
  expect_every_variant_matches(Device::gpu);
}

TEST(FrontierBfsGpu, EveryVariantMatchesTheQueueBfsOnTheRoadNetExcerpt) {
  REQUIRE_GPU();
  expect_every_variant_matches_on_the_roadnet_excerpt(Device::gpu);
}

TEST(FrontierBfsGpu, PoisonShowsUntilARun) {
  REQUIRE_GPU();
  expect_poison_then_levels(Device::gpu);
}

TEST(FrontierBfsGpu, LargeRoadLikeGraphInEveryStrategy) {
  REQUIRE_GPU();
  // roadNet-PA's size and ~784 levels: more batches of launches than any small case.
  const lb::datasets::Graph g = lb::datasets::generate_road_like();
  const std::vector<int> expected = lb::datasets::bfs_levels(g, 0);
  using lb::layout::InnerLayout, lb::layout::InnerStrategy;
  for (InnerLayout l : {InnerLayout::aos, InnerLayout::soa})
    for (Variant v : {Variant{l, InnerStrategy::none, 0}, Variant{l, InnerStrategy::partial, 3},
                      Variant{l, InnerStrategy::full, 0}, Variant{l, InnerStrategy::object, 0}})
      for (Search s : searches_of(Device::gpu)) {
        auto search = make_frontier_bfs(g, v, Device::gpu, s);
        search->poison();
        EXPECT_EQ(search->run(0), *std::max_element(expected.begin(), expected.end()) + 1)
            << describe(v) << ", " << to_string(s);
        EXPECT_EQ(search->levels(), expected) << describe(v) << ", " << to_string(s);
      }
}

TEST(FrontierBfsGpu, LargeBenchmarkVariantValidatesAndCatchesAnUnwrittenResult) {
  REQUIRE_GPU();
  // The inner suite's variant as the harness drives it, on a stream, for two strategies and
  // every search.
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  for (auto s : {lb::layout::InnerStrategy::partial, lb::layout::InnerStrategy::object})
    for (Search search : searches_of(Device::gpu)) {
      auto v = lb::benches::inner::make_bfs_variant("road-like", 0, {lb::layout::InnerLayout::soa, s, 0}, Device::gpu,
                                                    search);
      v->setup(stream);
      v->poison(stream);
      v->run(stream);
      auto check = v->validate(stream);
      EXPECT_TRUE(check.ok) << to_string(search) << ": " << check.message;
      v->run(stream);  // a second run (the timed loop's) starts from the first one's distances
      check = v->validate(stream);
      EXPECT_TRUE(check.ok) << to_string(search) << ": " << check.message;
      v->poison(stream);
      check = v->validate(stream);
      EXPECT_FALSE(check.ok);
      EXPECT_NE(check.message.find("(still poisoned)"), std::string::npos) << check.message;
    }
  cudaStreamDestroy(stream);
}

}  // namespace

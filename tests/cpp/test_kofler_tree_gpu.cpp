//! The decision tree's training kernels on the GPU: a few cases of every class (AoS, SoA, the
//! smallest and largest tiles, one of 32) at m = 1, 5, 16, with records / n threads and with a
//! fixed thread count (the walk wrapping), validate against the CPU reference's
//! checksum, also when run twice (a timed loop); a run left out, a changed field and a
//! changed field 0 fail validation naming the record.

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "gpu_available.hpp"
#include "kofler_gpu_testing.hpp"
#include "kofler_tree/synthetic_bench.hpp"

namespace lb::benches::kofler_tree {
namespace {

TreeCase tree_case(std::size_t fields, std::uint32_t n, const std::string& layout, std::size_t tile,
                   std::size_t threads = 0) {
  return {.fields = fields, .iterations = n, .records = std::size_t{1} << 16, .threads = threads, .layout = layout,
          .tile = tile};
}

TEST(KoflerTreeGpu, EveryClassMatchesTheReference) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  for (std::size_t m : {1, 5, 16})
    for (std::uint32_t n : {128u, 2048u})
      for (std::size_t threads : {0u, 512u})  // records / n; a fixed count, the walk wrapping 16 times at n 2048
        for (const auto& [layout, tile] : std::vector<std::pair<std::string, std::size_t>>{
                 {"aos", 0}, {"soa", 0}, {"tiled", 2}, {"tiled", 32}, {"tiled", 32768}}) {
          if (!testing::layout_under_test(layout)) continue;
          const TreeCase c = tree_case(m, n, layout, tile, threads);
          const auto what = fmt::format("{} m {} n {} threads {}", class_name(c), m, n, threads);
          auto v = make_tree_variant(c);
          const Check result = testing::validated_run(*v);
          EXPECT_TRUE(result.ok) << what << ": " << result.message;
          v->run(nullptr);  // a timed run after the validated one: idempotent
          check(cudaDeviceSynchronize(), "second run");
          EXPECT_TRUE(v->validate(nullptr).ok) << what << " run twice";
        }
}

TEST(KoflerTreeGpu, ValidationFailsWrongRunsNamingTheRecord) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  const TreeCase c = tree_case(5, 128, "tiled", 32);
  EXPECT_FALSE(testing::validated_run(*make_tree_variant(c), true).ok);  // no run: field 0 NaN
  for (std::size_t field : {0u, 3u}) {
    auto v = make_tree_variant(c);
    ASSERT_TRUE(testing::validated_run(*v).ok);
    v->inject_fault(1234, field);
    const Check result = v->validate(nullptr);
    EXPECT_FALSE(result.ok) << "field " << field;
    EXPECT_NE(result.message.find("record 1234 field " + std::to_string(field)), std::string::npos) << result.message;
  }
}

}  // namespace
}  // namespace lb::benches::kofler_tree

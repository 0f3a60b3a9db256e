//! Kofler's LavaMD on the GPU: every layout kind against the double reference on a small grid
//! of boxes, a kernel skipping one partner box fails, and so does an output left poisoned.

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include "gpu_available.hpp"
#include "kofler/lavamd_bench.hpp"
#include "lb/common/cuda_check.hpp"
#include "gpu_test_scope.hpp"
#include "kofler_gpu_testing.hpp"

namespace lb::benches::kofler {
namespace {

using lb::kofler::LavaFault;

Check lavamd_once(const LayoutChoice& choice, int boxes_1d, std::string_view precision, LavaFault fault,
                  bool run = true) {
  auto v = make_lavamd_variant(choice, boxes_1d, precision, fault);
  v->setup(nullptr);
  v->poison(nullptr);
  if (run) v->run(nullptr);
  check(cudaDeviceSynchronize(), "lavamd");
  return v->validate(nullptr);
}

TEST(KoflerLavaMDGpu, EveryLayoutMatchesTheReferenceAndASkippedPartnerFails) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  using K = layout::ClusterLayout::Kind;
  // every kind LavaMD takes: the run-time split of a partition too (no compile-time split)
  const std::vector<LayoutChoice> layouts = {
      {kind::Aos{}},       {kind::Soa{}},      {kind::Tiled{2}},    {kind::Tiled{64}},
      {kind::Tiled{4096}}, {kind::TiledCt{4}}, {kind::TiledCt{32}}, {kind::TiledCt{128}},
      {kind::Split{{"v|xyz", {{0, 1, 1, 1}, {{K::aos, 1}, {K::tiled, 3}}}}}}};
  for (const std::string precision : {"float", "double"})
    for (const auto& choice : testing::with_method_layouts(
             layouts, "lavamd", lb::kofler::kLavaFieldNames,
             precision == "float" ? record_field_bytes<lb::kofler::FourVector<float>>()
                                  : record_field_bytes<lb::kofler::FourVector<double>>())) {
      SCOPED_TRACE(precision + " " + std::string(choice.name()) + " " + choice.param());
      const Check ok = lavamd_once(choice, 3, precision, LavaFault::none);
      EXPECT_TRUE(ok.ok) << ok.message;
      EXPECT_LE(ok.counters.at("max_rel_err"), ok.counters.at("tolerance"));
      const Check bad = lavamd_once(choice, 3, precision, LavaFault::skip_last_neighbour);
      EXPECT_FALSE(bad.ok);
      EXPECT_GT(bad.counters.at("max_rel_err"), 10 * bad.counters.at("tolerance"));
    }
}

TEST(KoflerLavaMDGpu, AnOutputLeftPoisonedFails) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  EXPECT_FALSE(lavamd_once({kind::Aos{}}, 2, "float", LavaFault::none, false).ok);
  EXPECT_FALSE(lavamd_once({kind::Soa{}}, 2, "double", LavaFault::none, false).ok);
}

}  // namespace
}  // namespace lb::benches::kofler

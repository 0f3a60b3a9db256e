//! Kofler's bitonic sort on the CPU: the network's schedule and direction rule (emulated pass by
//! pass, with the comparator index of the kernels), the check every sort variant passes, the
//! record's bytes CUB's merge sort relies on, and the planner.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "kofler/suite.hpp"
#include "lb/kofler/sort.hpp"
#include "lb/layout/host_storage.hpp"
#include "preset_testing.hpp"

namespace lb::kofler {
namespace {

std::vector<SortPlain> input(std::size_t n) {
  std::vector<SortPlain> a(n);
  for (std::size_t i = 0; i < n; ++i) a[i] = sort_input(i);
  return a;
}

//! Runs the passes of `schedule` on the host: every step's comparators as the kernels number
//! them (comparator_low, ascending_at on the global index).
void emulate(std::vector<SortPlain>& a, const std::vector<BitonicPass>& schedule) {
  auto step = [&](std::size_t size, std::size_t stride) {
    for (std::size_t c = 0; c < a.size() / 2; ++c) {
      const std::size_t lo = comparator_low(c, stride);
      if ((a[lo].key > a[lo + stride].key) == ascending_at(lo, size)) std::swap(a[lo], a[lo + stride]);
    }
  };
  for (const BitonicPass& p : schedule) {
    if (p.kind == BitonicPass::sort_chunks)
      for (std::size_t size = 2; size <= kSortChunk; size <<= 1)
        for (std::size_t stride = size / 2; stride > 0; stride >>= 1) step(size, stride);
    if (p.kind == BitonicPass::merge_global) step(p.size, p.stride);
    if (p.kind == BitonicPass::merge_shared)
      for (std::size_t stride = kSortChunk / 2; stride > 0; stride >>= 1) step(p.size, stride);
  }
}

TEST(KoflerBitonic, TheNetworkSortsEverySizeWithThePayloadFollowingItsKey) {
  for (std::size_t n : {kSortChunk, 2 * kSortChunk, 16 * kSortChunk}) {
    auto a = input(n);
    emulate(a, bitonic_schedule(n));
    EXPECT_EQ(check_sorted(a, sorted_reference(n)), "") << n << " records";
  }
}

TEST(KoflerBitonic, SkippingOnePassLeavesTheOutputUnsorted) {
  const std::size_t n = 16 * kSortChunk;
  EXPECT_EQ(bitonic_schedule(n, SortFault::skip_pass).size() + 1, bitonic_schedule(n).size());
  auto a = input(n);
  emulate(a, bitonic_schedule(n, SortFault::skip_pass));
  EXPECT_NE(check_sorted(a, sorted_reference(n)).find("not sorted"), std::string::npos);
}

TEST(KoflerBitonic, GlobalPassesAreTheChunkSortThenPerStageItsLargeStridesAndOneSharedPass) {
  EXPECT_EQ(bitonic_global_passes(1024), 1u);
  EXPECT_EQ(bitonic_global_passes(2048), 3u);   // + stride 1024, shared
  EXPECT_EQ(bitonic_global_passes(4096), 6u);   // + strides 2048, 1024, shared
  EXPECT_EQ(bitonic_global_passes(1u << 24), 120u);  // 1 + sum over k = 1..14 of (k + 1)
  EXPECT_FALSE(bitonic_size_ok(512));
  EXPECT_FALSE(bitonic_size_ok(3072));
  EXPECT_TRUE(bitonic_size_ok(1u << 20));
}

TEST(KoflerBitonic, KeysAreDistinctSoTheSortedInputIsTheOnlyAnswer) {
  const auto ref = sorted_reference(1u << 16);
  for (std::size_t i = 1; i < ref.size(); ++i) ASSERT_LT(ref[i - 1].key, ref[i].key) << i;
}

TEST(KoflerBitonic, TheCheckNamesHowAWrongOutputIsWrong) {
  const auto ref = sorted_reference(4096);
  EXPECT_EQ(check_sorted(ref, ref), "");
  auto swapped = ref;
  std::swap(swapped[10], swapped[11]);
  EXPECT_NE(check_sorted(swapped, ref).find("not sorted: record 10"), std::string::npos);
  auto foreign = ref;
  foreign[10].key = ref[10].key + 1 < ref[11].key ? ref[10].key + 1 : ref[10].key - 1;  // still in order
  ASSERT_LT(foreign[9].key, foreign[10].key);
  EXPECT_NE(check_sorted(foreign, ref).find("not a permutation"), std::string::npos);
  auto moved = ref;
  std::swap(moved[10].id, moved[11].id);
  EXPECT_NE(check_sorted(moved, ref).find("payload does not follow its key: record 10"), std::string::npos);
  auto weight = ref;
  weight[20].weight += 1;
  EXPECT_NE(check_sorted(weight, ref).find("record 20"), std::string::npos);
  std::vector<SortPlain> poison(ref.size());
  std::memset(poison.data(), 0xFF, poison.size() * sizeof(SortPlain));
  EXPECT_NE(check_sorted(poison, ref), "");
}

TEST(KoflerBitonic, TheAoSRecordHasThePlainStructsBytesAndSoAKeysAreOneArray) {
  const std::size_t n = 64;
  layout::HostStorage<SortAoS> aos(SortAoS{n});
  layout::HostStorage<SortSoA> soa(SortSoA{n});
  auto value = [](std::size_t i) { return to_value(sort_input(i)); };
  layout::fill(aos.view(), value);
  layout::fill(soa.view(), value);
  const auto want = input(n);
  EXPECT_EQ(std::memcmp(aos.blob(0), want.data(), n * sizeof(SortPlain)), 0);
  const auto* keys = &soa.view().get<SortKey>(0);
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(keys[i], want[i].key);
}

}  // namespace
}  // namespace lb::kofler

namespace lb::harness {
namespace {

using lb::testing::preset_from;

std::string plan_error(const std::string& text) {
  const Preset p = preset_from(text);
  try {
    plan_program("kofler", benches::kofler::bitonic_program(), p, p.suites, "bitonic", {});
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

TEST(KoflerBitonicPlan, BitonicOverTheLayoutsAndCubOnItsOwnLayout) {
  const Preset p = preset_from(R"({"sizes": [2048], "versions": ["bitonic", "cub-radix", "cub-merge"],
    "layouts": ["aos", "soa", "tiled", "tiled-ct"], "tiles": [8], "compile_time_tiles": [32]})");
  std::vector<std::string> names;
  for (const auto& b : plan_program("kofler", benches::kofler::bitonic_program(), p, p.suites, "bitonic", {})) names.push_back(b.name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "kofler/bitonic/bitonic/aos/u32/size:2048", "kofler/bitonic/bitonic/soa/u32/size:2048",
                       "kofler/bitonic/bitonic/tiled/u32/tile:8/size:2048",
                       "kofler/bitonic/bitonic/tiled-ct/u32/tile:32/size:2048",
                       "kofler/bitonic/cub-radix/soa/u32/size:2048", "kofler/bitonic/cub-merge/aos/u32/size:2048"}));
}

TEST(KoflerBitonicPlan, ASizeOverrideIsCheckedAndNamed) {
  const Preset p = preset_from(R"({"sizes": [1024], "versions": ["bitonic"], "layouts": ["aos"]})");
  Overrides o;
  o.sizes = {4096};
  EXPECT_EQ(plan_program("kofler", benches::kofler::bitonic_program(), p, p.suites, "bitonic", o).at(0).name, "kofler/bitonic/bitonic/aos/u32/size:4096");
  o.sizes = {5000};
  try {
    plan_program("kofler", benches::kofler::bitonic_program(), p, p.suites, "bitonic", o);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--sizes: sizes must be powers of two >= 1024; 5000 is not"), std::string::npos)
        << e.what();
  }
}

TEST(KoflerBitonicPlan, MistakesNameTheProblem) {
  EXPECT_NE(plan_error(R"({"sizes": [3000], "versions": ["bitonic"], "layouts": ["aos"]})")
                .find("sizes must be powers of two >= 1024; 3000 is not"),
            std::string::npos);
  EXPECT_NE(plan_error(R"({"sizes": [1024], "versions": ["quick"], "layouts": ["aos"]})")
                .find("unknown version 'quick' (expected one of: bitonic, cub-radix, cub-merge)"),
            std::string::npos);
  EXPECT_NE(plan_error(R"({"sizes": [1024], "versions": ["bitonic"], "layouts": ["split-ct"],
                           "partitions": {"p": [["key"], ["id", "weight", "value"]]}})")
                .find("layout 'split-ct' needs compile-time splits, which this program has not"),
            std::string::npos);  // it compiles none (the run-time split it takes: test_layout_choice.cpp)
  EXPECT_NE(plan_error(R"({"sizes": [1024], "versions": ["bitonic"], "layouts": ["tiled-ct"],
                           "compile_time_tiles": [64]})")
                .find("tile 64 is not compiled in"),
            std::string::npos);
}

}  // namespace
}  // namespace lb::harness

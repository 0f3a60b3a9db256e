//! The decision tree's training kernels on the CPU (lb/kofler/tree_synthetic.hpp): the walk
//! gives every record to one thread, equally often, a warp's lanes consecutive records; the
//! body over AoS, SoA and tiles leaves exactly the closed form, whose storage checksum is the
//! reference's, and a skipped record changes it; the planner's grid, names and per-case timing,
//! and its errors.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "kofler_tree/synthetic_bench.hpp"
#include "lb/harness/preset.hpp"
#include "lb/harness/suite.hpp"
#include "lb/kofler/tree_synthetic.hpp"
#include "lb/layout/aos.hpp"
#include "lb/layout/aosoa.hpp"
#include "lb/layout/host_storage.hpp"
#include "lb/layout/soa.hpp"

namespace lb::kofler::tree {
namespace {

//! A view that only lists the records a body touches.
struct VisitTrace {
  std::vector<std::size_t>* visited;
  template <class Slot>
  float& get(std::size_t r) const {
    visited->push_back(r);
    static float x = 0;
    return x;
  }
};

//! Every record updated `times` times, only ever by one thread; an iteration's threads on
//! consecutive records (a warp's lanes coalesce); thread_body's stepping walk is record_of.
void check_walk(std::size_t records, std::uint32_t n, std::size_t threads, int times) {
  SCOPED_TRACE(::testing::Message() << records << " records, n " << n << ", " << threads << " threads");
  const Geometry g{records, n, threads};
  ASSERT_STREQ(g.problem(), "");
  ASSERT_EQ(g.threads(), threads);
  EXPECT_EQ(g.updates(), threads * n);
  std::vector<int> seen(records, 0);
  std::vector<std::size_t> owner(records, SIZE_MAX);
  for (std::size_t t = 0; t < threads; ++t)
    for (std::uint32_t k = 0; k < n; ++k) {
      const std::size_t r = record_of(t, k, threads, records);
      ASSERT_LT(r, records);
      ++seen[r];
      if (owner[r] == SIZE_MAX) owner[r] = t;
      EXPECT_EQ(owner[r], t) << "record " << r;
      if (t % kWarp) {
        EXPECT_EQ(r, record_of(t - 1, k, threads, records) + 1);  // lane l + 1: the next record
      }
    }
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [&](int c) { return c == times; }));
  // The body's walk (steps and wraps) visits record_of's records in order.
  for (std::size_t t : {std::size_t{0}, threads - 1}) {
    std::vector<std::size_t> visited;
    thread_body<1>(VisitTrace{&visited}, t, n, threads, records);
    ASSERT_EQ(visited.size(), n);
    for (std::uint32_t k = 0; k < n; ++k) EXPECT_EQ(visited[k], record_of(t, k, threads, records)) << k;
  }
}

TEST(KoflerTreeWalk, EveryRecordEquallyOftenByOneThreadAndAWarpsLanesConsecutive) {
  check_walk(3 * kWarp * 8, 8, 0 + 3 * kWarp, 1);  // records / n threads: one update a record
  check_walk(4 * kWarp, 16, 2 * kWarp, 8);         // fewer records than threads x n: the walk wraps
  check_walk(4 * kWarp, 2, 2 * kWarp, 1);
}

TEST(KoflerTreeWalk, UnusableGeometriesSayWhy) {
  const std::size_t records = 4 * kWarp;
  EXPECT_EQ((Geometry{records, 8}).threads(), records / 8);  // no threads given: records / n
  EXPECT_STRNE((Geometry{records * 8 + 1, 8}).problem(), "");
  EXPECT_STRNE((Geometry{records, 0}).problem(), "");
  EXPECT_STRNE((Geometry{records, 4, records + kWarp}).problem(), "");  // more threads than records
  EXPECT_STRNE((Geometry{records, 4, 3 * kWarp}).problem(), "");         // does not divide records
  EXPECT_STRNE((Geometry{records, 4, 48}).problem(), "");                // not whole warps
  EXPECT_STRNE((Geometry{records, 1, 2 * kWarp}).problem(), "");         // half the records never updated
  EXPECT_STREQ((Geometry{records, 2, 2 * kWarp}).problem(), "");
}

TEST(KoflerTreeValues, SmallIntegersSoEverySumIsExact) {
  for (std::size_t r = 0; r < 1000; ++r)
    for (std::size_t j = 1; j < kMaxFields; ++j) {
      const float v = field_value(r, j);
      ASSERT_TRUE(v >= 0 && v <= 1023 && v == float(int(v))) << r << " " << j;
    }
  EXPECT_EQ(expected_first(7, 1), 1.0f);
  EXPECT_EQ(expected_first(7, 3), 1.0f + field_value(7, 1) + field_value(7, 2));
}

//! The checksum of a host storage's words, as the device's checksum kernel sums them.
template <class Mapping>
Checksum storage_checksum(const layout::HostStorage<Mapping>& s) {
  Checksum c;
  for (std::size_t b = 0; b < Mapping::blob_count; ++b) {
    const std::size_t words = s.mapping().blob_bytes(b) / sizeof(float);
    for (std::size_t w = 0; w < words; ++w) {
      float x;
      std::memcpy(&x, s.blob(b) + w * sizeof(float), sizeof x);
      c.sum += checksum_term(x);
    }
    c.words += words;
  }
  return c;
}

template <std::size_t M, class Mapping>
void check_body_over(const Mapping& mapping) {
  SCOPED_TRACE(::testing::Message() << M << " fields");
  const std::uint32_t n = 4;
  const std::size_t records = mapping.size(), threads = records / 2;  // every record updated twice
  layout::HostStorage<Mapping> s(mapping);
  const auto v = s.view();
  for (std::size_t r = 0; r < records; ++r) init_record<M>(v, r, true);
  for (int pass = 0; pass < 2; ++pass) {  // idempotent: a timed run does the same again
    for (std::size_t t = 0; t < threads; ++t) thread_body<M>(v, t, n, threads, records);
    for (std::size_t r = 0; r < records; ++r) {
      const auto field_is_expected = [&]<std::size_t J>() {
        EXPECT_EQ(v.template get<Slot<J>>(r), expected_field(r, J, M)) << "record " << r << " field " << J;
      };
      [&]<std::size_t... J>(std::index_sequence<J...>) {
        (field_is_expected.template operator()<J>(), ...);
      }(std::make_index_sequence<M>{});
    }
    EXPECT_EQ(storage_checksum(s), reference_checksum(records, M));
  }
  // A record left at its poison (field 0 NaN) is caught by the checksum.
  init_record<M>(v, records / 2, false);
  EXPECT_NE(storage_checksum(s), reference_checksum(records, M));
}

template <std::size_t M>
void check_body() {
  using Rec = SyntheticRecord<M>;
  const std::size_t records = 2 * kWarp * 4;
  check_body_over<M>(layout::AoSMapping<Rec>{records});
  check_body_over<M>(layout::SoAMapping<Rec>{records});
  check_body_over<M>(layout::Pow2AoSoAMapping<Rec>(records, 32));
  check_body_over<M>(layout::Pow2AoSoAMapping<Rec>(records, 2));
}

TEST(KoflerTreeBody, LeavesTheClosedFormWhoseChecksumIsTheReferences) {
  check_body<1>();
  check_body<4>();
  check_body<kMaxFields>();
}

}  // namespace
}  // namespace lb::kofler::tree

namespace lb::harness {
namespace {

Preset tree_preset(nlohmann::json section) {
  Preset p;
  p.name = "test";
  p.suites["kofler-tree"] = std::move(section);
  return p;
}

//! As a preset file gives it (positive integers parse as unsigned).
nlohmann::json small_grid() {
  return nlohmann::json::parse(R"({"records": 65536, "threads": 512, "iterations": [128, 1024], "fields": [1, 4],
    "layouts": ["aos", "soa", "tiled"], "tiles": [2, 32768], "repetitions": 2, "min_time_s": 0.001,
    "fit": {"reuse": 0}})");
}

TEST(KoflerTreePlan, EveryFieldsIterationsAndClassNamedInOrderWithItsTiming) {
  const auto plan = find_suite("kofler-tree").plan(tree_preset(small_grid()), {});
  std::vector<std::string> names;
  for (const auto& b : plan) {
    names.push_back(b.name);
    EXPECT_EQ(b.repetitions, 2);
    EXPECT_EQ(b.min_time_s, 0.001);
  }
  ASSERT_EQ(names.size(), 2u * 2u * 4u);
  EXPECT_EQ(names.front(), "kofler-tree/synthetic/gpu/aos/float/fields:1/n:128");
  EXPECT_EQ(names[1], "kofler-tree/synthetic/gpu/soa/float/fields:1/n:128");
  EXPECT_EQ(names[2], "kofler-tree/synthetic/gpu/tiled/float/tile:2/fields:1/n:128");
  EXPECT_EQ(names[3], "kofler-tree/synthetic/gpu/tiled/float/tile:32768/fields:1/n:128");
  EXPECT_EQ(names.back(), "kofler-tree/synthetic/gpu/tiled/float/tile:32768/fields:4/n:1024");
  EXPECT_EQ(benches::kofler_tree::class_name({.layout = "tiled", .tile = 64}), "tiled:64");
  EXPECT_EQ(benches::kofler_tree::class_name({.layout = "aos"}), "aos");
}

TEST(KoflerTreePlan, ThePresetsPlanTheGrid) {
  EXPECT_EQ(find_suite("kofler-tree").plan(load_preset("paper"), {}).size(), 16u * 8u * 17u);
  EXPECT_FALSE(find_suite("kofler-tree").plan(load_preset("quick"), {}).empty());
}

TEST(KoflerTreePlan, BadValuesNameTheirKey) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"tiles", "[3]"}, {"tiles", "[65536]"}, {"fields", "[17]"}, {"fields", "[0]"}, {"iterations", "[100]"},
      {"records", "1000"}, {"layouts", R"(["tiled-ct"])"}, {"repetitions", "0"}, {"min_time_s", "-1"},
      {"block", "48"}, {"threads", "0"}, {"threads", "48"}, {"threads", "131072"}, {"threads", "\"many\""}};
  for (const auto& [key, value] : bad) {
    nlohmann::json section = small_grid();
    section[key] = nlohmann::json::parse(value);
    try {
      find_suite("kofler-tree").plan(tree_preset(section), {});
      ADD_FAILURE() << key << " " << value << " was accepted";
    } catch (const std::exception& e) {
      const std::string singular = key.back() == 's' ? key.substr(0, key.size() - 1) : key;  // "unknown layout"
      EXPECT_NE(std::string(e.what()).find(singular), std::string::npos) << e.what();
    }
  }
}

TEST(KoflerTreePlan, RecordsHoldWholeTilesOnly) {
  nlohmann::json section = small_grid();
  section["iterations"] = nlohmann::json::parse("[128]");
  section["records"] = 4096;  // whole warps' loops, but tile 32768 would be a partial tile
  EXPECT_THROW(find_suite("kofler-tree").plan(tree_preset(section), {}), PresetError);
  section["tiles"] = nlohmann::json::parse("[2, 4096]");
  EXPECT_EQ(find_suite("kofler-tree").plan(tree_preset(section), {}).size(), 2u * 4u);  // m 1, 4 x 4 classes
}

}  // namespace
}  // namespace lb::harness

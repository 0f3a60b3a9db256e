//! SAMPO on the GPU against its CPU reference on a small case (1,000 eggs, 14 days of warm-up,
//! one day timed): the warm-up from eggs, every layout kind agent for agent, a second run after
//! prepare, the KDLG clusters' tile sweep (kdlg-tiles), and fault injection (a lost field
//! write, a run that writes nothing) failing the check. Without a GPU every test reports
//! SKIPPED.

#include <gtest/gtest.h>

#include <cstring>

#include "gpu_available.hpp"
#include "kofler/sampo_bench.hpp"
#include "gpu_test_scope.hpp"
#include "kofler_gpu_testing.hpp"

namespace lb::kofler::sampo {
namespace {

using benches::kofler::LayoutChoice;
using benches::kofler::make_sampo_variant;
using K = layout::ClusterLayout::Kind;

Config small() { return Config::for_eggs(1000, 336, 24); }

const std::shared_ptr<const ReferenceRun>& expected() {
  static const auto run = std::make_shared<const ReferenceRun>(reference_from(gpu_warmup(small()), small()));
  return run;
}

//! The original's three structs, each AoS; fields grouped by kernel; a mixed partition (SoA,
//! tiled and AoS clusters).
layout::FieldPartition manual() { return {{0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 2, 2}, {{K::aos}, {K::aos}, {K::aos}}}; }
layout::FieldPartition by_kernel() {
  return {{3, 3, 3, 3, 3, 3, 2, 0, 0, 3, 1, 1}, {{K::aos}, {K::aos}, {K::aos}, {K::aos}}};
}
layout::FieldPartition mixed() {
  return {{0, 1, 2, 0, 1, 2, 0, 0, 1, 1, 2, 2}, {{K::soa, 1}, {K::tiled, 16}, {K::aos, 1}}};
}

namespace kind = layout::kind;

std::vector<LayoutChoice> every_kind() {
  return {{kind::Aos{}}, {kind::Soa{}}, {kind::Tiled{4}}, {kind::Tiled{7}}, {kind::Tiled{32}},
          {kind::TiledCt{8}}, {kind::TiledCt{32}}, {kind::TiledCt{128}},
          // the tiles above 12K (one tile holds the whole test population)
          {kind::TiledCt{16384}}, {kind::TiledCt{32768}}, {kind::TiledCt{65536}},
          {kind::Split{{"manual", manual()}}}, {kind::SplitCt{{"manual", manual()}}},
          {kind::Split{{"mixed", mixed()}}}, {kind::Split{{"by-kernel", by_kernel()}}},
          {kind::SplitCt{{"by-kernel", by_kernel()}}}};
}

std::string label(const LayoutChoice& c) { return std::string(c.name()) + " " + c.param(); }

TEST(SampoGpu, WarmUpFromEggsMatchesTheCpuAgentForAgent) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  const Population& gpu = expected()->snapshot;  // gpu_warmup(small())
  const Population cpu = reference_run(small()).snapshot;
  ASSERT_EQ(gpu.size(), cpu.size());
  EXPECT_GT(gpu.size(), 1000u);
  EXPECT_EQ(std::memcmp(gpu.data(), cpu.data(), gpu.size() * sizeof(AgentValue)), 0);
}

TEST(SampoGpu, EveryLayoutReproducesTheCpuRunTwice) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  u32 laid = 0, bites = 0;
  for (const StepStats& s : expected()->stats) laid += s.eggs_laid, bites += s.bites;
  ASSERT_GT(laid, 0u) << "the case lays no eggs: createEggs would go unchecked";
  ASSERT_GT(bites, 0u) << "the case has no blood meals: the adult states would go unchecked";
  const std::vector<std::string> fields(std::begin(kFieldNames), std::end(kFieldNames));
  for (const LayoutChoice& c :
       lb::testing::with_method_layouts(every_kind(), "sampo", fields, benches::kofler::record_field_bytes<Agent>())) {
    auto v = make_sampo_variant(c, small(), expected());
    v->setup(nullptr);
    v->poison(nullptr);
    for (int run = 0; run < 2; ++run) {  // prepare restores the snapshot: the second run is the same
      v->prepare(nullptr);
      v->run(nullptr);
      const harness::Check check = v->validate(nullptr);
      EXPECT_TRUE(check.ok) << label(c) << " run " << run << ": " << check.message;
    }
  }
}

TEST(SampoGpu, TheKdlgClustersTileSweepReproducesTheCpuRun) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  // kdlg-tiles as the planner makes it: SAMPO's recorded KDLG partition, its two clusters of
  // several fields tiled (powers of two, and 3 through the division's PartitionMapping), the
  // three single-field clusters SoA.
  const std::vector<std::string> fields(std::begin(kFieldNames), std::end(kFieldNames));
  const auto method =
      benches::kofler::method_source("sampo", fields, benches::kofler::record_field_bytes<Agent>(), harness::Overrides{});
  const auto choices = layout::kdlg_tile_choices(method.partition(), fields, {1, 3, 16});
  ASSERT_EQ(choices.size(), 9u);
  for (const LayoutChoice& c : choices) {
    auto v = make_sampo_variant(c, small(), expected());
    const harness::Check check = lb::testing::validated_run(*v);
    EXPECT_TRUE(check.ok) << label(c) << ": " << check.message;
  }
}

TEST(SampoGpu, ALostFieldWriteOrASkippedRunFailsTheCheck) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  const LayoutChoice kinds[] = {{kind::Aos{}}, {kind::Soa{}}, {kind::Split{{"manual", manual()}}}};
  for (const LayoutChoice& c : kinds) {
    auto v = make_sampo_variant(c, small(), expected(), Fault::drop_hours_in_state_write);
    v->setup(nullptr);
    v->poison(nullptr);
    v->prepare(nullptr);
    v->run(nullptr);
    EXPECT_FALSE(v->validate(nullptr).ok) << label(c) << ": hoursInState never advanced, yet the check passed";

    auto idle = make_sampo_variant(c, small(), expected());
    idle->setup(nullptr);
    idle->poison(nullptr);
    idle->prepare(nullptr);
    EXPECT_FALSE(idle->validate(nullptr).ok) << label(c) << ": no run, yet the check passed";
  }
}

}  // namespace
}  // namespace lb::kofler::sampo

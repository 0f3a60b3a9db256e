//! N-body on the GPU: every layout kind against the double reference after 3 steps, on 1000
//! bodies (a partial block and a partial tile), and the validation failing wrong runs of the
//! timed kernel (made through its inputs: the kernel under test is unchanged).

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "gpu_available.hpp"
#include "kofler/nbody_bench.hpp"
#include "kofler/variant_support.hpp"
#include "kofler_gpu_testing.hpp"
#include "lb/kofler/nbody_device.hpp"

namespace lb::harness::kofler {
namespace {

std::shared_ptr<const NBodyCase> small_case() {
  static const auto c = std::make_shared<const NBodyCase>(make_nbody_case(1000, lb::kofler::NBodyParams{.steps = 3}));
  return c;
}

TEST(KoflerNBodyGpu, EveryLayoutMatchesTheReference) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  for (const auto& choice : testing::with_method_layouts(
           testing::kofler_layouts(lb::kofler::NBodyLayouts::compile_time_tiles(), "pos|vel", 2, 1), "nbody",
           {"pos", "vel"}, record_field_bytes<lb::kofler::Body>())) {
    auto v = make_nbody_variant(choice, small_case());
    const Check c = testing::validated_run(*v);
    const std::string layout(choice.name());
    EXPECT_TRUE(c.ok) << layout << " " << choice.param() << ": " << c.message;
    EXPECT_EQ(c.counters.at("checked"), 4000) << layout;
    EXPECT_LT(c.counters.at("err_over_tolerance"), 1) << layout;
    // What the test tree chose, for the result's label: 16 B pos and vel tiles of 4 (each
    // field alone: the compiled SoA runs it, as kdlg's pos|vel), the whole 32 B record tiles
    // of 3 (not compiled: the run-time partition).
    const std::map<std::string, std::string> labels = {
        {"kdlg", "runs_as=soa"},
        {"tiled-tree", "cluster_layouts=tiled-3;runs_as=partition;tree_gpu=any"},
        {"kdlg-tree", "cluster_layouts=tiled-4|tiled-4;runs_as=soa;tree_gpu=any"}};
    EXPECT_EQ(choice.label(), labels.contains(layout) ? labels.at(layout) : "") << layout;
  }
}

TEST(KoflerNBodyGpu, ValidationFailsWrongRuns) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  const LayoutChoice soa{kind::Soa{}};
  // No run: the poisoned outputs stay.
  EXPECT_FALSE(testing::validated_run(*make_nbody_variant(soa, small_case()), true).ok);
  // Softening 1.5 eps^2: the kernel run with it, checked against the right reference.
  NBodyCase soft = *small_case();
  soft.params.softening2 *= 1.5f;
  EXPECT_FALSE(testing::validated_run(*make_nbody_variant(soa, std::make_shared<const NBodyCase>(soft))).ok);
  // A skipped tile: what the kernel gives when one tile's bodies pull with no mass.
  for (std::size_t tile : {0, 3}) {
    NBodyCase skipped = *small_case();
    const std::size_t first = tile * lb::kofler::kTileBodies;
    for (std::size_t i = first; i < std::min<std::size_t>(1000, first + lb::kofler::kTileBodies); ++i)
      skipped.initial.pos[i].w = 0;
    EXPECT_FALSE(testing::validated_run(*make_nbody_variant(soa, std::make_shared<const NBodyCase>(skipped))).ok)
        << "tile " << tile;
  }
}

}  // namespace
}  // namespace lb::harness::kofler

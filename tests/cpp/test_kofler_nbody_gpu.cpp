//! N-body on the GPU: every layout kind against the double reference after 3 steps, on 1000
//! bodies (a partial block and a partial tile), the roofline version against the reference and
//! bit for bit against the paper's kernel, and the validation failing wrong runs of both
//! versions (made through their inputs: the kernels under test are unchanged).

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "gpu_available.hpp"
#include "kofler/nbody_bench.hpp"
#include "kofler/variant_support.hpp"
#include "kofler_gpu_testing.hpp"
#include "lb/kofler/nbody_device.hpp"
#include "lb/layout/host_storage.hpp"

namespace lb::benches::kofler {
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
  for (const std::string_view version : {kNBodyPaperVersion, kNBodyRooflineVersion}) {
    SCOPED_TRACE(std::string(version));
    // No run: the poisoned outputs stay.
    EXPECT_FALSE(testing::validated_run(*make_nbody_variant(soa, small_case(), version), true).ok);
    // Softening 1.5 eps^2: the kernel run with it, checked against the right reference.
    NBodyCase soft = *small_case();
    soft.params.softening2 *= 1.5f;
    EXPECT_FALSE(testing::validated_run(*make_nbody_variant(soa, std::make_shared<const NBodyCase>(soft), version)).ok);
    // A skipped tile: what the kernel gives when one tile's bodies pull with no mass.
    for (std::size_t tile : {0, 3}) {
      NBodyCase skipped = *small_case();
      const std::size_t first = tile * lb::kofler::kTileBodies;
      for (std::size_t i = first; i < std::min<std::size_t>(1000, first + lb::kofler::kTileBodies); ++i)
        skipped.initial.pos[i].w = 0;
      EXPECT_FALSE(
          testing::validated_run(*make_nbody_variant(soa, std::make_shared<const NBodyCase>(skipped), version)).ok)
          << "tile " << tile;
    }
  }
}

//! The bodies after c's steps on SoA, by the paper's kernel or the roofline version.
lb::kofler::NBodyState run_on_soa(const NBodyCase& c, bool roofline) {
  using M = lb::kofler::NBodyRooflineMapping;
  const M mapping{c.initial.size()};
  layout::HostStorage<M> host(mapping);
  layout::fill(host.view(), [&](std::size_t i) {
    layout::RecordValue<lb::kofler::Body> v;
    v.get<lb::kofler::Pos>() = c.initial.pos[i];
    v.get<lb::kofler::Vel>() = c.initial.vel[i];
    return v;
  });
  layout::DeviceStorage<M> initial(mapping), scratch(mapping), out(mapping);
  initial.upload(host);
  if (roofline)
    lb::kofler::nbody_roofline_run(initial.view(), scratch.view(), out.view(), c.params, nullptr);
  else
    lb::kofler::nbody_run(initial.view(), scratch.view(), out.view(), c.params, nullptr);
  check(cudaDeviceSynchronize(), "nbody run on SoA");
  out.download(host);
  lb::kofler::NBodyState got;
  for (std::size_t i = 0; i < mapping.size(); ++i) {
    const auto v = host.view().load(i);
    got.pos.push_back(v.get<lb::kofler::Pos>());
    got.vel.push_back(v.get<lb::kofler::Vel>());
  }
  return got;
}

// The roofline version sums each body's interactions in the paper's kernel's order (its error
// bound is the reference's as it is), so it agrees with the reference and equals the paper's
// kernel bit for bit: on 1000 bodies (the last block partly past n, a partial tile) and 4099
// (the last block with 3 bodies; 3 steps). Under compute-sanitizer only the 1000 (its 4 tiles
// go through both buffers twice): 4099 is 17 times the shared loads.
TEST(KoflerNBodyGpu, RooflineMatchesTheReferenceAndThePapersKernelBitForBit) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  static_assert(1000 % lb::kofler::kRooflineBlockBodies != 0 && 4099 % lb::kofler::kRooflineBlockBodies == 3);
  const LayoutChoice soa{kind::Soa{}};
  std::vector<std::shared_ptr<const NBodyCase>> cases = {small_case()};
  if (const char* tool = std::getenv("LB_UNDER_SANITIZER"); tool && *tool)
    std::printf("under compute-sanitizer %s: 1000 bodies only\n", tool);
  else
    cases.push_back(std::make_shared<const NBodyCase>(make_nbody_case(4099, lb::kofler::NBodyParams{.steps = 3})));
  for (const auto& c : cases) {
    const std::size_t n = c->initial.size();
    const Check result = testing::validated_run(*make_nbody_variant(soa, c, kNBodyRooflineVersion));
    EXPECT_TRUE(result.ok) << n << ": " << result.message;
    EXPECT_EQ(result.counters.at("checked"), 4 * n);
    EXPECT_LT(result.counters.at("err_over_tolerance"), 1) << n;
    const auto paper = run_on_soa(*c, false), roofline = run_on_soa(*c, true);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < n; ++i)
      for (const auto& [a, b] : {std::pair{paper.pos[i], roofline.pos[i]}, std::pair{paper.vel[i], roofline.vel[i]}})
        differ += std::memcmp(&a, &b, sizeof(float4)) != 0;
    EXPECT_EQ(differ, 0u) << n << " bodies: pos or vel not bit for bit the paper kernel's";
  }
}

}  // namespace
}  // namespace lb::benches::kofler

//! N-body on the CPU: the double reference (two bodies by hand, momentum conservation) and
//! the validation: a float run in the kernel's own order (add_interaction, blocked sums)
//! passes its derived tolerance, and wrong runs (softening, a skipped tile, a step short)
//! fail it.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "kofler/nbody_bench.hpp"
#include "lb/harness/suite.hpp"
#include "preset_testing.hpp"
#include "lb/kofler/nbody_reference.hpp"

namespace lb::kofler {
namespace {

//! The kernel's arithmetic in its order: per body, kLanes running sums of per-tile chunk
//! sums, bodies past n staged as zero-mass; `skip_tile` leaves one tile out (a fault).
NBodyState float_run(const NBodyState& s0, const NBodyParams& p, std::size_t skip_tile = SIZE_MAX) {
  NBodyState s = s0;
  const std::size_t n = s.size();
  for (int step = 0; step < p.steps; ++step) {
    NBodyState next = s;
    for (std::size_t i = 0; i < n; ++i) {
      float3 lane_acc[kLanes] = {};
      for (std::size_t base = 0, tile = 0; base < n; base += kTileBodies, ++tile) {
        if (tile == skip_tile) continue;
        for (unsigned l = 0; l < kLanes; ++l) {
          float3 chunk{0, 0, 0};
          for (unsigned k = 0; k < kChunk; ++k) {
            const std::size_t j = base + l * kChunk + k;
            add_interaction(s.pos[i], j < n ? s.pos[j] : float4{0, 0, 0, 0}, p.softening2, chunk);
          }
          lane_acc[l].x += chunk.x, lane_acc[l].y += chunk.y, lane_acc[l].z += chunk.z;
        }
      }
      float3 acc = lane_acc[0];
      for (unsigned l = 1; l < kLanes; ++l) acc.x += lane_acc[l].x, acc.y += lane_acc[l].y, acc.z += lane_acc[l].z;
      integrate(next.pos[i], next.vel[i], acc, p.dt);
    }
    s = next;
  }
  return s;
}

TEST(KoflerNBodyReference, TwoBodiesOneStepByHand) {
  NBodyState s;
  s.pos = {{0, 0, 0, 0.25f}, {1, 0, 0, 0.5f}};
  s.vel = {{0, 0, 0, 0}, {0, 0.5f, 0, 0}};
  const NBodyParams p{.softening2 = 0.0625f, .dt = 0.125f, .steps = 1};
  const auto r = nbody_reference(s, p);
  const double inv3 = std::pow(1.0 + 0.0625, -1.5);
  const double v0 = 0.5 * inv3 * 0.125, v1 = -0.25 * inv3 * 0.125;  // m_j r / d^3, times dt
  EXPECT_NEAR(r.vel[0], v0, 1e-15);
  EXPECT_NEAR(r.pos[0], v0 * 0.125, 1e-15);
  EXPECT_NEAR(r.vel[3], v1, 1e-15);
  EXPECT_NEAR(r.pos[3], 1 + v1 * 0.125, 1e-15);
  EXPECT_NEAR(r.vel[4], 0.5, 1e-15);
  EXPECT_NEAR(r.pos[4], 0.5 * 0.125, 1e-15);
  EXPECT_GT(r.pos_bound[0], 0);
}

TEST(KoflerNBodyReference, ConservesMomentum) {
  const NBodyState s = nbody_initial(300, 7);
  const auto r = nbody_reference(s, NBodyParams{.steps = 4});
  for (int c = 0; c < 3; ++c) {
    double before = 0, after = 0, scale = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      const double v0[3] = {s.vel[i].x, s.vel[i].y, s.vel[i].z};
      before += s.pos[i].w * v0[c];
      after += s.pos[i].w * r.vel[3 * i + c];
      scale += s.pos[i].w * std::abs(r.vel[3 * i + c]);
    }
    EXPECT_NEAR(after, before, 1e-13 * scale) << "component " << c;
  }
}

TEST(KoflerNBodyValidation, TheKernelsFloatArithmeticPassesAndWrongRunsFail) {
  // 1000 bodies: 4 tiles, the last one partly staged with zero-mass padding.
  const NBodyParams p{.steps = 3};
  const NBodyState s = nbody_initial(1000, 11);
  const auto reference = nbody_reference(s, p);

  const Agreement right = check_nbody(reference, s, float_run(s, p));
  EXPECT_TRUE(right.ok) << right.message;
  EXPECT_EQ(right.checked, 4 * s.size());
  EXPECT_GT(right.max_abs_err, 0);  // float does differ from double
  EXPECT_LT(right.worst_ratio, 1);
  std::printf("float run: max error %.3g, worst error / tolerance %.3g\n", right.max_abs_err, right.worst_ratio);

  NBodyParams soft = p;
  soft.softening2 *= 1.5f;
  const Agreement wrong_softening = check_nbody(reference, s, float_run(s, soft));
  EXPECT_FALSE(wrong_softening.ok);

  for (std::size_t tile : {0u, 3u}) {
    const Agreement skipped = check_nbody(reference, s, float_run(s, p, tile));
    EXPECT_FALSE(skipped.ok) << "tile " << tile;
  }

  NBodyParams short_run = p;
  short_run.steps = p.steps - 1;
  EXPECT_FALSE(check_nbody(reference, s, float_run(s, short_run)).ok);

  NBodyState nan = float_run(s, p);
  nan.vel[999].w = NAN;  // one poisoned value left
  EXPECT_FALSE(check_nbody(reference, s, nan).ok);
}

}  // namespace
}  // namespace lb::kofler

namespace lb::harness {
namespace {

TEST(KoflerPlan, QuickPresetNamesEveryLayoutOfNBodyAndBlackScholes) {
  const auto plan = find_suite("kofler").plan(load_preset("quick"), {});
  auto count = [&](const std::string& prefix) {
    return std::count_if(plan.begin(), plan.end(), [&](const auto& b) { return b.name.rfind(prefix, 0) == 0; });
  };
  // aos, soa, 3 run-time tiles, 3 compile-time tiles, split, split-ct at 2 sizes; the
  // roofline version on SoA at each size
  EXPECT_EQ(count("kofler/nbody/gpu/"), 20);
  EXPECT_EQ(count("kofler/nbody/roofline/soa/float/size:"), 2);
  EXPECT_EQ(count("kofler/nbody/roofline/"), 2);
  // aos, soa, 4 run-time tiles, 2 compile-time tiles, split, split-ct at 2 sizes
  EXPECT_EQ(count("kofler/blackscholes/gpu/"), 20);
  auto has = [&](const std::string& name) {
    return std::any_of(plan.begin(), plan.end(), [&](const auto& b) { return b.name == name; });
  };
  EXPECT_TRUE(has("kofler/nbody/gpu/split-ct/float/partition:pos|vel/size:32768"));
  EXPECT_TRUE(has("kofler/blackscholes/gpu/tiled/float/tile:4096/size:8388608"));
  // Both are float programs: --precision double plans neither (other programs may run).
  for (const auto& b : find_suite("kofler").plan(load_preset("quick"), Overrides{.sizes = {}, .precisions = {"double"}}))
    EXPECT_FALSE(b.name.starts_with("kofler/nbody/") || b.name.starts_with("kofler/blackscholes/")) << b.name;
}

// "versions" picks the paper's kernel (over the preset's layouts) and the roofline version (on
// SoA whatever the layouts); a preset without it, as before the roofline version, plans the
// paper's kernel alone, which --axis version=roofline narrows to nothing.
TEST(KoflerPlan, NBodyVersionsDefaultToThePapersKernel) {
  auto names = [](const std::string& versions, const Overrides& overrides = {}) {
    std::vector<std::string> out;
    for (const auto& b : find_suite("kofler").plan(
             lb::testing::preset_from(R"({"kofler": {"nbody": {"sizes": [1024], "steps": 1, "layouts": ["aos"])" +
                                      versions + "}}}"),
             overrides))
      out.push_back(b.name);
    return out;
  };
  const std::string aos = "kofler/nbody/gpu/aos/float/size:1024", roofline = "kofler/nbody/roofline/soa/float/size:1024";
  EXPECT_EQ(names(R"(, "versions": ["gpu", "roofline"])"), (std::vector<std::string>{aos, roofline}));
  EXPECT_EQ(names(R"(, "versions": ["roofline"])"), (std::vector<std::string>{roofline}));
  EXPECT_EQ(names(""), (std::vector<std::string>{aos}));
  const Overrides only_roofline{.axes = {{"version", {"roofline"}}}};
  EXPECT_EQ(names(R"(, "versions": ["gpu", "roofline"])", only_roofline), (std::vector<std::string>{roofline}));
  EXPECT_THROW(names("", only_roofline), PresetError);  // the suite plans nothing
  EXPECT_THROW(names(R"(, "versions": ["fastest"])"), PresetError);
}

// The roofline kernel is compiled for SoA only: another layout or version is refused before
// anything is allocated on a device.
TEST(KoflerPlan, NBodyRooflineRunsOnSoaOnly) {
  const auto c = std::make_shared<const benches::kofler::NBodyCase>(benches::kofler::make_nbody_case(8, lb::kofler::NBodyParams{}));
  try {
    benches::kofler::make_nbody_variant(benches::kofler::LayoutChoice{layout::kind::Aos{}}, c, benches::kofler::kNBodyRooflineVersion);
    ADD_FAILURE() << "roofline on aos was made";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "nbody version roofline runs on layout soa only");
  }
  EXPECT_THROW(benches::kofler::make_nbody_variant(benches::kofler::LayoutChoice{layout::kind::Soa{}}, c, "fastest"),
               std::invalid_argument);
}

}  // namespace
}  // namespace lb::harness

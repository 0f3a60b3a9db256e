//! Kofler's LavaMD on the CPU: Rodinia's box neighbourhood, the double reference against an
//! independent all-pairs sum over the boxes within reach, the tolerance failing a kernel that
//! misses one partner box, and the planner.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "kofler/suite.hpp"
#include "lb/kofler/lavamd.hpp"
#include "preset_testing.hpp"

namespace lb::kofler {
namespace {

TEST(KoflerLavaMD, PartnersFollowRodiniasOrderAndStopAtTheGridsEdge) {
  const int n = 4;
  const long interior = (1 * n + 1) * n + 1;  // box (1, 1, 1)
  EXPECT_EQ(lava_partner(interior, 0, n), interior);
  EXPECT_EQ(lava_partner(interior, 1, n), 0);                              // (-1, -1, -1) first
  EXPECT_EQ(lava_partner(interior, 2, n), 1);                              // then x grows
  EXPECT_EQ(lava_partner(interior, 13, n), interior - 1);                  // (0, 0, -1)
  EXPECT_EQ(lava_partner(interior, 14, n), interior + 1);                  // the centre is skipped
  EXPECT_EQ(lava_partner(interior, 26, n), ((2 * n) + 2) * n + 2);         // (+1, +1, +1) last
  int corner_partners = 0, interior_partners = 0;
  for (int k = 0; k < kLavaPartners; ++k) {
    corner_partners += lava_partner(0, k, n) >= 0;
    interior_partners += lava_partner(interior, k, n) >= 0;
  }
  EXPECT_EQ(corner_partners, 8);  // itself and 7 neighbours, as Rodinia's nn = 7
  EXPECT_EQ(interior_partners, 27);
  // per axis 2 partners at each edge, 3 inside: (2 + 3 (n - 2) + 2)^3 box pairs
  EXPECT_DOUBLE_EQ(lavamd_interactions(10), 28.0 * 28 * 28 * kParticlesPerBox * kParticlesPerBox);
}

TEST(KoflerLavaMD, InputsAreRodiniasTenths) {
  const auto in = lavamd_input(2);
  ASSERT_EQ(in.rv.size(), 8u * kParticlesPerBox);
  int seen[11] = {};
  for (std::size_t i = 0; i < in.rv.size(); ++i)
    for (double x : {in.rv[i].v, in.rv[i].x, in.rv[i].y, in.rv[i].z, in.qv[i]}) {
      const double tenths = x * 10;
      ASSERT_NEAR(tenths, std::round(tenths), 1e-12);
      ASSERT_GE(tenths, 0.5);
      ASSERT_LE(tenths, 10.5);
      ++seen[int(std::lround(tenths))];
    }
  for (int t = 1; t <= 10; ++t) EXPECT_GT(seen[t], 0) << t;
}

//! Particle i's force summed over every particle of every box within one box in each axis, in
//! index order: another order and another way to find the partners.
FourPlain all_pairs(const LavaInput& in, int n, std::size_t i) {
  const long a_box = long(i / kParticlesPerBox);
  const FourPlain& a = in.rv[i];
  const double a2 = 2 * kLavaAlpha * kLavaAlpha;
  FourPlain f;
  for (std::size_t j = 0; j < in.rv.size(); ++j) {
    const long b_box = long(j / kParticlesPerBox);
    auto coord = [n](long b, int axis) { return axis == 0 ? b % n : axis == 1 ? (b / n) % n : b / (long(n) * n); };
    bool near = true;
    for (int axis = 0; axis < 3; ++axis) near = near && std::labs(coord(a_box, axis) - coord(b_box, axis)) <= 1;
    if (!near) continue;
    const FourPlain& b = in.rv[j];
    const double vij = std::exp(-a2 * (a.v + b.v - (a.x * b.x + a.y * b.y + a.z * b.z)));
    f.v += in.qv[j] * vij;
    f.x += in.qv[j] * 2 * vij * (a.x - b.x);
    f.y += in.qv[j] * 2 * vij * (a.y - b.y);
    f.z += in.qv[j] * 2 * vij * (a.z - b.z);
  }
  return f;
}

constexpr double kTolerance = LavaPrecision<double>::tolerance;

TEST(KoflerLavaMD, TheReferenceAgreesWithAnAllPairsSumAndPassesItsOwnCheck) {
  const int n = 3;
  const auto in = lavamd_input(n);
  const auto ref = lavamd_reference(n, in);
  for (std::size_t i : {std::size_t(0), std::size_t(1350), std::size_t(2699)}) {  // corner, centre, corner
    const FourPlain want = all_pairs(in, n, i);
    EXPECT_LE(std::abs(ref.fv[i].v - want.v), kTolerance * ref.scale[i].v) << i;
    EXPECT_LE(std::abs(ref.fv[i].x - want.x), kTolerance * ref.scale[i].x) << i;
    EXPECT_LE(std::abs(ref.fv[i].y - want.y), kTolerance * ref.scale[i].y) << i;
    EXPECT_LE(std::abs(ref.fv[i].z - want.z), kTolerance * ref.scale[i].z) << i;
  }
  const auto c = check_forces(ref.fv, ref, kTolerance);
  EXPECT_EQ(c.problem, "");
  EXPECT_EQ(c.max_abs_err, 0);
}

//! What a kernel skipping partner 26 of every box computes (the reference less those terms).
std::vector<FourPlain> without_last_partner(const LavaInput& in, const LavaReference& ref, int n) {
  auto missing = ref.fv;
  const double a2 = 2 * kLavaAlpha * kLavaAlpha;
  for (long box = 0; box < long(lavamd_boxes(n)); ++box) {
    const long other = lava_partner(box, 26, n);
    if (other < 0) continue;
    for (int i = 0; i < kParticlesPerBox; ++i) {
      const std::size_t ia = std::size_t(box) * kParticlesPerBox + i;
      const auto& a = in.rv[ia];
      for (int j = 0; j < kParticlesPerBox; ++j) {
        const std::size_t ib = std::size_t(other) * kParticlesPerBox + j;
        const auto& b = in.rv[ib];
        missing[ia].v -= in.qv[ib] * std::exp(-a2 * (a.v + b.v - (a.x * b.x + a.y * b.y + a.z * b.z)));
      }
    }
  }
  return missing;
}

TEST(KoflerLavaMD, EachPrecisionsToleranceFailsAMissingPartnerBoxAndThePoison) {
  const int n = 3;
  for (bool in_float : {false, true}) {
    const auto in = in_float ? rounded_to_float(lavamd_input(n)) : lavamd_input(n);
    const auto ref = lavamd_reference(n, in);
    const double tolerance = in_float ? LavaPrecision<float>::tolerance : LavaPrecision<double>::tolerance;
    const auto c = check_forces(without_last_partner(in, ref, n), ref, tolerance);
    EXPECT_NE(c.problem.find("particle 0 force v"), std::string::npos) << c.problem;
    EXPECT_GT(c.max_rel_err, 10 * tolerance);
    auto poisoned = ref.fv;
    poisoned[5].x = std::nan("");
    const auto p = check_forces(poisoned, ref, tolerance);
    EXPECT_NE(p.problem.find("particle 5 force x"), std::string::npos) << p.problem;
    EXPECT_TRUE(std::isnan(p.max_abs_err));
  }
}

TEST(KoflerLavaMD, FloatsReferenceIsTheDoubleSumOfTheFloatRoundedInput) {
  const auto in = lavamd_input(2);
  const auto rounded = rounded_to_float(in);
  EXPECT_EQ(rounded.rv[7].x, double(float(in.rv[7].x)));
  EXPECT_NE(rounded.rv[7].x, in.rv[7].x);  // tenths are not floats
  EXPECT_EQ(rounded.qv[3], double(float(in.qv[3])));
}

}  // namespace
}  // namespace lb::kofler

namespace lb::harness {
namespace {

TEST(KoflerLavaMDPlan, NamesCarryTheBoxCountAndTheSweepRunsOverParticles) {
  const Preset p = lb::testing::preset_from(R"({"boxes_1d": [2], "precisions": ["double", "float"],
    "layouts": ["aos", "soa", "tiled", "tiled-ct"], "tiles": "sweep", "compile_time_tiles": [4]})");
  std::vector<std::string> names;
  for (const auto& b : plan_program("kofler", benches::kofler::lavamd_program(), p, p.suites, "lavamd", {})) names.push_back(b.name);
  ASSERT_EQ(names.size(), 2 * (2u + 9u + 1u));  // tiles 2 .. 512 for 800 particles, per precision
  EXPECT_EQ(names[0], "kofler/lavamd/gpu/aos/double/size:8");
  EXPECT_EQ(names[10], "kofler/lavamd/gpu/tiled/double/tile:512/size:8");
  EXPECT_EQ(names[11], "kofler/lavamd/gpu/tiled-ct/double/tile:4/size:8");
  EXPECT_EQ(names[12], "kofler/lavamd/gpu/aos/float/size:8");
  Overrides o;
  o.precisions = {"float"};
  EXPECT_EQ(plan_program("kofler", benches::kofler::lavamd_program(), p, p.suites, "lavamd", o).size(), names.size() / 2);
  o.precisions = {"half"};
  EXPECT_TRUE(plan_program("kofler", benches::kofler::lavamd_program(), p, p.suites, "lavamd", o).empty());
}

}  // namespace
}  // namespace lb::harness

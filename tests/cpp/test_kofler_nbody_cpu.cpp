//! N-body on the CPU: the double reference (two bodies by hand, momentum conservation) and
//! the validation: a float run in the kernel's own order (add_interaction, blocked sums)
//! passes its derived tolerance, and wrong runs (softening, a skipped tile, a step short)
//! fail it.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "lb/harness/suite.hpp"
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

//! The reference as one loop per body (the code before its bodies ran in SIMD lanes): the
//! blocked reference must give the same bits, bounds included.
NBodyReference plain_reference(const NBodyState& initial, const NBodyParams& params) {
  const std::size_t n = initial.size();
  const double u = kFloatU, eps2 = params.softening2, dt = params.dt;
  const double tiles = double((n + kTileBodies - 1) / kTileBodies);
  const double gamma = (24 + kChunk + tiles + kLanes) * u;
  NBodyReference r;
  r.pos.resize(3 * n), r.vel.resize(3 * n), r.pos_bound.assign(n, 0), r.vel_bound.assign(n, 0);
  std::vector<double> mass(n), acc(3 * n), acc_bound(n);
  for (std::size_t i = 0; i < n; ++i) {
    const float4 p = initial.pos[i], v = initial.vel[i];
    r.pos[3 * i] = p.x, r.pos[3 * i + 1] = p.y, r.pos[3 * i + 2] = p.z, mass[i] = p.w;
    r.vel[3 * i] = v.x, r.vel[3 * i + 1] = v.y, r.vel[3 * i + 2] = v.z;
  }
  for (int step = 0; step < params.steps; ++step) {
    const double max_pos_bound = *std::max_element(r.pos_bound.begin(), r.pos_bound.end());
    for (std::size_t i = 0; i < n; ++i) {
      double ax = 0, ay = 0, az = 0, magnitudes = 0, lipschitz = 0;
      for (std::size_t j = 0; j < n; ++j) {
        const double rx = r.pos[3 * j] - r.pos[3 * i], ry = r.pos[3 * j + 1] - r.pos[3 * i + 1],
                     rz = r.pos[3 * j + 2] - r.pos[3 * i + 2];
        const double d2 = rx * rx + ry * ry + rz * rz + eps2;
        const double s = mass[j] * (1.0 / (d2 * std::sqrt(d2)));
        ax += rx * s, ay += ry * s, az += rz * s;
        magnitudes += s * std::sqrt(rx * rx + ry * ry + rz * rz);
        if (j != i) lipschitz += 2 * s;
      }
      acc[3 * i] = ax, acc[3 * i + 1] = ay, acc[3 * i + 2] = az;
      acc_bound[i] = gamma * magnitudes + lipschitz * (r.pos_bound[i] + max_pos_bound);
    }
    for (std::size_t i = 0; i < n; ++i) {
      double v2 = 0, p2 = 0;
      for (int c = 0; c < 3; ++c) {
        r.vel[3 * i + c] += acc[3 * i + c] * dt;
        r.pos[3 * i + c] += r.vel[3 * i + c] * dt;
        v2 += r.vel[3 * i + c] * r.vel[3 * i + c];
        p2 += r.pos[3 * i + c] * r.pos[3 * i + c];
      }
      r.vel_bound[i] += dt * acc_bound[i] + u * std::sqrt(v2);
      r.pos_bound[i] += dt * r.vel_bound[i] + u * std::sqrt(p2);
    }
  }
  return r;
}

TEST(KoflerNBodyReference, BlockedEqualsThePlainLoop) {
  for (std::size_t n : {1, 7, 8, 37, 300}) {  // below, at and past a block of lanes
    const NBodyState s = nbody_initial(n, 11);
    const NBodyParams p{.steps = 3};
    const auto got = nbody_reference(s, p), want = plain_reference(s, p);
    EXPECT_EQ(got.pos, want.pos) << n << " bodies";
    EXPECT_EQ(got.vel, want.vel) << n << " bodies";
    EXPECT_EQ(got.pos_bound, want.pos_bound) << n << " bodies";
    EXPECT_EQ(got.vel_bound, want.vel_bound) << n << " bodies";
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
  // aos, soa, 3 run-time tiles, 3 compile-time tiles, split, split-ct at 2 sizes
  EXPECT_EQ(count("kofler/nbody/gpu/"), 20);
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

}  // namespace
}  // namespace lb::harness

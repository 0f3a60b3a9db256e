#include <algorithm>
#include <cmath>
#include <cstdint>

#include "lb/kofler/nbody_reference.hpp"
#include "lb/kofler/random.hpp"

namespace lb::kofler {

NBodyState nbody_initial(std::size_t n, std::uint64_t seed) {
  NBodyState s;
  s.pos.resize(n);
  s.vel.resize(n);
  CounterRandom rng(seed);
  std::uint64_t draw = 0;
  auto in_ball = [&](double radius, double out[3]) {  // rejection sampling: uniform in the ball
    do {
      for (int c = 0; c < 3; ++c) out[c] = radius * (2 * rng.uniform(draw++) - 1);
    } while (out[0] * out[0] + out[1] * out[1] + out[2] * out[2] > radius * radius);
  };
  for (std::size_t i = 0; i < n; ++i) {
    double p[3], v[3];
    in_ball(1.0, p);
    in_ball(0.1, v);
    const double mass = (0.5 + rng.uniform(draw++)) / static_cast<double>(n);
    s.pos[i] = {float(p[0]), float(p[1]), float(p[2]), float(mass)};
    s.vel[i] = {float(v[0]), float(v[1]), float(v[2]), 0.0f};
  }
  return s;
}

// Error bound of the float kernel against this reference (first order in u = 2^-24), per body
// i, on the Euclidean norms of its position and velocity errors P_i and V_i (0 at the start:
// both start from the same floats).
//
// One interaction term t_ij = m_j r / (|r|^2 + eps^2)^(3/2), r = p_j - p_i, in float
// (add_interaction): r's components 1 rounding each (relative u); d2 by three FMAs of
// positive terms: 3u + 2u (r squared) = 5u; rsqrt (MUFU.RSQ, 2 ulp = 4u) of it: 4u + 5u/2 =
// 6.5u; inv^3: 3 * 6.5u + 2 roundings = 21.5u; times m: 22.5u; times r inside the FMA: 23.5u.
// So |fl(t_ij) - t_ij| <= kTermU u |t_ij| with kTermU = 24.
// Summation (the kernel's order): each thread sums kChunk terms of a tile into a chunk sum,
// adds that to its running sum once per tile, and the kLanes running sums are added at the
// end: a term passes at most kChunk + tiles + kLanes additions, so the float sum of the
// terms is off by at most (kChunk + tiles + kLanes) u sum_j |t_ij| (Higham's bound for
// recursive summation, applied blockwise). With A_i = sum_j |t_ij|:
//   rounding in a_i          <= gamma A_i,  gamma = (kTermU + kChunk + tiles + kLanes) u
// The float positions are off by P (from earlier steps); a moves with them by at most
// |da_i| <= sum_j |J_ij| (P_i + P_j), where J_ij = m_j (I/d^3 - 3 r r^T/d^5) has norm
// <= 2 m_j / d^3 (d^2 = |r|^2 + eps^2). With L_i = sum_{j != i} 2 m_j / d_ij^3:
//   |a_i error| <= gamma A_i + L_i (P_i + max_j P_j)
// Integration (integrate: one FMA a component):
//   V_i' = V_i + dt |a_i error| + u |v_i'|,   P_i' = P_i + dt V_i' + u |p_i'|.
// The check allows 2 P_i and 2 V_i: the factor 2 covers the second-order terms dropped above
// (products of two u-sized errors: below 1e-3 of the bound while gamma < 1e-3).
NBodyReference nbody_reference(const NBodyState& initial, const NBodyParams& params) {
  const std::size_t n = initial.size();
  const double u = kFloatU, eps2 = params.softening2, dt = params.dt;
  const double tiles = double((n + kTileBodies - 1) / kTileBodies);
  const double gamma = (24 + kChunk + tiles + kLanes) * u;
  NBodyReference r;
  r.pos.resize(3 * n), r.vel.resize(3 * n), r.pos_bound.assign(n, 0), r.vel_bound.assign(n, 0);
  std::vector<double> mass(n);
  for (std::size_t i = 0; i < n; ++i) {
    const float4 p = initial.pos[i], v = initial.vel[i];
    r.pos[3 * i] = p.x, r.pos[3 * i + 1] = p.y, r.pos[3 * i + 2] = p.z, mass[i] = p.w;
    r.vel[3 * i] = v.x, r.vel[3 * i + 1] = v.y, r.vel[3 * i + 2] = v.z;
  }
  std::vector<double> acc(3 * n), acc_bound(n);
  for (int step = 0; step < params.steps; ++step) {
    const double max_pos_bound = *std::max_element(r.pos_bound.begin(), r.pos_bound.end());
#pragma omp parallel for schedule(static)
    for (std::int64_t si = 0; si < static_cast<std::int64_t>(n); ++si) {
      const std::size_t i = static_cast<std::size_t>(si);
      double ax = 0, ay = 0, az = 0, magnitudes = 0, lipschitz = 0;
      for (std::size_t j = 0; j < n; ++j) {
        const double rx = r.pos[3 * j] - r.pos[3 * i], ry = r.pos[3 * j + 1] - r.pos[3 * i + 1],
                     rz = r.pos[3 * j + 2] - r.pos[3 * i + 2];
        const double d2 = rx * rx + ry * ry + rz * rz + eps2;
        const double inv3 = 1.0 / (d2 * std::sqrt(d2));
        const double s = mass[j] * inv3;
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

Agreement check_nbody(const NBodyReference& reference, const NBodyState& initial, const NBodyState& got) {
  Agreement a;
  const std::size_t n = initial.size();
  if (got.size() != n) {
    a.ok = false;
    a.message = fmt::format("{} bodies back for {}", got.size(), n);
    return a;
  }
  for (std::size_t i = 0; i < n; ++i) {
    // The mass and vel.w pass through unchanged (a NaN where a run left the poison).
    a.add(std::abs(double(got.pos[i].w) - initial.pos[i].w), initial.pos[i].w, 0.0,
          [&] { return fmt::format("body {} mass {} (was {})", i, got.pos[i].w, initial.pos[i].w); });
    a.add(std::abs(double(got.vel[i].w) - initial.vel[i].w), 0.0, 0.0,
          [&] { return fmt::format("body {} vel.w {} (was {})", i, got.vel[i].w, initial.vel[i].w); });
    auto compare = [&](const char* what, const float4& g, const std::vector<double>& ref, double bound) {
      const double* e = &ref[3 * i];
      const double dx = g.x - e[0], dy = g.y - e[1], dz = g.z - e[2];
      a.add(std::sqrt(dx * dx + dy * dy + dz * dz), std::sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]), 2 * bound,
            [&] {
              return fmt::format("body {} {} ({}, {}, {}), double reference ({}, {}, {})", i, what, g.x, g.y, g.z,
                                 e[0], e[1], e[2]);
            });
    };
    compare("position", got.pos[i], reference.pos, reference.pos_bound[i]);
    compare("velocity", got.vel[i], reference.vel, reference.vel_bound[i]);
  }
  return a;
}

}  // namespace lb::kofler

//! LavaMD's input, double reference and check.

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "lb/kofler/hash.hpp"
#include "lb/kofler/lavamd.hpp"

namespace lb::kofler {

namespace {
//! Rodinia's (rand() % 10 + 1) / 10.0 with a hash of (value index) in place of rand().
double tenth(std::uint64_t index) { return double(mix32(static_cast<std::uint32_t>(index)) % 10 + 1) / 10.0; }
}  // namespace

std::size_t lavamd_boxes(int boxes_1d) {
  const auto n = static_cast<std::size_t>(boxes_1d);
  return n * n * n;
}

LavaInput lavamd_input(int boxes_1d) {
  const std::size_t particles = lavamd_boxes(boxes_1d) * kParticlesPerBox;
  LavaInput in{std::vector<FourPlain>(particles), std::vector<double>(particles)};
  for (std::size_t i = 0; i < particles; ++i) {
    in.rv[i] = {tenth(5 * i), tenth(5 * i + 1), tenth(5 * i + 2), tenth(5 * i + 3)};
    in.qv[i] = tenth(5 * i + 4);
  }
  return in;
}

LavaInput rounded_to_float(const LavaInput& in) {
  LavaInput out = in;
  auto round = [](double& x) { x = static_cast<float>(x); };
  for (auto& r : out.rv) round(r.v), round(r.x), round(r.y), round(r.z);
  for (auto& q : out.qv) round(q);
  return out;
}

double lavamd_interactions(int boxes_1d) {
  double pairs = 0;
  const long boxes = static_cast<long>(lavamd_boxes(boxes_1d));
  for (long b = 0; b < boxes; ++b)
    for (int k = 0; k < kLavaPartners; ++k)
      if (lava_partner(b, k, boxes_1d) >= 0) pairs += double(kParticlesPerBox) * kParticlesPerBox;
  return pairs;
}

LavaReference lavamd_reference(int boxes_1d, const LavaInput& in) {
  const long boxes = static_cast<long>(lavamd_boxes(boxes_1d));
  LavaReference ref{std::vector<FourPlain>(in.rv.size()), std::vector<FourPlain>(in.rv.size())};
  const double a2 = 2 * kLavaAlpha * kLavaAlpha;
#pragma omp parallel for schedule(dynamic, 8)
  for (long box = 0; box < boxes; ++box)
    for (int i = 0; i < kParticlesPerBox; ++i) {
      const std::size_t ia = std::size_t(box) * kParticlesPerBox + i;
      const FourPlain a = in.rv[ia];
      FourPlain f, s;
      for (int k = 0; k < kLavaPartners; ++k) {
        const long other = lava_partner(box, k, boxes_1d);
        if (other < 0) continue;
        for (int j = 0; j < kParticlesPerBox; ++j) {
          const std::size_t ib = std::size_t(other) * kParticlesPerBox + j;
          const FourPlain& b = in.rv[ib];
          const double q = in.qv[ib];
          const double r2 = a.v + b.v - (a.x * b.x + a.y * b.y + a.z * b.z);
          const double vij = std::exp(-(a2 * r2));
          const double fs = 2 * vij;
          const double tv = q * vij, tx = q * (fs * (a.x - b.x)), ty = q * (fs * (a.y - b.y)),
                       tz = q * (fs * (a.z - b.z));
          f.v += tv, f.x += tx, f.y += ty, f.z += tz;
          s.v += std::abs(tv), s.x += std::abs(tx), s.y += std::abs(ty), s.z += std::abs(tz);
        }
      }
      ref.fv[ia] = f;
      ref.scale[ia] = s;
    }
  return ref;
}

LavaCheck check_forces(const std::vector<FourPlain>& fv, const LavaReference& ref, double tolerance) {
  LavaCheck c;
  if (fv.size() != ref.fv.size()) {
    c.problem = fmt::format("{} forces, expected {}", fv.size(), ref.fv.size());
    return c;
  }
  constexpr const char* kNames[] = {"v", "x", "y", "z"};
  for (std::size_t i = 0; i < fv.size(); ++i) {
    const double got[] = {fv[i].v, fv[i].x, fv[i].y, fv[i].z};
    const double want[] = {ref.fv[i].v, ref.fv[i].x, ref.fv[i].y, ref.fv[i].z};
    const double scale[] = {ref.scale[i].v, ref.scale[i].x, ref.scale[i].y, ref.scale[i].z};
    for (int k = 0; k < 4; ++k) {
      const double err = std::abs(got[k] - want[k]);
      const double rel = scale[k] > 0 ? err / scale[k] : err;
      if (!(rel <= tolerance) && c.problem.empty())  // !(<=) also catches NaN (the poison)
        c.problem = fmt::format("particle {} force {} = {}, reference {} (error {:.3g} of its scale {:.6g}, tolerance {:.0e})",
                                i, kNames[k], got[k], want[k], rel, scale[k], tolerance);
      if (std::isnan(err) || err > c.max_abs_err) c.max_abs_err = err;  // a NaN stays: nothing compares above it
      if (std::isnan(rel) || rel > c.max_rel_err) c.max_rel_err = rel;
    }
  }
  return c;
}

}  // namespace lb::kofler

#include "lb/idw/reference.hpp"

#include <cmath>
#include <cstdint>
#include <random>
#include <set>

#include "lb/idw/interaction.hpp"

namespace lb::idw {

double reference_value(const datasets::PointSet& data, double qx, double qy, double p) {
  double num = 0.0, den = 0.0;
  for (std::size_t j = 0; j < data.size(); ++j) {
    const double d2 = (qx - data.x[j]) * (qx - data.x[j]) + (qy - data.y[j]) * (qy - data.y[j]);
    if (d2 < kCoincidentD2) return data.z[j];
    const double w = p == 2.0 ? 1.0 / d2 : std::pow(d2, -0.5 * p);
    num += w * data.z[j];
    den += w;
  }
  return num / den;
}

std::vector<double> reference_values(const datasets::PointSet& data, const datasets::PointSet& pred,
                                     std::span<const std::size_t> indices, double p) {
  std::vector<double> out(indices.size());
#pragma omp parallel for schedule(dynamic, 8)
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(indices.size()); ++k)
    out[k] = reference_value(data, pred.x[indices[k]], pred.y[indices[k]], p);
  return out;
}

datasets::PointSet rounded_to(const datasets::PointSet& s, Precision prec) {
  datasets::PointSet r = s;
  if (prec == Precision::f32) {
    for (auto* v : {&r.x, &r.y, &r.z})
      for (double& e : *v) e = static_cast<double>(static_cast<float>(e));
  }
  return r;
}

double tolerance(Precision prec, std::size_t m) {
  const double u = prec == Precision::f32 ? 0x1.0p-24 : 0x1.0p-53;
  const double mu = static_cast<double>(m) * u;
  return 2.0 * mu / (1.0 - mu) + 16.0 * u;
}

std::vector<std::size_t> check_indices(std::size_t n, std::size_t all_up_to, std::size_t sample) {
  std::vector<std::size_t> idx;
  if (n <= all_up_to || n <= sample) {
    for (std::size_t i = 0; i < n; ++i) idx.push_back(i);
    return idx;
  }
  // A seeded random sample (so no stride pattern can hide an error), plus both ends.
  std::mt19937_64 rng(n);
  std::set<std::size_t> picked = {0, n - 1};
  while (picked.size() < sample) picked.insert(static_cast<std::size_t>(rng() % n));
  return {picked.begin(), picked.end()};
}

}  // namespace lb::idw

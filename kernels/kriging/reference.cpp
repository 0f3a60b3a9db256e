#include "lb/kriging/reference.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

namespace lb::kriging {

FactoredKriging::FactoredKriging(const KrigingInput<double>& in)
    : in_(&in), m_(static_cast<int>(in.wells) + 1), lu_(kriging_matrix(in)), pivots_(m_), a_(lu_) {
  const int m = m_;
  double scale = 0.0;
  for (double v : lu_) scale = std::max(scale, std::abs(v));
  const double threshold = pivot_tolerance<double>(m) * scale;
  for (int k = 0; k < m; ++k) {
    int p = k;
    for (int r = k + 1; r < m; ++r)
      if (std::abs(lu_[r * m + k]) > std::abs(lu_[p * m + k])) p = r;
    if (!(std::abs(lu_[p * m + k]) > threshold)) {
      SolveStatus s;
      s.singular_column = k;
      s.pivot = std::abs(lu_[p * m + k]);
      s.threshold = threshold;
      throw_singular_system(in, s, "factoring A (the double reference)");
    }
    pivots_[k] = p;
    if (p != k)
      for (int c = 0; c < m; ++c) std::swap(lu_[k * m + c], lu_[p * m + c]);
    const double inv = 1.0 / lu_[k * m + k];
    for (int r = k + 1; r < m; ++r) {
      const double f = lu_[r * m + k] *= inv;
      if (f == 0.0) continue;
      for (int c = k + 1; c < m; ++c) lu_[r * m + c] -= f * lu_[k * m + c];
    }
  }
}

void FactoredKriging::solve_at(double px, double py, double* x) const {
  const int m = m_, n = m - 1;
  for (int j = 0; j < n; ++j) x[j] = in_->covariance(planar_distance(px, py, in_->well_x[j], in_->well_y[j]));
  x[n] = 1.0;
  for (int k = 0; k < m; ++k) std::swap(x[k], x[pivots_[k]]);
  for (int r = 1; r < m; ++r) {
    double s = x[r];
    for (int c = 0; c < r; ++c) s -= lu_[r * m + c] * x[c];
    x[r] = s;
  }
  for (int r = m - 1; r >= 0; --r) {
    double s = x[r];
    for (int c = r + 1; c < m; ++c) s -= lu_[r * m + c] * x[c];
    x[r] = s / lu_[r * m + r];
  }
}

std::vector<double> FactoredKriging::estimates_at(double px, double py) const {
  const std::size_t n = in_->wells;
  std::vector<double> lambda(n + 1), out(in_->surfaces, 0.0);
  solve_at(px, py, lambda.data());
  for (std::size_t h = 0; h < in_->surfaces; ++h) {
    const double* z = in_->values.data() + h * n;
    double s = 0.0;
    for (std::size_t i = 0; i < n; ++i) s += lambda[i] * z[i];
    out[h] = s;
  }
  return out;
}

std::vector<double> FactoredKriging::inverse() const {
  const int m = m_;
  std::vector<double> inv(std::size_t(m) * m), col(m);
  for (int j = 0; j < m; ++j) {
    std::fill(col.begin(), col.end(), 0.0);
    col[j] = 1.0;
    for (int k = 0; k < m; ++k) std::swap(col[k], col[pivots_[k]]);
    for (int r = 1; r < m; ++r)
      for (int c = 0; c < r; ++c) col[r] -= lu_[r * m + c] * col[c];
    for (int r = m - 1; r >= 0; --r) {
      for (int c = r + 1; c < m; ++c) col[r] -= lu_[r * m + c] * col[c];
      col[r] /= lu_[r * m + r];
    }
    for (int r = 0; r < m; ++r) inv[std::size_t(r) * m + j] = col[r];
  }
  return inv;
}

double FactoredKriging::condition_number_inf() const {
  const int m = m_;
  auto norm = [m](const std::vector<double>& mat) {
    double best = 0.0;
    for (int r = 0; r < m; ++r) {
      double s = 0.0;
      for (int c = 0; c < m; ++c) s += std::abs(mat[std::size_t(r) * m + c]);
      best = std::max(best, s);
    }
    return best;
  };
  return norm(a_) * norm(inverse());
}

std::vector<std::size_t> reference_points(std::size_t points, std::size_t wells, double budget) {
  const double m = double(wells + 1);
  const double all_cost = double(points) * m * m;
  std::size_t count = points;
  if (all_cost > budget) count = std::min(points, std::max<std::size_t>(1024, std::size_t(budget / (m * m))));
  std::vector<std::size_t> out(count);
  for (std::size_t k = 0; k < count; ++k)
    out[k] = count == points ? k : (count == 1 ? 0 : k * (points - 1) / (count - 1));
  return out;
}

std::vector<double> reference_estimates(const KrigingInput<double>& in, const std::vector<std::size_t>& points) {
  const FactoredKriging f(in);
  const std::size_t mx = in.grid_x.size(), h_count = in.surfaces;
  std::vector<double> out(points.size() * h_count);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t k = 0; k < std::ptrdiff_t(points.size()); ++k) {
    const std::size_t p = points[std::size_t(k)];
    const auto e = f.estimates_at(in.grid_x[p % mx], in.grid_y[p / mx]);
    std::copy(e.begin(), e.end(), out.begin() + std::ptrdiff_t(std::size_t(k) * h_count));
  }
  return out;
}

double estimate_tolerance(const KrigingInput<double>& in, double kappa, double u, double extra_ulps) {
  double z = 0.0;
  for (double v : in.values) z = std::max(z, std::abs(v));
  return z * kappa * (16.0 * double(in.wells + 1) + extra_ulps) * u;
}

}  // namespace lb::kriging

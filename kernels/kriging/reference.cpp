#include "lb/kriging/reference.hpp"

#include "lb/kriging/dual.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <utility>

#include <fmt/format.h>

namespace lb::kriging {

template <class T>
BasicFactoredKriging<T>::BasicFactoredKriging(const KrigingInput<T>& in)
    : in_(&in), m_(static_cast<int>(in.wells) + 1), lu_(kriging_matrix(in)), pivots_(m_), a_(lu_) {
  const int m = m_;
  T scale = 0;
  for (T v : lu_) scale = std::max(scale, std::abs(v));
  const T threshold = pivot_tolerance<T>(m) * scale;
  for (int k = 0; k < m; ++k) {
    int p = k;
    for (int r = k + 1; r < m; ++r)
      if (std::abs(lu_[r * m + k]) > std::abs(lu_[p * m + k])) p = r;
    if (!(std::abs(lu_[p * m + k]) > threshold)) {
      SolveStatus s;
      s.singular_column = k;
      s.pivot = std::abs(lu_[p * m + k]);
      s.threshold = threshold;
      throw_singular_system(in, s, "factoring A (the reference)");
    }
    pivots_[k] = p;
    if (p != k)
      for (int c = 0; c < m; ++c) std::swap(lu_[k * m + c], lu_[p * m + c]);
    const T inv = T(1) / lu_[k * m + k];
    for (int r = k + 1; r < m; ++r) {
      const T f = lu_[r * m + k] *= inv;
      if (f == T(0)) continue;
      for (int c = k + 1; c < m; ++c) lu_[r * m + c] -= f * lu_[k * m + c];
    }
  }
}

template <class T>
void BasicFactoredKriging<T>::solve_at(T px, T py, T* x) const {
  const int n = m_ - 1;
  for (int j = 0; j < n; ++j) x[j] = in_->covariance(planar_distance(px, py, in_->well_x[j], in_->well_y[j]));
  x[n] = T(1);
  solve(x);
}

template <class T>
void BasicFactoredKriging<T>::solve(T* x) const {
  const int m = m_;
  for (int k = 0; k < m; ++k) std::swap(x[k], x[pivots_[k]]);
  for (int r = 1; r < m; ++r) {
    T s = x[r];
    for (int c = 0; c < r; ++c) s -= lu_[r * m + c] * x[c];
    x[r] = s;
  }
  for (int r = m - 1; r >= 0; --r) {
    T s = x[r];
    for (int c = r + 1; c < m; ++c) s -= lu_[r * m + c] * x[c];
    x[r] = s / lu_[r * m + r];
  }
}

template <class T>
std::vector<double> BasicFactoredKriging<T>::estimates_at(T px, T py) const {
  const std::size_t n = in_->wells;
  std::vector<T> lambda(n + 1);
  std::vector<double> out(in_->surfaces, 0.0);
  solve_at(px, py, lambda.data());
  for (std::size_t h = 0; h < in_->surfaces; ++h) {
    const T* z = in_->values.data() + h * n;
    T s = 0;
    for (std::size_t i = 0; i < n; ++i) s += lambda[i] * z[i];
    out[h] = double(s);
  }
  return out;
}

template <class T>
std::vector<T> BasicFactoredKriging<T>::inverse() const {
  const int m = m_;
  std::vector<T> inv(std::size_t(m) * m), col(m);
  for (int j = 0; j < m; ++j) {
    std::fill(col.begin(), col.end(), T(0));
    col[j] = T(1);
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

template <class T>
double BasicFactoredKriging<T>::condition_number_inf() const {
  const int m = m_;
  auto norm = [m](const std::vector<T>& mat) {
    double best = 0.0;
    for (int r = 0; r < m; ++r) {
      double s = 0.0;
      for (int c = 0; c < m; ++c) s += std::abs(double(mat[std::size_t(r) * m + c]));
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

template class BasicFactoredKriging<float>;
template class BasicFactoredKriging<double>;

template <class T>
std::vector<double> reference_estimates(const KrigingInput<T>& in, const std::vector<std::size_t>& points) {
  const BasicFactoredKriging<T> f(in);
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

template std::vector<double> reference_estimates(const KrigingInput<float>&, const std::vector<std::size_t>&);
template std::vector<double> reference_estimates(const KrigingInput<double>&, const std::vector<std::size_t>&);

double estimate_tolerance(const KrigingInput<double>& in, double kappa, double u, double extra_ulps) {
  double z = 0.0;
  for (double v : in.values) z = std::max(z, std::abs(v));
  return z * kappa * (16.0 * double(in.wells + 1) + extra_ulps) * u;
}

}  // namespace lb::kriging

namespace lb::kriging {

FloatAlgorithm float_algorithm_of(int experiment) {
  return experiment == 7 ? FloatAlgorithm::inverse_gemm
         : experiment == 8 ? FloatAlgorithm::dual
                           : FloatAlgorithm::elimination;
}

std::vector<double> float_consistent_estimates(const KrigingInput<float>& in, const std::vector<std::size_t>& points,
                                               FloatAlgorithm algorithm) {
  if (algorithm == FloatAlgorithm::elimination) return reference_estimates(in, points);
  if (algorithm == FloatAlgorithm::dual) return dual_estimates_at(in, points);
  // Experiment 7's arithmetic: A^-1 from the double A of the float input, rounded once.
  const KrigingInput<double> wide = widen(in);
  const std::vector<double> inverse = FactoredKriging(wide).inverse();
  const std::vector<float> inv(inverse.begin(), inverse.end());
  const std::size_t n = in.wells, m = n + 1, mx = in.grid_x.size(), h_count = in.surfaces;
  std::vector<double> out(points.size() * h_count);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t k = 0; k < std::ptrdiff_t(points.size()); ++k) {
    const std::size_t p = points[std::size_t(k)];
    std::vector<float> b(m), lambda(m);
    build_rhs(in.well_x.data(), in.well_y.data(), static_cast<int>(n), in.covariance, in.grid_x[p % mx],
              in.grid_y[p / mx], b.data());
    for (std::size_t i = 0; i < m; ++i) {
      float s = 0.0f;
      for (std::size_t j = 0; j < m; ++j) s += inv[i * m + j] * b[j];
      lambda[i] = s;
    }
    for (std::size_t h = 0; h < h_count; ++h) {
      float s = 0.0f;
      for (std::size_t i = 0; i < n; ++i) s += lambda[i] * in.values[h * n + i];
      out[std::size_t(k) * h_count + h] = s;
    }
  }
  return out;
}

template <class T>
CheckReference make_check_reference(const KrigingInput<T>& in, std::vector<std::size_t> points) {
  CheckReference r;
  if constexpr (std::is_same_v<T, float>)
    r.in = widen(in);
  else
    r.in = in;
  r.points = std::move(points);
  r.values = reference_estimates(r.in, r.points);
  r.kappa = condition_number_inf(r.in);
  double lo = r.values.empty() ? 0 : r.values[0], hi = lo;
  for (double v : r.values) r.max_abs = std::max(r.max_abs, std::abs(v)), lo = std::min(lo, v), hi = std::max(hi, v);
  r.spread = hi - lo;
  if constexpr (std::is_same_v<T, float>)
    for (auto algorithm : {FloatAlgorithm::elimination, FloatAlgorithm::inverse_gemm, FloatAlgorithm::dual}) {
      const auto f = float_consistent_estimates(in, r.points, algorithm);
      double e = 0;
      for (std::size_t k = 0; k < f.size(); ++k) e = std::max(e, std::abs(f[k] - r.values[k]));
      r.float_error[int(algorithm)] = e;
    }
  return r;
}

template <class T>
EstimateCheck check_estimates(const CheckReference& ref, const std::vector<T>& estimates, FloatAlgorithm algorithm) {
  EstimateCheck out;
  const std::size_t points = ref.in.points(), h_count = ref.in.surfaces;
  out.kappa = ref.kappa;
  constexpr bool single = std::is_same_v<T, float>;
  const double rigorous = estimate_tolerance(ref.in, ref.kappa, single ? kFloatRoundoff : kDoubleRoundoff,
                                             single ? kFastFloatExtraUlps : 0.0);
  out.tolerance = single ? float_tolerance(algorithm, ref.float_error[int(algorithm)], ref.max_abs, rigorous) : rigorous;
  out.unvalidated = out.tolerance > kUsefulToleranceFraction * ref.spread;
  if (estimates.size() != points * h_count) {
    out.message = fmt::format("validation: {} estimates, expected {}", estimates.size(), points * h_count);
    return out;
  }
  for (std::size_t k = 0; k < estimates.size(); ++k)
    if (!std::isfinite(double(estimates[k]))) {
      out.message = fmt::format("validation: estimate {} (surface {}, grid point {}) is not finite", k, k / points,
                                k % points);
      return out;
    }
  for (std::size_t k = 0; k < ref.points.size(); ++k)
    for (std::size_t h = 0; h < h_count; ++h) {
      const double got = double(estimates[h * points + ref.points[k]]), want = ref.values[k * h_count + h];
      const double e = std::abs(got - want);
      out.max_abs = std::max(out.max_abs, e);
      if (e > out.tolerance) {
        out.message = fmt::format("validation: surface {} at grid point {}: got {:.17g}, reference {:.17g} (|diff| "
                                  "{:.3g} > tolerance {:.3g})",
                                  h, ref.points[k], got, want, e, out.tolerance);
        return out;
      }
    }
  out.max_rel = ref.max_abs > 0 ? out.max_abs / ref.max_abs : out.max_abs;
  out.checked = ref.points.size();
  out.ok = true;
  return out;
}

template CheckReference make_check_reference(const KrigingInput<float>&, std::vector<std::size_t>);
template CheckReference make_check_reference(const KrigingInput<double>&, std::vector<std::size_t>);
template EstimateCheck check_estimates(const CheckReference&, const std::vector<float>&, FloatAlgorithm);
template EstimateCheck check_estimates(const CheckReference&, const std::vector<double>&, FloatAlgorithm);

double float_tolerance(FloatAlgorithm algorithm, double float_consistent_error, double max_abs, double rigorous) {
  const double k = algorithm == FloatAlgorithm::elimination ? 16.0 : 4.0;  // inverse_gemm, dual: 4
  return std::min(rigorous, k * float_consistent_error + 4.0 * kFloatRoundoff * max_abs);
}

}  // namespace lb::kriging

#include "lb/kriging/dual.hpp"

#include <algorithm>
#include <type_traits>

#include "lb/kriging/dense_lu.hpp"

#include "lb/exec/cpu_launcher.hpp"

namespace lb::kriging {

template <class T>
std::vector<T> dual_coefficients(const KrigingInput<T>& in, int threads) {
  const std::size_t n = in.wells, m = n + 1;
  KrigingInput<double> wide;
  if constexpr (std::is_same_v<T, float>)
    wide = widen(in);
  else
    wide = in;
  const DenseLu factors(kriging_matrix(wide, threads), static_cast<int>(m), threads);
  if (!factors.status().ok()) throw_singular_system(wide, factors.status(), "factoring A (the dual form's host solve)");
  std::vector<double> rhs(in.surfaces * m);  // [z_h; 0] for every surface, solved together
  for (std::size_t h = 0; h < in.surfaces; ++h)
    std::copy_n(wide.values.begin() + std::ptrdiff_t(h * n), n, rhs.begin() + std::ptrdiff_t(h * m));
  factors.solve(rhs.data(), static_cast<int>(in.surfaces));
  std::vector<T> alpha(dual_coefficient_count(n, in.surfaces), T(0));
  for (std::size_t h = 0; h < in.surfaces; ++h)
    for (std::size_t i = 0; i < m; ++i) alpha[dual_coefficient_index(n, h, i)] = T(rhs[h * m + i]);
  return alpha;
}

void eliminate_lagrange(const double* y, const double* u, int n, double* alpha) {
  double sum_y = 0, sum_u = 0;
  for (int i = 0; i < n; ++i) sum_y += y[i], sum_u += u[i];
  const double constant = lagrange_constant(sum_y, sum_u);
  for (int i = 0; i < n; ++i) alpha[i] = eliminated_coefficient(y[i], u[i], constant);
  alpha[n] = constant;
}

namespace {

template <class T>
DualKriging<T> dual_program(const KrigingInput<T>& in, const std::vector<T>& alpha, T* out) {
  return {in.well_x.data(), in.well_y.data(), alpha.data(), static_cast<int>(in.wells), static_cast<int>(in.surfaces),
          in.covariance, in.grid_x.data(), in.grid_y.data(), in.grid_x.size(), in.points(), out};
}

}  // namespace

template <class T>
std::vector<T> krige_dual(const KrigingInput<T>& in) {
  const std::vector<T> alpha = dual_coefficients(in);
  std::vector<T> out(in.surfaces * in.points());
  exec::run_openmp(in.points(), dual_program(in, alpha, out.data()));
  return out;
}

template <class T>
std::vector<double> dual_estimates_at(const KrigingInput<T>& in, const std::vector<std::size_t>& points) {
  const std::vector<T> alpha = dual_coefficients(in);
  const std::size_t h_count = in.surfaces;
  std::vector<T> out(points.size() * h_count);
  const DualKriging<T> program = dual_program(in, alpha, static_cast<T*>(nullptr));
  exec::run_openmp(points.size(), [&](std::size_t k) { program.estimate(points[k], out.data() + k * h_count, 1); });
  return {out.begin(), out.end()};
}

#define LB_KRIGING_DUAL_INSTANTIATE(T)                                          \
  template std::vector<T> dual_coefficients(const KrigingInput<T>&, int);      \
  template std::vector<T> krige_dual(const KrigingInput<T>&);                  \
  template std::vector<double> dual_estimates_at(const KrigingInput<T>&, const std::vector<std::size_t>&);
LB_KRIGING_DUAL_INSTANTIATE(float)
LB_KRIGING_DUAL_INSTANTIATE(double)
#undef LB_KRIGING_DUAL_INSTANTIATE

}  // namespace lb::kriging

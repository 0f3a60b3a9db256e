#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "lb/kriging/cpu.hpp"
#include "lb/kriging/dense_lu.hpp"
#include "lb/kriging/dual.hpp"
#include "lb/kriging/reference.hpp"

namespace lb::kriging {
namespace {

//! The per-point system lives on the heap once per program call (about 34 KB in double at
//! 64 wells), reused for every point. More wells than it holds: InputError.
template <class T>
std::unique_ptr<PointSystem<T>> new_system(const KrigingInput<T>& in) {
  if (in.wells > static_cast<std::size_t>(kMaxWells))
    throw datasets::InputError(fmt::format("kriging: {} wells, but the CPU programs' per-point solver holds at most {} "
                                           "(kMaxWells, fixed at compile time)",
                                           in.wells, kMaxWells));
  return std::make_unique<PointSystem<T>>();
}

std::string at_point(double px, double py) { return fmt::format("at grid point ({}, {})", px, py); }

}  // namespace

//! Names the grid point, the failed pivot and the closest pair of wells (two wells at one
//! position are the usual cause: their rows of A are equal).
template <class T>
void throw_singular_system(const KrigingInput<T>& in, const SolveStatus& status, const std::string& where) {
  std::size_t first = 0, second = 0;
  double closest = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < in.wells; ++i)
    for (std::size_t j = i + 1; j < in.wells; ++j) {
      const double d = std::hypot(double(in.well_x[i]) - double(in.well_x[j]), double(in.well_y[i]) - double(in.well_y[j]));
      if (d < closest) closest = d, first = i, second = j;
    }
  std::string cause;
  if (in.wells >= 2)
    cause = fmt::format("; the closest wells are {} at ({}, {}) and {} at ({}, {}), {:.3g} apart (range {:.6g}): two "
                        "wells at (nearly) one position make A singular, so remove or merge them",
                        first, double(in.well_x[first]), double(in.well_y[first]), second, double(in.well_x[second]),
                        double(in.well_y[second]), closest, in.variogram.range);
  throw SingularSystem(fmt::format("kriging system of {} wells is singular in {} {}: pivot {:.3g} in "
                                   "column {} is not above {:.3g}{}",
                                   in.wells, sizeof(T) == 4 ? "float" : "double", where, status.pivot,
                                   status.singular_column, status.threshold, cause));
}

template void throw_singular_system(const KrigingInput<float>&, const SolveStatus&, const std::string&);
template void throw_singular_system(const KrigingInput<double>&, const SolveStatus&, const std::string&);

CpuProgram cpu_program_of(int experiment) {
  switch (experiment) {
    case 1: return CpuProgram::rebuild_every_point;
    case 2:
    case 3: return CpuProgram::reuse_matrix;
    case 4:
    case 5:
    case 6: return CpuProgram::shared_weights;
    case 7:
      throw datasets::InputError("kriging: experiment 7 runs on the GPU only (cuSOLVER and cuBLAS): it has no CPU "
                                 "program");
    case 8: return CpuProgram::dual;
    default: throw datasets::InputError(fmt::format("kriging: no experiment {} (1 to 8)", experiment));
  }
}

template <class T>
std::vector<T> kriging_matrix(const KrigingInput<T>& in, int threads) {
  const int n = static_cast<int>(in.wells);
  std::vector<T> a(static_cast<std::size_t>(n + 1) * static_cast<std::size_t>(n + 1));
  // m^2 / 2 exps: 5 ms at 1000 wells on one core, so rows in parallel (dynamic: a
  // triangle's rows shrink).
  const int team = omp_threads(threads);
#pragma omp parallel for schedule(dynamic, 16) if (n >= 128 && team > 1) num_threads(team)
  for (int i = 0; i < n; ++i) build_matrix_row(in.well_x.data(), in.well_y.data(), n, in.covariance, i, a.data());
  a.back() = T(0);
  return a;
}

//! Experiments 1 and 2: every grid point of every surface solves its own system; `solve`
//! says how (building A anew, or copying the precomputed one).
template <class T, class Solve>
std::vector<T> krige_each_surface(const KrigingInput<T>& in, Solve solve) {
  const int n = static_cast<int>(in.wells);
  const std::size_t mx = in.grid_x.size(), points = in.points();
  std::vector<T> out(in.surfaces * points);
  auto sys = new_system(in);
  for (std::size_t h = 0; h < in.surfaces; ++h) {
    const T* values = in.values.data() + h * in.wells;
    for (std::size_t p = 0; p < points; ++p) {
      const T px = in.grid_x[p % mx], py = in.grid_y[p / mx];
      const SolveStatus status = solve(px, py, *sys);
      if (!status.ok()) throw_singular_system(in, status, at_point(px, py));
      out[h * points + p] = combine(sys->b, values, n);
    }
  }
  return out;
}

template <class T>
std::vector<T> krige_rebuild_every_point(const KrigingInput<T>& in) {
  const int n = static_cast<int>(in.wells);
  return krige_each_surface(in, [&](T px, T py, auto& sys) {
    return solve_weights_rebuilding(in.well_x.data(), in.well_y.data(), n, in.covariance, px, py, sys);
  });
}

template <class T>
std::vector<T> krige_reuse_matrix(const KrigingInput<T>& in) {
  const int n = static_cast<int>(in.wells);
  const std::vector<T> a = kriging_matrix(in);
  return krige_each_surface(in, [&](T px, T py, auto& sys) {
    return solve_weights(a.data(), in.well_x.data(), in.well_y.data(), n, in.covariance, px, py, sys);
  });
}

template <class T>
std::vector<T> krige_shared_weights(const KrigingInput<T>& in) {
  const int n = static_cast<int>(in.wells);
  const std::size_t mx = in.grid_x.size(), points = in.points();
  const std::vector<T> a = kriging_matrix(in);
  std::vector<T> out(in.surfaces * points);
  auto sys = new_system(in);
  for (std::size_t p = 0; p < points; ++p) {
    const T px = in.grid_x[p % mx], py = in.grid_y[p / mx];
    const SolveStatus status = solve_weights(a.data(), in.well_x.data(), in.well_y.data(), n, in.covariance, px, py, *sys);
    if (!status.ok()) throw_singular_system(in, status, at_point(px, py));
    for (std::size_t h = 0; h < in.surfaces; ++h)
      out[h * points + p] = combine(sys->b, in.values.data() + h * in.wells, n);
  }
  return out;
}

template <class T>
std::vector<T> run_cpu_program(CpuProgram program, const KrigingInput<T>& in) {
  switch (program) {
    case CpuProgram::rebuild_every_point: return krige_rebuild_every_point(in);
    case CpuProgram::reuse_matrix: return krige_reuse_matrix(in);
    case CpuProgram::shared_weights: return krige_shared_weights(in);
    case CpuProgram::dual: return krige_dual(in);
  }
  throw datasets::InputError("kriging: unknown CPU program");
}

template <class T>
std::vector<T> weights_at(const KrigingInput<T>& in, T px, T py) {
  const int n = static_cast<int>(in.wells);
  const std::vector<T> a = kriging_matrix(in);
  auto sys = new_system(in);
  const SolveStatus status = solve_weights(a.data(), in.well_x.data(), in.well_y.data(), n, in.covariance, px, py, *sys);
  if (!status.ok()) throw_singular_system(in, status, at_point(px, py));
  return std::vector<T>(sys->b, sys->b + n);
}

template <class T>
std::vector<T> estimates_at(const KrigingInput<T>& in, T px, T py) {
  const std::vector<T> lambda = weights_at(in, px, py);
  std::vector<T> out(in.surfaces);
  for (std::size_t h = 0; h < in.surfaces; ++h)
    out[h] = combine(lambda.data(), in.values.data() + h * in.wells, static_cast<int>(in.wells));
  return out;
}

double condition_number_inf(const KrigingInput<double>& in) { return FactoredKriging(in).condition_number_inf(); }

#define LB_KRIGING_INSTANTIATE(T)                                                            \
  template std::vector<T> kriging_matrix(const KrigingInput<T>&, int);                       \
  template std::vector<T> krige_rebuild_every_point(const KrigingInput<T>&);                 \
  template std::vector<T> krige_reuse_matrix(const KrigingInput<T>&);                        \
  template std::vector<T> krige_shared_weights(const KrigingInput<T>&);                      \
  template std::vector<T> run_cpu_program(CpuProgram, const KrigingInput<T>&);               \
  template std::vector<T> weights_at(const KrigingInput<T>&, T, T);                          \
  template std::vector<T> estimates_at(const KrigingInput<T>&, T, T);
LB_KRIGING_INSTANTIATE(float)
LB_KRIGING_INSTANTIATE(double)
#undef LB_KRIGING_INSTANTIATE

}  // namespace lb::kriging

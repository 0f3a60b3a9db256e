#pragma once
//! The per-grid-point ordinary kriging system and its solver, written once for the CPU
//! programs and (later) the CUDA kernels: plain functions over raw arrays of fixed
//! capacity, no allocation, no exceptions (failure is a returned status).
//!
//! For n wells the system is m = n + 1 equations:
//!     [ C(x_i - x_j)  1 ] [ lambda ]   [ C(x* - x_j) ]
//!     [ 1^T           0 ] [ -mu    ] = [ 1           ]
//! A (left) depends only on the wells, B (right) on the grid point x*. Matrices are stored
//! row-major with stride m (compact in the first m^2 entries of a capacity-sized buffer).

#include <cstddef>
#include <limits>
#include <type_traits>

#include "lb/kriging/variogram.hpp"
#include "lb/layout/aosoa.hpp"
#include "lb/layout/config.hpp"
#include "lb/layout/record.hpp"

namespace lb::kriging {

//! Wells the per-point solver holds (its arrays are sized at compile time; a thread's
//! system is (kMaxWells + 1)^2 + kMaxWells + 1 values). More wells are refused on the host.
inline constexpr int kMaxWells = 64;

template <class T, int Capacity = kMaxWells>
struct PointSystem {
  static constexpr int kCapacity = Capacity;
  T a[(Capacity + 1) * (Capacity + 1)];
  T b[Capacity + 1];  //!< right-hand side in, solution (lambda_0..n-1, -mu) out
};

//! Row i < n of A from the diagonal on, mirrored into column i (A is symmetric): rows may
//! be built in any order, or in parallel.
template <class T>
LB_HD void build_matrix_row(const T* wx, const T* wy, int n, Covariance<T> cov, int i, T* a) {
  const int m = n + 1;
  a[i * m + i] = cov(T(0));
  for (int j = i + 1; j < n; ++j) a[i * m + j] = a[j * m + i] = cov(planar_distance(wx[i], wy[i], wx[j], wy[j]));
  a[i * m + n] = a[n * m + i] = T(1);
}

//! A for wells (wx, wy): each covariance computed once and mirrored.
template <class T>
LB_HD void build_matrix(const T* wx, const T* wy, int n, Covariance<T> cov, T* a) {
  for (int i = 0; i < n; ++i) build_matrix_row(wx, wy, n, cov, i, a);
  a[n * (n + 1) + n] = T(0);
}

//! A well's position, the record whose layout the experiments choose (SoA: x[] and y[] in
//! experiments 1-4; AoS {x, y} in 5 and 6). The bodies below read it through a view
//! (`wells.get<WellX>(j)`), so the host runs them under access recording too.
struct WellX {};
struct WellY {};
template <class T>
using Well = layout::Record<layout::Field<WellX, T>, layout::Field<WellY, T>>;

//! The experiments' two coordinate arrays as a view of wells.
template <class T>
struct WellArrays {
  const T* x;
  const T* y;
  template <class Tag>
  LB_HD LB_FORCEINLINE const T& get(std::size_t j) const {
    if constexpr (std::is_same_v<Tag, WellX>) return x[j];
    else return y[j];
  }
};

//! Beyond the paper: the wells as AoSoA of 32 wells, Kofler's method's choice x+y tiled:32 for
//! the well record (docs/advisor.md, §6), which experiment 4 runs as its `aosoa32` layout
//! through a layout-library view (get<WellX>(j) as WellArrays).
inline constexpr std::size_t kTiledWellLanes = 32;
template <class T>
using TiledWellsMapping = layout::AoSoAMapping<Well<T>, kTiledWellLanes>;

//! B for the grid point (px, py), the wells read through a view.
template <class Wells, class T>
LB_HD void build_rhs(const Wells& wells, int n, Covariance<T> cov, T px, T py, T* b) {
  for (int j = 0; j < n; ++j) {
    const T x = wells.template get<WellX>(j), y = wells.template get<WellY>(j);
    b[j] = cov(planar_distance(px, py, x, y));
  }
  b[n] = T(1);
}

//! B for the grid point (px, py).
template <class T>
LB_HD void build_rhs(const T* wx, const T* wy, int n, Covariance<T> cov, T px, T py, T* b) {
  build_rhs(WellArrays<T>{wx, wy}, n, cov, px, py, b);
}

struct SolveStatus {
  int singular_column = -1;  //!< the elimination step whose best pivot was too small
  double pivot = 0.0;        //!< that pivot's magnitude
  double threshold = 0.0;    //!< and the bound it fell below

  LB_HD bool ok() const { return singular_column < 0; }
};

//! A pivot below this fraction of the matrix's largest entry means a singular (or, in this
//! precision, numerically singular) system: 8 m unit round-offs, the order of the rounding
//! error the elimination leaves in a pivot that is zero in exact arithmetic. Two wells at
//! one position give two equal rows; eliminating one with the other leaves a rounding-level
//! pivot (9e-17 on the base case with a duplicated well), not always an exact 0.
template <class T>
LB_HD LB_FORCEINLINE T pivot_tolerance(int m) {
  return T(8) * T(m) * std::numeric_limits<T>::epsilon();
}

template <class T>
LB_HD LB_FORCEINLINE T magnitude(T v) {
  return v < T(0) ? -v : v;
}

//! Solves A x = b in place by Gaussian elimination with partial pivoting: b becomes x, a is
//! overwritten. Returns a failed status (and leaves b unusable) when a pivot is not above
//! pivot_tolerance * max|A|; NaN entries fail the same test.
template <class T>
LB_HD SolveStatus solve_in_place(T* a, T* b, int m) {
  T scale = T(0);
  for (int k = 0; k < m * m; ++k) scale = magnitude(a[k]) > scale ? magnitude(a[k]) : scale;
  const T threshold = pivot_tolerance<T>(m) * scale;
  for (int k = 0; k < m; ++k) {
    int pivot_row = k;
    T best = magnitude(a[k * m + k]);
    for (int r = k + 1; r < m; ++r) {
      if (magnitude(a[r * m + k]) > best) {
        best = magnitude(a[r * m + k]);
        pivot_row = r;
      }
    }
    if (!(best > threshold)) return {k, double(best), double(threshold)};
    if (pivot_row != k) {
      for (int c = k; c < m; ++c) {
        const T t = a[k * m + c];
        a[k * m + c] = a[pivot_row * m + c];
        a[pivot_row * m + c] = t;
      }
      const T t = b[k];
      b[k] = b[pivot_row];
      b[pivot_row] = t;
    }
    const T inv_pivot = T(1) / a[k * m + k];
    for (int r = k + 1; r < m; ++r) {
      const T factor = a[r * m + k] * inv_pivot;
      for (int c = k + 1; c < m; ++c) a[r * m + c] -= factor * a[k * m + c];
      b[r] -= factor * b[k];
    }
  }
  for (int k = m - 1; k >= 0; --k) {
    T sum = b[k];
    for (int c = k + 1; c < m; ++c) sum -= a[k * m + c] * b[c];
    b[k] = sum / a[k * m + k];
  }
  return {};
}

//! Z'(x*) = sum_i lambda_i Z(x_i) for one surface's values (a pointer, or what indexes like one).
template <class T, class Values>
LB_HD LB_FORCEINLINE T combine(const T* lambda, const Values& values, int n) {
  T sum = T(0);
  for (int i = 0; i < n; ++i) sum += lambda[i] * T(values[i]);
  return sum;
}

//! The weights of grid point (px, py) given a prebuilt A (exp. 2 onwards; a pointer, or what
//! indexes like one) and the wells as a view: copies A into the point's system, builds B,
//! solves; lambda is sys.b[0..n-1].
template <class A, class Wells, class T, int Capacity>
LB_HD SolveStatus solve_weights(const A& a_prebuilt, const Wells& wells, int n, Covariance<T> cov, T px, T py,
                                PointSystem<T, Capacity>& sys) {
  const int m = n + 1;
  for (int k = 0; k < m * m; ++k) sys.a[k] = a_prebuilt[k];
  build_rhs(wells, n, cov, px, py, sys.b);
  return solve_in_place(sys.a, sys.b, m);
}

//! The same with the wells as the experiments pass them (x[] and y[]).
template <class T, int Capacity>
LB_HD SolveStatus solve_weights(const T* a_prebuilt, const T* wx, const T* wy, int n, Covariance<T> cov,
                                T px, T py, PointSystem<T, Capacity>& sys) {
  return solve_weights(a_prebuilt, WellArrays<T>{wx, wy}, n, cov, px, py, sys);
}

//! The weights of grid point (px, py) building A as well (exp. 1).
template <class T, int Capacity>
LB_HD SolveStatus solve_weights_rebuilding(const T* wx, const T* wy, int n, Covariance<T> cov, T px, T py,
                                           PointSystem<T, Capacity>& sys) {
  build_matrix(wx, wy, n, cov, sys.a);
  build_rhs(wx, wy, n, cov, px, py, sys.b);
  return solve_in_place(sys.a, sys.b, n + 1);
}

}  // namespace lb::kriging

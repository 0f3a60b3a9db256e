#pragma once
//! Experiment 8 (beyond the paper): ordinary kriging in its dual form. A is symmetric, so
//! a grid point's estimate lambda^T z = B^T A^-1 [z; 0] = B^T alpha with alpha = A^-1 [z; 0]
//! solved for every surface at once (on the host, in double: A factored once by the blocked
//! LU of dense_lu.hpp, one right-hand side per surface):
//!     z*(x) = sum_i C(x, x_i) alpha_i + alpha_n
//! One covariance per (point, well), shared by all surfaces, and one multiply-add per
//! (point, well, surface): no per-point solve. No kriging variance (it needs lambda; use
//! experiment 7). The per-point body below is written once: the CPU program runs
//! DualKriging through kernels/exec's OpenMP launcher, the CUDA kernel (experiments.cu)
//! runs accumulate_dual on tiles of wells staged in shared memory.
//!
//! Surfaces are combined kDualSurfacesPerPass at a time (register accumulators); beyond
//! that, each further pass recomputes the covariances (the paper's cases have H <= 11).

#include <cstddef>
#include <vector>

#include "lb/kriging/cpu.hpp"
#include "lb/layout/config.hpp"

namespace lb::kriging {

inline constexpr int kDualSurfacesPerPass = 16;

//! alpha for every surface in precision T: alpha[h * (n + 1) + i] (alpha_n, the constant
//! term, last), solved in double (DenseLu: A built and factored in parallel) and rounded
//! once. Throws SingularSystem when A is singular.
template <class T>
std::vector<T> dual_coefficients(const KrigingInput<T>& in);

//! acc[h] += sum over wells i < count of C((px, py), (wx[i], wy[i])) alpha[h * stride + i]
//! for h < surfaces (<= kDualSurfacesPerPass): each covariance once, used by every surface.
template <class T, class Cov>
LB_HD LB_FORCEINLINE void accumulate_dual(T px, T py, const T* wx, const T* wy, const T* alpha, int stride, int count,
                                          int surfaces, const Cov& cov, T (&acc)[kDualSurfacesPerPass]) {
  for (int i = 0; i < count; ++i) {
    const T c = cov(planar_distance(px, py, wx[i], wy[i]));
    LB_UNROLL
    for (int h = 0; h < kDualSurfacesPerPass; ++h)
      if (h < surfaces) acc[h] += c * alpha[h * stride + i];
  }
}

//! Grid point p's estimates of every surface (out[h * points + p]) from all n wells.
template <class T>
struct DualKriging {
  const T* wx;
  const T* wy;
  const T* alpha;  //!< dual_coefficients' layout
  int n, surfaces;
  Covariance<T> cov;
  const T* gx;
  const T* gy;
  std::size_t mx, points;
  T* out;

  LB_HD void operator()(std::size_t p) const { estimate(p, out + p, points); }

  //! Grid point p's estimate of surface h to dst[h * dst_stride].
  LB_HD void estimate(std::size_t p, T* dst, std::size_t dst_stride) const {
    const T px = gx[p % mx], py = gy[p / mx];
    const int stride = n + 1;
    for (int h0 = 0; h0 < surfaces; h0 += kDualSurfacesPerPass) {
      const int count = surfaces - h0 < kDualSurfacesPerPass ? surfaces - h0 : kDualSurfacesPerPass;
      const T* a = alpha + std::size_t(h0) * stride;
      T acc[kDualSurfacesPerPass];
      for (int h = 0; h < kDualSurfacesPerPass; ++h) acc[h] = h < count ? a[h * stride + n] : T(0);
      accumulate_dual(px, py, wx, wy, a, stride, n, count, cov, acc);
      for (int h = 0; h < count; ++h) dst[std::size_t(h0 + h) * dst_stride] = acc[h];
    }
  }
};

//! Experiment 8's CPU program: dual_coefficients, then DualKriging on every grid point
//! (OpenMP). Any number of wells. Estimates H x (M N), surface-major.
template <class T>
std::vector<T> krige_dual(const KrigingInput<T>& in);

//! The CPU program's estimates at the listed grid points only, widened: result[k * H + h]
//! (the float-consistent reference of experiment 8, reference.hpp).
template <class T>
std::vector<double> dual_estimates_at(const KrigingInput<T>& in, const std::vector<std::size_t>& points);

}  // namespace lb::kriging

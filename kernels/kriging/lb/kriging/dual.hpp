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
//! Surfaces one predicate covers in the accumulation: their coefficients are contiguous and
//! 16-byte aligned (one 128-bit shared-memory load in float, two in double, one SIMD
//! multiply-add on the CPU); the padding surfaces of a group have coefficient 0.
inline constexpr int kDualSurfaceGroup = 4;

//! Entries of dual_coefficients' layout for n wells and H surfaces.
inline std::size_t dual_coefficient_count(std::size_t wells, std::size_t surfaces) {
  const std::size_t passes = (surfaces + kDualSurfacesPerPass - 1) / kDualSurfacesPerPass;
  return passes * (wells + 1) * kDualSurfacesPerPass;
}

//! Where surface h's coefficient of well i (i = n: the constant term) lies in
//! dual_coefficients' layout (below) for n wells.
LB_HD LB_FORCEINLINE std::size_t dual_coefficient_index(std::size_t wells, std::size_t h, std::size_t i) {
  const std::size_t pass = h / kDualSurfacesPerPass, slot = h % kDualSurfacesPerPass;
  return (pass * (wells + 1) + i) * kDualSurfacesPerPass + slot;
}

//! The dual form by eliminating the Lagrange row (the device solve's Cholesky path,
//! gemm_pipeline.cu; its fallback and the host solve factor all of A instead).
//! A = [C 1; 1^T 0] is built from covariances (solver.hpp), C = (C(x_i - x_j)) n x n, which
//! is symmetric positive definite for the variogram models here at distinct wells. Write
//! alpha = [b; b0] (b: n coefficients, b0: the constant term). A alpha = [z; 0] reads
//!     C b + b0 1 = z        (1)
//!     1^T b      = 0        (2)
//! C is invertible, so (1) gives b = C^-1 z - b0 C^-1 1 = y - b0 u with y = C^-1 z and
//! u = C^-1 1 (one Cholesky factorisation of C, solved for H + 1 right-hand sides: every
//! surface's z and the ones). Into (2): 1^T y - b0 1^T u = 0, and 1^T u = 1^T C^-1 1 > 0
//! (C^-1 is positive definite), so
//!     b0 = (1^T y) / (1^T u),   b = y - b0 u.
//! These ARE the coefficients the LU of A gives (the same unique solution; no sign change:
//! the estimate stays sum_i C(x, x_i) b_i + b0). Written with the variogram matrix
//! G = (gamma(x_i - x_j)) = sill 1 1^T - C instead, [G 1; 1^T 0] [a; a0] = [z; 0] gives
//! G a + a0 1 = sill (1^T a) 1 - C a + a0 1 = -C a + a0 1 = z (by 1^T a = 0), i.e. a = -b,
//! a0 = b0, and sum_i gamma(x, x_i) a_i + a0 = -sum_i (sill - C(x, x_i)) b_i + b0 = sum_i
//! C(x, x_i) b_i + b0: the same estimate; this code never forms G.
LB_HD LB_FORCEINLINE double lagrange_constant(double sum_y, double sum_u) { return sum_y / sum_u; }
LB_HD LB_FORCEINLINE double eliminated_coefficient(double y, double u, double constant) { return y - constant * u; }

//! The same on the host, for one surface: alpha[0..n) = b, alpha[n] = b0 from y = C^-1 z and
//! u = C^-1 1 (n entries each).
void eliminate_lagrange(const double* y, const double* u, int n, double* alpha);

//! alpha for every surface in precision T, solved in double (DenseLu: A built and factored
//! in parallel) and rounded once, in the programs' layout: per pass of kDualSurfacesPerPass
//! surfaces, well-major, so that one covariance meets its surfaces' coefficients in
//! consecutive memory: alpha[(pass * (n + 1) + i) * kDualSurfacesPerPass + h] is surface
//! pass * kDualSurfacesPerPass + h's coefficient of well i (i = n: the constant term), 0
//! beyond the last surface. Throws SingularSystem when A is singular. threads: as
//! omp_threads (dense_lu.hpp); 1 in the CUDA experiments' timed regions.
template <class T>
std::vector<T> dual_coefficients(const KrigingInput<T>& in, int threads = 0);

//! acc[h] += sum over wells i = first, first + Stride, ... < count of C((px, py), (wx[i], wy[i]))
//! alpha[i * AlphaStride + h] for h < surfaces (<= kDualSurfacesPerPass), rounded up to whole
//! groups: each covariance once, used by every surface; alpha is one pass of
//! dual_coefficients' layout (AlphaStride > kDualSurfacesPerPass: padded rows). Stride > 1:
//! one of Stride threads sharing a grid point's wells.
template <int Stride = 1, int AlphaStride = kDualSurfacesPerPass, class T, class Cov>
LB_HD LB_FORCEINLINE void accumulate_dual(T px, T py, const T* wx, const T* wy, const T* alpha, int count,
                                          int surfaces, const Cov& cov, T (&acc)[kDualSurfacesPerPass],
                                          int first = 0) {
  for (int i = first; i < count; i += Stride) {
    const T c = cov(planar_distance(px, py, wx[i], wy[i]));
    const T* a = alpha + i * AlphaStride;
    LB_UNROLL
    for (int g = 0; g < kDualSurfacesPerPass; g += kDualSurfaceGroup)
      if (g < surfaces) {
        LB_UNROLL
        for (int h = g; h < g + kDualSurfaceGroup; ++h) acc[h] += c * a[h];
      }
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
    const std::size_t pass_size = std::size_t(n + 1) * kDualSurfacesPerPass;
    for (int h0 = 0, pass = 0; h0 < surfaces; h0 += kDualSurfacesPerPass, ++pass) {
      const int count = surfaces - h0 < kDualSurfacesPerPass ? surfaces - h0 : kDualSurfacesPerPass;
      const T* a = alpha + std::size_t(pass) * pass_size;
      T acc[kDualSurfacesPerPass];
      for (int h = 0; h < kDualSurfacesPerPass; ++h) acc[h] = a[std::size_t(n) * kDualSurfacesPerPass + h];
      accumulate_dual(px, py, wx, wy, a, n, count, cov, acc);
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

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

#pragma once
//! The variogram of Li & Dong's ordinary kriging: exponential, nugget 0,
//!   gamma(h) = c (1 - exp(-3 h / a)),   C(h) = C(0) - gamma(h) = c exp(-3 h / a),
//! with c the sill and a the practical range (gamma(a) = 95 % of c). Distances are planar.
//!
//! The choice (no data is published):
//!   - a = half the domain's diagonal (kRangeFractionOfDiagonal): 5148 m for the 5 x 9 km
//!     base case. Neighbouring wells (about 2 km apart) correlate at C ~ 0.3 c, while the
//!     domain's opposite corners are two ranges apart (C = e^-6 c). The range scales with
//!     the domain, so a scaled case has the same h / a everywhere: the wells' influence on
//!     the mesh is unchanged, as the paper's scaling intends.
//!   - c = 1 (kSill). Ordinary kriging weights do not depend on c (C and the right-hand
//!     side scale together; only mu and the kriging variance do), and a unit sill keeps
//!     the covariance block at the scale of the unbiasedness row of ones, so pivots compare
//!     like with like (no scaling needed in float).

#include <cmath>

#include "lb/layout/config.hpp"

namespace lb::kriging {

inline constexpr double kSill = 1.0;
inline constexpr double kRangeFractionOfDiagonal = 0.5;

//! Host-side parameters.
struct Variogram {
  double sill = kSill;
  double range = 1.0;  //!< practical range a

  static Variogram for_domain(double width, double height) {
    return {kSill, kRangeFractionOfDiagonal * std::hypot(width, height)};
  }
  double gamma(double h) const { return sill * (1.0 - std::exp(-3.0 * h / range)); }
  double covariance(double h) const { return sill * std::exp(-3.0 * h / range); }
};

//! C(h) as the per-point code evaluates it, in precision T: sill * exp(-decay * h) with
//! decay = 3 / a precomputed (one multiply, no division, per entry).
template <class T>
struct ExponentialCovariance {
  T sill;
  T decay;

  static ExponentialCovariance from(const Variogram& v) { return {T(v.sill), T(3.0 / v.range)}; }

  LB_HD LB_FORCEINLINE T operator()(T h) const {
    using std::exp;
    return sill * exp(-decay * h);
  }
};

template <class T>
LB_HD LB_FORCEINLINE T planar_distance(T x0, T y0, T x1, T y1) {
  using std::sqrt;
  const T dx = x0 - x1;
  const T dy = y0 - y1;
  return sqrt(dx * dx + dy * dy);
}

}  // namespace lb::kriging

#pragma once
//! One IDW interaction (prediction point q, data point i): w_i = 1 / d_i^p and the two
//! running sums. Shared by every version, so they all compute the same function.

#include <cmath>
#include <limits>
#include <type_traits>

#include "lb/layout/config.hpp"

namespace lb::idw {

//! A prediction point closer than this (squared planar distance, in squared coordinate
//! units) to a data point takes that point's value, as GDAL and gstat do. Coordinates are
//! O(1000), so this means "distance below 1e-6": exact coincidence up to rounding. The
//! kernels test it in the frame of frame.hpp, chosen so that it keeps this meaning in the
//! input's units.
inline constexpr double kCoincidentD2 = 1e-12;

//! 1 / x. In float device code this is the special-function unit's reciprocal (one MUFU.RCP,
//! at most 1 ulp from the rounded result; +inf at 0 and for denormals, which only coincident
//! points reach) instead of an IEEE division (a Newton sequence and a slow-path branch) or
//! __fdividef (range scaling): per interaction that is 1 instruction instead of 5 to 8.
//! The CPU and double code divide.
template <class T>
LB_HD LB_FORCEINLINE T reciprocal(T x) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) {
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
  }
#endif
  return T(1) / x;
}

//! p = 2, integer form: w = 1 / d^2 (no pow, no sqrt).
struct PowerTwo {
  template <class T>
  LB_HD LB_FORCEINLINE T weight(T d2) const {
    return reciprocal(d2);
  }
};

//! General p: w = 1 / pow(d, p), d = sqrt(d^2).
struct PowerGeneral {
  double p;
  template <class T>
  LB_HD LB_FORCEINLINE T weight(T d2) const {
    using std::pow;
    using std::sqrt;
    return T(1) / pow(sqrt(d2), T(p));
  }
};

//! Calls f(power) with the integer form for p = 2 and the general form otherwise.
template <class F>
decltype(auto) with_power(double p, F&& f) {
  if (p == 2.0) return f(PowerTwo{});
  return f(PowerGeneral{p});
}

template <class T>
LB_HD LB_FORCEINLINE T squared_distance(T qx, T qy, T x, T y) {
  const T dx = qx - x;
  const T dy = qy - y;
  return dx * dx + dy * dy;
}

template <class T>
struct Sums {
  T weights = 0;
  T weighted_values = 0;
  //! NaN until a data point coincides with the prediction point (inputs are finite), so the
  //! check costs a compare and one predicated move per interaction.
  T coincident_value = std::numeric_limits<T>::quiet_NaN();

  template <class Power>
  LB_HD LB_FORCEINLINE void add(T qx, T qy, T x, T y, T z, const Power& power) {
    const T d2 = squared_distance(qx, qy, x, y);
    if (d2 < T(kCoincidentD2)) coincident_value = z;
    const T w = power.template weight<T>(d2);
    weights += w;
    weighted_values += w * z;
  }

  LB_HD LB_FORCEINLINE T value() const {
    return coincident_value == coincident_value ? coincident_value : weighted_values / weights;
  }
};

}  // namespace lb::idw

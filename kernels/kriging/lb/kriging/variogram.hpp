#pragma once
//! The variogram of Li & Dong's ordinary kriging, chosen at run time: model, sill, practical
//! range and nugget. With c = sill - nugget (the partial sill) and a the practical range:
//!   exponential  gamma(h) = nugget + c (1 - exp(-3 h / a))
//!   gaussian     gamma(h) = nugget + c (1 - exp(-3 h^2 / a^2))
//!   spherical    gamma(h) = nugget + c (1.5 h / a - 0.5 (h / a)^3) for h < a, the sill beyond
//! and gamma(0) = 0. `range` is the PRACTICAL range (the GSLIB / gstat-"Exp"-practical
//! convention): gamma reaches 95 % of c at a for the exponential and gaussian models
//! (1 - e^-3) and all of it for the spherical (where a is also the scale parameter). PyKrige
//! uses the same a for exponential and spherical, and a' = a 7 / (4 sqrt 3) for gaussian
//! (its scale is 4 a' / 7). The programs use the covariance C(h) = sill - gamma(h): C(0) =
//! sill (the nugget included), C(h > 0) = c rho(h). Ordinary kriging gives the same weights
//! either way (the unbiasedness row absorbs the constant).
//!
//! The default is the paper's documented choice (it publishes no variogram, only "ordinary
//! kriging"): exponential, nugget 0, and
//!   - a = half the domain's diagonal (kRangeFractionOfDiagonal): 5148 m for the 5 x 9 km
//!     base case. Neighbouring wells (about 2 km apart) correlate at C ~ 0.3 c, while the
//!     domain's opposite corners are two ranges apart (C = e^-6 c). The range scales with
//!     the domain, so a scaled case has the same h / a everywhere: the wells' influence on
//!     the mesh is unchanged, as the paper's scaling intends.
//!   - sill 1 (kSill). Ordinary kriging weights do not depend on it (C and the right-hand
//!     side scale together; only mu and the kriging variance do), and a unit sill keeps
//!     the covariance block at the scale of the unbiasedness row of ones, so pivots compare
//!     like with like (no scaling needed in float).
//!
//! One functor for all models (a switch on a kernel-uniform value, no per-model kernels):
//! every experiment is compiled once, not once per model. Every kernel's registers and
//! stack frame are what they were with the exponential-only functor (ptxas -v, sm_90).

#include <cmath>
#include <optional>
#include <string>

#include "lb/layout/config.hpp"

namespace lb::kriging {

inline constexpr double kSill = 1.0;
inline constexpr double kRangeFractionOfDiagonal = 0.5;

enum class VariogramModel : int { exponential, spherical, gaussian };

//! "exponential", "spherical", "gaussian" -> the model; std::nullopt for anything else.
std::optional<VariogramModel> parse_variogram_model(const std::string& name);
const char* to_string(VariogramModel model);

//! Host-side parameters.
struct Variogram {
  double sill = kSill;   //!< gamma's plateau, nugget included (C(0))
  double range = 1.0;    //!< practical range a (see above)
  double nugget = 0.0;   //!< gamma's jump at 0+, below the sill
  VariogramModel model = VariogramModel::exponential;

  //! The default for a domain of width x height: the paper's choice above.
  static Variogram for_domain(double width, double height) {
    return {kSill, kRangeFractionOfDiagonal * std::hypot(width, height), 0.0, VariogramModel::exponential};
  }
  double partial_sill() const { return sill - nugget; }
  //! rho(h): C(h) / c for h > 0 (1 at 0+, falling to ~0 at and beyond a).
  double correlation(double h) const {
    const double r = h / range;
    switch (model) {
      case VariogramModel::exponential: return std::exp(-3.0 * r);
      case VariogramModel::gaussian: return std::exp(-3.0 * r * r);
      case VariogramModel::spherical: return r >= 1.0 ? 0.0 : 1.0 - r * (1.5 - 0.5 * r * r);
    }
    return 0.0;
  }
  double gamma(double h) const { return h > 0.0 ? nugget + partial_sill() * (1.0 - correlation(h)) : 0.0; }
  double covariance(double h) const { return sill - gamma(h); }
  //! "exponential, sill 1, range 5148, nugget 0"
  std::string describe() const;
};

//! exp(x) in precision T (std::exp; CUDA's exp/expf on the device).
struct PreciseExp {
  template <class T>
  LB_HD LB_FORCEINLINE T operator()(T x) const {
    using std::exp;
    return exp(x);
  }
};

//! C(h) as the per-point code evaluates it, in precision T: at_zero = sill for h = 0, else
//! partial_sill * rho(h) with rho from `scale` (3 / a for the exponential, 3 / a^2 for the
//! gaussian, 1 / a for the spherical), precomputed (no division per entry).
template <class T>
struct Covariance {
  VariogramModel model;
  T at_zero;
  T partial_sill;
  T scale;

  static Covariance from(const Variogram& v) {
    const double a = v.range;
    const double s = v.model == VariogramModel::exponential ? 3.0 / a
                     : v.model == VariogramModel::gaussian  ? 3.0 / (a * a)
                                                            : 1.0 / a;
    return {v.model, T(v.sill), T(v.partial_sill()), T(s)};
  }
  //! The same numbers in precision U (a float program's parameters, widened exactly).
  template <class U>
  Covariance<U> as() const {
    return {model, U(at_zero), U(partial_sill), U(scale)};
  }

  //! C(h) with `exp` as the exponential (exp 6 passes its fast-math one).
  template <class Exp>
  LB_HD LB_FORCEINLINE T evaluate(T h, Exp exp) const {
    if (h == T(0)) return at_zero;
    switch (model) {
      case VariogramModel::exponential: return partial_sill * exp(-scale * h);
      case VariogramModel::gaussian: return partial_sill * exp(-scale * h * h);
      case VariogramModel::spherical: {
        const T r = scale * h;
        return r >= T(1) ? T(0) : partial_sill * (T(1) - r * (T(1.5) - T(0.5) * r * r));
      }
    }
    return T(0);
  }
  LB_HD LB_FORCEINLINE T operator()(T h) const { return evaluate(h, PreciseExp{}); }
};

template <class T>
LB_HD LB_FORCEINLINE T planar_distance(T x0, T y0, T x1, T y1) {
  using std::sqrt;
  const T dx = x0 - x1;
  const T dy = y0 - y1;
  return sqrt(dx * dx + dy * dy);
}

}  // namespace lb::kriging

#pragma once
//! The double reference every kriging program is validated against, for any number of wells
//! (the per-point solver of the programs holds at most kMaxWells): A is factored once (LU
//! with partial pivoting and the solver's pivot tolerance) and each grid point's system is
//! solved by two triangular substitutions, O(m^2) per point instead of O(m^3). It shares no
//! solving code with the programs, so it checks the per-point solver too.
//!
//! Tolerances (estimate_tolerance). kappa = ||A||_inf ||A^-1||_inf, m = n + 1, u the unit
//! round-off of the program's precision. Gaussian elimination with partial pivoting is
//! backward stable: a per-point solve is exact for A, B perturbed by ~3 m u relatively (B's
//! entries carry a few u more from the distance and exp), so its weights are within
//! kappa 4 m u of exact (relative, inf-norm) and its estimates within max|Z| kappa 4 m u.
//!   double: both the program and the reference carry that error, 8 m u; we allow 16 m u
//!     (a factor 2 for the inf-norm bound's looseness on lambda's 1-norm).
//!   float with fast math (exp 6): B's entries carry __expf's error (2 + 1.173 |x| ulp for
//!     |x| = 3 h / a, <= 6 on the base case: <= 9 u), the approximate sqrt (~2 u, amplified
//!     by |x|: <= 12 u) and the rounding of the rest: ~30 u instead of ~3 u. We allow
//!     (16 m + 64) u.
//!   float GEMM pair (exp 7, A^-1 computed in double and rounded once): each weight is a dot
//!     product of m terms, |d lambda| <= (m + 2) u ||A^-1||_inf ||B||_inf with ||B||_inf <= 1
//!     (unit sill), and ||A^-1||_inf = kappa / ||A||_inf where ||A||_inf grows with n (it
//!     is >= 1 + the covariances of a row): n (m + 2) / ||A||_inf stays well inside
//!     16 m + 64 for the cases here, so the same bound holds.
//! The float programs are compared on the float-rounded input widened to double (widen()),
//! so the check measures their arithmetic, not the rounding of the coordinates. The bound
//! grows with kappa: with many wells it can exceed the depths themselves (then it no longer
//! says anything, and the measured error is the information: see max_abs_err counters).

#include <cstddef>
#include <vector>

#include "lb/kriging/cpu.hpp"

namespace lb::kriging {

class FactoredKriging {
 public:
  //! Factors A; throws SingularSystem (naming the closest wells) when a pivot is not above
  //! pivot_tolerance * max|A|, as the per-point solver would.
  explicit FactoredKriging(const KrigingInput<double>& in);

  //! The m = n + 1 solution entries (lambda_0..n-1, -mu) at (px, py).
  void solve_at(double px, double py, double* solution) const;
  //! The H estimates at (px, py).
  std::vector<double> estimates_at(double px, double py) const;
  //! A^-1, row-major m x m (m substitutions).
  std::vector<double> inverse() const;
  //! ||A||_inf ||A^-1||_inf.
  double condition_number_inf() const;

 private:
  const KrigingInput<double>* in_;
  int m_;
  std::vector<double> lu_;    //!< L (unit, below the diagonal) and U, row-major
  std::vector<int> pivots_;   //!< row swapped with row k at step k
  std::vector<double> a_;     //!< A itself (for the norm)
};

//! Grid points (indices p = iy * M + ix) the reference checks: all of them when
//! points * m^2 <= budget (substitution cost), else an even spread of budget / m^2 points
//! (at least 1024, at most all) that includes the first and the last.
std::vector<std::size_t> reference_points(std::size_t points, std::size_t wells, double budget = 0x1.0p31);

//! The H estimates at each listed point: result[k * H + h].
std::vector<double> reference_estimates(const KrigingInput<double>& in, const std::vector<std::size_t>& points);

//! Bound on |estimate - reference| in the input's units (see above): max|Z| kappa (16 m +
//! extra_ulps) u.
double estimate_tolerance(const KrigingInput<double>& in, double kappa, double unit_roundoff, double extra_ulps);

inline constexpr double kDoubleRoundoff = 0x1.0p-53;
inline constexpr double kFloatRoundoff = 0x1.0p-24;
inline constexpr double kFastFloatExtraUlps = 64;  //!< exp 6's fast-math covariance, exp 7's GEMMs

}  // namespace lb::kriging

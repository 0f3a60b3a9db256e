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
//! so the check measures their arithmetic, not the rounding of the coordinates. That bound
//! is rigorous but grows with kappa m: 0.65 m at 10 wells (1000x the real error), 179 m at
//! 100, 5e4 m at 1000 (depths 400-1500 m), where it says nothing. So float programs get a
//! second, tight bound (float_tolerance), and the smaller of the two is used:
//!
//! Float-consistent references (float_consistent_estimates): the program's algorithm run
//! on the CPU in float on the same float input, at the checked points. Its difference e
//! from the double reference is float's own error for this system, measured, kappa and
//! the data included. A correct float program differs from it only in rounding choices of
//! the same size, so |program - reference| <= K e + 4 u max|Z| (4 u max|Z|: the output's
//! own rounding, a floor for a lucky small e):
//!   elimination (exps 1-6's per-point solver; the CPU float programs): the float LU of A
//!     and a substitution per point. First order, a float solve's estimate error is
//!     w^T (dB - dA lambda) with w = A^-1 Z: A is built identically (host, IEEE), the
//!     elimination's backward error is of one size whatever the pivot order, and B's
//!     entries carry ~3 u (IEEE exp, sqrt) or up to ~30 u (exp 6's __expf and rsqrtf, see
//!     above): at most 10x e's B part. K = 16 (10, and 1.6 for the rest).
//!   inverse_gemm (exp 7): A^-1 in double, rounded to float once, Lambda = fl(A^-1) B and
//!     Z = Lambda^T S as float dot products, exactly as the GPU does. Its error is
//!     dominated by the rounding of A^-1 times B (the same numbers on both sides) and by
//!     B's rounding amplified by |A^-1| (1-2 ulp of exp/sqrt on either side); only the
//!     summation order differs (cuBLAS's tiles and FMAs). K = 4.
//!   dual (exp 8): alpha = A^-1 [z; 0] in double, rounded to float once; each estimate a
//!     float sum of C(x, x_i) alpha_i, as the program does (dual.hpp's own per-point body).
//!     As for inverse_gemm, the error is alpha's rounding and C's (IEEE exp and sqrt on
//!     both sides) times |alpha|, the same numbers on both sides; only the summation order
//!     and FMA contraction differ. K = 4.
//! Measured (tests KrigingFloatCheck, 20 x 30 mesh): elimination 3.3e-4 / 1.1e-3 / 3.4e-3 m
//! at 10 / 100 / 1000 wells, inverse_gemm 4.6e-4 / 7.6e-3 / 1.19 m (the GPU's exp 7 float:
//! 1.4 m at 1000 wells): elimination is kappa-stable, inverting is not.
//!
//! Unvalidated: a check whose tolerance exceeds kUsefulToleranceFraction of the reference
//! estimates' spread (max - min) cannot fail a kernel that is wrong by less: a 1 % wrong
//! range moves the estimates by 2.5-4e-4 of the spread, dropping one of 1000 wells by 6e-5
//! (measured as above). Such a run is still compared, and reported `unvalidated`: exp 7 in
//! float at 1000 wells (tolerance ~5 m).

#include <cstddef>
#include <string>
#include <vector>

#include "lb/kriging/cpu.hpp"

namespace lb::kriging {

//! In precision T: double is the reference; float is the float-consistent reference (the
//! same elimination in float on the float input) whose error measures float's own.
template <class T>
class BasicFactoredKriging {
 public:
  //! Factors A; throws SingularSystem (naming the closest wells) when a pivot is not above
  //! pivot_tolerance * max|A|, as the per-point solver would.
  explicit BasicFactoredKriging(const KrigingInput<T>& in);

  //! The m = n + 1 solution entries (lambda_0..n-1, -mu) at (px, py).
  void solve_at(T px, T py, T* solution) const;
  //! A x = rhs by the two substitutions, in place (m entries).
  void solve(T* rhs) const;
  //! The H estimates at (px, py), widened to double.
  std::vector<double> estimates_at(T px, T py) const;
  //! A^-1, row-major m x m (m substitutions).
  std::vector<T> inverse() const;
  //! ||A||_inf ||A^-1||_inf.
  double condition_number_inf() const;

 private:
  const KrigingInput<T>* in_;
  int m_;
  std::vector<T> lu_;         //!< L (unit, below the diagonal) and U, row-major
  std::vector<int> pivots_;   //!< row swapped with row k at step k
  std::vector<T> a_;          //!< A itself (for the norm)
};
using FactoredKriging = BasicFactoredKriging<double>;

//! Grid points (indices p = iy * M + ix) the reference checks: all of them when
//! points * m^2 <= budget (substitution cost), else an even spread of budget / m^2 points
//! (at least 1024, at most all) that includes the first and the last.
std::vector<std::size_t> reference_points(std::size_t points, std::size_t wells, double budget = 0x1.0p31);

//! The H estimates at each listed point: result[k * H + h] (T = float: the float-consistent
//! reference).
template <class T>
std::vector<double> reference_estimates(const KrigingInput<T>& in, const std::vector<std::size_t>& points);

//! Bound on |estimate - reference| in the input's units (see above): max|Z| kappa (16 m +
//! extra_ulps) u.
double estimate_tolerance(const KrigingInput<double>& in, double kappa, double unit_roundoff, double extra_ulps);

//! Which float-consistent reference matches a float program (see above).
enum class FloatAlgorithm { elimination, inverse_gemm, dual };
//! The float program kind of experiment e (7: inverse_gemm, 8: dual, else elimination).
FloatAlgorithm float_algorithm_of(int experiment);

//! `algorithm` in float on the float input at the listed points: result[k * H + h].
std::vector<double> float_consistent_estimates(const KrigingInput<float>& in, const std::vector<std::size_t>& points,
                                               FloatAlgorithm algorithm);

//! min(rigorous, K e + 4 u max|Z|) with K per algorithm (above); e = the float-consistent
//! reference's largest difference from the double reference, max_abs = max|Z|.
double float_tolerance(FloatAlgorithm algorithm, double float_consistent_error, double max_abs, double rigorous);

//! A tolerance above this fraction of the reference estimates' spread validates nothing.
inline constexpr double kUsefulToleranceFraction = 1e-4;

//! What a program's output is checked against: the double reference at the checked points
//! for the input as precision T sees it (a float program is compared on its float-rounded
//! input, widened: only arithmetic counts) and, for float, each float-consistent
//! reference's largest difference from it.
struct CheckReference {
  KrigingInput<double> in;
  std::vector<std::size_t> points;
  std::vector<double> values;  //!< values[k * H + h]
  double kappa = 0, max_abs = 0, spread = 0;
  double float_error[3] = {0, 0, 0};  //!< float inputs: e per FloatAlgorithm
};
template <class T>
CheckReference make_check_reference(const KrigingInput<T>& in, std::vector<std::size_t> points);

struct EstimateCheck {
  bool ok = false;
  bool unvalidated = false;  //!< the tolerance is too wide to fail a wrong program (above)
  std::string message;       //!< why not ok
  double max_abs = 0, max_rel = 0, tolerance = 0, kappa = 0;
  std::size_t checked = 0;
};

//! A program's estimates (H x P, surface-major) at the reference's points: finite and within
//! the tolerance of precision T (float: float_tolerance for `algorithm`).
template <class T>
EstimateCheck check_estimates(const CheckReference& ref, const std::vector<T>& estimates, FloatAlgorithm algorithm);

inline constexpr double kDoubleRoundoff = 0x1.0p-53;
inline constexpr double kFloatRoundoff = 0x1.0p-24;
inline constexpr double kFastFloatExtraUlps = 64;  //!< exp 6's fast-math covariance, exp 7's GEMMs

}  // namespace lb::kriging

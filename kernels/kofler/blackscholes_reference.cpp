#include <algorithm>
#include <cmath>
#include <cstdint>

#include "lb/kofler/blackscholes_reference.hpp"

namespace lb::kofler {

namespace {
double normal_cdf(double d) { return 0.5 * std::erfc(-d / std::sqrt(2.0)); }
double normal_pdf(double d) { return std::exp(-0.5 * d * d) / std::sqrt(2 * M_PI); }
}  // namespace

// Tolerances: first-order error bounds of the float kernel (black_scholes<FastMath>), in
// u = 2^-24, from the CUDA Programming Guide's intrinsic bounds: __fdividef and rsqrtf 2 ulp
// (4u relative); __logf 2^-21.41 absolute on [0.5, 2] (< 6u), 3 ulp (6u relative) elsewhere;
// __expf(x) 2 + floor(1.16 |x|) ulp ((4 + 2.32 |x|) u relative).
// - ln(S/X): the quotient's 4u adds 4u: E_ln = 6u max(1, |ln(S/X)|) + 4u.
// - numerator ln(S/X) + (r + v^2/2) T: E_ln + 3u (r + v^2/2) T + u |num| (3 roundings of the
//   positive term, 1 of the sum); denominator v sqrt(T), sqrt(T) = 1 / rsqrt(T): 4u + 4u + u.
// - d1 = num / den: E_num / den + (9u + 4u) |d1|; d2 = d1 - den: that + 9u den + u |d2|.
// - CND(d), absolute: the argument's error times phi(d), plus the evaluation: k = 1 / (1 +
//   0.2316419 |d|) is off by 6u relative, which moves K Q(K) (Q the polynomial, k <= 1) by at
//   most sum_k k |a_k| 6u = 122u; Horner's 5 roundings on partial values <= sum |a_k| = 5.61
//   add 28u; times the Gaussian factor (<= 0.4): 60u. The factor's own error, (5 + 4.32 |x|) u
//   relative at x = d^2 / 2, costs <= 0.4 * 1.26 * 5u + 1.26 * 0.147 * 4.32u < 4u (|x| e^-x <=
//   1/e), 1 - cnd 1u: 65u. The polynomial differs from the exact CND (this reference) by
//   < 7.5e-8 (A&S 26.2.17) = 1.26u. E_cnd = 67u.
// - e^-rT: (5 + 2.32 rT) u relative. call = S N1 - (X e) N2 and put = (X e)(1 - N2) -
//   S (1 - N1): each product and difference one more rounding (u of its value).
// The check allows twice the sum: the factor 2 covers the dropped second-order terms.
OptionReference black_scholes_reference(float s_in, float x_in, float t_in, const BlackScholesParams& params) {
  const double u = kFloatU, s = s_in, x = x_in, t = t_in, r = params.riskfree, v = params.volatility;
  const double sqrt_t = std::sqrt(t), log_sx = std::log(s / x), drift = (r + 0.5 * v * v) * t;
  const double num = log_sx + drift, den = v * sqrt_t, d1 = num / den, d2 = d1 - den;
  const double n1 = normal_cdf(d1), n2 = normal_cdf(d2), m1 = normal_cdf(-d1), m2 = normal_cdf(-d2);
  const double discounted = x * std::exp(-r * t);
  OptionReference ref{s * n1 - discounted * n2, discounted * m2 - s * m1, 0, 0};

  const double e_ln = 6 * u * std::max(1.0, std::abs(log_sx)) + 4 * u;
  const double e_num = e_ln + 3 * u * drift + u * std::abs(num);
  const double e_d1 = e_num / den + 13 * u * std::abs(d1);
  const double e_d2 = e_d1 + 9 * u * den + u * std::abs(d2);
  const double e_cnd = 67 * u;
  const double e_n1 = normal_pdf(d1) * e_d1 + e_cnd, e_n2 = normal_pdf(d2) * e_d2 + e_cnd;
  const double e_exp = (5 + 2.32 * r * t) * u;
  ref.call_tol = 2 * (s * e_n1 + discounted * e_n2 + discounted * n2 * (e_exp + 2 * u) + u * s * n1 +
                      u * std::abs(ref.call));
  ref.put_tol = 2 * (discounted * e_n2 + s * e_n1 + discounted * m2 * (e_exp + 3 * u) + 2 * u * s * m1 +
                     u * std::abs(ref.put));
  return ref;
}

namespace {

//! The outputs against ref_of(i, s, x, t), option i's reference (its inputs s, x, t given).
template <class RefOf>
Agreement check_against(const std::vector<float>& call, const std::vector<float>& put,
                        const BlackScholesParams& params, RefOf&& ref_of) {
  const std::int64_t n = static_cast<std::int64_t>(call.size());
  Agreement total;
  if (put.size() != call.size()) {
    total.ok = false;
    total.message = fmt::format("{} calls but {} puts", call.size(), put.size());
    return total;
  }
#pragma omp parallel
  {
    Agreement mine;
#pragma omp for schedule(static)
    for (std::int64_t si = 0; si < n; ++si) {
      const std::size_t i = static_cast<std::size_t>(si);
      float s, x, t;
      option_inputs(params.seed, i, s, x, t);
      const OptionReference ref = ref_of(i, s, x, t);
      // Relative errors against the option's price scale S + X (a deep out-of-the-money price is ~0).
      auto name = [&](const char* what, float got, double expected) {
        return [=] { return fmt::format("option {} (S {}, X {}, T {}) {} {}, double reference {:.9g}", i, s, x, t, what, got, expected); };
      };
      mine.add(std::abs(double(call[i]) - ref.call), s + x, ref.call_tol, name("call", call[i], ref.call));
      mine.add(std::abs(double(put[i]) - ref.put), s + x, ref.put_tol, name("put", put[i], ref.put));
    }
#pragma omp critical
    total.merge(mine);
  }
  return total;
}

}  // namespace

Agreement check_black_scholes(const std::vector<float>& call, const std::vector<float>& put,
                              const BlackScholesParams& params) {
  return check_against(call, put, params, [&](std::size_t, float s, float x, float t) {
    return black_scholes_reference(s, x, t, params);
  });
}

std::vector<OptionReference> black_scholes_references(std::size_t n, const BlackScholesParams& params) {
  std::vector<OptionReference> refs(n);
#pragma omp parallel for schedule(static)
  for (std::int64_t si = 0; si < static_cast<std::int64_t>(n); ++si) {
    float s, x, t;
    option_inputs(params.seed, static_cast<std::size_t>(si), s, x, t);
    refs[static_cast<std::size_t>(si)] = black_scholes_reference(s, x, t, params);
  }
  return refs;
}

Agreement check_black_scholes(const std::vector<float>& call, const std::vector<float>& put,
                              const std::vector<OptionReference>& refs, const BlackScholesParams& params) {
  if (refs.size() != call.size()) {
    Agreement a;
    a.ok = false;
    a.message = fmt::format("{} outputs but {} references", call.size(), refs.size());
    return a;
  }
  return check_against(call, put, params, [&](std::size_t i, float, float, float) { return refs[i]; });
}

}  // namespace lb::kofler

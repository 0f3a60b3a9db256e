#pragma once
//! BlackScholes (Kofler et al. 2015, after the CUDA samples' BlackScholes): European call and
//! put prices of every option, the cumulative normal by the samples' polynomial
//! (Abramowitz & Stegun 26.2.17) in float with the fast intrinsics. Record {S, X, T, call,
//! put}; inputs as the samples draw them. Host and device code: the CPU tests run the body
//! with other math.

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "lb/kofler/random.hpp"
#include "lb/layout/config.hpp"
#include "lb/layout/record.hpp"

namespace lb::kofler {

struct Stock {};   //!< S: the stock price
struct Strike {};  //!< X: the option strike
struct Years {};   //!< T: the option years
struct Call {};
struct Put {};
using Option = layout::Record<layout::Field<Stock, float>, layout::Field<Strike, float>, layout::Field<Years, float>,
                              layout::Field<Call, float>, layout::Field<Put, float>>;

//! The samples' parameters (riskfree rate, volatility) and their seed.
struct BlackScholesParams {
  float riskfree = 0.02f;
  float volatility = 0.30f;
  std::uint64_t seed = 5347;
};

//! FP32 instructions of one option (black_scholes below; its sm_90 PTX has 41 add/sub/mul/FMA
//! and 5 div.approx, each a MUFU.RCP and a multiply: 46 on the FMA pipe, plus a few range
//! multiplies of the non-FTZ approximations; 10 special: 5 reciprocals, 1 rsqrt, 1 log2, 3
//! exp2). Declared: 50 and 10.
inline constexpr double kOptionFma = 50;
inline constexpr double kOptionSpecial = 10;

//! Option i's inputs: S in [5, 30), X in [1, 100), T in [0.25, 10) (the samples' ranges),
//! draws 3i, 3i + 1, 3i + 2 of the seed: the same floats on host and device.
LB_HD inline void option_inputs(std::uint64_t seed, std::size_t i, float& s, float& x, float& t) {
  const CounterRandom rng(seed);
  s = rng.uniform_float(3 * i, 5.0, 30.0);
  x = rng.uniform_float(3 * i + 1, 1.0, 100.0);
  t = rng.uniform_float(3 * i + 2, 0.25, 10.0);
}

//! The samples' math: the intrinsics on the device, libm on the host.
struct FastMath {
#ifdef __CUDA_ARCH__
  LB_HD static float exp(float x) { return __expf(x); }
  LB_HD static float log(float x) { return __logf(x); }
  LB_HD static float div(float a, float b) { return __fdividef(a, b); }
  LB_HD static float rsqrt(float x) { return rsqrtf(x); }
#else
  static float exp(float x) { return std::exp(x); }
  static float log(float x) { return std::log(x); }
  static float div(float a, float b) { return a / b; }
  static float rsqrt(float x) { return 1.0f / std::sqrt(x); }
#endif
};

//! The samples' polynomial approximation of the cumulative normal distribution.
template <class Math>
LB_HD LB_FORCEINLINE float cnd(float d) {
  const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f, a4 = -1.821255978f, a5 = 1.330274429f;
  const float rsqrt_2pi = 0.39894228040143267794f;
  const float k = Math::div(1.0f, 1.0f + 0.2316419f * fabsf(d));
  const float tail = rsqrt_2pi * Math::exp(-0.5f * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  return d > 0 ? 1.0f - tail : tail;
}

//! Call and put of one option (stock s, strike x, years t), riskfree rate r, volatility v.
template <class Math>
LB_HD LB_FORCEINLINE void black_scholes(float s, float x, float t, float r, float v, float& call, float& put) {
  const float sqrt_t = Math::div(1.0f, Math::rsqrt(t));
  const float d1 = Math::div(Math::log(Math::div(s, x)) + (r + 0.5f * v * v) * t, v * sqrt_t);
  const float d2 = d1 - v * sqrt_t;
  const float cnd1 = cnd<Math>(d1), cnd2 = cnd<Math>(d2);
  const float discounted = x * Math::exp(-r * t);
  call = s * cnd1 - discounted * cnd2;
  put = discounted * (1.0f - cnd2) - s * (1.0f - cnd1);
}

//! The timed kernel's per-thread body over any view of Option (black_scholes_kernel calls it
//! on the GPU; the host runs it under access recording): option i's inputs in, its call and
//! put out.
template <class Math, class V>
LB_HD LB_FORCEINLINE void black_scholes_option(V v, std::size_t i, float riskfree, float volatility) {
  float call, put;
  black_scholes<Math>(v.template get<Stock>(i), v.template get<Strike>(i), v.template get<Years>(i), riskfree,
                      volatility, call, put);
  v.template get<Call>(i) = call;
  v.template get<Put>(i) = put;
}

}  // namespace lb::kofler

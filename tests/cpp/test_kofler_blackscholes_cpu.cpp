//! BlackScholes on the CPU: the double reference against values by hand and put-call parity;
//! the validation: the float body passes its derived tolerance even with every intrinsic off
//! by its documented worst case, and wrong parameters or swapped outputs fail it; the
//! references made once per size give the check's agreement; the benchmark's last-size cache
//! makes a size's value once and frees the previous size's.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kofler/variant_support.hpp"
#include "lb/kofler/blackscholes_reference.hpp"

namespace lb::kofler {
namespace {

//! The body's math with each result off by the CUDA Programming Guide's worst case for the
//! device intrinsic, in the direction `sign` (+1 or -1).
int sign = 1;
struct WorstCaseMath {
  static float off(float value, double relative) { return float(value * (1 + sign * relative)); }
  static float exp(float x) { return off(std::exp(x), (4 + 2.32 * std::abs(x)) * kFloatU); }
  static float log(float x) {
    const double e = x >= 0.5f && x <= 2.0f ? std::exp2(-21.41) : 6 * kFloatU * std::abs(std::log(x));
    return float(std::log(x) + sign * e);
  }
  static float div(float a, float b) { return off(a / b, 4 * kFloatU); }
  static float rsqrt(float x) { return off(1.0f / std::sqrt(x), 4 * kFloatU); }
};

template <class Math>
void run_options(std::size_t n, const BlackScholesParams& p, std::vector<float>& call, std::vector<float>& put) {
  call.resize(n), put.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    float s, x, t;
    option_inputs(p.seed, i, s, x, t);
    black_scholes<Math>(s, x, t, p.riskfree, p.volatility, call[i], put[i]);
  }
}

TEST(KoflerBlackScholesReference, MatchesValuesByHandAndParity) {
  const BlackScholesParams p;
  // S 30, X 25, T 1, r 0.02, v 0.3 from the closed form with erfc (Python's math).
  const auto r = black_scholes_reference(30, 25, 1, BlackScholesParams{.riskfree = 0.02f, .volatility = 0.3f});
  EXPECT_NEAR(r.call, 6.700842862631248, 1e-6);  // r and v are floats: 1e-6 covers their rounding
  EXPECT_NEAR(r.put, 1.2058096953001307, 1e-6);
  for (std::size_t i = 0; i < 1000; ++i) {
    float s, x, t;
    option_inputs(p.seed, i, s, x, t);
    ASSERT_TRUE(s >= 5 && s < 30 && x >= 1 && x < 100 && t >= 0.25f && t < 10) << i;
    const auto o = black_scholes_reference(s, x, t, p);
    EXPECT_NEAR(o.call - o.put, s - x * std::exp(-double(p.riskfree) * t), 1e-12 * (s + x));
    EXPECT_GT(o.call_tol, 0);
    EXPECT_LT(o.call_tol, 1e-3 * (s + x));  // tight enough to mean something
  }
}

TEST(KoflerBlackScholesValidation, WorstCaseIntrinsicsPassAndWrongRunsFail) {
  const std::size_t n = 200000;
  const BlackScholesParams p;
  std::vector<float> call, put;
  run_options<FastMath>(n, p, call, put);  // host libm
  const Agreement right = check_black_scholes(call, put, p);
  EXPECT_TRUE(right.ok) << right.message;
  EXPECT_EQ(right.checked, 2 * n);
  for (int s : {1, -1}) {
    sign = s;
    run_options<WorstCaseMath>(n, p, call, put);
    const Agreement worst = check_black_scholes(call, put, p);
    EXPECT_TRUE(worst.ok) << "sign " << s << ": " << worst.message;
    std::printf("worst-case intrinsics (%+d): max error %.3g, worst error / tolerance %.3g\n", s, worst.max_abs_err,
                worst.worst_ratio);
  }
  sign = 1;

  auto fails = [&](const BlackScholesParams& run) {
    run_options<FastMath>(n, run, call, put);
    return !check_black_scholes(call, put, p).ok;
  };
  EXPECT_TRUE(fails(BlackScholesParams{.volatility = 0.303f}));
  EXPECT_TRUE(fails(BlackScholesParams{.riskfree = 0.0202f}));
  run_options<FastMath>(n, p, call, put);
  EXPECT_FALSE(check_black_scholes(put, call, p).ok);
  call[n - 1] = NAN;
  EXPECT_FALSE(check_black_scholes(call, put, p).ok);
}

TEST(KoflerBlackScholesValidation, PricesOffBy600UlpsOfTheirScaleFail) {
  // The tolerance analysis (blackscholes_reference.cpp): each N(d) is off by at most 67 u plus
  // phi(d) <= 0.4 times d's error (below 100 u for these inputs), the rest a few u; twice the
  // sum stays below 600 u of the price scale S + X. A run whose every price is off by that much
  // (a CND several times worse than the kernel's polynomial) fails.
  const std::size_t n = 20000;
  const BlackScholesParams p;
  std::vector<float> call(n), put(n);
  double widest = 0;
  for (std::size_t i = 0; i < n; ++i) {
    float s, x, t;
    option_inputs(p.seed, i, s, x, t);
    const auto ref = black_scholes_reference(s, x, t, p);
    widest = std::max({widest, ref.call_tol / (s + x), ref.put_tol / (s + x)});
    call[i] = float(ref.call + 600 * kFloatU * (s + x));
    put[i] = float(ref.put);
  }
  EXPECT_LT(widest, 600 * kFloatU) << "widest tolerance " << widest / kFloatU << " u of S + X";
  const Agreement off = check_black_scholes(call, put, p);
  EXPECT_FALSE(off.ok);
  EXPECT_NE(off.message.find(") call "), std::string::npos) << off.message;
}

TEST(KoflerBlackScholesValidation, ReferencesMadeOnceGiveTheRecomputingChecksAgreement) {
  const std::size_t n = 50000;
  const BlackScholesParams p;
  std::vector<float> call, put;
  run_options<FastMath>(n, p, call, put);
  const std::vector<OptionReference> refs = black_scholes_references(n, p);
  auto same_agreement = [&](const char* what) {
    SCOPED_TRACE(what);
    const Agreement a = check_black_scholes(call, put, p), b = check_black_scholes(call, put, refs, p);
    EXPECT_EQ(a.ok, b.ok);
    EXPECT_EQ(a.message, b.message);
    EXPECT_EQ(a.checked, b.checked);
    EXPECT_EQ(a.max_abs_err, b.max_abs_err);
    EXPECT_EQ(a.max_rel_err, b.max_rel_err);
    EXPECT_EQ(a.worst_ratio, b.worst_ratio);
    EXPECT_EQ(a.tolerance, b.tolerance);
    return b;
  };
  EXPECT_TRUE(same_agreement("the kernel's outputs").ok);
  put[n / 3] += 0.01f;
  const Agreement off = same_agreement("one put off");
  EXPECT_FALSE(off.ok);
  EXPECT_NE(off.message.find("option " + std::to_string(n / 3) + " "), std::string::npos) << off.message;
  EXPECT_FALSE(check_black_scholes(call, put, black_scholes_references(n - 1, p), p).ok) << "references of another size";
}

}  // namespace
}  // namespace lb::kofler

namespace lb::benches::kofler {
namespace {

TEST(KoflerLastOne, MakesAKeysValueOnceAndFreesThePreviousKeys) {
  LastOne<int, std::vector<int>> cache;
  int made = 0;
  auto make = [&](int key) {
    ++made;
    return std::vector<int>(3, key);
  };
  auto first = cache.get(1, make);
  EXPECT_EQ(cache.get(1, make), first) << "a second case of the size shares the first's value";
  EXPECT_EQ(made, 1);
  const std::weak_ptr<const std::vector<int>> old = first;
  first.reset();  // the case is done with it
  EXPECT_FALSE(old.expired()) << "the cache holds the current size's value";
  EXPECT_EQ((*cache.get(2, make))[0], 2);
  EXPECT_EQ(made, 2);
  EXPECT_TRUE(old.expired()) << "the previous size's value outlived the size";
}

}  // namespace
}  // namespace lb::benches::kofler

//! BlackScholes on the GPU: every layout kind against the double reference on 100003 options
//! (a partial block, partial tiles), and the validation failing wrong runs of the timed
//! kernel (wrong parameters, no run).

#include <gtest/gtest.h>

#include "gpu_available.hpp"
#include "kofler/blackscholes_bench.hpp"
#include "kofler/variant_support.hpp"
#include "kofler_gpu_testing.hpp"
#include "lb/kofler/blackscholes_device.hpp"

namespace lb::benches::kofler {
namespace {

using lb::kofler::BlackScholesParams;
constexpr std::size_t kOptions = 100003;

TEST(KoflerBlackScholesGpu, EveryLayoutMatchesTheReference) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  for (const auto& choice : testing::with_method_layouts(
           testing::kofler_layouts(lb::kofler::BlackScholesLayouts::compile_time_tiles(), "inputs|outputs", 5, 3),
           "blackscholes", {"S", "X", "T", "call", "put"}, record_field_bytes<lb::kofler::Option>())) {
    auto v = make_blackscholes_variant(choice, kOptions, BlackScholesParams{}, BlackScholesParams{});
    const Check c = testing::validated_run(*v);
    const std::string layout(choice.name());
    EXPECT_TRUE(c.ok) << layout << " " << choice.param() << ": " << c.message;
    EXPECT_EQ(c.counters.at("checked"), 2 * kOptions) << layout;
    std::printf("%s %s: max error %.3g, worst error / tolerance %.3g\n", layout.c_str(),
                choice.param().c_str(), c.counters.at("max_abs_err"), c.counters.at("err_over_tolerance"));
  }
}

TEST(KoflerBlackScholesGpu, ValidationFailsWrongRuns) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  const LayoutChoice aos{kind::Aos{}};
  const BlackScholesParams right;
  EXPECT_FALSE(testing::validated_run(*make_blackscholes_variant(aos, kOptions, right, right), true).ok);
  for (const BlackScholesParams& wrong : {BlackScholesParams{.volatility = 0.303f}, BlackScholesParams{.riskfree = 0.0202f}})
    EXPECT_FALSE(testing::validated_run(*make_blackscholes_variant(aos, kOptions, wrong, right)).ok)
        << "volatility " << wrong.volatility << ", riskfree " << wrong.riskfree;
}

}  // namespace
}  // namespace lb::benches::kofler

// The tests' comparison helpers (compare_testing.hpp) fail on what a running maximum of
// |got - want| lets through: a NaN or an infinity anywhere, a truncated or empty result, and
// a validation that passed only because its tolerance could not fail.

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <vector>

#include "compare_testing.hpp"

namespace {

using lb::testing::all_near;
using lb::testing::all_near_relative;
using lb::testing::compare_values;
using lb::testing::validated;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

const std::vector<double> kWant = {1.0, 2.0, 3.0, 4.0};

TEST(CompareTesting, CloseValuesPassAndAFarOneFailsNamingIt) {
  EXPECT_TRUE(all_near(kWant, kWant, 0.0));
  EXPECT_TRUE(all_near(std::vector<float>{1.0f, 2.0f, 3.5f, 4.0f}, kWant, 0.5));
  const auto far = all_near(std::vector<double>{1.0, 2.0, 3.0, 4.25}, kWant, 0.2);
  EXPECT_FALSE(far);
  EXPECT_NE(std::string(far.message()).find("value 3: got 4.25, expected 4"), std::string::npos) << far.message();
  EXPECT_TRUE(all_near_relative(std::vector<double>{1.01, 2.0, 3.0, 4.0}, kWant, 0.0100001));
  EXPECT_FALSE(all_near_relative(std::vector<double>{1.0, 2.0, 3.0, 4.1}, kWant, 0.02));
  EXPECT_FALSE(all_near(kWant, kWant, kNaN)) << "a NaN tolerance passed";
}

TEST(CompareTesting, ANonFiniteValueFailsWhateverTheTolerance) {
  // What the old checks did: worst = max(worst, |got - want|) never rises on a NaN.
  double worst = 0;
  for (double e : {std::abs(kNaN - 1.0), 0.5}) worst = std::max(worst, e);
  ASSERT_EQ(worst, 0.5) << "the blindness this helper exists for";
  for (double bad : {kNaN, -kNaN, kInf, -kInf})
    for (std::size_t at : {0, 2, 3}) {
      std::vector<double> got = kWant;
      got[at] = bad;
      const auto r = all_near(got, kWant, 1e300);
      EXPECT_FALSE(r) << bad << " at " << at;
      EXPECT_NE(std::string(r.message()).find("value " + std::to_string(at) + " is not finite"), std::string::npos)
          << r.message();
      EXPECT_FALSE(all_near_relative(got, kWant, 1e300));
      EXPECT_FALSE(compare_values(got, kWant).problem.empty());
    }
  std::vector<double> want = kWant;
  want[1] = kNaN;
  EXPECT_FALSE(all_near(kWant, want, 1e300)) << "a NaN expected value compared as anything";
}

TEST(CompareTesting, ASizeMismatchOrNothingToCompareFails) {
  const std::vector<double> truncated(kWant.begin(), kWant.end() - 1), empty;
  std::vector<double> longer = kWant;
  longer.push_back(5.0);
  EXPECT_FALSE(all_near(truncated, kWant, 1e300));
  EXPECT_NE(std::string(all_near(truncated, kWant, 1.0).message()).find("3 values, expected 4"), std::string::npos);
  EXPECT_FALSE(all_near(longer, kWant, 1e300));
  EXPECT_FALSE(all_near(empty, kWant, 1e300));
  EXPECT_FALSE(all_near(empty, empty, 1e300)) << "two empty results compared as equal";
  EXPECT_FALSE(all_near_relative(empty, kWant, 1e300));
  EXPECT_EQ(compare_values(truncated, kWant).count, 0u);
  // Spans work the same.
  EXPECT_FALSE(all_near(std::span<const double>(kWant).first(2), kWant, 1e300));
}

TEST(CompareTesting, TheFailuresReachGoogleTest) {
  // As a test uses them: EXPECT_TRUE on the predicate records a failure with its reason.
  std::vector<double> nan_got = kWant;
  nan_got[2] = kNaN;
  EXPECT_NONFATAL_FAILURE(EXPECT_TRUE(all_near(nan_got, kWant, 1.0)), "value 2 is not finite");
  EXPECT_NONFATAL_FAILURE(EXPECT_TRUE(all_near(std::vector<double>{}, kWant, 1.0)), "0 values, expected 4");
  EXPECT_NONFATAL_FAILURE(EXPECT_TRUE(all_near(std::vector<double>{}, std::vector<double>{}, 1.0)),
                          "no values to compare");
}

TEST(CompareTesting, ComparisonReportsTheLargestDifferences) {
  const auto c = compare_values(std::vector<double>{1.5, 2.0, 3.0, 3.0}, kWant);
  EXPECT_TRUE(c.problem.empty()) << c.problem;
  EXPECT_EQ(c.count, 4u);
  EXPECT_EQ(c.abs.err, 1.0);
  EXPECT_EQ(c.abs.index, 3u);
  EXPECT_EQ(c.abs.got, 3.0);
  EXPECT_EQ(c.abs.want, 4.0);
  EXPECT_EQ(c.rel.err, 0.5);
  EXPECT_EQ(c.rel.index, 0u);
  const auto at_zero = compare_values(std::vector<double>{0.0, 1e-300}, std::vector<double>{0.0, 0.0});
  EXPECT_EQ(at_zero.rel.err, kInf);
  EXPECT_EQ(at_zero.rel.index, 1u);
}

struct FakeCheck {
  bool ok = false, unvalidated = false;
  std::string message;
};

TEST(CompareTesting, ValidatedNeedsAPassThatCouldHaveFailed) {
  EXPECT_TRUE(validated(FakeCheck{true, false, ""}));
  EXPECT_FALSE(validated(FakeCheck{false, false, "estimate 3 is not finite"}));
  EXPECT_NE(std::string(validated(FakeCheck{false, false, "estimate 3 is not finite"}).message()).find("estimate 3"),
            std::string::npos);
  EXPECT_NONFATAL_FAILURE(EXPECT_TRUE(validated(FakeCheck{true, true, ""})), "unvalidated");
}

TEST(CompareTesting, TransposedSwapsRowsAndColumnsAndRefusesAWrongSize) {
  // 2 points x 3 surfaces (point-major) -> 3 x 2 (surface-major).
  EXPECT_EQ(lb::testing::transposed(std::vector<int>{1, 2, 3, 4, 5, 6}, 2, 3), (std::vector<int>{1, 4, 2, 5, 3, 6}));
  EXPECT_THROW(lb::testing::transposed(std::vector<int>{1, 2, 3, 4, 5}, 2, 3), std::invalid_argument);
}

}  // namespace

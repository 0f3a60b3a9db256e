#pragma once
//! The C++ tests' one comparison of computed values with expected ones. The counts come first
//! (equal, and not zero: a truncated or empty result is a failure, not "no difference"), then
//! every value must be finite (a NaN never compares greater than a tolerance, so a running
//! maximum of |got - want| cannot see it), then the largest absolute and relative
//! differences. Also: a validation result that passed *and* could have failed. The helpers
//! are tested on the CPU (test_compare_testing.cpp), so a check that goes blind fails there.

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace lb::testing {

//! The largest difference of one kind: how large, where, and the two values there.
struct Worst {
  double err = 0;
  std::size_t index = 0;
  double got = 0, want = 0;
};

//! got against want, element by element (compare_values).
struct Comparison {
  std::string problem;    //!< why the values cannot be compared; "" when they can
  std::size_t count = 0;  //!< values compared
  Worst abs;              //!< largest |got - want|
  Worst rel;              //!< largest |got - want| / |want| (infinite where want = 0 != got)
};

namespace detail {
inline std::string number(double v) {
  std::ostringstream s;
  s.precision(17);
  s << v;
  return s.str();
}
}  // namespace detail

//! Compares two sized, indexable ranges of numbers (std::vector, std::span, ...).
template <class Got, class Want>
Comparison compare_values(const Got& got, const Want& want) {
  Comparison c;
  const std::size_t n = got.size();
  if (n != static_cast<std::size_t>(want.size())) {
    c.problem = std::to_string(n) + " values, expected " + std::to_string(want.size());
    return c;
  }
  if (n == 0) {
    c.problem = "no values to compare";
    return c;
  }
  for (std::size_t k = 0; k < n; ++k) {
    const double g = static_cast<double>(got[k]), w = static_cast<double>(want[k]);
    if (!std::isfinite(w)) {
      c.problem = "expected value " + std::to_string(k) + " is not finite (" + detail::number(w) + ")";
      return c;
    }
    if (!std::isfinite(g)) {
      c.problem = "value " + std::to_string(k) + " is not finite (" + detail::number(g) + ", expected " +
                  detail::number(w) + ")";
      return c;
    }
    const double abs = std::abs(g - w);
    const double rel = w != 0 ? abs / std::abs(w) : (abs == 0 ? 0.0 : std::numeric_limits<double>::infinity());
    if (abs > c.abs.err) c.abs = {abs, k, g, w};
    if (rel > c.rel.err) c.rel = {rel, k, g, w};
  }
  c.count = n;
  return c;
}

namespace detail {
inline ::testing::AssertionResult within(const Comparison& c, const Worst& worst, double tolerance, const char* kind) {
  if (!c.problem.empty()) return ::testing::AssertionFailure() << c.problem;
  if (!(worst.err <= tolerance))  // a NaN tolerance fails too
    return ::testing::AssertionFailure() << "value " << worst.index << ": got " << number(worst.got) << ", expected "
                                         << number(worst.want) << " (" << kind << " error " << number(worst.err)
                                         << " > tolerance " << number(tolerance) << "; " << c.count
                                         << " values compared)";
  return ::testing::AssertionSuccess() << c.count << " values, max " << kind << " error " << number(worst.err);
}
}  // namespace detail

//! Comparable (above) and every |got - want| <= tolerance.
inline ::testing::AssertionResult within_absolute(const Comparison& c, double tolerance) {
  return detail::within(c, c.abs, tolerance, "absolute");
}
//! Comparable and every |got - want| <= tolerance |want|.
inline ::testing::AssertionResult within_relative(const Comparison& c, double tolerance) {
  return detail::within(c, c.rel, tolerance, "relative");
}

//! Same count (at least one), all finite, every |got - want| <= tolerance:
//! EXPECT_TRUE(all_near(got, want, tol)) << what.
template <class Got, class Want>
::testing::AssertionResult all_near(const Got& got, const Want& want, double tolerance) {
  return within_absolute(compare_values(got, want), tolerance);
}

//! As all_near, with every |got - want| <= tolerance |want|.
template <class Got, class Want>
::testing::AssertionResult all_near_relative(const Got& got, const Want& want, double tolerance) {
  return within_relative(compare_values(got, want), tolerance);
}

//! A validation result (anything with ok, unvalidated and message: harness::Check,
//! kriging::EstimateCheck) that passed and whose tolerance could have failed a wrong program.
template <class Check>
::testing::AssertionResult validated(const Check& check) {
  if (!check.ok) return ::testing::AssertionFailure() << "failed: " << check.message;
  if (check.unvalidated)
    return ::testing::AssertionFailure() << "passed, but unvalidated: its tolerance cannot fail a wrong program";
  return ::testing::AssertionSuccess();
}

//! values[r * cols + c] (rows x cols, row-major) as [c * rows + r]; throws on a size that is
//! not rows * cols (e.g. the kriging reference's point-major estimates to a program's
//! surface-major output).
template <class T>
std::vector<T> transposed(const std::vector<T>& values, std::size_t rows, std::size_t cols) {
  if (values.size() != rows * cols)
    throw std::invalid_argument("transposed: " + std::to_string(values.size()) + " values, not " +
                                std::to_string(rows) + " x " + std::to_string(cols));
  std::vector<T> out(values.size());
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) out[c * rows + r] = values[r * cols + c];
  return out;
}

}  // namespace lb::testing

// The fixture program's kernel on the host (docs/adding-a-program.md): the body through AoS and
// SoA gives a·x exactly, and the check names a wrong element and a poisoned one. In
// lb_cpu_tests through its lb_program entry, as a shipped program's tests are.

#include <gtest/gtest.h>

#include <cmath>
#include <type_traits>
#include <vector>

#include "lb/layout/aos.hpp"
#include "lb/layout/host_storage.hpp"
#include "lb/layout/soa.hpp"
#include "lb/scale/scale.hpp"

namespace lb::scale {

template <class M>
std::vector<double> scaled_outputs(std::size_t n, std::vector<double>& inputs) {
  layout::HostStorage<M> storage{M{n}};
  const auto v = storage.view();
  using T = std::remove_reference_t<decltype(v.template get<X>(0))>;
  inputs.assign(n, 0);
  std::vector<double> outputs(n);
  for (std::size_t i = 0; i < n; ++i) v.template get<X>(i) = scale_input<T>(i), inputs[i] = v.template get<X>(i);
  for (std::size_t i = 0; i < n; ++i) scale_body(v, i);
  for (std::size_t i = 0; i < n; ++i) outputs[i] = v.template get<Y>(i);
  return outputs;
}

template <class M>
void expect_exact(std::size_t n) {
  std::vector<double> x;
  const auto y = scaled_outputs<M>(n, x);
  const ScaleCheck c = check_scale(x, y);
  EXPECT_TRUE(c.ok) << c.message;
  EXPECT_EQ(c.max_abs_err, 0);
  EXPECT_EQ(c.checked, n);
}

TEST(FixtureScale, EveryLayoutGivesTheExactProduct) {
  expect_exact<layout::AoSMapping<Element<float>>>(5000);
  expect_exact<layout::SoAMapping<Element<float>>>(5000);
  expect_exact<layout::AoSMapping<Element<double>>>(4097);
  expect_exact<layout::SoAMapping<Element<double>>>(4097);
}

TEST(FixtureScale, TheCheckNamesAWrongAndAPoisonedElement) {
  std::vector<double> x;
  auto y = scaled_outputs<layout::SoAMapping<Element<float>>>(100, x);
  y[42] += 1;
  ScaleCheck c = check_scale(x, y);
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.message.find("element 42"), std::string::npos) << c.message;
  EXPECT_EQ(c.max_abs_err, 1);
  y[42] -= 1;
  y[7] = std::nan("");
  c = check_scale(x, y);
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.message.find("element 7"), std::string::npos) << c.message;
  EXPECT_FALSE(check_scale(x, std::vector<double>(99)).ok);
}

}  // namespace lb::scale

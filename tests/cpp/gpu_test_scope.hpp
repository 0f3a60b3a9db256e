#pragma once
//! Which variants a GPU test covers. By default all of them; the sanitizer script narrows a
//! run through the environment: LB_GPU_TEST_VERSIONS (IDW versions: racecheck and initcheck
//! cannot follow dynamic parallelism) and LB_GPU_TEST_LAYOUTS (layout names, e.g. one layout
//! per kernel for the quick sanitizer round: a shared-memory race does not depend on the
//! layout the data come from, and the opt-in `make sanitize` covers every layout).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace lb::testing {

//! The comma-separated names in environment variable `var`; empty when it is unset or empty.
inline std::vector<std::string> names_from_env(const char* var) {
  std::vector<std::string> out;
  const char* value = std::getenv(var);
  if (!value) return out;
  const std::string list = value;
  for (std::size_t start = 0; start < list.size();) {
    const std::size_t end = std::min(list.find(',', start), list.size());
    if (end > start) out.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

//! Whether layout `name` is under test (LB_GPU_TEST_LAYOUTS unset: every layout).
inline bool layout_under_test(std::string_view name) {
  const auto wanted = names_from_env("LB_GPU_TEST_LAYOUTS");
  if (wanted.empty()) return true;
  for (const auto& w : wanted)
    if (w == name) return true;
  return false;
}

//! The items of `all` whose layout (`layout_of(item)`) is under test; an empty result fails
//! the test (a filter naming none of a test's layouts would make it pass without running).
template <class T, class LayoutOf>
std::vector<T> layouts_under_test(std::vector<T> all, LayoutOf layout_of) {
  std::erase_if(all, [&](const T& item) { return !layout_under_test(layout_of(item)); });
  if (all.empty()) ADD_FAILURE() << "LB_GPU_TEST_LAYOUTS names none of this test's layouts";
  return all;
}

}  // namespace lb::testing

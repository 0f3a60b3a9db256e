#include <stdexcept>

#include "lb/harness/suite.hpp"

namespace lb::harness {

// Each paper's planner lives with its benchmarks (benches/<paper>_bench.cpp).
std::vector<PlannedBenchmark> plan_idw(const Preset&, const Overrides&);
std::vector<PlannedBenchmark> plan_kriging(const Preset&, const Overrides&);

const std::vector<Suite>& suites() {
  static const std::vector<Suite> all = {{"idw", plan_idw}, {"kriging", plan_kriging}};
  return all;
}

const Suite& find_suite(const std::string& name) {
  std::string names;
  for (const auto& s : suites()) {
    if (s.name == name) return s;
    names += (names.empty() ? "" : ", ") + s.name;
  }
  throw std::invalid_argument("unknown suite '" + name + "' (expected one of: " + names + ")");
}

}  // namespace lb::harness

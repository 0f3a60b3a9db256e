//! The fixture's suite list: what benches/suites.cpp is to layoutbench, for the fixture's own
//! binary (docs/adding-a-program.md, "The places"): its suite, in run order, with its program.

#include "lb/harness/suite.hpp"

namespace lb::harness {

namespace scale {
Program scale_program();  // benches/scale/scale_bench.cpp
}

const std::vector<Suite>& suites() {
  static const std::vector<Suite> all = {
      {"fixture", {Section::programs, "fixture program", {scale::scale_program()}}, {}},
  };
  return all;
}

}  // namespace lb::harness

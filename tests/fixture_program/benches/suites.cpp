//! The fixture's suite list: what benches/suites.cpp is to layoutbench, for the fixture's own
//! binary (docs/adding-a-program.md, "The places"): its suite, in run order, with its program.

#include "fixture/suite.hpp"
#include "lb/harness/suite.hpp"

namespace lb::harness {

const std::vector<Suite>& suites() {
  static const std::vector<Suite> all = {
      {"fixture", {Section::programs, "fixture program", {benches::fixture::scale_program()}}, {}},
  };
  return all;
}

}  // namespace lb::harness

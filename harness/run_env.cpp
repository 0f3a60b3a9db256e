#include "lb/harness/gpu_timer.hpp"
#include "lb/harness/suite.hpp"

namespace lb::harness {

RunEnv& env() {
  static RunEnv e;
  return e;
}

}  // namespace lb::harness

#pragma once
// Whether the GPU tests run: the rule of lb/harness/gpu_presence.hpp (skip only where no GPU is
// present; fail where one is present but unusable, or where LB_REQUIRE_GPU=1 expects one), the
// same rule `layoutbench gpu-decision` gives the Python GPU tests.

#include <gtest/gtest.h>

#include "lb/harness/gpu_presence.hpp"

namespace lb::testing {

using harness::decide_gpu;
using harness::GpuAction;
using harness::GpuDecision;
using harness::nvidia_hardware_sign;

//! The decision for this process, asked once.
inline const GpuDecision& gpu_decision() {
  static const GpuDecision decision = harness::gpu_decision();
  return decision;
}

}  // namespace lb::testing

//! True when the GPU tests run; false when they should skip. Where a GPU should be there but
//! is not usable, records a test failure naming the reason (the caller's skip that follows
//! does not hide it: a test with a failure is reported FAILED).
inline bool have_gpu() {
  const auto& decision = lb::testing::gpu_decision();
  if (decision.action == lb::testing::GpuAction::fail) ADD_FAILURE() << "GPU expected: " << decision.reason;
  return decision.action == lb::testing::GpuAction::run;
}

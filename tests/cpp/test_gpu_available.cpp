// When the GPU tests skip and when they fail (gpu_available.hpp): only a machine with no GPU at
// all skips; a broken driver, or no GPU where one is required, fails.

#include <gtest/gtest.h>

#include "gpu_available.hpp"

namespace {

using lb::testing::decide_gpu;
using lb::testing::GpuAction;

TEST(GpuAvailable, RunsWhenCudaSeesADevice) {
  EXPECT_EQ(decide_gpu(cudaSuccess, 1, "/dev/nvidia0", false).action, GpuAction::run);
  EXPECT_EQ(decide_gpu(cudaSuccess, 2, "", true).action, GpuAction::run);
}

TEST(GpuAvailable, SkipsOnlyWhereNoGpuIsPresent) {
  for (cudaError_t absent : {cudaErrorNoDevice, cudaErrorInsufficientDriver, cudaSuccess}) {
    const auto d = decide_gpu(absent, 0, "", false);
    EXPECT_EQ(d.action, GpuAction::skip) << cudaGetErrorName(absent);
    EXPECT_NE(d.reason.find("no CUDA GPU visible"), std::string::npos) << d.reason;
  }
}

TEST(GpuAvailable, FailsWhenTheMachineHasAGpuCudaCannotUse) {
  for (const char* sign : {"/dev/nvidia0", "/usr/bin/nvidia-smi", "/dev/dxg"}) {
    const auto d = decide_gpu(cudaErrorNoDevice, 0, sign, false);
    EXPECT_EQ(d.action, GpuAction::fail) << sign;
    EXPECT_NE(d.reason.find(sign), std::string::npos) << d.reason;
    EXPECT_NE(d.reason.find("cudaErrorNoDevice"), std::string::npos) << d.reason;
  }
  EXPECT_EQ(decide_gpu(cudaErrorInsufficientDriver, 0, "/dev/nvidia0", false).action, GpuAction::fail);
}

TEST(GpuAvailable, FailsOnAnyOtherCudaError) {
  // A broken installation, with or without device nodes: never a green (skipped) run.
  for (cudaError_t broken : {cudaErrorInitializationError, cudaErrorSystemDriverMismatch,
                             cudaErrorCompatNotSupportedOnDevice, cudaErrorDevicesUnavailable, cudaErrorUnknown}) {
    for (const char* sign : {"", "/dev/nvidia0"}) {
      const auto d = decide_gpu(broken, 0, sign, false);
      EXPECT_EQ(d.action, GpuAction::fail) << cudaGetErrorName(broken);
      EXPECT_NE(d.reason.find(cudaGetErrorName(broken)), std::string::npos) << d.reason;
    }
  }
}

TEST(GpuAvailable, AbsenceFailsWhereAGpuIsRequired) {
  const auto d = decide_gpu(cudaErrorNoDevice, 0, "", true);
  EXPECT_EQ(d.action, GpuAction::fail);
  EXPECT_NE(d.reason.find("LB_REQUIRE_GPU=1"), std::string::npos) << d.reason;
}

}  // namespace

#pragma once
//! Whether this machine should run GPU work, skip it, or fail: one rule for the C++ GPU tests
//! (tests/cpp/gpu_available.hpp) and, through `layoutbench gpu-decision`, the Python ones.
//! Skip (visibly) only where no GPU is present: CUDA finds no device or no driver and the
//! machine shows no sign of NVIDIA hardware (no /dev/nvidia<N>, no /dev/dxg, no nvidia-smi).
//! Any other failure of the CUDA runtime (a broken or mismatched driver, a GPU the driver
//! cannot initialise) fails, and so does absence when LB_REQUIRE_GPU=1 says a GPU is expected
//! (the GPU machine's round script sets it).

#include <cuda_runtime_api.h>

#include <string>

namespace lb::harness {

enum class GpuAction { run, skip, fail };

struct GpuDecision {
  GpuAction action;
  std::string reason;  //!< why it skips or fails (empty when GPU work runs)
};

const char* to_string(GpuAction action);

//! The decision from what the CUDA runtime said (cudaGetDeviceCount's error and count), the
//! signs of NVIDIA hardware found (a device node or nvidia-smi; empty = none) and whether
//! LB_REQUIRE_GPU=1 is set.
GpuDecision decide_gpu(cudaError_t error, int count, const std::string& hardware_sign, bool required);

//! The first sign of NVIDIA hardware on this machine, or "" when there is none.
std::string nvidia_hardware_sign();

//! This process's decision: asks the CUDA runtime (clearing a "no device" error after) and
//! reads LB_REQUIRE_GPU.
GpuDecision gpu_decision();

}  // namespace lb::harness

#pragma once
// Whether the GPU tests run. They skip (visibly) only where no GPU is present: CUDA finds no
// device or no driver and the machine shows no sign of NVIDIA hardware (no /dev/nvidia<N>, no
// /dev/dxg, no nvidia-smi). Any other failure of the CUDA runtime (a broken or mismatched
// driver, a GPU the driver cannot initialise) fails the test, and so does absence when
// LB_REQUIRE_GPU=1 says a GPU is expected (the GPU machine's round script sets it).

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

namespace lb::testing {

enum class GpuAction { run, skip, fail };

struct GpuDecision {
  GpuAction action;
  std::string reason;  //!< why it skips or fails (empty when the tests run)
};

//! The decision from what the CUDA runtime said (cudaGetDeviceCount's error and count), the
//! signs of NVIDIA hardware found (a device node or nvidia-smi; empty = none) and whether
//! LB_REQUIRE_GPU=1 is set.
inline GpuDecision decide_gpu(cudaError_t error, int count, const std::string& hardware_sign, bool required) {
  if (error == cudaSuccess && count > 0) return {GpuAction::run, ""};
  const bool no_gpu_error = error == cudaSuccess || error == cudaErrorNoDevice || error == cudaErrorInsufficientDriver;
  const std::string cuda_said =
      error == cudaSuccess ? "CUDA sees 0 devices" : std::string("CUDA says ") + cudaGetErrorName(error);
  if (!no_gpu_error) return {GpuAction::fail, cuda_said + ": the CUDA runtime or driver is broken on this machine"};
  if (!hardware_sign.empty())
    return {GpuAction::fail, cuda_said + " but this machine has an NVIDIA GPU (" + hardware_sign +
                                 "): the driver or the device is not usable"};
  if (required) return {GpuAction::fail, cuda_said + " and LB_REQUIRE_GPU=1 expects a GPU here"};
  return {GpuAction::skip, "no CUDA GPU visible (" + cuda_said + ")"};
}

//! The first sign of NVIDIA hardware on this machine, or "" when there is none.
inline std::string nvidia_hardware_sign() {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/dev", ec)) {
    const std::string name = entry.path().filename().string();
    const bool numbered = name.size() > 6 && name.rfind("nvidia", 0) == 0 &&
                          name.find_first_not_of("0123456789", 6) == std::string::npos;
    if (numbered || name == "dxg") return entry.path().string();
  }
  if (const char* path = std::getenv("PATH")) {
    std::string_view rest = path;
    while (!rest.empty()) {
      const std::size_t colon = rest.find(':');
      const fs::path candidate = fs::path(std::string(rest.substr(0, colon))) / "nvidia-smi";
      if (fs::exists(candidate, ec)) return candidate.string();
      rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
    }
  }
  return "";
}

//! The decision for this process, asked once.
inline const GpuDecision& gpu_decision() {
  static const GpuDecision decision = [] {
    int count = 0;
    const cudaError_t error = cudaGetDeviceCount(&count);
    cudaGetLastError();  // clear a "no device" error so later calls start clean
    const char* require = std::getenv("LB_REQUIRE_GPU");
    return decide_gpu(error, count, nvidia_hardware_sign(), require && std::string_view(require) == "1");
  }();
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

#include "lb/harness/gpu_presence.hpp"

#include <cstdlib>
#include <filesystem>
#include <string_view>

namespace lb::harness {

const char* to_string(GpuAction action) {
  switch (action) {
    case GpuAction::run: return "run";
    case GpuAction::skip: return "skip";
    case GpuAction::fail: return "fail";
  }
  return "?";
}

GpuDecision decide_gpu(cudaError_t error, int count, const std::string& hardware_sign, bool required) {
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

std::string nvidia_hardware_sign() {
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

GpuDecision gpu_decision() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  cudaGetLastError();  // clear a "no device" error so later calls start clean
  const char* require = std::getenv("LB_REQUIRE_GPU");
  return decide_gpu(error, count, nvidia_hardware_sign(), require && std::string_view(require) == "1");
}

}  // namespace lb::harness

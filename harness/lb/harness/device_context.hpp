#pragma once
//! What a result file must say about where it was measured: the GPU (properties + NVML),
//! the build (compiler, flags, git commit) and the host. Also the device list.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lb::harness {

struct DeviceSummary {
  int index = 0;
  std::string name;
  std::string uuid;  //!< "GPU-xxxxxxxx-..." as NVML and nvidia-smi spell it
};

//! Visible CUDA devices; empty when there is no GPU or no driver.
std::vector<DeviceSummary> list_devices();

nlohmann::json gpu_context(int device);
nlohmann::json build_context();
//! Google Benchmark's context keys (date, host_name, num_cpus, mhz_per_cpu, caches, ...).
nlohmann::json host_context();

//! Theoretical DRAM bandwidth in GB/s from a gpu_context() (0 when unknown).
double theoretical_bandwidth_gbs(const nlohmann::json& gpu);

}  // namespace lb::harness

#include "lb/harness/device_context.hpp"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "lb/common/cuda_check.hpp"
#include "lb/harness/build_info.hpp"
#include "lb/harness/nvml.hpp"

namespace lb::harness {
namespace {

std::string uuid_string(const cudaUUID_t& u) {
  const auto* b = reinterpret_cast<const unsigned char*>(u.bytes);
  std::string s = "GPU-";
  for (int i = 0; i < 16; ++i) {
    s += fmt::format("{:02x}", b[i]);
    if (i == 3 || i == 5 || i == 7 || i == 9) s += '-';
  }
  return s;
}

int attribute(cudaDeviceAttr attr, int device) {
  int v = 0;
  return cudaDeviceGetAttribute(&v, attr, device) == cudaSuccess ? v : 0;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

std::string now_iso() {
  const auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S%z", &tm);
  return buf;
}

}  // namespace

std::vector<DeviceSummary> list_devices() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // no driver / no device: not an error for listing
    return {};
  }
  std::vector<DeviceSummary> devices;
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, d), "cudaGetDeviceProperties");
    devices.push_back({d, prop.name, uuid_string(prop.uuid)});
  }
  return devices;
}

nlohmann::json gpu_context(int device) {
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  const std::string uuid = uuid_string(prop.uuid);
  const Nvml& nvml = Nvml::for_device(uuid);
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  // Memory clock (kHz) and bus width: the runtime attribute first, NVML as a fallback.
  double mem_clock_mhz = attribute(cudaDevAttrMemoryClockRate, device) / 1000.0;
  if (mem_clock_mhz == 0 && nvml.memory_clock_max_mhz()) mem_clock_mhz = *nvml.memory_clock_max_mhz();
  int bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, device);
  if (bus_bits == 0 && nvml.memory_bus_width_bits()) bus_bits = static_cast<int>(*nvml.memory_bus_width_bits());
  nlohmann::json j = {
      {"name", prop.name},
      {"uuid", uuid},
      {"device_index", device},
      {"compute_capability", fmt::format("{}.{}", prop.major, prop.minor)},
      {"sm_count", prop.multiProcessorCount},
      {"l2_bytes", prop.l2CacheSize},
      {"memory_bytes", prop.totalGlobalMem},
      {"memory_bus_bits", bus_bits},
      {"memory_clock_mhz", mem_clock_mhz},
      // DDR: two transfers per clock.
      {"theoretical_bandwidth_gbs", 2.0 * mem_clock_mhz * 1e6 * (bus_bits / 8.0) / 1e9},
      {"sm_clock_max_mhz", attribute(cudaDevAttrClockRate, device) / 1000.0},
      {"cuda_runtime_version", fmt::format("{}.{}", runtime / 1000, runtime % 1000 / 10)},
      {"cuda_driver_version", fmt::format("{}.{}", driver / 1000, driver % 1000 / 10)},
      {"nvml", nvml.available()},
  };
  if (auto v = nvml.sm_clock_mhz()) j["sm_clock_mhz"] = *v;
  if (auto v = nvml.sm_clock_max_mhz()) j["sm_clock_max_mhz"] = *v;
  if (auto v = nvml.driver_version()) j["driver_version"] = *v;
  return j;
}

nlohmann::json build_context() {
  return {{"nvcc_version", kNvccVersion},   {"cuda_flags", kCudaFlags},
          {"cuda_architectures", kCudaArchitectures}, {"cxx_compiler", kCxxCompiler},
          {"cxx_flags", kCxxFlags},         {"build_type", kBuildType},
          {"git_commit", git_commit()},     {"git_dirty", git_dirty()}};
}

nlohmann::json host_context() {
  const auto& cpu = benchmark::CPUInfo::Get();
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  nlohmann::json caches = nlohmann::json::array();
  for (const auto& c : cpu.caches)
    caches.push_back({{"type", c.type}, {"level", c.level}, {"size", c.size}, {"num_sharing", c.num_sharing}});
  return {{"date", now_iso()},
          {"host_name", host},
          {"num_cpus", cpu.num_cpus},
          {"mhz_per_cpu", static_cast<int>(cpu.cycles_per_second / 1e6)},
          {"cpu_scaling_enabled", cpu.scaling == benchmark::CPUInfo::Scaling::ENABLED},
          {"cpu_model", cpu_model()},
          {"caches", caches},
          {"load_avg", cpu.load_avg},
          {"library_build_type", kBuildType == std::string("Debug") ? "debug" : "release"}};
}

double theoretical_bandwidth_gbs(const nlohmann::json& gpu) { return gpu.value("theoretical_bandwidth_gbs", 0.0); }

}  // namespace lb::harness

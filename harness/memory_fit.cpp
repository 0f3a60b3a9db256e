#include "lb/harness/memory_fit.hpp"

#include <cuda_runtime_api.h>
#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

namespace lb::harness {
namespace {

//! The number after `key` in a "Key:   123 kB" file (/proc/meminfo, /proc/self/status), in bytes.
std::optional<std::uint64_t> kib_field(const char* file, std::string_view key) {
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);)
    if (line.starts_with(key)) {
      std::istringstream fields(line.substr(key.size()));
      std::uint64_t kib = 0;
      if (fields >> kib) return kib * 1024;
    }
  return std::nullopt;
}

//! A file holding one number ("max" or missing: none).
std::optional<std::uint64_t> number_in(const char* file) {
  std::ifstream in(file);
  std::uint64_t n = 0;
  if (in >> n) return n;
  return std::nullopt;
}

std::uint64_t minus(std::uint64_t a, std::uint64_t b) { return a > b ? a - b : 0; }

std::string gib(double bytes) { return fmt::format("{:.1f} GiB", bytes / double(1ull << 30)); }

}  // namespace

std::uint64_t host_available_bytes() {
  std::uint64_t available = kib_field("/proc/meminfo", "MemAvailable:").value_or(UINT64_MAX);
  if (const auto limit = number_in("/sys/fs/cgroup/memory.max"))  // cgroup v2
    available = std::min(available, minus(*limit, number_in("/sys/fs/cgroup/memory.current").value_or(0)));
  else if (const auto v1 = number_in("/sys/fs/cgroup/memory/memory.limit_in_bytes"))
    available = std::min(available, minus(*v1, number_in("/sys/fs/cgroup/memory/memory.usage_in_bytes").value_or(0)));
  rlimit as{};
  if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
    available = std::min(available, minus(as.rlim_cur, kib_field("/proc/self/status", "VmSize:").value_or(0)));
  return available;
}

std::optional<std::uint64_t> device_free_bytes() {
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
    cudaGetLastError();  // clear it: the caller's GPU check reports a missing device
    return std::nullopt;
  }
  return free_bytes;
}

std::string memory_shortfall(const MemoryNeed& need) {
  if (const double host = double(host_available_bytes()); need.host_bytes > host)
    return fmt::format("needs {} of host memory, {} available", gib(need.host_bytes), gib(host));
  if (need.device_bytes > 0)
    if (const auto device = device_free_bytes(); device && need.device_bytes > double(*device))
      return fmt::format("needs {} of device memory, {} available", gib(need.device_bytes), gib(double(*device)));
  return {};
}

void require_memory(const MemoryNeed& need, const std::string& what) {
  if (const std::string why = memory_shortfall(need); !why.empty())
    throw MemoryShortfall(fmt::format("{}: {}", what, why));
}

}  // namespace lb::harness

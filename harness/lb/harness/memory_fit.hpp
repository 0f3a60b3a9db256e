#pragma once
//! Will it fit? Host and device bytes a run needs, estimated before allocating, checked
//! against what is available: the CLIs refuse ("needs X GiB ..., Y GiB available", exit 2,
//! nothing written) and `run` skips the benchmark with the same reason, instead of ending
//! in std::bad_alloc, an out-of-memory kill or a failed cudaMalloc.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace lb::harness {

//! Estimated peak bytes (doubles: a product of sizes must not wrap around).
struct MemoryNeed {
  double host_bytes = 0;
  double device_bytes = 0;
};

//! Bytes this process may still allocate on the host: /proc/meminfo's MemAvailable, lowered
//! by a cgroup memory limit (v2 memory.max or v1 limit_in_bytes, less the usage) and by an
//! address-space limit (ulimit -v, less the process's size) where one is set.
std::uint64_t host_available_bytes();

//! Free bytes on the current CUDA device; nullopt where it cannot be asked (no GPU: the
//! caller's own GPU check reports that).
std::optional<std::uint64_t> device_free_bytes();

//! Empty if `need` fits; else "needs X GiB of host memory, Y GiB available" (or of device
//! memory). The device is asked only when need.device_bytes > 0.
std::string memory_shortfall(const MemoryNeed& need);

class MemoryShortfall : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

//! Throws MemoryShortfall("<what>: needs ...") unless `need` fits.
void require_memory(const MemoryNeed& need, const std::string& what);

}  // namespace lb::harness

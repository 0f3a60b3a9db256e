#include "lb/harness/nvml.hpp"

#include <dlfcn.h>

#include <map>
#include <memory>
#include <mutex>

namespace lb::harness {
namespace {
// The few NVML entry points used, declared here (their ABI is stable since NVML 1.0).
using nvmlReturn = int;
using nvmlDevice = void*;
constexpr nvmlReturn kSuccess = 0;
constexpr int kClockSm = 1, kClockMem = 2;
using InitFn = nvmlReturn (*)();
using ByUuidFn = nvmlReturn (*)(const char*, nvmlDevice*);
using ClockFn = nvmlReturn (*)(nvmlDevice, int, unsigned*);
using UintFn = nvmlReturn (*)(nvmlDevice, unsigned*);
using ReasonsFn = nvmlReturn (*)(nvmlDevice, unsigned long long*);
using DriverFn = nvmlReturn (*)(char*, unsigned);

template <class F>
F sym(void* lib, const char* name) {
  return lib ? reinterpret_cast<F>(dlsym(lib, name)) : nullptr;
}
}  // namespace

Nvml& Nvml::for_device(const std::string& uuid) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Nvml>> instances;
  std::lock_guard lock(mutex);
  auto& slot = instances[uuid];
  if (!slot) slot.reset(new Nvml(uuid));
  return *slot;
}

Nvml::Nvml(const std::string& uuid) {
  lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib_) return;
  auto init = sym<InitFn>(lib_, "nvmlInit_v2");
  auto by_uuid = sym<ByUuidFn>(lib_, "nvmlDeviceGetHandleByUUID");
  nvmlDevice dev = nullptr;
  if (init && by_uuid && init() == kSuccess && by_uuid(uuid.c_str(), &dev) == kSuccess) device_ = dev;
}

std::optional<unsigned> Nvml::sm_clock_mhz() const {
  unsigned v = 0;
  auto f = sym<ClockFn>(lib_, "nvmlDeviceGetClockInfo");
  if (device_ && f && f(device_, kClockSm, &v) == kSuccess) return v;
  return std::nullopt;
}
std::optional<unsigned> Nvml::sm_clock_max_mhz() const {
  unsigned v = 0;
  auto f = sym<ClockFn>(lib_, "nvmlDeviceGetMaxClockInfo");
  if (device_ && f && f(device_, kClockSm, &v) == kSuccess) return v;
  return std::nullopt;
}
std::optional<unsigned> Nvml::memory_clock_max_mhz() const {
  unsigned v = 0;
  auto f = sym<ClockFn>(lib_, "nvmlDeviceGetMaxClockInfo");
  if (device_ && f && f(device_, kClockMem, &v) == kSuccess) return v;
  return std::nullopt;
}
std::optional<unsigned> Nvml::memory_bus_width_bits() const {
  unsigned v = 0;
  auto f = sym<UintFn>(lib_, "nvmlDeviceGetMemoryBusWidth");
  if (device_ && f && f(device_, &v) == kSuccess) return v;
  return std::nullopt;
}
std::optional<std::uint64_t> Nvml::throttle_reasons() const {
  unsigned long long v = 0;
  auto f = sym<ReasonsFn>(lib_, "nvmlDeviceGetCurrentClocksEventReasons");
  if (!f) f = sym<ReasonsFn>(lib_, "nvmlDeviceGetCurrentClocksThrottleReasons");
  if (device_ && f && f(device_, &v) == kSuccess) return v;
  return std::nullopt;
}
std::optional<std::string> Nvml::driver_version() const {
  char buf[96] = {};
  auto f = sym<DriverFn>(lib_, "nvmlSystemGetDriverVersion");
  if (lib_ && f && f(buf, sizeof buf) == kSuccess) return std::string(buf);
  return std::nullopt;
}

}  // namespace lb::harness

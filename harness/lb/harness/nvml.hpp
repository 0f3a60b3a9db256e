#pragma once
//! NVML, loaded at run time (dlopen) so the binaries start on machines without a driver.
//! Reads clocks, throttle reasons and memory interface facts; every call degrades to
//! "unavailable" instead of failing.

#include <cstdint>
#include <optional>
#include <string>

namespace lb::harness {

class Nvml {
 public:
  //! The process-wide instance bound to the device with this PCI bus id or UUID.
  static Nvml& for_device(const std::string& uuid);

  bool available() const { return device_ != nullptr; }
  std::optional<unsigned> sm_clock_mhz() const;
  std::optional<unsigned> sm_clock_max_mhz() const;
  std::optional<unsigned> memory_clock_max_mhz() const;
  std::optional<unsigned> memory_bus_width_bits() const;
  //! NVML clocks-event (throttle) reason bit mask.
  std::optional<std::uint64_t> throttle_reasons() const;
  std::optional<std::string> driver_version() const;

  //! Reasons that mean the GPU ran slower than it could (not idle, not app clocks).
  static constexpr std::uint64_t kSlowdownMask = 0x4 /*sw power cap*/ | 0x8 /*hw slowdown*/ |
                                                 0x10 /*sync boost*/ | 0x20 /*sw thermal*/ |
                                                 0x40 /*hw thermal*/ | 0x80 /*hw power brake*/;

 private:
  explicit Nvml(const std::string& uuid);
  void* lib_ = nullptr;
  void* device_ = nullptr;
};

}  // namespace lb::harness

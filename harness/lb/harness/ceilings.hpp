#pragma once
//! The device's measured ceilings, taken once per process at start (about a second):
//! device-to-device copy bandwidth, FP32/FP64 FMA and FP32 reciprocal instruction rates, and
//! the host<->device bus (copies to and from pinned and pageable host memory, each direction).
//! Benchmarks state their times against these rather than against datasheet numbers.

#include <cstddef>

#include <nlohmann/json.hpp>

namespace lb::harness {

struct Ceilings {
  double copy_bandwidth_gbs = 0;  //!< bytes read + bytes written per second / 1e9
  double fp32_fma_per_s = 0;      //!< FFMA instructions per second (whole device)
  double fp64_fma_per_s = 0;      //!< DFMA instructions per second
  double fp32_rcp_per_s = 0;      //!< MUFU.RCP (special function unit) per second
  //! Host<->device copies (bytes per second / 1e9) of kBusCopyBytes, best of a few:
  //! host memory pinned (cudaMallocHost: DMA straight from it, the bus's rate) or pageable
  //! (a plain allocation: the driver stages it through its own pinned buffers).
  double h2d_pinned_gbs = 0, d2h_pinned_gbs = 0;
  double h2d_pageable_gbs = 0, d2h_pageable_gbs = 0;

  nlohmann::json to_json() const;
};

//! Bytes of each bus copy the ceilings time (large enough that per-copy overheads vanish).
inline constexpr std::size_t kBusCopyBytes = std::size_t{128} << 20;

Ceilings measure_ceilings();

}  // namespace lb::harness

#pragma once
//! The device's measured ceilings, taken once per process at start (about a second):
//! device-to-device copy bandwidth and FP32/FP64 FMA and FP32 reciprocal instruction rates.
//! Benchmarks state their times against these rather than against datasheet numbers.

#include <nlohmann/json.hpp>

namespace lb::harness {

struct Ceilings {
  double copy_bandwidth_gbs = 0;  //!< bytes read + bytes written per second / 1e9
  double fp32_fma_per_s = 0;      //!< FFMA instructions per second (whole device)
  double fp64_fma_per_s = 0;      //!< DFMA instructions per second
  double fp32_rcp_per_s = 0;      //!< MUFU.RCP (special function unit) per second

  nlohmann::json to_json() const;
};

Ceilings measure_ceilings();

}  // namespace lb::harness

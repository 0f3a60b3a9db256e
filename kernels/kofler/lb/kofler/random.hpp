#pragma once
//! A counter-based generator (splitmix64 of seed and index): draw k of a seed is the same
//! value on the host and in a kernel, so a device fills inputs that the host reference
//! regenerates without storing them.

#include <cmath>
#include <cstdint>

#include "lb/layout/config.hpp"

namespace lb::kofler {

struct CounterRandom {
  std::uint64_t seed;

  LB_HD constexpr explicit CounterRandom(std::uint64_t s) : seed(s) {}

  LB_HD constexpr std::uint64_t bits(std::uint64_t k) const {
    std::uint64_t z = seed + (k + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  //! Uniform in [0, 1) with 53 bits.
  LB_HD constexpr double uniform(std::uint64_t k) const { return double(bits(k) >> 11) * 0x1.0p-53; }
  //! Uniform in [lo, hi) rounded to float, bit-identical on host and device: 24 random bits
  //! (exact in double), one correctly rounded double FMA, one rounding to float.
  LB_HD float uniform_float(std::uint64_t k, double lo, double hi) const {
    return static_cast<float>(fma(hi - lo, double(bits(k) >> 40) * 0x1.0p-24, lo));
  }
};

}  // namespace lb::kofler

#pragma once
//! Deterministic inputs for the Kofler programs without a random-number state.

#include <cstdint>

namespace lb::kofler {

//! A bijection of 32-bit integers (xor-shifts and odd multiplies are each invertible):
//! distinct indices give distinct values; a good avalanche too (lowbias32), so SAMPO's
//! counter-based random numbers use it (host and device: constexpr).
constexpr std::uint32_t mix32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

}  // namespace lb::kofler

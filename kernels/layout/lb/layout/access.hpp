#pragma once
//! Word-wise copies between memory and registers. A layout whose record is contiguous and
//! aligned loads it with the widest aligned word (16 bytes when the alignment allows), which
//! is what makes an `__align__(16)` float record one 128-bit access.

#include <cstddef>
#include <initializer_list>

#include <vector_types.h>

#include "lb/layout/config.hpp"

namespace lb::layout::detail {

//! The widest word (16, 8, 4, 2 or 1 bytes) that both the alignment and the size allow.
constexpr std::size_t word_bytes(std::size_t bytes, std::size_t align) {
  for (std::size_t w : {16, 8, 4, 2})
    if (align >= w && bytes % w == 0) return w;
  return 1;
}
template <std::size_t W> struct Word;
template <> struct Word<16> { using type = uint4; };
template <> struct Word<8> { using type = uint2; };
template <> struct Word<4> { using type = unsigned int; };
template <> struct Word<2> { using type = unsigned short; };
template <> struct Word<1> { using type = unsigned char; };
template <std::size_t Bytes, std::size_t Align>
using WordFor = Word<word_bytes(Bytes, Align)>;

//! Copies `Bytes` bytes from `src` (aligned to `Align`) into the local buffer `dst`.
template <std::size_t Bytes, std::size_t Align>
LB_HD LB_FORCEINLINE void load_words(unsigned char (&dst)[Bytes], const std::byte* src) {
#ifndef __CUDA_ARCH__
  // Host: memcpy, which aliases everything. Integer words would let GCC's type-based alias
  // analysis reorder them against a field's own loads and stores (a lost update at -O3).
  __builtin_memcpy(dst, src, Bytes);
#else
  // Device: typed words, so the compiler emits the widest load the alignment allows.
  using W = typename WordFor<Bytes, Align>::type;
  constexpr std::size_t count = Bytes / sizeof(W);
  W words[count];
LB_UNROLL
  for (std::size_t k = 0; k < count; ++k) words[k] = reinterpret_cast<const W*>(src)[k];
  __builtin_memcpy(dst, words, Bytes);
#endif
}

//! Copies the local buffer `src` to `dst` (aligned to `Align`) word by word.
template <std::size_t Bytes, std::size_t Align>
LB_HD LB_FORCEINLINE void store_words(std::byte* dst, const unsigned char (&src)[Bytes]) {
#ifndef __CUDA_ARCH__
  __builtin_memcpy(dst, src, Bytes);  // as in load_words
#else
  using W = typename WordFor<Bytes, Align>::type;
  constexpr std::size_t count = Bytes / sizeof(W);
  W words[count];
  __builtin_memcpy(words, src, Bytes);
LB_UNROLL
  for (std::size_t k = 0; k < count; ++k) reinterpret_cast<W*>(dst)[k] = words[k];
#endif
}

template <class T>
LB_HD LB_FORCEINLINE T load_scalar(const std::byte* p) {
  return *reinterpret_cast<const T*>(p);
}
template <class T>
LB_HD LB_FORCEINLINE void store_scalar(std::byte* p, const T& v) {
  *reinterpret_cast<T*>(p) = v;
}

constexpr std::size_t round_up(std::size_t v, std::size_t a) { return a == 0 ? v : (v + a - 1) / a * a; }

}  // namespace lb::layout::detail

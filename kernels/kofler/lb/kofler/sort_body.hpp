#pragma once
//! The bitonic sort's per-thread bodies (sort.cu's kernels) over any view, in the phases their
//! __syncthreads separate: the kernels call them on the GPU, and the bitonic_replay_* functions
//! run whole blocks of them on the host in the GPU's order (every thread's phase, then the
//! next), over a View or a RecordingView (lb/layout/recording.hpp).

#include <cstddef>
#include <vector>

#include "lb/kofler/sort.hpp"

namespace lb::kofler {

using SortValue_ = layout::RecordValue<SortRecord>;
inline constexpr unsigned kSortChunkThreads = kSortChunk / 2;  // one comparator per thread
inline constexpr unsigned kSortGlobalThreads = 256;

LB_HD LB_FORCEINLINE void compare_exchange(SortValue_& a, SortValue_& b, bool ascending) {
  if ((a.get<SortKey>() > b.get<SortKey>()) == ascending) {
    const SortValue_ t = a;
    a = b;
    b = t;
  }
}

//! Chunk kernels, first phase: thread t stages records t and t + kSortChunkThreads of the
//! block's chunk (from `base`) into shared memory `s`.
template <class V>
LB_HD LB_FORCEINLINE void bitonic_stage(const V& in, SortValue_* s, std::size_t base, unsigned t) {
  s[t] = in.load(base + t);
  s[t + kSortChunkThreads] = in.load(base + t + kSortChunkThreads);
}

//! One stride of stage `size` in shared memory: thread t's comparator (shared memory only).
LB_HD LB_FORCEINLINE void bitonic_shared_step(SortValue_* s, std::size_t base, std::size_t size, unsigned stride,
                                              unsigned t) {
  const auto pos = unsigned(comparator_low(t, stride));
  SortValue_ a = s[pos], b = s[pos + stride];
  compare_exchange(a, b, ascending_at(base + pos, size));
  s[pos] = a;
  s[pos + stride] = b;
}

//! Chunk kernels, last phase: thread t stores its two records back.
template <class V>
LB_HD LB_FORCEINLINE void bitonic_unstage(const V& out, const SortValue_* s, std::size_t base, unsigned t) {
  out.store(base + t, s[t]);
  out.store(base + t + kSortChunkThreads, s[t + kSortChunkThreads]);
}

//! merge_global's body: comparator c of stride `stride` (>= kSortChunk) of stage `size`.
template <class V>
LB_HD LB_FORCEINLINE void bitonic_global_step(V a, std::size_t size, std::size_t stride, std::size_t c) {
  const std::size_t pos = comparator_low(c, stride);
  SortValue_ x = a.load(pos), y = a.load(pos + stride);
  compare_exchange(x, y, ascending_at(pos, size));
  a.store(pos, x);
  a.store(pos + stride, y);
}

//! Host replays of one block of each kernel, its threads phase by phase in thread order.
//! The shared strides of stage `size` from first_stride down to 1.
inline void bitonic_replay_strides(SortValue_* s, std::size_t base, std::size_t size, unsigned first_stride) {
  for (unsigned stride = first_stride; stride > 0; stride >>= 1)
    for (unsigned t = 0; t < kSortChunkThreads; ++t) bitonic_shared_step(s, base, size, stride, t);
}
//! sort_chunks' block `block`: in -> out.
template <class V>
void bitonic_replay_sort_chunks(const V& in, const V& out, std::size_t block) {
  std::vector<SortValue_> s(kSortChunk);
  const std::size_t base = block * kSortChunk;
  for (unsigned t = 0; t < kSortChunkThreads; ++t) bitonic_stage(in, s.data(), base, t);
  for (std::size_t size = 2; size <= kSortChunk; size <<= 1) bitonic_replay_strides(s.data(), base, size, unsigned(size / 2));
  for (unsigned t = 0; t < kSortChunkThreads; ++t) bitonic_unstage(out, s.data(), base, t);
}
//! merge_shared's block `block` of stage `size`.
template <class V>
void bitonic_replay_merge_shared(const V& a, std::size_t size, std::size_t block) {
  std::vector<SortValue_> s(kSortChunk);
  const std::size_t base = block * kSortChunk;
  for (unsigned t = 0; t < kSortChunkThreads; ++t) bitonic_stage(a, s.data(), base, t);
  bitonic_replay_strides(s.data(), base, size, kSortChunkThreads);
  for (unsigned t = 0; t < kSortChunkThreads; ++t) bitonic_unstage(a, s.data(), base, t);
}
//! merge_global's block `block` (kSortGlobalThreads comparators).
template <class V>
void bitonic_replay_merge_global(const V& a, std::size_t size, std::size_t stride, std::size_t block) {
  for (std::size_t c = block * kSortGlobalThreads; c < (block + 1) * kSortGlobalThreads; ++c)
    bitonic_global_step(a, size, stride, c);
}

}  // namespace lb::kofler

#pragma once
//! Kofler et al. 2015, Sect. 3.2: the synthetic kernels the per-GPU decision tree is trained on
//! (docs/kofler-tree.md). One cluster of m 4-byte float fields (sigma = 4m bytes), all read
//! together, so delta is the same for every pair; one loop of a constant n iterations per
//! thread. T threads over R records (T divides R): thread t's iteration k touches record
//! (kT + t) mod R, a grid-stride walk, so every iteration's T threads touch T consecutive
//! records (a warp's 32 lanes 32 of them) and the layout alone decides how the accesses
//! coalesce; each iteration reads every field of one record and writes field 0. With T n a
//! multiple of R every record gets the same number of updates, and only its own thread
//! touches it (no two threads race).
//!
//! Values: field j >= 1 of record r holds field_value(r, j), an integer in [0, 1023]; field 0
//! starts as NaN (the poison) and the kernel stores max(f0, 1 + sum of fields 1 .. m-1) with a
//! NaN f0 giving the sum: exact in float for any summation order (< 2^24), and idempotent, so
//! every timed run does the same work without restoring its input. Host and device code: the
//! CPU tests run the same body over host storages.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>

#include "lb/kofler/hash.hpp"
#include "lb/layout/config.hpp"
#include "lb/layout/record.hpp"

namespace lb::kofler::tree {

//! The most fields a trained cluster has (sigma up to 64 bytes).
inline constexpr std::size_t kMaxFields = 16;
//! Threads of a warp: the walk gives each warp's lanes consecutive records.
inline constexpr std::size_t kWarp = 32;

//! Field j of the synthetic record.
template <std::size_t J>
struct Slot {};

namespace detail {
template <class Seq>
struct RecordOf;
template <std::size_t... J>
struct RecordOf<std::index_sequence<J...>> {
  using type = layout::Record<layout::Field<Slot<J>, float>...>;
};
}  // namespace detail

//! The record of m float fields, Slot<0> .. Slot<m-1>.
template <std::size_t M>
using SyntheticRecord = typename detail::RecordOf<std::make_index_sequence<M>>::type;

//! Field j (>= 1) of record r: an integer in [0, 1023], from a bijective hash of r * 16 + j.
LB_HD constexpr float field_value(std::size_t r, std::size_t j) {
  return static_cast<float>(mix32(static_cast<std::uint32_t>(r * kMaxFields + j)) & 1023u);
}

//! What field 0 of record r holds after a run: 1 + the sum of its other m - 1 fields.
LB_HD constexpr float expected_first(std::size_t r, std::size_t m) {
  float s = 1.0f;
  for (std::size_t j = 1; j < m; ++j) s += field_value(r, j);
  return s;
}

//! What field j of record r holds after a correct run.
LB_HD constexpr float expected_field(std::size_t r, std::size_t j, std::size_t m) {
  return j == 0 ? expected_first(r, m) : field_value(r, j);
}

//! The record thread `thread` of `threads` touches in iteration k, over `records` records.
LB_HD constexpr std::size_t record_of(std::size_t thread, std::size_t k, std::size_t threads, std::size_t records) {
  return (k * threads + thread) % records;
}

//! One iteration's work on record r: read every field, store max(f0, 1 + the others) in f0.
template <std::size_t M, class View>
LB_HD LB_FORCEINLINE void update_record(const View& v, std::size_t r) {
  float s = 1.0f;
  [&]<std::size_t... J>(std::index_sequence<J...>) {
    ((s += v.template get<Slot<J + 1>>(r)), ...);
  }(std::make_index_sequence<M - 1>{});
  float& f0 = v.template get<Slot<0>>(r);
  const float old = f0;
  f0 = old >= s ? old : s;  // a NaN f0 (the poison) gives s
}

//! One thread's loop: n iterations, the records of record_of (no division: the walk steps by
//! `threads` and wraps, so the kernel's integer work stays small beside its loads).
template <std::size_t M, class View>
LB_HD LB_FORCEINLINE void thread_body(const View& v, std::size_t thread, std::uint32_t n, std::size_t threads,
                                      std::size_t records) {
  std::size_t r = thread;
  for (std::uint32_t k = 0; k < n; ++k) {
    update_record<M>(v, r);
    r += threads;
    if (r >= records) r -= records;
  }
}

//! Sets fields 1 .. m-1 of record r to their values and field 0 to NaN (inputs = poison for
//! field 0); with values = false only field 0.
template <std::size_t M, class View>
LB_HD LB_FORCEINLINE void init_record(const View& v, std::size_t r, bool values) {
  if (values)
    [&]<std::size_t... J>(std::index_sequence<J...>) {
      ((v.template get<Slot<J + 1>>(r) = field_value(r, J + 1)), ...);
    }(std::make_index_sequence<M - 1>{});
  v.template get<Slot<0>>(r) = std::numeric_limits<float>::quiet_NaN();
}

//! A checksum of a storage's 4-byte words, whatever the layout: the sum of mix32 of each
//! word's bits (64-bit, order-free) and how many words there are. Equal checksums of a run
//! and of the expected values mean the same multiset of floats (up to hash collisions).
struct Checksum {
  unsigned long long sum = 0;
  unsigned long long words = 0;
  friend bool operator==(const Checksum&, const Checksum&) = default;
};

LB_HD inline std::uint32_t float_bits(float x) {
  std::uint32_t u;
  __builtin_memcpy(&u, &x, sizeof u);
  return u;
}
LB_HD inline unsigned long long checksum_term(float x) { return mix32(float_bits(x)); }

//! The checksum a correct run leaves in `records` records of m fields (OpenMP on the host;
//! tree_synthetic_reference.cpp).
Checksum reference_checksum(std::size_t records, std::size_t m);

//! A case's geometry: `records` records, n iterations a thread, `threads` threads (0: records / n,
//! one update a record); problem() says why a geometry is unusable.
struct Geometry {
  std::size_t records = 0;
  std::uint32_t iterations = 0;
  std::size_t threads_wanted = 0;

  std::size_t threads() const { return threads_wanted ? threads_wanted : (iterations ? records / iterations : 0); }
  //! Record updates a run makes: threads x n.
  std::size_t updates() const { return threads() * iterations; }
  //! Empty if usable, else why not.
  const char* problem() const {
    if (iterations == 0) return "the loop needs at least one iteration";
    if (records == 0 || records % kWarp != 0) return "records must be a positive multiple of 32";
    if (records > (std::size_t{1} << 28)) return "records must be at most 2^28";
    const std::size_t t = threads();
    if (t == 0 || t % kWarp != 0) return "threads must be a positive multiple of 32";
    if (records % t != 0) return "threads must divide records (each record belongs to one thread)";
    if (updates() % records != 0) return "threads x iterations must be a multiple of records (every record updated equally often)";
    return "";
  }
};

}  // namespace lb::kofler::tree

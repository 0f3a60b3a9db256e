#pragma once
//! Inner arrays (Springer, Sun & Masuhara 2018): a record field holding a variable-length
//! array, `Field<Tag, InnerArray<T, Max>>`, laid out in AoS or SoA by one of four strategies:
//!
//!   none     the record holds a 32-bit arena offset and the length; every element lives in
//!            the arena (one blob per array, elements of record i back to back);
//!   partial  the first N elements in the record (AoS) or in N slot columns (SoA), the rest in
//!            the arena behind a 32-bit offset: a branch (k < N) per access;
//!   full     Max slots in the record (AoS) or one column per slot (SoA: slot k of every
//!            record contiguous, the coalesced form);
//!   object   Max slots as one value: AoS gives full's bytes; SoA one column whose element is
//!            the whole Max-slot array (record i's slots contiguous).
//!
//! Layouts: AoS and SoA (the paper's), and beyond the paper AoSoA of kInnerTileLanes records
//! (aosoa32): the scalars and the arrays' headers (length, arena offset) in tiles of 32 records,
//! each a run of 32 values as AoSoA packs them (packing.hpp), the inline slots and arenas as
//! SoA lays them out (full, partial: a column per slot; object: one column of whole arrays).
//! It is Kofler's method's choice for the synthetic object, value+size tiled:32 | elements
//! alone (docs/advisor.md, §6).
//!
//! Each array field has its own strategy and inlining size: InnerFieldsMapping<Rec, L,
//! InnerStrategies<S0, S1, ...>> takes one strategy per array field in field order (a template
//! argument: the strategy changes the code's shape) and one N per array at run time
//! (InnerArraySizes; one instantiation per (layout, strategies) serves the whole inlining
//! sweep). InnerArrayMapping<Rec, L, S> is the same mapping with S for every array field.
//!
//! Every strategy keeps the length (32 bits) beside the record (the paper's `size` field).
//! The arena holds offsets, never pointers, so a view built on the host works on the device.
//!
//! Capacity (docs/inner-arrays-library.md): full and object hold Max slots per record; none
//! and partial hold N slots inline (0 for none) plus an arena run per record reserved at
//! construction, by default as long as the record's length (so lengths may exceed Max: ragged
//! data such as neighbour lists), or as long as a given per-record capacity (e.g. Max, so a
//! length can grow to Max without reallocation). Lengths and elements are writable:
//! set_length<Tag>(i, n) needs n <= capacity<Tag>(i); element k of record i may be read and
//! written for any k < capacity<Tag>(i), also past the length (its value persists). Both
//! preconditions are checked where LB_INNER_CHECKS is 1, by default where NDEBUG is not (on
//! host and device): a violation prints one line and aborts (traps on the device).
//!
//! Not a `Mapping`: a record with a variable-length array has no fixed-size value, so there is
//! no whole-record load/store. It models `StorageMapping` (storages and views take it) plus
//! locate<Tag>(i) for scalar fields and element/length access for array fields; View's
//! get<Tag>(i, k), length<Tag>(i), set_length<Tag>(i, n) and capacity<Tag>(i) use it.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "lb/layout/host_storage.hpp"
#include "lb/layout/mapping.hpp"
#include "lb/layout/packing.hpp"

#if !defined(NDEBUG) && !defined(LB_INNER_CHECKS)
#define LB_INNER_CHECKS 1
#endif

namespace lb::layout {

//! Field type of an inner array of T with capacity Max (slots reserved by full and object).
template <class T, std::size_t Max>
struct InnerArray {
  using element = T;
  static constexpr std::size_t max = Max;
};

enum class InnerStrategy { none, partial, full, object };
enum class InnerLayout { aos, soa, aosoa32 };
//! Records per tile of InnerLayout::aosoa32.
inline constexpr std::size_t kInnerTileLanes = 32;

namespace detail {
template <InnerStrategy... S>
LB_HD constexpr InnerStrategy strategy_at(std::size_t a) {
  std::size_t k = 0;
  InnerStrategy r = InnerStrategy::none;
  ((r = k++ == a ? S : r), ...);
  return r;
}
}  // namespace detail

//! One strategy per array field of a record, in field order.
template <InnerStrategy... S>
struct InnerStrategies {
  static constexpr std::size_t size = sizeof...(S);
  LB_HD static constexpr InnerStrategy at(std::size_t a) { return detail::strategy_at<S...>(a); }
  static constexpr bool uniform = ((S == detail::strategy_at<S...>(0)) && ...);
  static constexpr bool any_arena = ((S == InnerStrategy::none || S == InnerStrategy::partial) || ...);
};

//! Per-record lengths of every inner array of a record: lengths[a][i] for array a, record i.
using ArrayLengths = std::vector<std::vector<std::uint32_t>>;

//! The run-time sizes of a record's arrays, one entry per array field in field order.
struct InnerArraySizes {
  //! N of each partial array (0 for arrays of the other strategies); empty: 0 for all.
  std::vector<std::size_t> inline_counts;
  //! Per-record capacity to reserve (none, partial: N inline + the rest in the arena; full,
  //! object: at most Max, which they hold anyway); empty, or an empty list for an array: the
  //! record's length.
  ArrayLengths capacities;
};

//! Bytes of a storage: the records (scalars, length/offset headers, inline slots), the
//! arenas, and how much of the two is wasted (alignment padding, inline slots past a length).
struct InnerFootprint {
  std::size_t inline_bytes = 0;
  std::size_t arena_bytes = 0;
  std::size_t wasted_bytes = 0;
  constexpr std::size_t total() const { return inline_bytes + arena_bytes; }
};

namespace detail {
template <class T>
struct is_inner_array : std::false_type {};
template <class T, std::size_t Max>
struct is_inner_array<InnerArray<T, Max>> : std::true_type {};

template <class Rec, std::size_t I>
constexpr bool is_array_field = is_inner_array<typename Rec::template field_type<I>>::value;

//! Arrays among fields 0 .. End-1 of Rec.
template <class Rec, std::size_t End>
constexpr std::size_t arrays_before() {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return (std::size_t{0} + ... + (is_array_field<Rec, I> ? 1 : 0));
  }(std::make_index_sequence<End>{});
}

template <class T>
struct is_inner_strategies : std::false_type {};
template <InnerStrategy... S>
struct is_inner_strategies<InnerStrategies<S...>> : std::true_type {};

//! InnerStrategies with S at array `swept` and Others at every other of the Seq's arrays.
template <std::size_t swept, InnerStrategy S, InnerStrategy Others, class Seq>
struct one_field_strategies;
template <std::size_t swept, InnerStrategy S, InnerStrategy Others, std::size_t... A>
struct one_field_strategies<swept, S, Others, std::index_sequence<A...>> {
  using type = InnerStrategies<(A == swept ? S : Others)...>;
};

//! `strategy` names the one strategy of a mapping whose arrays all share it.
template <class Strategies, bool = Strategies::uniform && Strategies::size != 0>
struct UniformStrategy {};
template <class Strategies>
struct UniformStrategy<Strategies, true> {
  static constexpr InnerStrategy strategy = Strategies::at(0);
};

//! AoSoA's tile bytes, a member of the AoSoA mappings only: the AoS and SoA mappings (kernel
//! parameters) keep the size and the code they had before AoSoA.
template <bool Tiled>
struct InnerTile {
  static constexpr std::size_t tile_bytes_ = 0;
};
template <>
struct InnerTile<true> {
  std::size_t tile_bytes_ = 0;
};

[[noreturn]] inline void inner_mapping_error(const std::string& why) {
  throw std::invalid_argument("inner array mapping: " + why);
}

//! Elements record i reserves for array a: its capacity where given, else its length.
inline std::uint32_t reserved_elements(const ArrayLengths& lengths, const ArrayLengths& capacities, std::size_t a,
                                       std::size_t i) {
  return capacities.empty() || capacities[a].empty() ? lengths[a][i] : capacities[a][i];
}

//! Lists of one entry per array (lengths; inline counts and capacities where given).
inline void check_inner_list_counts(std::size_t arrays, const ArrayLengths& lengths, const InnerArraySizes& sizes) {
  const auto check = [&](std::size_t got, bool optional, const char* what) {
    if (got != arrays && !(optional && got == 0))
      inner_mapping_error(std::to_string(got) + " " + what + " for a record with " + std::to_string(arrays) +
                          " inner arrays");
  };
  check(lengths.size(), false, "length lists");
  check(sizes.inline_counts.size(), true, "inline counts");
  check(sizes.capacities.size(), true, "capacity lists");
}

//! One array field of a mapping, checked and sized: what it holds inline per record, its
//! arena, its footprint, and the bytes of its headers and elements. Not a template (the
//! mapping's per-type code stays small): a for array a with strategy s, capacity max.
struct InnerArrayPlan {
  std::size_t inline_count = 0, arena_elements = 0;
  InnerFootprint footprint;
  std::size_t owned_bytes = 0;
};
inline InnerArrayPlan plan_inner_array(std::size_t a, InnerStrategy s, std::size_t max, std::size_t element_bytes,
                                       const ArrayLengths& lengths, const InnerArraySizes& sizes) {
  const std::size_t n_records = lengths[0].size();
  const bool has_arena = s == InnerStrategy::none || s == InnerStrategy::partial;
  const auto array = [&] { return "array " + std::to_string(a); };
  const auto record = [&](std::size_t i) { return array() + " of record " + std::to_string(i); };
  const std::vector<std::uint32_t>& len = lengths[a];
  if (len.size() != n_records)
    inner_mapping_error(array() + " has " + std::to_string(len.size()) + " lengths, array 0 has " +
                        std::to_string(n_records));
  if (!sizes.capacities.empty() && !sizes.capacities[a].empty() && sizes.capacities[a].size() != n_records)
    inner_mapping_error(array() + " has " + std::to_string(sizes.capacities[a].size()) + " capacities for " +
                        std::to_string(n_records) + " records");
  const std::size_t n = sizes.inline_counts.empty() ? 0 : sizes.inline_counts[a];
  if (s != InnerStrategy::partial && n != 0)
    inner_mapping_error(array() + ": an inline count of " + std::to_string(n) + " is for the partial strategy only");
  if (n > max)
    inner_mapping_error("inline count " + std::to_string(n) + " above " + array() + "'s capacity " +
                        std::to_string(max));
  InnerArrayPlan plan;
  plan.inline_count = s == InnerStrategy::none ? 0 : s == InnerStrategy::partial ? n : max;
  std::size_t arena = 0, elements = 0;
  for (std::size_t i = 0; i < n_records; ++i) {
    if (!has_arena && len[i] > max)
      inner_mapping_error(record(i) + " has length " + std::to_string(len[i]) + " above its capacity " +
                          std::to_string(max) + " (full and object reserve Max slots; none and partial take any length)");
    const std::uint32_t reserved = reserved_elements(lengths, sizes.capacities, a, i);
    if (reserved < len[i])
      inner_mapping_error(record(i) + " has length " + std::to_string(len[i]) + " above the capacity " +
                          std::to_string(reserved) + " given for it");
    if (!has_arena && reserved > max)
      inner_mapping_error(record(i) + ": a capacity of " + std::to_string(reserved) + " above Max = " +
                          std::to_string(max) + " (full and object hold Max slots)");
    arena += reserved > plan.inline_count ? reserved - plan.inline_count : 0;
    elements += len[i];
  }
  if (!has_arena) arena = 0;
  if (arena > std::numeric_limits<std::uint32_t>::max())
    inner_mapping_error(array() + "'s arena holds " + std::to_string(arena) + " elements, past 32-bit offsets");
  plan.arena_elements = arena;
  const std::size_t headers = n_records * (has_arena ? 8 : 4);
  plan.owned_bytes = headers + elements * element_bytes;
  plan.footprint.inline_bytes = headers + n_records * plan.inline_count * element_bytes;
  plan.footprint.arena_bytes = arena * element_bytes;
  plan.footprint.wasted_bytes = plan.footprint.total() - plan.owned_bytes;
  return plan;
}

//! A broken precondition of a view's write or element access (LB_INNER_CHECKS builds).
[[noreturn]] LB_HD inline void inner_precondition_failed(const char* what, std::size_t record, std::size_t value,
                                                         std::size_t capacity) {
#if defined(__CUDA_ARCH__)
  printf("layoutbench: inner array: %s %llu at record %llu, past its capacity %llu\n", what,
         static_cast<unsigned long long>(value), static_cast<unsigned long long>(record),
         static_cast<unsigned long long>(capacity));
  __trap();
#else
  std::fprintf(stderr, "layoutbench: inner array: %s %zu at record %zu, past its capacity %zu\n", what, value, record,
               capacity);
  std::abort();
#endif
}
}  // namespace detail

//! S for array field Tag of Rec, Others for the rest: the paper's sweep of one field over the
//! strategies while the other arrays stay fully inlined.
template <class Rec, class Tag, InnerStrategy S, InnerStrategy Others = InnerStrategy::full>
using OneFieldStrategies = typename detail::one_field_strategies<
    detail::arrays_before<Rec, Rec::template index_of<Tag>>(), S, Others,
    std::make_index_sequence<detail::arrays_before<Rec, Rec::field_count>()>>::type;

//! S for every array field of Rec.
template <class Rec, InnerStrategy S>
using UniformStrategies = typename detail::one_field_strategies<
    0, S, S, std::make_index_sequence<detail::arrays_before<Rec, Rec::field_count>()>>::type;

template <class Rec, InnerLayout L, class Strategies>
class InnerFieldsMapping : public detail::UniformStrategy<Strategies>,
                           public detail::InnerTile<L == InnerLayout::aosoa32> {
  static_assert(detail::is_inner_strategies<Strategies>::value, "strategies come as InnerStrategies<S...>");

 public:
  using record = Rec;
  using strategies = Strategies;
  static constexpr InnerLayout layout = L;
  static constexpr std::size_t field_count = Rec::field_count;
  static constexpr std::size_t array_count = detail::arrays_before<Rec, field_count>();
  static_assert(array_count >= 1, "an inner-array mapping needs a record with an InnerArray field");
  static_assert(Strategies::size == array_count, "one strategy per inner-array field of the record");

  //! Strategy of field I (an array), and whether it keeps an arena offset and an arena.
  template <std::size_t I>
  static constexpr InnerStrategy field_strategy = Strategies::at(detail::arrays_before<Rec, I>());
  template <std::size_t I>
  static constexpr bool field_has_arena =
      field_strategy<I> == InnerStrategy::none || field_strategy<I> == InnerStrategy::partial;
  template <class Tag>
  static constexpr InnerStrategy strategy_of = field_strategy<Rec::template index_of<Tag>>;
  template <class Tag>
  static constexpr bool has_arena_of = field_has_arena<Rec::template index_of<Tag>>;
  //! Whether any array keeps an arena (every one, where all share a strategy).
  static constexpr bool has_arena = Strategies::any_arena;

  //! AoS: blob 0 holds the records, blob 1 + a array a's arena. SoA: one blob per scalar
  //! field; per array four: lengths, arena offsets, inline slots, arena (empty where the
  //! strategy has none). AoSoA: blob 0 holds the tiles; per array two: inline slots, arena.
  static constexpr std::size_t blob_count = L == InnerLayout::aos   ? 1 + array_count
                                            : L == InnerLayout::soa ? field_count - array_count + 4 * array_count
                                                                    : 1 + 2 * array_count;

  //! Blob numbers of field I (a scalar: its own; an array: its parts), compile-time constants.
  template <std::size_t I>
  static constexpr std::size_t first_blob = L == InnerLayout::soa ? I + 3 * detail::arrays_before<Rec, I>() : 0;
  template <std::size_t I>
  static constexpr std::size_t length_blob = first_blob<I>;
  template <std::size_t I>
  static constexpr std::size_t offset_blob = first_blob<I> + (L == InnerLayout::soa ? 1 : 0);
  template <std::size_t I>
  static constexpr std::size_t slots_blob = L == InnerLayout::aos   ? 0
                                            : L == InnerLayout::soa ? first_blob<I> + 2
                                                                    : 1 + 2 * detail::arrays_before<Rec, I>();
  template <std::size_t I>
  static constexpr std::size_t arena_blob = L == InnerLayout::aos   ? 1 + detail::arrays_before<Rec, I>()
                                            : L == InnerLayout::soa ? first_blob<I> + 3
                                                                    : 2 + 2 * detail::arrays_before<Rec, I>();

  //! Throws std::invalid_argument naming the problem: lengths not one list per array of one
  //! record count, `partial_inline` (N of every partial array) nonzero where no array is
  //! partial or above an array's Max, a length above Max under full or object, an arena past
  //! 2^32 elements. Each none/partial array reserves its records' lengths.
  InnerFieldsMapping(const ArrayLengths& lengths, std::size_t partial_inline = 0) {
    if (!has_partial() && partial_inline != 0)
      detail::inner_mapping_error("an inline count of " + std::to_string(partial_inline) +
                                  " is for the partial strategy only");
    InnerArraySizes sizes;
    for (std::size_t a = 0; a < array_count; ++a)
      sizes.inline_counts.push_back(Strategies::at(a) == InnerStrategy::partial ? partial_inline : 0);
    build(lengths, sizes);
  }
  //! Per array: N (InnerArraySizes::inline_counts) and the capacity each record reserves.
  //! Throws as above, and for lists of the wrong count, an N for a non-partial array, a
  //! capacity below a length or (full, object) above Max.
  InnerFieldsMapping(const ArrayLengths& lengths, const InnerArraySizes& sizes) { build(lengths, sizes); }

  LB_HD constexpr std::size_t size() const { return n_; }
  constexpr std::size_t blob_bytes(std::size_t b) const { return blob_bytes_[b]; }
  constexpr std::size_t blob_alignment(std::size_t b) const { return blob_alignment_[b]; }
  constexpr const InnerFootprint& footprint() const { return footprint_; }
  //! Array Tag's share of the footprint: its headers and inline slots (AoS: without the
  //! record's padding), its arena, and its slots (inline and arena) past the records' lengths.
  template <class Tag>
  constexpr const InnerFootprint& footprint_of() const {
    return array_footprint_[detail::arrays_before<Rec, array_field<Tag>()>()];
  }
  //! Elements of array Tag held inline per record (0, N or Max by strategy).
  template <class Tag>
  LB_HD constexpr std::size_t inline_count() const {
    return places_[array_field<Tag>()].inline_count;
  }
  //! Bytes from one record to the next in AoS (0 in SoA and AoSoA).
  constexpr std::size_t record_stride() const { return record_stride_; }
  //! Bytes of one tile of kInnerTileLanes records in AoSoA (0 in AoS and SoA).
  constexpr std::size_t tile_bytes() const { return this->tile_bytes_; }

  //! A scalar field of record i.
  template <class Tag>
  LB_HD LB_FORCEINLINE constexpr Location locate(std::size_t i) const {
    constexpr std::size_t I = Rec::template index_of<Tag>;
    static_assert(I < field_count && !detail::is_array_field<Rec, I>,
                  "locate<Tag>(i) is for scalar fields: reach an inner array with get<Tag>(i, k)");
    return {first_blob<I>, places_[I].base + record_offset(this->tile_bytes_, places_[I].stride, i)};
  }
  //! Array Tag's length header of record i, and (none, partial) its arena offset header.
  template <class Tag>
  LB_HD LB_FORCEINLINE constexpr Location locate_length(std::size_t i) const {
    constexpr std::size_t I = array_field<Tag>();
    return {length_blob<I>, places_[I].base + record_offset(this->tile_bytes_, places_[I].stride, i)};
  }
  template <class Tag>
  LB_HD LB_FORCEINLINE constexpr Location locate_arena_offset(std::size_t i) const {
    constexpr std::size_t I = array_field<Tag>();
    static_assert(field_has_arena<I>, "full and object keep no arena offset");
    return {offset_blob<I>,
            places_[I].offset_base + record_offset(this->tile_bytes_, places_[I].offset_stride, i)};
  }

  template <class Tag>
  LB_HD LB_FORCEINLINE std::uint32_t length(const std::byte* const* blobs, std::size_t i) const {
    const Location loc = locate_length<Tag>(i);
    return detail::load_scalar<std::uint32_t>(blobs[loc.blob] + loc.offset);
  }
  //! Sets array Tag's length of record i; needs length <= capacity<Tag>(blobs, i).
  template <class Tag>
  LB_HD LB_FORCEINLINE void set_length(std::byte* const* blobs, std::size_t i, std::uint32_t length) const {
#if LB_INNER_CHECKS
    const std::uint32_t cap = capacity<Tag>(blobs, i);
    if (length > cap) detail::inner_precondition_failed("length", i, length, cap);
#endif
    const Location loc = locate_length<Tag>(i);
    detail::store_scalar<std::uint32_t>(blobs[loc.blob] + loc.offset, length);
  }
  //! Elements array Tag of record i can hold: Max (full, object); N plus its arena run (none,
  //! partial; the run ends where record i + 1's starts).
  template <class Tag>
  LB_HD LB_FORCEINLINE std::uint32_t capacity(const std::byte* const* blobs, std::size_t i) const {
    constexpr std::size_t I = array_field<Tag>();
    if constexpr (field_has_arena<I>) {
      const Place& p = places_[I];
      const std::byte* offsets = blobs[offset_blob<I>] + p.offset_base;
      const std::uint32_t start =
          detail::load_scalar<std::uint32_t>(offsets + record_offset(this->tile_bytes_, p.offset_stride, i));
      const std::uint32_t end =
          i + 1 < n_
              ? detail::load_scalar<std::uint32_t>(offsets + record_offset(this->tile_bytes_, p.offset_stride, i + 1))
              : static_cast<std::uint32_t>(arena_elements_[detail::arrays_before<Rec, I>()]);
      return p.inline_count + (end - start);
    } else {
      return static_cast<std::uint32_t>(Rec::template field_type<I>::max);
    }
  }

  //! Where element k of array Tag of record i lives (none and partial read the arena offset).
  template <class Tag>
  LB_HD LB_FORCEINLINE Location locate_element(const std::byte* const* blobs, std::size_t i, std::size_t k) const {
    return with_element<Tag>(blobs, i, k, [](auto blob, std::size_t offset) { return Location{blob, offset}; });
  }
  //! Address of element k of array Tag of record i; needs k < capacity<Tag>(blobs, i).
  template <class Tag>
  LB_HD LB_FORCEINLINE std::byte* element_address(std::byte* const* blobs, std::size_t i, std::size_t k) const {
#if LB_INNER_CHECKS
    const std::uint32_t cap = capacity<Tag>(blobs, i);
    if (k >= cap) detail::inner_precondition_failed("element", i, k, cap);
#endif
    return with_element<Tag>(blobs, i, k, [&](auto blob, std::size_t offset) { return blobs[blob] + offset; });
  }

  //! Writes every record's length and arena offset (arena runs assigned in record order, a
  //! prefix sum of the reserved capacities) into the blobs. `lengths` and `capacities` must
  //! be those the mapping was built from.
  void write_headers(std::byte* const* blobs, const ArrayLengths& lengths, const ArrayLengths& capacities = {}) const {
    for_each_field<Rec>([&](auto f) {
      constexpr std::size_t I = decltype(f)::value;
      if constexpr (detail::is_array_field<Rec, I>) {
        constexpr std::size_t a = detail::arrays_before<Rec, I>();
        using Tag = typename Rec::template field<I>::tag;
        const auto differ = [] { throw std::invalid_argument("inner array headers: lengths differ from the mapping's"); };
        if (lengths.size() != array_count || lengths[a].size() != n_ ||
            !(capacities.empty() || (capacities.size() == array_count &&
                                     (capacities[a].empty() || capacities[a].size() == n_))))
          differ();
        std::uint32_t next = 0;
        for (std::size_t i = 0; i < n_; ++i) {
          const std::uint32_t len = lengths[a][i], reserved = detail::reserved_elements(lengths, capacities, a, i);
          if ((!field_has_arena<I> && reserved > Rec::template field_type<I>::max) || len > reserved)
            differ();  // past the reserved slots
          const Location l = locate_length<Tag>(i);
          detail::store_scalar<std::uint32_t>(blobs[l.blob] + l.offset, len);
          if constexpr (field_has_arena<I>) {
            const Location o = locate_arena_offset<Tag>(i);
            detail::store_scalar<std::uint32_t>(blobs[o.blob] + o.offset, next);
            next += reserved > places_[I].inline_count ? reserved - places_[I].inline_count : 0;
          }
        }
        if (field_has_arena<I> && next != arena_elements_[a]) differ();
      }
    });
  }

 private:
  //! How one field is addressed: a scalar (or an array's length header) at base + i * stride
  //! (AoSoA: within record i's tile, record_offset); the arena offset header likewise; inline
  //! slot k at slots_base + i * slot_record_stride + k * slot_stride.
  struct Place {
    std::size_t base = 0, stride = 0;
    std::size_t offset_base = 0, offset_stride = 0;
    std::size_t slots_base = 0, slot_record_stride = 0, slot_stride = 0;
    std::uint32_t inline_count = 0;
  };

  //! Byte offset of record i's entry from its run's start (a place's base), for `stride`-byte
  //! entries: i entries on (AoS, SoA: the expressions their kernels compiled before AoSoA), or
  //! lane i % kInnerTileLanes of tile i / kInnerTileLanes (AoSoA).
  //! Static, the tile bytes given: a member function here changed the AoS and SoA kernels'
  //! code (the traffic plan kernels: one global load fewer); this keeps it as it was.
  LB_HD LB_FORCEINLINE static constexpr std::size_t record_offset(std::size_t tile_bytes, std::size_t stride,
                                                                   std::size_t i) {
    if constexpr (L == InnerLayout::aosoa32)
      return (i / kInnerTileLanes) * tile_bytes + (i % kInnerTileLanes) * stride;
    else
      return i * stride;
  }

  template <class Tag>
  LB_HD static constexpr std::size_t array_field() {
    constexpr std::size_t I = Rec::template index_of<Tag>;
    static_assert(I < field_count && detail::is_array_field<Rec, I>, "Tag names no inner array of the record");
    return I;
  }

  static constexpr bool has_partial() {
    for (std::size_t a = 0; a < array_count; ++a)
      if (Strategies::at(a) == InnerStrategy::partial) return true;
    return false;
  }

  void build(const ArrayLengths& lengths, const InnerArraySizes& sizes) {
    detail::check_inner_list_counts(array_count, lengths, sizes);
    n_ = lengths[0].size();
    std::size_t owned = 0;  // bytes that hold data: scalars, headers, elements
    for_each_field<Rec>([&](auto f) {
      constexpr std::size_t I = decltype(f)::value;
      if constexpr (detail::is_array_field<Rec, I>) {
        using A = typename Rec::template field_type<I>;
        constexpr std::size_t a = detail::arrays_before<Rec, I>();
        const detail::InnerArrayPlan plan =
            detail::plan_inner_array(a, field_strategy<I>, A::max, sizeof(typename A::element), lengths, sizes);
        places_[I].inline_count = static_cast<std::uint32_t>(plan.inline_count);
        arena_elements_[a] = plan.arena_elements;
        array_footprint_[a] = plan.footprint;
        owned += plan.owned_bytes;
      } else {
        owned += n_ * Rec::size_of(I);
      }
    });
    if constexpr (L == InnerLayout::aos)
      place_aos();
    else if constexpr (L == InnerLayout::soa)
      place_soa();
    else
      place_tiled();
    for (std::size_t b = 0; b < blob_count; ++b)
      (is_arena_blob(b) ? footprint_.arena_bytes : footprint_.inline_bytes) += blob_bytes_[b];
    footprint_.wasted_bytes = footprint_.total() - owned;
  }

  //! Calls at(blob as a compile-time constant, byte offset) for element k of array Tag of
  //! record i; one body serves locations (tests) and addresses (kernels).
  template <class Tag, class At>
  LB_HD LB_FORCEINLINE auto with_element(const std::byte* const* blobs, std::size_t i, std::size_t k, At&& at) const {
    constexpr std::size_t I = array_field<Tag>();
    using T = typename Rec::template field_type<I>::element;
    const Place& p = places_[I];
    const auto in_record = [&] {
      return at(std::integral_constant<std::size_t, slots_blob<I>>{}, p.slots_base + i * p.slot_record_stride + k * p.slot_stride);
    };
    if constexpr (field_has_arena<I>) {
      const auto in_arena = [&] {
        const std::size_t start = detail::load_scalar<std::uint32_t>(
            blobs[offset_blob<I>] + p.offset_base + record_offset(this->tile_bytes_, p.offset_stride, i));
        return at(std::integral_constant<std::size_t, arena_blob<I>>{}, (start + k - p.inline_count) * sizeof(T));
      };
      if constexpr (field_strategy<I> == InnerStrategy::none) return in_arena();
      else return k < p.inline_count ? in_record() : in_arena();
    } else {
      return in_record();
    }
  }

  constexpr bool is_arena_blob(std::size_t b) const {
    bool arena = false;
    for_each_field<Rec>([&](auto f) {
      constexpr std::size_t I = decltype(f)::value;
      if constexpr (detail::is_array_field<Rec, I>) arena = arena || b == arena_blob<I>;
    });
    return arena;
  }

  template <std::size_t I>
  void set_arena() {
    using T = typename Rec::template field_type<I>::element;
    blob_bytes_[arena_blob<I>] = arena_elements_[detail::arrays_before<Rec, I>()] * sizeof(T);
    blob_alignment_[arena_blob<I>] = alignof(T);
  }

  //! The runs a record packs, in field order: each scalar, and per array its length, its arena
  //! offset (none, partial) and, `with_slots`, its inline slots as one run. Returns the count.
  std::size_t record_runs(detail::FieldShape* shapes, bool with_slots) const {
    std::size_t count = 0;
    for_each_field<Rec>([&](auto f) {
      constexpr std::size_t I = decltype(f)::value;
      if constexpr (detail::is_array_field<Rec, I>) {
        using T = typename Rec::template field_type<I>::element;
        shapes[count++] = {4, 4};
        if (field_has_arena<I>) shapes[count++] = {4, 4};
        if (with_slots && places_[I].inline_count > 0)
          shapes[count++] = {places_[I].inline_count * sizeof(T), alignof(T)};
      } else {
        shapes[count++] = {Rec::size_of(I), Rec::align_of(I)};
      }
    });
    return count;
  }

  //! One blob of records packed by C's struct rules (packing.hpp): record_runs with the slots.
  void place_aos() {
    detail::FieldShape shapes[3 * field_count];
    std::size_t offsets[3 * field_count];
    const std::size_t count = record_runs(shapes, true);
    record_stride_ = detail::pack_runs(shapes, count, 1, offsets);
    std::size_t k = 0;
    for_each_field<Rec>([&](auto f) {
      constexpr std::size_t I = decltype(f)::value;
      Place& p = places_[I];
      p.base = offsets[k++];
      p.stride = record_stride_;
      if constexpr (detail::is_array_field<Rec, I>) {
        using T = typename Rec::template field_type<I>::element;
        if (field_has_arena<I>) {
          p.offset_base = offsets[k++];
          p.offset_stride = record_stride_;
        }
        if (p.inline_count > 0) p.slots_base = offsets[k++];
        p.slot_record_stride = record_stride_;
        p.slot_stride = sizeof(T);
        set_arena<I>();
      }
    });
    blob_bytes_[0] = n_ * record_stride_;
    blob_alignment_[0] = detail::max_align(shapes, count);
  }

  //! A column per scalar, per array a column of lengths and one of arena offsets; inline slots
  //! as columns (partial, full: column k holds slot k of every record) or as one column of
  //! whole arrays (object).
  void place_soa() {
    for_each_field<Rec>([&](auto f) {
      constexpr std::size_t I = decltype(f)::value;
      Place& p = places_[I];
      if constexpr (detail::is_array_field<Rec, I>) {
        p.stride = 4;
        blob_bytes_[length_blob<I>] = n_ * 4;
        blob_alignment_[length_blob<I>] = 4;
        p.offset_stride = 4;
        blob_bytes_[offset_blob<I>] = field_has_arena<I> ? n_ * 4 : 0;
        blob_alignment_[offset_blob<I>] = 4;
        place_slot_columns<I>();
        set_arena<I>();
      } else {
        p.stride = Rec::size_of(I);
        blob_bytes_[first_blob<I>] = n_ * Rec::size_of(I);
        blob_alignment_[first_blob<I>] = Rec::align_of(I);
      }
    });
  }

  //! Array field I's inline slots in their blob as SoA lays them out: column k holds slot k of
  //! every record (partial, full), or one column of whole arrays (object).
  template <std::size_t I>
  void place_slot_columns() {
    using T = typename Rec::template field_type<I>::element;
    Place& p = places_[I];
    const bool whole_arrays = field_strategy<I> == InnerStrategy::object;
    p.slot_record_stride = whole_arrays ? p.inline_count * sizeof(T) : sizeof(T);
    p.slot_stride = whole_arrays ? sizeof(T) : n_ * sizeof(T);
    blob_bytes_[slots_blob<I>] = n_ * p.inline_count * sizeof(T);
    blob_alignment_[slots_blob<I>] = alignof(T);
  }

  //! Tiles of kInnerTileLanes records in blob 0: each scalar, and per array its length and its
  //! arena offset (none, partial), a run of kInnerTileLanes values each, packed as AoSoA packs
  //! a record's fields (packing.hpp); the slots and arenas as SoA's (place_slot_columns).
  void place_tiled() {
    detail::FieldShape shapes[3 * field_count];
    std::size_t offsets[3 * field_count];
    const std::size_t count = record_runs(shapes, false);
    this->tile_bytes_ = detail::pack_runs(shapes, count, kInnerTileLanes, offsets);
    std::size_t k = 0;
    for_each_field<Rec>([&](auto f) {
      constexpr std::size_t I = decltype(f)::value;
      Place& p = places_[I];
      p.base = offsets[k++];
      if constexpr (detail::is_array_field<Rec, I>) {
        p.stride = 4;
        if (field_has_arena<I>) {
          p.offset_base = offsets[k++];
          p.offset_stride = 4;
        }
        place_slot_columns<I>();
        set_arena<I>();
      } else {
        p.stride = Rec::size_of(I);
      }
    });
    blob_bytes_[0] = (n_ + kInnerTileLanes - 1) / kInnerTileLanes * this->tile_bytes_;
    blob_alignment_[0] = detail::max_align(shapes, count);
  }

  std::size_t n_ = 0;
  std::size_t record_stride_ = 0;
  Place places_[field_count] = {};
  std::size_t arena_elements_[array_count] = {};
  std::size_t blob_bytes_[blob_count] = {};
  std::size_t blob_alignment_[blob_count] = {};
  InnerFootprint footprint_;
  InnerFootprint array_footprint_[array_count] = {};
};

//! One strategy S for every array field of Rec: the mapping of the inner suite's programs.
template <class Rec, InnerLayout L, InnerStrategy S>
using InnerArrayMapping = InnerFieldsMapping<Rec, L, UniformStrategies<Rec, S>>;

//! A host storage of mapping M for these lengths, headers written, elements and scalars zero.
template <class M>
HostStorage<M> inner_host_storage(const ArrayLengths& lengths, std::size_t partial_inline = 0) {
  HostStorage<M> storage(M(lengths, partial_inline));
  storage.mapping().write_headers(storage.view().blobs, lengths);
  return storage;
}
//! The same with per-array inline counts and reserved capacities.
template <class M>
HostStorage<M> inner_host_storage(const ArrayLengths& lengths, const InnerArraySizes& sizes) {
  HostStorage<M> storage(M(lengths, sizes));
  storage.mapping().write_headers(storage.view().blobs, lengths, sizes.capacities);
  return storage;
}

//! Ragged arrays (CSR: row r's elements are a run of one arena) are an inner array alone in
//! its record, not inlined, in SoA: a column of lengths, a column of arena offsets, the arena.
struct RaggedElements {};
template <class T>
using RaggedRecord = Record<Field<RaggedElements, InnerArray<T, 0>>>;
template <class T>
using RaggedMapping = InnerArrayMapping<RaggedRecord<T>, InnerLayout::soa, InnerStrategy::none>;

//! Row lengths of CSR offsets (rows + 1 non-decreasing entries from 0); throws
//! std::invalid_argument naming the first bad entry.
template <class Offset>
ArrayLengths lengths_from_csr(const std::vector<Offset>& offsets) {
  if (offsets.empty() || offsets[0] != 0)
    throw std::invalid_argument("CSR offsets: need rows + 1 entries starting at 0");
  std::vector<std::uint32_t> lengths(offsets.size() - 1);
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    if (offsets[r + 1] < offsets[r] ||
        static_cast<std::uint64_t>(offsets[r + 1] - offsets[r]) > std::numeric_limits<std::uint32_t>::max())
      throw std::invalid_argument("CSR offsets: entry " + std::to_string(r + 1) + " is below entry " +
                                  std::to_string(r) + " or a row past 2^32 elements");
    lengths[r] = static_cast<std::uint32_t>(offsets[r + 1] - offsets[r]);
  }
  return {std::move(lengths)};
}

}  // namespace lb::layout

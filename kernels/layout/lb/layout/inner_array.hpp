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
//! Every strategy keeps the length (32 bits) beside the record (the paper's `size` field).
//! The arena holds offsets, never pointers, so a view built on the host works on the device.
//! N is a run-time value of the mapping: one instantiation per (layout, strategy) serves the
//! whole inlining sweep (a register compare where a constant would fold; the strategy, which
//! changes the code's shape, is a template parameter). For none and partial a length may
//! exceed Max (ragged data such as neighbour lists); full and object need length <= Max.
//!
//! Not a `Mapping`: a record with a variable-length array has no fixed-size value, so there is
//! no whole-record load/store. It models `StorageMapping` (storages and views take it) plus
//! locate<Tag>(i) for scalar fields and element/length access for array fields; View's
//! get<Tag>(i, k) and length<Tag>(i) use it.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "lb/layout/host_storage.hpp"
#include "lb/layout/mapping.hpp"
#include "lb/layout/packing.hpp"

namespace lb::layout {

//! Field type of an inner array of T with capacity Max (slots reserved by full and object).
template <class T, std::size_t Max>
struct InnerArray {
  using element = T;
  static constexpr std::size_t max = Max;
};

enum class InnerStrategy { none, partial, full, object };
enum class InnerLayout { aos, soa };

//! Per-record lengths of every inner array of a record: lengths[a][i] for array a, record i.
using ArrayLengths = std::vector<std::vector<std::uint32_t>>;

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
}  // namespace detail

template <class Rec, InnerLayout L, InnerStrategy S>
class InnerArrayMapping {
 public:
  using record = Rec;
  static constexpr InnerLayout layout = L;
  static constexpr InnerStrategy strategy = S;
  static constexpr std::size_t field_count = Rec::field_count;
  static constexpr std::size_t array_count = detail::arrays_before<Rec, field_count>();
  static_assert(array_count >= 1, "an inner-array mapping needs a record with an InnerArray field");
  static constexpr bool has_arena = S == InnerStrategy::none || S == InnerStrategy::partial;
  //! AoS: blob 0 holds the records, blob 1 + a array a's arena. SoA: one blob per scalar
  //! field; per array four: lengths, arena offsets, inline slots, arena (empty where the
  //! strategy has none).
  static constexpr std::size_t blob_count =
      L == InnerLayout::aos ? 1 + array_count : field_count - array_count + 4 * array_count;

  //! Blob numbers of field I (a scalar: its own; an array: its parts), compile-time constants.
  template <std::size_t I>
  static constexpr std::size_t first_blob = L == InnerLayout::aos ? 0 : I + 3 * detail::arrays_before<Rec, I>();
  template <std::size_t I>
  static constexpr std::size_t length_blob = first_blob<I>;
  template <std::size_t I>
  static constexpr std::size_t offset_blob = first_blob<I> + (L == InnerLayout::aos ? 0 : 1);
  template <std::size_t I>
  static constexpr std::size_t slots_blob = first_blob<I> + (L == InnerLayout::aos ? 0 : 2);
  template <std::size_t I>
  static constexpr std::size_t arena_blob =
      L == InnerLayout::aos ? 1 + detail::arrays_before<Rec, I>() : first_blob<I> + 3;

  //! Throws std::invalid_argument naming the problem: lengths not one list per array of one
  //! record count, `partial_inline` (the partial strategy's N; 0 for the other strategies)
  //! above an array's Max, a length above Max under full or object, an arena past 2^32 elements.
  InnerArrayMapping(const ArrayLengths& lengths, std::size_t partial_inline = 0) {
    auto fail = [](const std::string& why) { throw std::invalid_argument("inner array mapping: " + why); };
    if (lengths.size() != array_count)
      fail(std::to_string(lengths.size()) + " length lists for a record with " + std::to_string(array_count) +
           " inner arrays");
    n_ = lengths[0].size();
    if (S != InnerStrategy::partial && partial_inline != 0)
      fail("an inline count of " + std::to_string(partial_inline) + " is for the partial strategy only");
    std::size_t owned = 0;  // bytes that hold data: scalars, headers, elements
    for_each_field<Rec>([&](auto f) {
      constexpr std::size_t I = decltype(f)::value;
      if constexpr (detail::is_array_field<Rec, I>) {
        using A = typename Rec::template field_type<I>;
        constexpr std::size_t a = detail::arrays_before<Rec, I>();
        const std::vector<std::uint32_t>& len = lengths[a];
        if (len.size() != n_)
          fail("array " + std::to_string(a) + " has " + std::to_string(len.size()) + " lengths, array 0 has " +
               std::to_string(n_));
        if (S == InnerStrategy::partial && partial_inline > A::max)
          fail("inline count " + std::to_string(partial_inline) + " above array " + std::to_string(a) +
               "'s capacity " + std::to_string(A::max));
        const std::size_t inline_count = S == InnerStrategy::none      ? 0
                                         : S == InnerStrategy::partial ? partial_inline
                                                                       : A::max;
        std::size_t arena = 0;
        for (std::size_t i = 0; i < n_; ++i) {
          if (!has_arena && len[i] > A::max)
            fail("array " + std::to_string(a) + " of record " + std::to_string(i) + " has length " +
                 std::to_string(len[i]) + " above its capacity " + std::to_string(A::max) +
                 " (full and object reserve Max slots; none and partial take any length)");
          arena += len[i] > inline_count ? len[i] - inline_count : 0;
          owned += len[i] * sizeof(typename A::element);
        }
        if (!has_arena) arena = 0;
        if (arena > std::numeric_limits<std::uint32_t>::max())
          fail("array " + std::to_string(a) + "'s arena holds " + std::to_string(arena) +
               " elements, past 32-bit offsets");
        places_[I].inline_count = static_cast<std::uint32_t>(inline_count);
        arena_elements_[a] = arena;
        owned += n_ * (has_arena ? 8 : 4);
      } else {
        owned += n_ * Rec::size_of(I);
      }
    });
    if constexpr (L == InnerLayout::aos)
      place_aos();
    else
      place_soa();
    for (std::size_t b = 0; b < blob_count; ++b) (is_arena_blob(b) ? footprint_.arena_bytes : footprint_.inline_bytes) += blob_bytes_[b];
    footprint_.wasted_bytes = footprint_.total() - owned;
  }

  LB_HD constexpr std::size_t size() const { return n_; }
  constexpr std::size_t blob_bytes(std::size_t b) const { return blob_bytes_[b]; }
  constexpr std::size_t blob_alignment(std::size_t b) const { return blob_alignment_[b]; }
  constexpr const InnerFootprint& footprint() const { return footprint_; }
  //! Elements of array Tag held inline per record (0, N or Max by strategy).
  template <class Tag>
  LB_HD constexpr std::size_t inline_count() const {
    return places_[array_field<Tag>()].inline_count;
  }
  //! Bytes from one record to the next in AoS (0 in SoA).
  constexpr std::size_t record_stride() const { return record_stride_; }

  //! A scalar field of record i.
  template <class Tag>
  LB_HD LB_FORCEINLINE constexpr Location locate(std::size_t i) const {
    constexpr std::size_t I = Rec::template index_of<Tag>;
    static_assert(I < field_count && !detail::is_array_field<Rec, I>,
                  "locate<Tag>(i) is for scalar fields: reach an inner array with get<Tag>(i, k)");
    return {first_blob<I>, places_[I].base + i * places_[I].stride};
  }
  //! Array Tag's length header of record i, and (none, partial) its arena offset header.
  template <class Tag>
  LB_HD LB_FORCEINLINE constexpr Location locate_length(std::size_t i) const {
    constexpr std::size_t I = array_field<Tag>();
    return {length_blob<I>, places_[I].base + i * places_[I].stride};
  }
  template <class Tag>
  LB_HD LB_FORCEINLINE constexpr Location locate_arena_offset(std::size_t i) const {
    static_assert(has_arena, "full and object keep no arena offset");
    constexpr std::size_t I = array_field<Tag>();
    return {offset_blob<I>, places_[I].offset_base + i * places_[I].offset_stride};
  }

  template <class Tag>
  LB_HD LB_FORCEINLINE std::uint32_t length(const std::byte* const* blobs, std::size_t i) const {
    const Location loc = locate_length<Tag>(i);
    return detail::load_scalar<std::uint32_t>(blobs[loc.blob] + loc.offset);
  }

  //! Where element k of array Tag of record i lives (none and partial read the arena offset).
  template <class Tag>
  LB_HD LB_FORCEINLINE Location locate_element(const std::byte* const* blobs, std::size_t i, std::size_t k) const {
    return with_element<Tag>(blobs, i, k, [](auto blob, std::size_t offset) { return Location{blob, offset}; });
  }
  template <class Tag>
  LB_HD LB_FORCEINLINE std::byte* element_address(std::byte* const* blobs, std::size_t i, std::size_t k) const {
    return with_element<Tag>(blobs, i, k, [&](auto blob, std::size_t offset) { return blobs[blob] + offset; });
  }

  //! Writes every record's length and arena offset (arena runs assigned in record order, a
  //! prefix sum) into the blobs. `lengths` must be those the mapping was built from.
  void write_headers(std::byte* const* blobs, const ArrayLengths& lengths) const {
    for_each_field<Rec>([&](auto f) {
      constexpr std::size_t I = decltype(f)::value;
      if constexpr (detail::is_array_field<Rec, I>) {
        constexpr std::size_t a = detail::arrays_before<Rec, I>();
        using Tag = typename Rec::template field<I>::tag;
        if (lengths.size() != array_count || lengths[a].size() != n_)
          throw std::invalid_argument("inner array headers: lengths differ from the mapping's");
        std::uint32_t next = 0;
        for (std::size_t i = 0; i < n_; ++i) {
          const std::uint32_t len = lengths[a][i];
          if (!has_arena && len > Rec::template field_type<I>::max)  // past the reserved slots
            throw std::invalid_argument("inner array headers: lengths differ from the mapping's");
          const Location l = locate_length<Tag>(i);
          detail::store_scalar<std::uint32_t>(blobs[l.blob] + l.offset, len);
          if constexpr (has_arena) {
            const Location o = locate_arena_offset<Tag>(i);
            detail::store_scalar<std::uint32_t>(blobs[o.blob] + o.offset, next);
            next += len > places_[I].inline_count ? len - places_[I].inline_count : 0;
          }
        }
        if (has_arena && next != arena_elements_[a])
          throw std::invalid_argument("inner array headers: lengths differ from the mapping's");
      }
    });
  }

 private:
  //! How one field is addressed: a scalar (or an array's length header) at base + i * stride;
  //! the arena offset header likewise; inline slot k at slots_base + i * slot_record_stride +
  //! k * slot_stride.
  struct Place {
    std::size_t base = 0, stride = 0;
    std::size_t offset_base = 0, offset_stride = 0;
    std::size_t slots_base = 0, slot_record_stride = 0, slot_stride = 0;
    std::uint32_t inline_count = 0;
  };

  template <class Tag>
  LB_HD static constexpr std::size_t array_field() {
    constexpr std::size_t I = Rec::template index_of<Tag>;
    static_assert(I < field_count && detail::is_array_field<Rec, I>, "Tag names no inner array of the record");
    return I;
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
    if constexpr (has_arena) {
      const auto in_arena = [&] {
        const std::size_t start = detail::load_scalar<std::uint32_t>(blobs[offset_blob<I>] + p.offset_base + i * p.offset_stride);
        return at(std::integral_constant<std::size_t, arena_blob<I>>{}, (start + k - p.inline_count) * sizeof(T));
      };
      if constexpr (S == InnerStrategy::none) return in_arena();
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

  //! One blob of records packed by C's struct rules (packing.hpp): each scalar, and per array
  //! its length, its arena offset (none, partial) and its inline slots as one run.
  void place_aos() {
    detail::FieldShape shapes[3 * field_count];
    std::size_t offsets[3 * field_count], count = 0;
    for_each_field<Rec>([&](auto f) {
      constexpr std::size_t I = decltype(f)::value;
      if constexpr (detail::is_array_field<Rec, I>) {
        using T = typename Rec::template field_type<I>::element;
        shapes[count++] = {4, 4};
        if (has_arena) shapes[count++] = {4, 4};
        if (places_[I].inline_count > 0) shapes[count++] = {places_[I].inline_count * sizeof(T), alignof(T)};
      } else {
        shapes[count++] = {Rec::size_of(I), Rec::align_of(I)};
      }
    });
    record_stride_ = detail::pack_runs(shapes, count, 1, offsets);
    std::size_t k = 0;
    for_each_field<Rec>([&](auto f) {
      constexpr std::size_t I = decltype(f)::value;
      Place& p = places_[I];
      p.base = offsets[k++];
      p.stride = record_stride_;
      if constexpr (detail::is_array_field<Rec, I>) {
        using T = typename Rec::template field_type<I>::element;
        if (has_arena) {
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
        using T = typename Rec::template field_type<I>::element;
        p.stride = 4;
        blob_bytes_[length_blob<I>] = n_ * 4;
        blob_alignment_[length_blob<I>] = 4;
        p.offset_stride = 4;
        blob_bytes_[offset_blob<I>] = has_arena ? n_ * 4 : 0;
        blob_alignment_[offset_blob<I>] = 4;
        const bool whole_arrays = S == InnerStrategy::object;
        p.slot_record_stride = whole_arrays ? p.inline_count * sizeof(T) : sizeof(T);
        p.slot_stride = whole_arrays ? sizeof(T) : n_ * sizeof(T);
        blob_bytes_[slots_blob<I>] = n_ * p.inline_count * sizeof(T);
        blob_alignment_[slots_blob<I>] = alignof(T);
        set_arena<I>();
      } else {
        p.stride = Rec::size_of(I);
        blob_bytes_[first_blob<I>] = n_ * Rec::size_of(I);
        blob_alignment_[first_blob<I>] = Rec::align_of(I);
      }
    });
  }

  std::size_t n_ = 0;
  std::size_t record_stride_ = 0;
  Place places_[field_count] = {};
  std::size_t arena_elements_[array_count] = {};
  std::size_t blob_bytes_[blob_count] = {};
  std::size_t blob_alignment_[blob_count] = {};
  InnerFootprint footprint_;
};

//! A host storage of mapping M for these lengths, headers written, elements and scalars zero.
template <class M>
HostStorage<M> inner_host_storage(const ArrayLengths& lengths, std::size_t partial_inline = 0) {
  HostStorage<M> storage(M(lengths, partial_inline));
  storage.mapping().write_headers(storage.view().blobs, lengths);
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

#pragma once
//! The `Mapping` concept: what every layout's mapping provides. A mapping is a small,
//! trivially copyable value (kernels get it by value inside a View) that may carry state: a
//! tile size, a per-field table chosen at run time, the arena sizes of inner arrays. It
//! maps (record index, field) to (blob, byte offset) and moves whole records with the memory
//! pattern its layout promises. Storages are built from a mapping value.

#include <concepts>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "lb/layout/access.hpp"
#include "lb/layout/record.hpp"

namespace lb::layout {

//! Where one field of one record lives.
struct Location {
  std::size_t blob;
  std::size_t offset;
};

namespace detail {
template <class M, std::size_t... I>
constexpr bool locates_every_field(std::index_sequence<I...>) {
  using Rec = typename M::record;
  return (requires(const M& m, std::size_t i) {
    { m.template locate<typename Rec::template field<I>::tag>(i) } -> std::same_as<Location>;
  } && ...);
}
}  // namespace detail

//! What storages and views need: record: the Record type; blob_count: a constant; size():
//! records held; blob_bytes(b) and blob_alignment(b): bytes and the alignment blob b needs.
//! Inner-array mappings (inner_array.hpp) are storage mappings but not Mappings.
template <class M>
concept StorageMapping = std::is_trivially_copyable_v<M> && requires { typename M::record; } &&
                         requires(const M& m, std::size_t b) {
                           typename std::integral_constant<std::size_t, M::blob_count>;
                           { m.size() } -> std::same_as<std::size_t>;
                           { m.blob_bytes(b) } -> std::same_as<std::size_t>;
                           { m.blob_alignment(b) } -> std::same_as<std::size_t>;
                         };

//! A storage mapping of fixed-size records: locate<Tag>(i) for every field; load(blobs, i) /
//! store(blobs, i, v): one whole record.
template <class M>
concept Mapping = StorageMapping<M> &&
                  requires(const M& m, std::size_t i, std::byte* const* blobs,
                           const RecordValue<typename M::record>& v) {
                    { m.load(blobs, i) } -> std::same_as<RecordValue<typename M::record>>;
                    m.store(blobs, i, v);
                  } && detail::locates_every_field<M>(std::make_index_sequence<M::record::field_count>{});

namespace detail {
//! Calls f(std::integral_constant<size_t, I>) for I = 0 .. N-1.
template <std::size_t N, class F>
LB_HD LB_FORCEINLINE constexpr void for_each_index(F&& f) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (f(std::integral_constant<std::size_t, I>{}), ...);
  }(std::make_index_sequence<N>{});
}

//! Address of field Tag of record i. Every mapping fixes a field's blob at compile time (a
//! run-time partition keeps its clusters in regions of one blob): the index folds to a
//! constant, and indexing the view's pointer array (a kernel parameter) stays in registers.
template <class Tag, class M>
LB_HD LB_FORCEINLINE std::byte* address_of(const M& m, std::byte* const* blobs, std::size_t i) {
  const Location loc = m.template locate<Tag>(i);
  return blobs[loc.blob] + loc.offset;
}

//! Whole-record load and store one field at a time, for mappings whose fields are not
//! contiguous (SoA, tiles, run-time partitions): each field is one access of its own width.
template <class M>
LB_HD LB_FORCEINLINE RecordValue<typename M::record> load_fieldwise(const M& m, std::byte* const* blobs,
                                                                   std::size_t i) {
  using Rec = typename M::record;
  RecordValue<Rec> v;
  for_each_field<Rec>([&](auto f) {
    constexpr std::size_t I = decltype(f)::value;
    using F = typename Rec::template field<I>;
    v.template at<I>() = load_scalar<typename F::type>(address_of<typename F::tag>(m, blobs, i));
  });
  return v;
}
template <class M>
LB_HD LB_FORCEINLINE void store_fieldwise(const M& m, std::byte* const* blobs, std::size_t i,
                                          const RecordValue<typename M::record>& v) {
  using Rec = typename M::record;
  for_each_field<Rec>([&](auto f) {
    constexpr std::size_t I = decltype(f)::value;
    using F = typename Rec::template field<I>;
    store_scalar<typename F::type>(address_of<typename F::tag>(m, blobs, i), v.template at<I>());
  });
}
}  // namespace detail

}  // namespace lb::layout

#pragma once
//! A view = a mapping + its blob pointers. Trivially copyable: kernels take it by value.
//! `get<Tag>(i)` returns a real reference to one field; `load(i)` / `store(i, v)` move the
//! whole record with the layout's own access pattern.

#include <cstddef>

#include "lb/layout/mappings.hpp"

namespace lb::layout {

template <Mapping M>
struct View {
  using mapping_type = M;
  using record = typename M::record;
  using value_type = RecordValue<record>;
  static constexpr std::size_t blob_count = M::blob_count;

  M mapping;
  std::byte* blobs[blob_count];

  LB_HD constexpr std::size_t size() const { return mapping.size(); }

  template <class Tag>
  LB_HD LB_FORCEINLINE auto& get(std::size_t i) const {
    using T = typename record::template field_type<record::template index_of<Tag>>;
    return *reinterpret_cast<T*>(detail::address_of<Tag>(mapping, blobs, i));
  }
  LB_HD LB_FORCEINLINE value_type load(std::size_t i) const { return mapping.load(blobs, i); }
  LB_HD LB_FORCEINLINE void store(std::size_t i, const value_type& v) const { mapping.store(blobs, i, v); }
};

//! Bytes a mapping occupies over all its blobs (its memory footprint).
template <Mapping M>
constexpr std::size_t footprint_bytes(const M& m) {
  std::size_t total = 0;
  for (std::size_t b = 0; b < M::blob_count; ++b) total += m.blob_bytes(b);
  return total;
}

}  // namespace lb::layout

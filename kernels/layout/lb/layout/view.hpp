#pragma once
//! A view = a mapping + its blob pointers. Trivially copyable: kernels take it by value.
//! `get<Tag>(i)` returns a real reference to one field; `load(i)` / `store(i, v)` move the
//! whole record with the layout's own access pattern (Mappings only); over an inner-array
//! mapping `get<Tag>(i, k)` is a real reference to element k of an array, `length<Tag>(i)` its
//! length, `set_length<Tag>(i, n)` writes it (up to `capacity<Tag>(i)`, inner_array.hpp).

#include <cstddef>
#include <cstdint>

#include "lb/layout/mappings.hpp"

namespace lb::layout {

template <StorageMapping M>
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
  template <class Tag>
  LB_HD LB_FORCEINLINE auto& get(std::size_t i, std::size_t k) const {
    using T = typename record::template field_type<record::template index_of<Tag>>::element;
    return *reinterpret_cast<T*>(mapping.template element_address<Tag>(blobs, i, k));
  }
  template <class Tag>
  LB_HD LB_FORCEINLINE std::uint32_t length(std::size_t i) const {
    return mapping.template length<Tag>(blobs, i);
  }
  template <class Tag>
  LB_HD LB_FORCEINLINE void set_length(std::size_t i, std::uint32_t length) const {
    mapping.template set_length<Tag>(blobs, i, length);
  }
  template <class Tag>
  LB_HD LB_FORCEINLINE std::uint32_t capacity(std::size_t i) const {
    return mapping.template capacity<Tag>(blobs, i);
  }
  LB_HD LB_FORCEINLINE value_type load(std::size_t i) const
    requires Mapping<M>
  {
    return mapping.load(blobs, i);
  }
  LB_HD LB_FORCEINLINE void store(std::size_t i, const value_type& v) const
    requires Mapping<M>
  {
    mapping.store(blobs, i, v);
  }
};

//! Bytes a mapping occupies over all its blobs (its memory footprint).
template <StorageMapping M>
constexpr std::size_t footprint_bytes(const M& m) {
  std::size_t total = 0;
  for (std::size_t b = 0; b < M::blob_count; ++b) total += m.blob_bytes(b);
  return total;
}

}  // namespace lb::layout

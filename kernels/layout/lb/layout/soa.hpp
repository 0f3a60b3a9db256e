#pragma once
//! Structure of arrays: one blob per field.

#include <cstddef>

#include "lb/layout/mapping.hpp"

namespace lb::layout {

template <class Rec>
struct SoAMapping {
  using record = Rec;
  static constexpr std::size_t blob_count = Rec::field_count;

  std::size_t n;

  LB_HD constexpr std::size_t size() const { return n; }
  LB_HD static constexpr std::size_t blob_alignment(std::size_t b) { return Rec::align_of(b); }
  LB_HD constexpr std::size_t blob_bytes(std::size_t b) const { return n * Rec::size_of(b); }

  template <class Tag>
  LB_HD constexpr Location locate(std::size_t i) const {
    constexpr std::size_t f = Rec::template index_of<Tag>;
    return {f, i * Rec::size_of(f)};
  }

  LB_HD LB_FORCEINLINE RecordValue<Rec> load(std::byte* const* blobs, std::size_t i) const {
    return detail::load_fieldwise(*this, blobs, i);
  }
  LB_HD LB_FORCEINLINE void store(std::byte* const* blobs, std::size_t i, const RecordValue<Rec>& v) const {
    detail::store_fieldwise(*this, blobs, i, v);
  }
};

struct SoA {
  template <class Rec> using mapping = SoAMapping<Rec>;
};

}  // namespace lb::layout

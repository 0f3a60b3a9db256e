#pragma once
//! Array of structures: one blob of records, each laid out by C's struct rules.

#include <cstddef>

#include "lb/layout/mapping.hpp"
#include "lb/layout/packing.hpp"

namespace lb::layout {

//! Align = 0: a plain C struct (natural alignment; 12 B for 3 floats). Align = 16: the same
//! struct declared `__align__(16)`; the whole record is loaded with 16-byte words (one 128-bit
//! access for 3 floats, two for 3 doubles).
template <class Rec, std::size_t Align = 0>
struct AoSMapping {
  using record = Rec;
  static constexpr std::size_t blob_count = 1;
  static constexpr std::size_t alignment =
      Align > detail::pack_record<Rec>(1).align ? Align : detail::pack_record<Rec>(1).align;
  static constexpr std::size_t stride = detail::round_up(detail::pack_record<Rec>(1).bytes, alignment);
  //! Offset of field I inside a record (a scalar constant: usable in device code).
  template <std::size_t I>
  static constexpr std::size_t field_offset = detail::pack_record<Rec>(1).offset[I];

  std::size_t n;

  LB_HD constexpr std::size_t size() const { return n; }
  LB_HD static constexpr std::size_t blob_alignment(std::size_t) { return alignment; }
  LB_HD constexpr std::size_t blob_bytes(std::size_t) const { return n * stride; }

  template <class Tag>
  LB_HD constexpr Location locate(std::size_t i) const {
    return {0, i * stride + field_offset<Rec::template index_of<Tag>>};
  }

  //! The record as whole aligned words, then split into fields in registers.
  LB_HD LB_FORCEINLINE RecordValue<Rec> load(std::byte* const* blobs, std::size_t i) const {
    unsigned char raw[stride];
    detail::load_words<stride, alignment>(raw, blobs[0] + i * stride);
    RecordValue<Rec> v;
    for_each_field<Rec>([&](auto f) {
      constexpr std::size_t I = decltype(f)::value;
      __builtin_memcpy(&v.template at<I>(), raw + field_offset<I>, Rec::size_of(I));
    });
    return v;
  }

  LB_HD LB_FORCEINLINE void store(std::byte* const* blobs, std::size_t i, const RecordValue<Rec>& v) const {
    unsigned char raw[stride] = {};
    for_each_field<Rec>([&](auto f) {
      constexpr std::size_t I = decltype(f)::value;
      __builtin_memcpy(raw + field_offset<I>, &v.template at<I>(), Rec::size_of(I));
    });
    detail::store_words<stride, alignment>(blobs[0] + i * stride, raw);
  }
};

struct AoS {
  template <class Rec> using mapping = AoSMapping<Rec, 0>;
};
template <std::size_t Align>
struct AlignedAoS {
  template <class Rec> using mapping = AoSMapping<Rec, Align>;
};

}  // namespace lb::layout

#pragma once
//! Layouts. A layout *family* (AoS, SoA, AoSoA<L>, Split<...>) applied to a record gives a
//! *mapping*: a small trivially copyable value holding the record count n that maps
//! (record index, field) to (blob, byte offset) and loads/stores whole records with the
//! memory pattern the layout promises. Mappings compose: Split gives each field cluster its
//! own family.

#include <cstddef>
#include <type_traits>

#include "lb/layout/access.hpp"
#include "lb/layout/record.hpp"

namespace lb::layout {

//! Where one field of one record lives.
struct Location {
  std::size_t blob;
  std::size_t offset;
};

namespace detail {
template <class Rec>
constexpr std::size_t natural_offset(std::size_t i) {
  // C struct rules: each field at the next multiple of its own alignment.
  std::size_t off = 0;
  std::size_t k = 0;
  for_each_field<Rec>([&](auto f) {
    using T = typename Rec::template field_type<decltype(f)::value>;
    off = round_up(off, alignof(T));
    if (k++ < i) off += sizeof(T);
  });
  return off;
}
template <class Rec>
constexpr std::size_t max_field_align() {
  std::size_t a = 1;
  for_each_field<Rec>([&](auto f) {
    using T = typename Rec::template field_type<decltype(f)::value>;
    a = alignof(T) > a ? alignof(T) : a;
  });
  return a;
}
}  // namespace detail

// ---------------------------------------------------------------------------------------
//! Array of structures. Align = 0: a plain C struct (natural alignment; 12 B for 3 floats).
//! Align = 16: the same struct declared `__align__(16)`; the whole record is loaded with
//! 16-byte words (one 128-bit access for 3 floats, two for 3 doubles).
template <class Rec, std::size_t Align = 0>
struct AoSMapping {
  using record = Rec;
  static constexpr std::size_t blob_count = 1;
  static constexpr std::size_t alignment =
      Align > detail::max_field_align<Rec>() ? Align : detail::max_field_align<Rec>();
  static constexpr std::size_t stride =
      detail::round_up(detail::natural_offset<Rec>(Rec::field_count), alignment);

  std::size_t n;

  static constexpr std::size_t blob_alignment(std::size_t) { return alignment; }
  LB_HD constexpr std::size_t blob_bytes(std::size_t) const { return n * stride; }

  template <class Tag>
  LB_HD constexpr Location locate(std::size_t i) const {
    return {0, i * stride + detail::natural_offset<Rec>(Rec::template index_of<Tag>)};
  }

  LB_HD LB_FORCEINLINE RecordValue<Rec> load(std::byte* const* blobs, std::size_t i) const {
    unsigned char raw[stride];
    detail::load_words<stride, alignment>(raw, blobs[0] + i * stride);
    RecordValue<Rec> v;
    for_each_field<Rec>([&](auto f) {
      constexpr std::size_t I = decltype(f)::value;
      __builtin_memcpy(&v.template at<I>(), raw + detail::natural_offset<Rec>(I), Rec::size_of(I));
    });
    return v;
  }

  LB_HD LB_FORCEINLINE void store(std::byte* const* blobs, std::size_t i, const RecordValue<Rec>& v) const {
    unsigned char raw[stride] = {};
    for_each_field<Rec>([&](auto f) {
      constexpr std::size_t I = decltype(f)::value;
      __builtin_memcpy(raw + detail::natural_offset<Rec>(I), &v.template at<I>(), Rec::size_of(I));
    });
    detail::store_words<stride, alignment>(blobs[0] + i * stride, raw);
  }
};

// ---------------------------------------------------------------------------------------
//! Structure of arrays: one blob per field.
template <class Rec>
struct SoAMapping {
  using record = Rec;
  static constexpr std::size_t blob_count = Rec::field_count;

  std::size_t n;

  static constexpr std::size_t blob_alignment(std::size_t b) { return Rec::size_of(b); }
  LB_HD constexpr std::size_t blob_bytes(std::size_t b) const { return n * Rec::size_of(b); }

  template <class Tag>
  LB_HD constexpr Location locate(std::size_t i) const {
    constexpr std::size_t f = Rec::template index_of<Tag>;
    return {f, i * Rec::size_of(f)};
  }

  LB_HD LB_FORCEINLINE RecordValue<Rec> load(std::byte* const* blobs, std::size_t i) const {
    RecordValue<Rec> v;
    for_each_field<Rec>([&](auto f) {
      constexpr std::size_t I = decltype(f)::value;
      using T = typename Rec::template field_type<I>;
      v.template at<I>() = detail::load_scalar<T>(blobs[I] + i * sizeof(T));
    });
    return v;
  }

  LB_HD LB_FORCEINLINE void store(std::byte* const* blobs, std::size_t i, const RecordValue<Rec>& v) const {
    for_each_field<Rec>([&](auto f) {
      constexpr std::size_t I = decltype(f)::value;
      using T = typename Rec::template field_type<I>;
      detail::store_scalar<T>(blobs[I] + i * sizeof(T), v.template at<I>());
    });
  }
};

// ---------------------------------------------------------------------------------------
//! Tiled AoS (AoSoA, "array of structures of arrays"): records are grouped into tiles of
//! `Lanes` records; inside a tile each field is a contiguous run of `Lanes` values. Lanes = 1
//! is AoS (packed), Lanes >= n is SoA.
template <class Rec, std::size_t Lanes>
struct AoSoAMapping {
  static_assert(Lanes >= 1, "a tile holds at least one record");
  using record = Rec;
  static constexpr std::size_t blob_count = 1;
  static constexpr std::size_t tile_bytes = Lanes * Rec::packed_size;

  std::size_t n;

  static constexpr std::size_t blob_alignment(std::size_t) { return Rec::max_field_size(); }
  LB_HD constexpr std::size_t blob_bytes(std::size_t) const { return (n + Lanes - 1) / Lanes * tile_bytes; }

  template <std::size_t I>
  LB_HD static constexpr std::size_t offset_of(std::size_t i) {
    return i / Lanes * tile_bytes + Lanes * Rec::packed_offset(I) + i % Lanes * Rec::size_of(I);
  }
  template <class Tag>
  LB_HD constexpr Location locate(std::size_t i) const {
    return {0, offset_of<Rec::template index_of<Tag>>(i)};
  }

  LB_HD LB_FORCEINLINE RecordValue<Rec> load(std::byte* const* blobs, std::size_t i) const {
    RecordValue<Rec> v;
    for_each_field<Rec>([&](auto f) {
      constexpr std::size_t I = decltype(f)::value;
      using T = typename Rec::template field_type<I>;
      v.template at<I>() = detail::load_scalar<T>(blobs[0] + offset_of<I>(i));
    });
    return v;
  }

  LB_HD LB_FORCEINLINE void store(std::byte* const* blobs, std::size_t i, const RecordValue<Rec>& v) const {
    for_each_field<Rec>([&](auto f) {
      constexpr std::size_t I = decltype(f)::value;
      using T = typename Rec::template field_type<I>;
      detail::store_scalar<T>(blobs[0] + offset_of<I>(i), v.template at<I>());
    });
  }
};

// ---------------------------------------------------------------------------------------
//! The record as one CUDA builtin 4-vector (float4, or double4 with 16-byte alignment as
//! the paper's CUDA had it: double4_16a), fields in x, y, z order, the rest padding.
template <class T> struct Vec4Of;
template <> struct Vec4Of<float> { using type = float4; };
template <> struct Vec4Of<double> { using type = double4_16a; };

template <class Rec>
struct BuiltinVec4Mapping {
  using record = Rec;
  using T = typename Rec::template field_type<0>;
  using Vec = typename Vec4Of<T>::type;
  static_assert(Rec::field_count <= 4 && Rec::packed_size == Rec::field_count * sizeof(T),
                "a builtin 4-vector holds up to four fields of one type");
  static constexpr std::size_t blob_count = 1;
  static constexpr std::size_t stride = sizeof(Vec);

  std::size_t n;

  static constexpr std::size_t blob_alignment(std::size_t) { return alignof(Vec); }
  LB_HD constexpr std::size_t blob_bytes(std::size_t) const { return n * stride; }

  template <class Tag>
  LB_HD constexpr Location locate(std::size_t i) const {
    return {0, i * stride + Rec::template index_of<Tag> * sizeof(T)};
  }

  LB_HD LB_FORCEINLINE RecordValue<Rec> load(std::byte* const* blobs, std::size_t i) const {
    const Vec w = reinterpret_cast<const Vec*>(blobs[0])[i];
    const T lanes[4] = {w.x, w.y, w.z, w.w};
    RecordValue<Rec> v;
    for_each_field<Rec>([&](auto f) { v.template at<decltype(f)::value>() = lanes[decltype(f)::value]; });
    return v;
  }

  LB_HD LB_FORCEINLINE void store(std::byte* const* blobs, std::size_t i, const RecordValue<Rec>& v) const {
    T lanes[4] = {};
    for_each_field<Rec>([&](auto f) { lanes[decltype(f)::value] = v.template at<decltype(f)::value>(); });
    reinterpret_cast<Vec*>(blobs[0])[i] = Vec{lanes[0], lanes[1], lanes[2], lanes[3]};
  }
};

// ---------------------------------------------------------------------------------------
// Families: what a user names. `Family::mapping<Rec>` is the mapping for a record.

struct AoS {
  template <class Rec> using mapping = AoSMapping<Rec, 0>;
};
template <std::size_t Align>
struct AlignedAoS {
  template <class Rec> using mapping = AoSMapping<Rec, Align>;
};
struct SoA {
  template <class Rec> using mapping = SoAMapping<Rec>;
};
template <std::size_t Lanes>
struct AoSoA {
  template <class Rec> using mapping = AoSoAMapping<Rec, Lanes>;
};
struct BuiltinVec4 {
  template <class Rec> using mapping = BuiltinVec4Mapping<Rec>;
};

}  // namespace lb::layout

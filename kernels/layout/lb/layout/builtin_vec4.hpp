#pragma once
//! The record as one CUDA builtin 4-vector (float4, or double4 with 16-byte alignment as the
//! IDW paper's CUDA had it: double4_16a), fields in x, y, z order, the rest padding.

#include <cstddef>

#include <vector_types.h>

#include "lb/layout/mapping.hpp"

namespace lb::layout {

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

  LB_HD constexpr std::size_t size() const { return n; }
  LB_HD static constexpr std::size_t blob_alignment(std::size_t) { return alignof(Vec); }
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

struct BuiltinVec4 {
  template <class Rec> using mapping = BuiltinVec4Mapping<Rec>;
};

}  // namespace lb::layout

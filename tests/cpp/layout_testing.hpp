#pragma once
// Records and helpers for the layout library's tests: records that mix field sizes and
// alignments, and generic checks that walk every (record, field) of a mapping.

#include <gtest/gtest.h>

#include <cstddef>
#include <utility>

#include <vector_types.h>

#include "lb/layout/mappings.hpp"

namespace layout_testing {

using namespace lb::layout;

struct A {};
struct B {};
struct C {};
struct D {};
struct E {};

//! A float4-like user struct without extra alignment (12 bytes, aligned to 4).
struct Vec3 {
  float x, y, z;
};

using Floats3 = Record<Field<A, float>, Field<B, float>, Field<C, float>>;
using CharDouble = Record<Field<A, char>, Field<B, double>>;
using DoubleChar = Record<Field<A, double>, Field<B, char>>;
using Mixed = Record<Field<A, char>, Field<B, short>, Field<C, int>, Field<D, double>, Field<E, float>>;
using Vectors = Record<Field<A, char>, Field<B, float4>, Field<C, short>, Field<D, Vec3>, Field<E, int>>;

//! Calls f(tag, field index) for every field of Rec.
template <class Rec, class F>
void for_each_tag(F&& f) {
  for_each_field<Rec>([&](auto i) { f(typename Rec::template field<decltype(i)::value>::tag{}, decltype(i)::value); });
}

template <class M>
std::size_t blob_bytes_or_zero(const M& m, std::size_t b) {
  return b < M::blob_count ? m.blob_bytes(b) : 0;
}

//! Expects two mappings of one record to put every byte in the same place: the same
//! location for every (record, field), the same bytes and alignment for every blob (a blob
//! one of them lacks must be empty in the other).
template <class M1, class M2>
void expect_same_bytes(const M1& m1, const M2& m2) {
  static_assert(std::is_same_v<typename M1::record, typename M2::record>);
  ASSERT_EQ(m1.size(), m2.size());
  for (std::size_t i = 0; i < m1.size(); ++i)
    for_each_tag<typename M1::record>([&]<class Tag>(Tag, std::size_t f) {
      const Location l1 = m1.template locate<Tag>(i), l2 = m2.template locate<Tag>(i);
      ASSERT_EQ(l1.blob, l2.blob) << "record " << i << " field " << f;
      ASSERT_EQ(l1.offset, l2.offset) << "record " << i << " field " << f;
    });
  const std::size_t blobs = M1::blob_count > M2::blob_count ? M1::blob_count : M2::blob_count;
  for (std::size_t b = 0; b < blobs; ++b) {
    EXPECT_EQ(blob_bytes_or_zero(m1, b), blob_bytes_or_zero(m2, b)) << "blob " << b;
    if (b < M1::blob_count && b < M2::blob_count && m1.blob_bytes(b) > 0) {
      EXPECT_EQ(m1.blob_alignment(b), m2.blob_alignment(b)) << "blob " << b;
    }
  }
}

//! The tags of fields From, From + 1, ... of Rec as one cluster of `Family`.
template <class Rec, class Family, std::size_t From, class Seq = std::make_index_sequence<Rec::field_count - From>>
struct ClusterFrom;
template <class Rec, class Family, std::size_t From, std::size_t... I>
struct ClusterFrom<Rec, Family, From, std::index_sequence<I...>> {
  using type = Cluster<Family, typename Rec::template field<From + I>::tag...>;
};
//! A split of Rec: field 0 laid out by First, the other fields by Rest.
template <class Rec, class First, class Rest>
using FirstAndRest = typename Split<Cluster<First, typename Rec::template field<0>::tag>,
                                    typename ClusterFrom<Rec, Rest, 1>::type>::template mapping<Rec>;

}  // namespace layout_testing

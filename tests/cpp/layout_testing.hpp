#pragma once
// Records and helpers for the layout library's tests: records that mix field sizes and
// alignments, and generic checks that walk every (record, field) of a mapping.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

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

//! A mapping as data: where every (record, field) lies, its fields' sizes and alignments, its
//! blobs. Checks written over it are compiled once, not once per mapping type and record (the
//! layout tests were the slowest units of the build: docs/tests.md); only table_of is a template.
struct MappingTable {
  std::size_t records = 0;
  std::vector<std::size_t> field_size, field_align;
  std::vector<Location> where;  // record-major: where[i * fields + f]
  std::vector<std::size_t> blob_bytes, blob_alignment;
  std::size_t fields() const { return field_size.size(); }
};

template <class M>
MappingTable table_of(const M& m) {
  using Rec = typename M::record;
  MappingTable t;
  t.records = m.size();
  for_each_field<Rec>([&](auto f) {
    using T = typename Rec::template field_type<decltype(f)::value>;
    t.field_size.push_back(sizeof(T));
    t.field_align.push_back(alignof(T));
  });
  for (std::size_t i = 0; i < m.size(); ++i)
    for_each_tag<Rec>([&]<class Tag>(Tag, std::size_t) { t.where.push_back(m.template locate<Tag>(i)); });
  for (std::size_t b = 0; b < M::blob_count; ++b) {
    t.blob_bytes.push_back(m.blob_bytes(b));
    t.blob_alignment.push_back(m.blob_alignment(b));
  }
  return t;
}

//! Expects two mappings of one record to put every byte in the same place: the same
//! location for every (record, field), the same bytes and alignment for every blob (a blob
//! one of them lacks must be empty in the other).
inline void expect_same_bytes(const MappingTable& m1, const MappingTable& m2) {
  ASSERT_EQ(m1.records, m2.records);
  ASSERT_EQ(m1.field_size, m2.field_size);
  for (std::size_t j = 0; j < m1.where.size(); ++j) {
    const Location l1 = m1.where[j], l2 = m2.where[j];
    ASSERT_EQ(l1.blob, l2.blob) << "record " << j / m1.fields() << " field " << j % m1.fields();
    ASSERT_EQ(l1.offset, l2.offset) << "record " << j / m1.fields() << " field " << j % m1.fields();
  }
  const auto bytes_or_zero = [](const MappingTable& m, std::size_t b) { return b < m.blob_bytes.size() ? m.blob_bytes[b] : 0; };
  const std::size_t blobs = std::max(m1.blob_bytes.size(), m2.blob_bytes.size());
  for (std::size_t b = 0; b < blobs; ++b) {
    EXPECT_EQ(bytes_or_zero(m1, b), bytes_or_zero(m2, b)) << "blob " << b;
    if (b < m1.blob_bytes.size() && b < m2.blob_bytes.size() && m1.blob_bytes[b] > 0) {
      EXPECT_EQ(m1.blob_alignment[b], m2.blob_alignment[b]) << "blob " << b;
    }
  }
}

template <class M1, class M2>
void expect_same_bytes(const M1& m1, const M2& m2) {
  static_assert(std::is_same_v<typename M1::record, typename M2::record>);
  expect_same_bytes(table_of(m1), table_of(m2));
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

// Properties every mapping must have, checked over every mapping of the library (compile-time
// and run-time tile sizes and partitions, splits with a stateful cluster) for records that mix
// field sizes and alignments, at several record counts: each (record, field) lies inside its
// blob, aligned for its type, and no byte belongs to two of them (LLAMA's
// mapsNonOverlappingly); records stored whole come back whole and field by field.

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <typeinfo>
#include <vector>

#include "layout_testing.hpp"
#include "lb/layout/host_storage.hpp"

namespace {

using namespace layout_testing;

template <class M>
void expect_maps_non_overlapping(const M& m) {
  using Rec = typename M::record;
  std::vector<std::vector<long>> owner(M::blob_count);
  for (std::size_t b = 0; b < M::blob_count; ++b) owner[b].assign(m.blob_bytes(b), -1);
  for (std::size_t i = 0; i < m.size(); ++i)
    for_each_tag<Rec>([&]<class Tag>(Tag, std::size_t f) {
      using T = typename Rec::template field_type<Rec::template index_of<Tag>>;
      const Location loc = m.template locate<Tag>(i);
      ASSERT_LT(loc.blob, M::blob_count) << "record " << i << " field " << f;
      ASSERT_LE(loc.offset + sizeof(T), m.blob_bytes(loc.blob)) << "record " << i << " field " << f;
      EXPECT_EQ(loc.offset % alignof(T), 0u) << "record " << i << " field " << f;
      EXPECT_EQ(m.blob_alignment(loc.blob) % alignof(T), 0u) << "blob " << loc.blob << " field " << f;
      for (std::size_t k = 0; k < sizeof(T); ++k) {
        long& o = owner[loc.blob][loc.offset + k];
        ASSERT_EQ(o, -1) << "record " << i << " field " << f << " overlaps (record, field) id " << o;
        o = static_cast<long>(i * Rec::field_count + f);
      }
    });
}

//! A value whose bytes depend on (record, field, byte) and never form a NaN.
template <class T>
T pattern(std::size_t i, std::size_t f) {
  unsigned char bytes[sizeof(T)];
  for (std::size_t k = 0; k < sizeof(T); ++k) bytes[k] = static_cast<unsigned char>((i * 7 + f * 31 + k * 3) % 61 + 1);
  T v;
  std::memcpy(&v, bytes, sizeof v);
  return v;
}

template <class Rec>
RecordValue<Rec> pattern_record(std::size_t i) {
  RecordValue<Rec> r;
  for_each_field<Rec>([&](auto f) {
    constexpr std::size_t I = decltype(f)::value;
    r.template at<I>() = pattern<typename Rec::template field_type<I>>(i, I);
  });
  return r;
}

template <class T>
bool same_bytes(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

//! Stores whole records, reads them back whole (load) and by field (get); a write through
//! get changes that field of that record only.
template <class M>
void expect_round_trip(const M& m) {
  using Rec = typename M::record;
  HostStorage<M> storage(m);
  const auto view = storage.view();
  fill(view, pattern_record<Rec>);
  for (std::size_t i = 0; i < m.size(); ++i) {
    const RecordValue<Rec> loaded = view.load(i);
    for_each_tag<Rec>([&]<class Tag>(Tag, std::size_t f) {
      using T = typename Rec::template field_type<Rec::template index_of<Tag>>;
      ASSERT_TRUE(same_bytes(view.template get<Tag>(i), pattern<T>(i, f))) << "get, record " << i << " field " << f;
      ASSERT_TRUE(same_bytes(loaded.template get<Tag>(), pattern<T>(i, f))) << "load, record " << i << " field " << f;
    });
  }
  using Tag0 = typename Rec::template field<0>::tag;
  using T0 = typename Rec::template field_type<0>;
  const std::size_t mid = m.size() / 2;
  view.template get<Tag0>(mid) = pattern<T0>(mid + 1, 0);
  for (std::size_t i = 0; i < m.size(); ++i)
    ASSERT_TRUE(same_bytes(view.load(i).template get<Tag0>(), pattern<T0>(i == mid ? mid + 1 : i, 0))) << i;
}

template <class Rec>
std::vector<FieldPartition> partitions_of() {
  using K = ClusterLayout::Kind;
  constexpr std::size_t F = Rec::field_count;
  std::vector<FieldPartition> ps = {{std::vector<std::size_t>(F, 0), {{K::aos}}},
                                    {std::vector<std::size_t>(F, 0), {{K::tiled, 3}}},
                                    {std::vector<std::size_t>(F, 0), {{K::soa}}}};
  FieldPartition alternating{{}, {{K::tiled, 4}, {K::soa}}}, reversed{{}, {{K::aos}, {K::tiled, 2}}}, singletons;
  for (std::size_t f = 0; f < F; ++f) {
    alternating.cluster_of_field.push_back(f % 2);
    reversed.cluster_of_field.push_back((f + 1) % 2);
    singletons.cluster_of_field.push_back(f);
    singletons.clusters.push_back(f % 3 == 0 ? ClusterLayout{K::aos} : f % 3 == 1 ? ClusterLayout{K::soa}
                                                                                  : ClusterLayout{K::tiled, f + 1});
  }
  ps.insert(ps.end(), {alternating, reversed, singletons});
  return ps;
}

//! Calls check(label, mapping) for every mapping of the library over n records of Rec.
template <class Rec, class Check>
void for_every_mapping(std::size_t n, Check&& check) {
  check("AoS", AoSMapping<Rec>{n});
  check("AlignedAoS<16>", AoSMapping<Rec, 16>{n});
  check("SoA", SoAMapping<Rec>{n});
  check("AoSoA<1>", AoSoAMapping<Rec, 1>{n});
  check("AoSoA<2>", AoSoAMapping<Rec, 2>{n});
  check("AoSoA<3>", AoSoAMapping<Rec, 3>{n});
  check("AoSoA<4>", AoSoAMapping<Rec, 4>{n});
  check("AoSoA<32>", AoSoAMapping<Rec, 32>{n});
  for (std::size_t lanes : {1, 2, 3, 4, 7, 8, 64, 1000})
    check("RuntimeAoSoA " + std::to_string(lanes), RuntimeAoSoAMapping<Rec>(n, lanes));
  check("Split SoA + AlignedAoS<16>", FirstAndRest<Rec, SoA, AlignedAoS<16>>(n));
  using Stateful = FirstAndRest<Rec, AoSoA<3>, RuntimeAoSoA>;
  check("Split AoSoA<3> + RuntimeAoSoA 5",
        Stateful(typename Stateful::template sub_mapping<0>{n}, typename Stateful::template sub_mapping<1>(n, 5)));
  using WithPartition = FirstAndRest<Rec, AoS, Partitioned>;
  using Rest = typename WithPartition::template sub_mapping<1>::record;
  check("Split AoS + partition", WithPartition(typename WithPartition::template sub_mapping<0>{n},
                                               typename WithPartition::template sub_mapping<1>(
                                                   n, partitions_of<Rest>().back())));
  const auto partitions = partitions_of<Rec>();
  for (std::size_t p = 0; p < partitions.size(); ++p)
    check("partition " + std::to_string(p), PartitionMapping<Rec>(n, partitions[p]));
  if constexpr (std::is_same_v<Rec, Floats3>) check("BuiltinVec4", BuiltinVec4Mapping<Rec>{n});
}

template <class Rec>
class LayoutProperties : public testing::Test {};
using Records = testing::Types<Floats3, CharDouble, DoubleChar, Mixed, Vectors>;
TYPED_TEST_SUITE(LayoutProperties, Records);

constexpr std::size_t record_counts[] = {1, 5, 17, 64, 100};

TYPED_TEST(LayoutProperties, EveryMappingMapsNonOverlappinglyInsideAlignedBlobs) {
  for (std::size_t n : record_counts)
    for_every_mapping<TypeParam>(n, [&](const std::string& label, const auto& m) {
      SCOPED_TRACE(label + ", n = " + std::to_string(n));
      expect_maps_non_overlapping(m);
    });
}

TYPED_TEST(LayoutProperties, EveryMappingRoundTripsWholeRecordsAndFields) {
  for (std::size_t n : record_counts)
    for_every_mapping<TypeParam>(n, [&](const std::string& label, const auto& m) {
      SCOPED_TRACE(label + ", n = " + std::to_string(n));
      expect_round_trip(m);
    });
}

// The checks can fail: a mapping that puts both fields of a record at the same offset, and one
// that packs {char, double} without padding (the double one byte in).
struct SharedOffsets : AoSMapping<CharDouble> {
  template <class Tag>
  constexpr Location locate(std::size_t i) const {
    return {0, i * stride};
  }
};
struct Unpadded : AoSMapping<CharDouble> {
  constexpr std::size_t blob_bytes(std::size_t) const { return n * 9; }
  template <class Tag>
  constexpr Location locate(std::size_t i) const {
    return {0, i * 9 + CharDouble::index_of<Tag>};
  }
};
static_assert(Mapping<SharedOffsets> && Mapping<Unpadded>);

TEST(LayoutPropertiesCheck, CatchesOverlapAndMisalignment) {
  EXPECT_FATAL_FAILURE(expect_maps_non_overlapping(SharedOffsets{{1}}), "overlaps");
  EXPECT_NONFATAL_FAILURE(expect_maps_non_overlapping(Unpadded{{1}}), "loc.offset % alignof(T)");
}

}  // namespace

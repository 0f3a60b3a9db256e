// Properties every mapping must have, checked over every mapping of the library (compile-time
// and run-time tile sizes and partitions, splits with a stateful cluster) for records that mix
// field sizes and alignments, at several record counts: each (record, field) lies inside its
// blob, aligned for its type, and no byte belongs to two of them (LLAMA's
// mapsNonOverlappingly); records stored whole come back whole and field by field.

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "layout_testing.hpp"
#include "lb/layout/host_storage.hpp"

namespace {

using namespace layout_testing;

// The checks read a mapping as data (a MappingTable, layout_testing.hpp; a ReadBack of its
// storage), so their assertions are compiled once, not once per mapping type and record: this
// file was the slowest of the build (docs/tests.md). Only the tabulating is a template.

void expect_maps_non_overlapping(const MappingTable& t) {
  const std::size_t fields = t.fields();
  std::vector<std::vector<long>> owner(t.blob_bytes.size());
  for (std::size_t b = 0; b < owner.size(); ++b) owner[b].assign(t.blob_bytes[b], -1);
  for (std::size_t i = 0; i < t.records; ++i)
    for (std::size_t f = 0; f < fields; ++f) {
      const Location loc = t.where[i * fields + f];
      const std::size_t size = t.field_size[f], align = t.field_align[f];
      ASSERT_LT(loc.blob, t.blob_bytes.size()) << "record " << i << " field " << f;
      ASSERT_LE(loc.offset + size, t.blob_bytes[loc.blob]) << "record " << i << " field " << f;
      EXPECT_EQ(loc.offset % align, 0u) << "record " << i << " field " << f;
      EXPECT_EQ(t.blob_alignment[loc.blob] % align, 0u) << "blob " << loc.blob << " field " << f;
      for (std::size_t k = 0; k < size; ++k) {
        long& o = owner[loc.blob][loc.offset + k];
        ASSERT_EQ(o, -1) << "record " << i << " field " << f << " overlaps (record, field) id " << o;
        o = static_cast<long>(i * fields + f);
      }
    }
}

//! Byte k of the pattern value of (record, field): never forms a NaN.
unsigned char pattern_byte(std::size_t i, std::size_t f, std::size_t k) {
  return static_cast<unsigned char>((i * 7 + f * 31 + k * 3) % 61 + 1);
}

template <class T>
T pattern(std::size_t i, std::size_t f) {
  unsigned char bytes[sizeof(T)];
  for (std::size_t k = 0; k < sizeof(T); ++k) bytes[k] = pattern_byte(i, f, k);
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

//! The bytes of every (record, field) as a view reads them back, record-major: by field (get)
//! and from the whole record (load).
struct ReadBack {
  std::vector<std::size_t> field_size;
  std::vector<unsigned char> by_field, whole;
};

template <class T>
void append_bytes(std::vector<unsigned char>& out, const T& value) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(&value);
  out.insert(out.end(), bytes, bytes + sizeof(T));
}

template <class V>
ReadBack read_back(const V& view, std::size_t n) {
  using Rec = typename V::mapping_type::record;
  ReadBack r;
  for_each_field<Rec>([&](auto f) { r.field_size.push_back(sizeof(typename Rec::template field_type<decltype(f)::value>)); });
  for (std::size_t i = 0; i < n; ++i) {
    const RecordValue<Rec> loaded = view.load(i);
    for_each_tag<Rec>([&]<class Tag>(Tag, std::size_t) {
      append_bytes(r.by_field, view.template get<Tag>(i));
      append_bytes(r.whole, loaded.template get<Tag>());
    });
  }
  return r;
}

//! Every byte read back is the pattern's: `before` as stored, `after` once record `moved` holds
//! record moved + 1's pattern in field 0. Stops at the first wrong byte.
void expect_pattern(const ReadBack& before, const ReadBack& after, std::size_t moved) {
  for (const ReadBack* r : {&before, &after}) {
    const char* when = r == &before ? "stored" : "after a field write";
    std::size_t at = 0;
    for (std::size_t i = 0; at < r->by_field.size(); ++i)
      for (std::size_t f = 0; f < r->field_size.size(); ++f)
        for (std::size_t k = 0; k < r->field_size[f]; ++k, ++at) {
          const unsigned char expected = pattern_byte(r == &after && i == moved && f == 0 ? i + 1 : i, f, k);
          ASSERT_EQ(r->by_field[at], expected) << when << ": get, record " << i << " field " << f << " byte " << k;
          ASSERT_EQ(r->whole[at], expected) << when << ": load, record " << i << " field " << f << " byte " << k;
        }
  }
}

//! Stores whole records, reads them back whole (load) and by field (get); a write through
//! get changes that field of that record only.
template <class M>
void expect_round_trip(const M& m) {
  using Rec = typename M::record;
  HostStorage<M> storage(m);
  const auto view = storage.view();
  fill(view, pattern_record<Rec>);
  const ReadBack before = read_back(view, m.size());
  using Tag0 = typename Rec::template field<0>::tag;
  using T0 = typename Rec::template field_type<0>;
  const std::size_t mid = m.size() / 2;
  view.template get<Tag0>(mid) = pattern<T0>(mid + 1, 0);
  expect_pattern(before, read_back(view, m.size()), mid);
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
      expect_maps_non_overlapping(table_of(m));
    });
}

TYPED_TEST(LayoutProperties, EveryMappingRoundTripsWholeRecordsAndFields) {
  for (std::size_t n : record_counts)
    for_every_mapping<TypeParam>(n, [&](const std::string& label, const auto& m) {
      SCOPED_TRACE(label + ", n = " + std::to_string(n));
      expect_round_trip(m);
    });
}

// The checks can fail: a mapping that puts both fields of a record at the same offset (they
// overlap, and a record does not come back), and one that packs {char, double} without padding
// (the double one byte in).
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
  EXPECT_FATAL_FAILURE(expect_maps_non_overlapping(table_of(SharedOffsets{{1}})), "overlaps");
  EXPECT_NONFATAL_FAILURE(expect_maps_non_overlapping(table_of(Unpadded{{1}})), "loc.offset % align");
  EXPECT_FATAL_FAILURE(expect_round_trip(SharedOffsets{{2}}), "stored: get, record 0 field 1 byte 0");
}

}  // namespace

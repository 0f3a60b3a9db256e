// Layout library over records that mix field sizes: golden offsets (C struct rules, tiles
// padded to each field's alignment), run-time tile sizes and partitions giving the bytes of
// their compile-time twins, Split holding stateful clusters, the Mapping concept, and the
// name-to-type dispatch.

#include <gtest/gtest.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "layout_testing.hpp"
#include "lb/layout/dispatch.hpp"
#include "lb/layout/host_storage.hpp"

namespace {

using namespace layout_testing;
using K = ClusterLayout::Kind;

// Every mapping of the library satisfies the concept; a type lacking part of it does not.
static_assert(Mapping<AoSMapping<Mixed>> && Mapping<AoSMapping<Vectors, 16>> && Mapping<SoAMapping<Mixed>>);
static_assert(Mapping<AoSoAMapping<Mixed, 3>> && Mapping<RuntimeAoSoAMapping<Mixed>>);
static_assert(Mapping<BuiltinVec4Mapping<Floats3>> && Mapping<PartitionMapping<Vectors>>);
static_assert(Mapping<FirstAndRest<Mixed, SoA, AoSoA<4>>> && Mapping<FirstAndRest<Mixed, AoS, RuntimeAoSoA>>);
struct NoLocate {
  using record = Floats3;
  static constexpr std::size_t blob_count = 1;
  std::size_t size() const { return 0; }
  std::size_t blob_bytes(std::size_t) const { return 0; }
  std::size_t blob_alignment(std::size_t) const { return 1; }
  RecordValue<Floats3> load(std::byte* const*, std::size_t) const { return {}; }
  void store(std::byte* const*, std::size_t, const RecordValue<Floats3>&) const {}
};
static_assert(!Mapping<NoLocate> && !Mapping<int>);

// The C structs the AoS mappings must match byte for byte.
struct MixedStruct {
  char a;
  short b;
  int c;
  double d;
  float e;
};
struct VectorsStruct {
  char a;
  float4 b;
  short c;
  Vec3 d;
  int e;
};

template <class Rec, class Struct>
void expect_c_struct(std::initializer_list<std::size_t> offsets) {
  using M = AoSMapping<Rec>;
  EXPECT_EQ(M::stride, sizeof(Struct));
  EXPECT_EQ(M::blob_alignment(0), alignof(Struct));
  std::size_t k = 0;
  for_each_tag<Rec>([&]<class Tag>(Tag, std::size_t) {
    EXPECT_EQ(M{3}.template locate<Tag>(2).offset, 2 * sizeof(Struct) + offsets.begin()[k]) << "field " << k;
    ++k;
  });
}

TEST(LayoutGolden, AoSFollowsCStructRules) {
  expect_c_struct<Mixed, MixedStruct>({offsetof(MixedStruct, a), offsetof(MixedStruct, b), offsetof(MixedStruct, c),
                                       offsetof(MixedStruct, d), offsetof(MixedStruct, e)});
  expect_c_struct<Vectors, VectorsStruct>({offsetof(VectorsStruct, a), offsetof(VectorsStruct, b),
                                           offsetof(VectorsStruct, c), offsetof(VectorsStruct, d),
                                           offsetof(VectorsStruct, e)});
  EXPECT_EQ((AoSMapping<CharDouble>{1}.locate<B>(0).offset), 8u);
  EXPECT_EQ((AoSMapping<CharDouble>::stride), 16u);
  EXPECT_EQ((AoSMapping<DoubleChar>::stride), 16u);  // trailing padding
  EXPECT_EQ((AoSMapping<Floats3, 16>::stride), 16u);
}

TEST(LayoutGolden, AoSoARunsStartAtTheirFieldsAlignment) {
  // {char, double}, 3 lanes: c c c, 5 padding bytes, d d d = 32 bytes a tile.
  using CD = AoSoAMapping<CharDouble, 3>;
  EXPECT_EQ(CD::tile_bytes, 32u);
  EXPECT_EQ(CD::blob_alignment(0), 8u);
  EXPECT_EQ((CD{10}.locate<B>(0).offset), 8u);
  EXPECT_EQ((CD{10}.locate<A>(4).offset), 32 + 1u);   // tile 1, lane 1
  EXPECT_EQ((CD{10}.locate<B>(4).offset), 32 + 16u);  // tile 1, lane 1
  EXPECT_EQ(footprint_bytes(CD{10}), 4 * 32u);        // 4 tiles, the last partly used
  // {char, short, int, double, float}, 3 lanes: runs at 0, 4, 12, 24, 48; 60 padded to 64.
  using M = AoSoAMapping<Mixed, 3>;
  EXPECT_EQ(M::tile_bytes, 64u);
  EXPECT_EQ((M{6}.locate<B>(0).offset), 4u);
  EXPECT_EQ((M{6}.locate<C>(0).offset), 12u);
  EXPECT_EQ((M{6}.locate<D>(5).offset), 64 + 24 + 2 * 8u);
  EXPECT_EQ((M{6}.locate<E>(5).offset), 64 + 48 + 2 * 4u);
  // {char, float4, short, Vec3, int}, 2 lanes: runs at 0, 16, 48, 52, 76; 84 padded to 96.
  using V = AoSoAMapping<Vectors, 2>;
  EXPECT_EQ(V::tile_bytes, 96u);
  EXPECT_EQ(V::blob_alignment(0), 16u);
  EXPECT_EQ((V{4}.locate<B>(3).offset), 96 + 16 + 16u);
  EXPECT_EQ((V{4}.locate<D>(3).offset), 96 + 52 + 12u);
  EXPECT_EQ((V{4}.locate<E>(3).offset), 96 + 76 + 4u);
  // {float, float, float}, 4 lanes: no padding.
  using F = AoSoAMapping<Floats3, 4>;
  EXPECT_EQ((F{10}.locate<C>(6).offset), 48 + 32 + 2 * 4u);
  EXPECT_EQ(footprint_bytes(F{10}), 3 * 48u);
}

TEST(LayoutGolden, OneLaneIsAoSAndSoAFieldsAreAligned) {
  expect_same_bytes(AoSoAMapping<Mixed, 1>{7}, AoSMapping<Mixed>{7});
  expect_same_bytes(AoSoAMapping<Vectors, 1>{7}, AoSMapping<Vectors>{7});
  EXPECT_EQ(SoAMapping<Vectors>::blob_alignment(1), alignof(float4));
  EXPECT_EQ(SoAMapping<Vectors>::blob_alignment(3), alignof(Vec3));
}

// Run-time tile sizes: the same bytes as AoSoA<L> for every record, tile size and count,
// powers of two or not, tiles larger than n included.
template <class Rec, std::size_t... Lanes>
void expect_runtime_tiles_match(std::index_sequence<Lanes...>) {
  for (std::size_t n : {1, 2, 7, 33, 100})
    (
        [&] {
          SCOPED_TRACE("lanes " + std::to_string(Lanes) + ", n " + std::to_string(n));
          expect_same_bytes(AoSoAMapping<Rec, Lanes>{n}, RuntimeAoSoAMapping<Rec>(n, Lanes));
        }(),
        ...);
}
using TileSizes = std::index_sequence<1, 2, 3, 4, 5, 8, 16, 32, 128>;

TEST(LayoutRuntimeTiles, SameBytesAsCompileTimeTiles) {
  expect_runtime_tiles_match<Floats3>(TileSizes{});
  expect_runtime_tiles_match<CharDouble>(TileSizes{});
  expect_runtime_tiles_match<DoubleChar>(TileSizes{});
  expect_runtime_tiles_match<Mixed>(TileSizes{});
  expect_runtime_tiles_match<Vectors>(TileSizes{});
}

TEST(LayoutRuntimeTiles, RejectsEmptyTiles) {
  EXPECT_THROW(RuntimeAoSoAMapping<Mixed>(10, 0), std::invalid_argument);
  EXPECT_EQ(RuntimeAoSoAMapping<Mixed>(10, 3).lanes(), 3u);
}

TEST(LayoutRuntimeTiles, PowerOfTwoTilesGiveTheSameBytesAndRefuseOtherSizes) {
  for (std::size_t lanes : {1, 2, 4, 8, 64, 1024})
    for (std::size_t n : {1, 7, 100, 5000}) {
      SCOPED_TRACE("lanes " + std::to_string(lanes) + ", n " + std::to_string(n));
      expect_same_bytes(RuntimeAoSoAMapping<Mixed>(n, lanes), Pow2AoSoAMapping<Mixed>(n, lanes));
    }
  EXPECT_THROW(Pow2AoSoAMapping<Mixed>(10, 3), std::invalid_argument);
  EXPECT_THROW(Pow2AoSoAMapping<Mixed>(10, 0), std::invalid_argument);
  EXPECT_THROW(Pow2PartitionMapping<Mixed>(10, FieldPartition{{0, 0, 0, 0, 0}, {{K::tiled, 6}}}),
               std::invalid_argument);
  // 32-bit index arithmetic: at most 2^32 - 1 records (the general mappings hold any count).
  EXPECT_THROW(Pow2AoSoAMapping<Mixed>(std::size_t{1} << 32, 4), std::invalid_argument);
  EXPECT_EQ(RuntimeAoSoAMapping<Mixed>(std::size_t{1} << 32, 4).size(), std::size_t{1} << 32);
  const Pow2AoSoAMapping<Mixed> last(0xffffffff, 4);
  EXPECT_EQ(last.locate<E>(0xfffffffe).offset, RuntimeAoSoAMapping<Mixed>(0xffffffff, 4).locate<E>(0xfffffffe).offset);
}

// Run-time partitions: the same bytes as the compile-time Split of the same clusters, region
// r of the partition's one blob holding what the Split's blob r holds.
//! A partition's regions (bytes, alignment, offset in its one blob) as data.
struct Regions {
  std::vector<std::size_t> bytes, alignment, offset;
  std::size_t region_alignment;
};

void expect_regions_are_split_blobs(const MappingTable& partition, const Regions& regions, const MappingTable& split) {
  ASSERT_EQ(partition.records, split.records);
  std::size_t used = 0;
  for (std::size_t bytes : split.blob_bytes) used += bytes > 0 ? 1 : 0;
  ASSERT_EQ(regions.bytes.size(), used);
  for (std::size_t r = 0; r < regions.bytes.size(); ++r) {
    EXPECT_EQ(regions.bytes[r], split.blob_bytes[r]) << "region " << r;
    EXPECT_EQ(regions.alignment[r], split.blob_alignment[r]) << "region " << r;
    EXPECT_EQ(regions.offset[r] % regions.region_alignment, 0u) << "region " << r;
    if (r > 0) {
      EXPECT_GE(regions.offset[r], regions.offset[r - 1] + regions.bytes[r - 1]);
    }
  }
  for (std::size_t j = 0; j < split.where.size(); ++j) {
    const Location p = partition.where[j], s = split.where[j];
    ASSERT_EQ(p.blob, 0u);
    ASSERT_EQ(p.offset, regions.offset[s.blob] + s.offset) << "record " << j / split.fields() << " field " << j % split.fields();
  }
}

template <class P, class S>
void expect_regions_are_split_blobs(const P& partition, const S& split) {
  static_assert(std::is_same_v<typename P::record, typename S::record>);
  Regions regions{{}, {}, {}, P::kRegionAlignment};
  for (std::size_t r = 0; r < partition.region_count(); ++r) {
    regions.bytes.push_back(partition.region_bytes(r));
    regions.alignment.push_back(partition.region_alignment(r));
    regions.offset.push_back(partition.region_offset(r));
  }
  expect_regions_are_split_blobs(table_of(partition), regions, table_of(split));
}

template <class MakeSplit>
void expect_partition_matches(const MakeSplit& split_of, const FieldPartition& partition) {
  using Rec = typename decltype(split_of(std::size_t{1}))::record;
  for (std::size_t n : {1, 6, 64, 101}) {
    SCOPED_TRACE("n " + std::to_string(n));
    expect_regions_are_split_blobs(PartitionMapping<Rec>(n, partition), split_of(n));
    if (power_of_two_tiles(partition))
      expect_regions_are_split_blobs(Pow2PartitionMapping<Rec>(n, partition), split_of(n));
  }
}

TEST(LayoutPartition, SameBytesAsCompileTimeSplit) {
  // Field 0 in one cluster, the rest in another, over every pair of cluster layouts.
  auto first_and_rest = [](ClusterLayout first, ClusterLayout rest) {
    return FieldPartition{{0, 1, 1, 1, 1}, {first, rest}};
  };
  expect_partition_matches([](std::size_t n) { return FirstAndRest<Mixed, AoS, SoA>(n); },
                           first_and_rest({K::aos}, {K::soa}));
  expect_partition_matches([](std::size_t n) { return FirstAndRest<Mixed, SoA, AoSoA<4>>(n); },
                           first_and_rest({K::soa}, {K::tiled, 4}));
  expect_partition_matches([](std::size_t n) { return FirstAndRest<Vectors, AoSoA<3>, AoS>(n); },
                           first_and_rest({K::tiled, 3}, {K::aos}));
  expect_partition_matches([](std::size_t n) { return FirstAndRest<Vectors, AoSoA<8>, AoSoA<2>>(n); },
                           first_and_rest({K::tiled, 8}, {K::tiled, 2}));
  // Clusters that interleave in the record; a cluster id order unlike the field order.
  using Interleaved = SplitMapping<Mixed, Cluster<AoSoA<5>, B, D>, Cluster<AoS, A, C, E>>;
  expect_partition_matches([](std::size_t n) { return Interleaved(n); },
                           FieldPartition{{1, 0, 1, 0, 1}, {{K::tiled, 5}, {K::aos}}});
  using Three = SplitMapping<Vectors, Cluster<SoA, B, E>, Cluster<AoSoA<16>, A, C>, Cluster<AoS, D>>;
  expect_partition_matches([](std::size_t n) { return Three(n); },
                           FieldPartition{{1, 0, 1, 2, 0}, {{K::soa}, {K::tiled, 16}, {K::aos}}});
  // One cluster is the plain layout.
  expect_partition_matches([](std::size_t n) { return AoSoAMapping<Mixed, 7>{n}; },
                           FieldPartition{{0, 0, 0, 0, 0}, {{K::tiled, 7}}});
  expect_partition_matches([](std::size_t n) { return SoAMapping<Mixed>{n}; },
                           FieldPartition{{0, 0, 0, 0, 0}, {{K::soa}}});
}

TEST(LayoutPartition, RejectsMalformedPartitionsNamingTheProblem) {
  auto message = [](const FieldPartition& p) {
    try {
      PartitionMapping<CharDouble>(4, p);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message({{0}, {{K::aos}}}), "field partition: 1 cluster ids for a record of 2 fields");
  EXPECT_EQ(message({{0, 2}, {{K::aos}, {K::soa}}}), "field partition: field 1 names cluster 2 of 2");
  EXPECT_EQ(message({{0, 0}, {{K::aos}, {K::soa}}}), "field partition: cluster 1 holds no field");
  EXPECT_EQ(message({{0, 0}, {{K::tiled, 0}}}), "field partition: cluster 0 is tiled with 0 records per tile");
  EXPECT_EQ(message({{1, 0}, {{K::aos}, {K::soa}}}), "accepted");
}

TEST(LayoutSplit, HoldsStatefulClusters) {
  // The same split type with two run-time tile sizes in its second cluster.
  using M = FirstAndRest<Mixed, SoA, RuntimeAoSoA>;
  using Sub = M::sub_mapping<1>;
  const M two(M::sub_mapping<0>{9}, Sub(9, 2)), eight(M::sub_mapping<0>{9}, Sub(9, 8));
  EXPECT_EQ(two.part<1>().lanes(), 2u);
  EXPECT_EQ(eight.part<1>().lanes(), 8u);
  expect_same_bytes(two, FirstAndRest<Mixed, SoA, AoSoA<2>>(9));
  expect_same_bytes(eight, FirstAndRest<Mixed, SoA, AoSoA<8>>(9));
  EXPECT_THROW(M(M::sub_mapping<0>{9}, Sub(8, 2)), std::invalid_argument);  // record counts differ
}

TEST(LayoutStorage, BuiltFromAMappingValue) {
  const HostStorage<RuntimeAoSoAMapping<Mixed>> storage(RuntimeAoSoAMapping<Mixed>(10, 4));
  EXPECT_EQ(storage.size(), 10u);
  EXPECT_EQ(storage.mapping().lanes(), 4u);
  EXPECT_EQ(storage.view().mapping.tile_bytes(), (AoSoAMapping<Mixed, 4>::tile_bytes));
}

// Name-to-type dispatch over a list of named layouts.
struct First {
  static constexpr std::string_view name = "first";
  static constexpr bool wide = false;
};
struct Second {
  static constexpr std::string_view name = "second";
  static constexpr bool wide = true;
};
struct Third {
  static constexpr std::string_view name = "third";
  static constexpr bool wide = true;
};
using Named = LayoutList<First, Second, Third>;
template <class L>
using IsWide = std::bool_constant<L::wide>;

TEST(LayoutDispatch, CallsTheNamedLayout) {
  const auto name_of = []<class L>() { return std::string(L::name); };
  EXPECT_EQ(dispatch("first", Named{}, name_of), "first");
  EXPECT_EQ(dispatch("third", Named{}, name_of), "third");
  std::string seen;
  dispatch("second", Named{}, [&]<class L>() { seen = L::name; });  // void results too
  EXPECT_EQ(seen, "second");
  EXPECT_EQ(layout_names(Named{}), (std::vector<std::string>{"first", "second", "third"}));
  EXPECT_EQ(layout_names(filter<IsWide>(Named{})), (std::vector<std::string>{"second", "third"}));
}

TEST(LayoutDispatch, UnknownNameListsTheAcceptedOnes) {
  try {
    dispatch("fourth", Named{}, []<class L>() {}, "in this test");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown layout 'fourth' in this test (expected one of: first, second, third)");
  }
  EXPECT_THROW(check_layout("first", filter<IsWide>(Named{})), std::invalid_argument);
  EXPECT_NO_THROW(check_layout("second", filter<IsWide>(Named{})));
}

}  // namespace

namespace {

//! A whole-record store followed by an update through a field reference, on the CPU: the
//! record's words and the field are the same bytes, so the update must see the store. (The
//! word copies once went through integer pointers, which GCC's type-based alias analysis
//! may reorder against a double's load and store: the update was lost at -O3.)
template <class M>
void expect_field_update_sees_record_store(const M& m) {
  HostStorage<M> storage(m);
  const auto view = storage.view();
  for (std::size_t i = 0; i < m.size(); ++i) {
    view.template get<D>(i) = static_cast<double>(i) / 3;
    const auto r = view.load(i);
    auto halved = r;
    halved.template get<D>() *= 0.5;
    view.store(i, halved);
    view.template get<D>(i) += 1.0;
  }
  for (std::size_t i = 0; i < m.size(); ++i)
    ASSERT_EQ(view.template get<D>(i), static_cast<double>(i) / 3 * 0.5 + 1.0) << "record " << i;
}

TEST(LayoutAccess, FieldUpdateAfterAWholeRecordStoreIsKept) {
  expect_field_update_sees_record_store(AoSMapping<Mixed>{100});
  expect_field_update_sees_record_store(AoSMapping<Mixed, 16>{100});
}

}  // namespace

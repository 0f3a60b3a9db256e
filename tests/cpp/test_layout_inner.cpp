// Inner arrays (lb/layout/inner_array.hpp): golden offsets of every strategy in AoS and SoA
// (and AoSoA of 32, beyond the paper),
// then properties over every (layout, strategy, inline count incl. 0 and Max) for records
// with one and with two arrays of mixed alignment, at lengths up to and past Max: every byte
// a record owns (scalars, length and arena offset headers, elements k < length) lies inside
// its blob, aligned, owned once; what is not owned is the footprint's waste; values written
// through the view's references come back; ragged (CSR) arrays; errors.

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "layout_testing.hpp"
#include "lb/layout/inner_array.hpp"

namespace {

using namespace layout_testing;
using S = InnerStrategy;
using L = InnerLayout;

using Obj = Record<Field<A, int>, Field<B, InnerArray<int, 4>>>;
using TwoArrays = Record<Field<A, char>, Field<B, InnerArray<double, 3>>, Field<C, short>, Field<D, InnerArray<char, 5>>>;

template <class Rec, L Layout, S Strategy>
using IM = InnerArrayMapping<Rec, Layout, Strategy>;

static_assert(StorageMapping<IM<Obj, L::aos, S::partial>> && StorageMapping<IM<TwoArrays, L::soa, S::object>>);
static_assert(!Mapping<IM<Obj, L::aos, S::full>>);  // no whole-record value
static_assert(IM<TwoArrays, L::soa, S::none>::blob_count == 2 + 4 * 2 && IM<TwoArrays, L::aos, S::none>::blob_count == 3 &&
              IM<TwoArrays, L::aosoa32, S::none>::blob_count == 1 + 2 * 2);

bool same(const Location& a, const Location& b) { return a.blob == b.blob && a.offset == b.offset; }
#define EXPECT_AT(loc, b, off) EXPECT_TRUE(same(loc, Location{b, off})) << "got blob " << (loc).blob << " offset " << (loc).offset

const ArrayLengths ragged = {{3, 0, 6, 4}};  // record 2 past Max = 4
const ArrayLengths bounded = {{3, 0, 4, 4}};

TEST(InnerArrayGolden, AoSPartialPacksHeaderThenSlotsAndOverflowsIntoTheArena) {
  // {int value; u32 length; u32 offset; int slots[2];} = 20 bytes; overflow 1, 0, 4, 2.
  const auto s = inner_host_storage<IM<Obj, L::aos, S::partial>>(ragged, 2);
  const auto& m = s.mapping();
  const auto view = s.view();
  const std::byte* const* b = view.blobs;
  EXPECT_EQ(m.record_stride(), 20u);
  EXPECT_AT(m.locate<A>(2), 0u, 40u);
  EXPECT_AT(m.locate_length<B>(2), 0u, 44u);
  EXPECT_AT(m.locate_arena_offset<B>(2), 0u, 48u);
  EXPECT_AT(m.locate_element<B>(b, 2, 1), 0u, 56u);
  EXPECT_AT(m.locate_element<B>(b, 2, 2), 1u, 4u);   // arena run of record 2 starts at element 1
  EXPECT_AT(m.locate_element<B>(b, 2, 5), 1u, 16u);
  EXPECT_AT(m.locate_element<B>(b, 3, 2), 1u, 20u);  // record 3's run starts at 1 + 4
  EXPECT_EQ(m.blob_bytes(1), 7u * 4);
  EXPECT_EQ(view.length<B>(2), 6u);
  // 4 records x 20 + arena 28 = 108; data: values 16, headers 32, 13 elements 52: waste 8
  // (record 1's two unused slots).
  EXPECT_EQ(m.footprint().inline_bytes, 80u);
  EXPECT_EQ(m.footprint().arena_bytes, 28u);
  EXPECT_EQ(m.footprint().wasted_bytes, 8u);
}

TEST(InnerArrayGolden, AoSNoneKeepsOnlyHeadersInTheRecord) {
  const auto s = inner_host_storage<IM<Obj, L::aos, S::none>>(ragged);
  const auto& m = s.mapping();
  const auto view = s.view();
  EXPECT_EQ(m.record_stride(), 12u);
  EXPECT_AT(m.locate_element<B>(view.blobs, 2, 5), 1u, (3u + 5) * 4);  // runs start at 0, 3, 3, 9
  EXPECT_EQ(m.footprint().wasted_bytes, 0u);
}

TEST(InnerArrayGolden, AoSFullAndObjectReserveMaxSlotsWithCStructPadding) {
  const IM<Obj, L::aos, S::full> m(bounded);
  EXPECT_EQ(m.record_stride(), 24u);  // value, length, 4 slots
  EXPECT_AT(m.locate_element<B>(nullptr, 2, 3), 0u, 48u + 8 + 12);
  EXPECT_EQ((IM<Obj, L::aos, S::object>(bounded).record_stride()), 24u);
  // {char; u32 length; double slots[3]}: slots at 8, 32 bytes; partial 1: offset at 8, slot at 16.
  const ArrayLengths two = {{1, 3}, {0, 5}};
  const IM<TwoArrays, L::aos, S::full> full(two);
  EXPECT_EQ(full.record_stride(), 48u);  // c 0, len 4, d[3] 8..32, short 32, len 36, char[5] 40..45, pad to 48
  EXPECT_AT(full.locate_element<B>(nullptr, 1, 2), 0u, 48u + 8 + 16);
  EXPECT_AT(full.locate<C>(1), 0u, 48u + 32);
  EXPECT_AT(full.locate_element<D>(nullptr, 1, 4), 0u, 48u + 40 + 4);
  const IM<TwoArrays, L::aos, S::partial> partial(two, 1);
  EXPECT_EQ(partial.record_stride(), 40u);  // c, len 4, off 8, d 16, short 24, len 28, off 32, char 36, pad
}

TEST(InnerArrayGolden, SoAPartialAndFullAreSlotColumnsObjectIsOneColumnOfArrays) {
  // Blobs: value 0; array: lengths 1, offsets 2, slots 3, arena 4.
  const auto p = inner_host_storage<IM<Obj, L::soa, S::partial>>(ragged, 2);
  const auto view = p.view();
  EXPECT_AT(p.mapping().locate<A>(2), 0u, 8u);
  EXPECT_AT(p.mapping().locate_length<B>(2), 1u, 8u);
  EXPECT_AT(p.mapping().locate_arena_offset<B>(2), 2u, 8u);
  EXPECT_AT(p.mapping().locate_element<B>(view.blobs, 2, 1), 3u, 1 * 4 * 4 + 2 * 4u);  // column 1, row 2
  EXPECT_AT(p.mapping().locate_element<B>(view.blobs, 2, 4), 4u, (1 + 4 - 2) * 4u);
  const IM<Obj, L::soa, S::full> full(bounded);
  EXPECT_AT(full.locate_element<B>(nullptr, 2, 3), 3u, 3 * 16 + 8u);
  EXPECT_EQ(full.blob_bytes(3), 64u);
  EXPECT_EQ(full.blob_bytes(2) + full.blob_bytes(4), 0u);  // no offsets, no arena
  const IM<Obj, L::soa, S::object> object(bounded);
  EXPECT_AT(object.locate_element<B>(nullptr, 2, 3), 3u, 2 * 16 + 12u);
  // values 16 + lengths 16 + slots 64; 5 of the 16 slots unused.
  EXPECT_EQ(full.footprint().inline_bytes, 96u);
  EXPECT_EQ(full.footprint().wasted_bytes, 20u);
  EXPECT_EQ(object.footprint().total(), full.footprint().total());
}

//! Beyond the paper, AoSoA of 32 records (Kofler's method's choice for the synthetic object):
//! the scalars and headers in tiles, each a run of 32 entries; the slots and arenas as SoA's.
TEST(InnerArrayGolden, AoSoA32TilesScalarsAndHeadersAndKeepsSoAsSlotsAndArenas) {
  // Tile: value 0..128, length 128..256, arena offset 256..384. Blobs: tiles 0, slots 1, arena 2.
  const auto p = inner_host_storage<IM<Obj, L::aosoa32, S::partial>>(ragged, 2);
  const auto& m = p.mapping();
  const auto view = p.view();
  EXPECT_EQ(m.tile_bytes(), 384u);
  EXPECT_EQ(m.record_stride(), 0u);
  EXPECT_EQ(m.blob_bytes(0), 384u);  // one tile for 4 records
  EXPECT_AT(m.locate<A>(2), 0u, 8u);
  EXPECT_AT(m.locate_length<B>(2), 0u, 128u + 8);
  EXPECT_AT(m.locate_arena_offset<B>(2), 0u, 256u + 8);
  EXPECT_AT(m.locate_element<B>(view.blobs, 2, 1), 1u, 1 * 4 * 4 + 2 * 4u);  // column 1, row 2
  EXPECT_AT(m.locate_element<B>(view.blobs, 2, 4), 2u, (1 + 4 - 2) * 4u);    // overflow runs 1, 0, 4, 2
  EXPECT_EQ(view.length<B>(2), 6u);
  EXPECT_EQ(view.capacity<B>(2), 6u);
  // object: one column of whole arrays; the tile holds value and length only (256 bytes).
  const IM<Obj, L::aosoa32, S::object> object(bounded);
  EXPECT_EQ(object.tile_bytes(), 256u);
  EXPECT_AT(object.locate_element<B>(nullptr, 2, 3), 1u, 2 * 16 + 12u);
  EXPECT_EQ(object.blob_bytes(2), 0u);
  // a tile of 256 + slots 64; owned: values 16, lengths 16, 11 elements 44.
  EXPECT_EQ(object.footprint().inline_bytes, 320u);
  EXPECT_EQ(object.footprint().wasted_bytes, 320u - 76);
  // Mixed alignment over two tiles: {char, length, short, length} runs at 0, 32, 160, 224 of 352.
  const ArrayLengths two = {std::vector<std::uint32_t>(40, 3), std::vector<std::uint32_t>(40, 5)};
  const IM<TwoArrays, L::aosoa32, S::full> full(two);
  EXPECT_EQ(full.tile_bytes(), 352u);
  EXPECT_EQ(full.blob_bytes(0), 2 * 352u);
  EXPECT_AT(full.locate<A>(33), 0u, 352u + 1);
  EXPECT_AT(full.locate<C>(33), 0u, 352u + 160 + 2);
  EXPECT_AT(full.locate_length<D>(40 - 1), 0u, 352u + 224 + 7 * 4);
  EXPECT_AT(full.locate_element<B>(nullptr, 33, 2), 1u, 33 * 8 + 2 * 40 * 8u);  // slot columns
  EXPECT_AT(full.locate_element<D>(nullptr, 1, 4), 3u, 1 + 4 * 40u);
}

// --- properties ------------------------------------------------------------------------

//! Calls f(location, bytes, what) for every byte range record i owns.
template <class M, class F>
void for_each_owned(const M& m, const std::byte* const* blobs, std::size_t i, F&& f) {
  using Rec = typename M::record;
  for_each_tag<Rec>([&]<class Tag>(Tag, std::size_t field) {
    using T = typename Rec::template field_type<Rec::template index_of<Tag>>;
    const std::string where = "record " + std::to_string(i) + " field " + std::to_string(field);
    if constexpr (detail::is_inner_array<T>::value) {
      using E = typename T::element;
      f(m.template locate_length<Tag>(i), 4, 4, where + " length");
      if constexpr (M::has_arena) f(m.template locate_arena_offset<Tag>(i), 4, 4, where + " arena offset");
      const Location len = m.template locate_length<Tag>(i);
      std::uint32_t n = 0;
      std::memcpy(&n, blobs[len.blob] + len.offset, 4);
      for (std::size_t k = 0; k < n; ++k)
        f(m.template locate_element<Tag>(blobs, i, k), sizeof(E), alignof(E), where + " element " + std::to_string(k));
    } else {
      f(m.template locate<Tag>(i), sizeof(T), alignof(T), where);
    }
  });
}

// The checks below take what a storage owns and reads back as data (Owned ranges, Readings),
// so their assertions are compiled once, not once per record, layout, strategy and storage
// type (docs/tests.md): only the tabulating is a template.

struct Owned {
  Location loc;
  std::size_t bytes, align;
  std::string what;
};

//! A storage's blobs and footprint, and every byte range its records own.
struct OwnedTable {
  std::vector<std::size_t> blob_bytes, blob_alignment;
  std::size_t footprint_bytes, footprint_total, footprint_wasted;
  std::vector<Owned> owned;
};

template <class M>
OwnedTable owned_table(const HostStorage<M>& s) {
  const M& m = s.mapping();
  OwnedTable t{{}, {}, footprint_bytes(m), m.footprint().total(), m.footprint().wasted_bytes, {}};
  for (std::size_t b = 0; b < M::blob_count; ++b) {
    t.blob_bytes.push_back(m.blob_bytes(b));
    t.blob_alignment.push_back(m.blob_alignment(b));
  }
  for (std::size_t i = 0; i < m.size(); ++i)
    for_each_owned(m, s.view().blobs, i, [&](const Location& loc, std::size_t bytes, std::size_t align, std::string what) {
      t.owned.push_back({loc, bytes, align, std::move(what)});
    });
  return t;
}

void expect_owned_once_inside_aligned_blobs(const OwnedTable& t) {
  std::vector<std::vector<bool>> owned(t.blob_bytes.size());
  for (std::size_t b = 0; b < owned.size(); ++b) owned[b].assign(t.blob_bytes[b], false);
  std::size_t owned_bytes = 0;
  for (const auto& [loc, bytes, align, what] : t.owned) {
    ASSERT_LT(loc.blob, t.blob_bytes.size()) << what;
    ASSERT_LE(loc.offset + bytes, t.blob_bytes[loc.blob]) << what;
    EXPECT_EQ(loc.offset % align, 0u) << what;
    EXPECT_EQ(t.blob_alignment[loc.blob] % align, 0u) << what;
    for (std::size_t k = 0; k < bytes; ++k) {
      ASSERT_FALSE(owned[loc.blob][loc.offset + k]) << what << " overlaps";
      owned[loc.blob][loc.offset + k] = true;
    }
    owned_bytes += bytes;
  }
  EXPECT_EQ(t.footprint_bytes, t.footprint_total);
  EXPECT_EQ(t.footprint_wasted, t.footprint_total - owned_bytes);
}

template <class M>
void expect_owned_once_inside_aligned_blobs(const HostStorage<M>& s) {
  expect_owned_once_inside_aligned_blobs(owned_table(s));
}

template <class T>
T pattern(std::size_t i, std::size_t f, std::size_t k) {
  return static_cast<T>((i * 131 + f * 17 + k * 7) % 101 + 1);
}

//! A value read back (a scalar, an element, or an array's length) and what it should be.
struct Reading {
  double got, expected;
  std::size_t record, field, k;
  bool length;
};

void expect_readings(const std::vector<Reading>& readings) {
  for (const Reading& r : readings) {
    if (r.length)
      ASSERT_EQ(r.got, r.expected) << "length, record " << r.record << " field " << r.field;
    else
      ASSERT_EQ(r.got, r.expected) << "record " << r.record << " field " << r.field << " k " << r.k;
  }
}

//! Writes a pattern through get<Tag>(i) and get<Tag>(i, k) in one order, reads it in another.
template <class M>
void expect_round_trip(const HostStorage<M>& s, const ArrayLengths& lengths) {
  using Rec = typename M::record;
  const auto view = s.view();
  std::vector<Reading> readings;
  const auto visit = [&](std::size_t i, bool write) {
    for_each_tag<Rec>([&]<class Tag>(Tag, std::size_t f) {
      using T = typename Rec::template field_type<Rec::template index_of<Tag>>;
      if constexpr (detail::is_inner_array<T>::value) {
        using E = typename T::element;
        const std::size_t a = detail::arrays_before<Rec, Rec::template index_of<Tag>>();
        const std::size_t n = std::min<std::size_t>(view.template length<Tag>(i), lengths[a][i]);
        if (!write) readings.push_back({double(view.template length<Tag>(i)), double(lengths[a][i]), i, f, 0, true});
        for (std::size_t k = 0; k < n; ++k) {
          if (write)
            view.template get<Tag>(i, k) = pattern<E>(i, f, k);
          else
            readings.push_back({double(view.template get<Tag>(i, k)), double(pattern<E>(i, f, k)), i, f, k, false});
        }
      } else if (write) {
        view.template get<Tag>(i) = pattern<T>(i, f, 0);
      } else {
        readings.push_back({double(view.template get<Tag>(i)), double(pattern<T>(i, f, 0)), i, f, 0, false});
      }
    });
  };
  for (std::size_t i = s.size(); i-- > 0;) visit(i, true);
  for (std::size_t i = 0; i < s.size(); ++i) visit(i, false);
  expect_readings(readings);
}

//! Lengths of every array of Rec for n records: random up to Max, or past it (ragged).
template <class Rec>
ArrayLengths random_lengths(std::size_t n, bool past_max, unsigned seed) {
  std::mt19937 rng(seed);
  ArrayLengths out;
  for_each_field<Rec>([&](auto f) {
    if constexpr (detail::is_array_field<Rec, decltype(f)::value>) {
      const std::size_t max = Rec::template field_type<decltype(f)::value>::max;
      std::vector<std::uint32_t> len(n);
      for (auto& l : len) l = static_cast<std::uint32_t>(rng() % (past_max ? 2 * max + 2 : max + 1));
      if (n > 1) len[1] = 0;
      out.push_back(len);
    }
  });
  return out;
}

template <class Rec, L Layout, S Strategy, class Check>
void for_inline_counts(std::size_t n, Check&& check) {
  constexpr std::size_t max = [] {
    std::size_t m = ~std::size_t{0};
    for_each_field<Rec>([&](auto f) {
      if constexpr (detail::is_array_field<Rec, decltype(f)::value>)
        m = std::min(m, Rec::template field_type<decltype(f)::value>::max);
    });
    return m;
  }();
  using M = IM<Rec, Layout, Strategy>;
  const bool bounded_only = !M::has_arena;
  for (unsigned seed : {1u, 2u}) {
    const ArrayLengths lengths = random_lengths<Rec>(n, !bounded_only, seed);
    if constexpr (Strategy == S::partial) {
      for (std::size_t inline_count : {std::size_t{0}, std::size_t{1}, max}) {
        SCOPED_TRACE("inline " + std::to_string(inline_count) + ", seed " + std::to_string(seed));
        check(inner_host_storage<M>(lengths, inline_count), lengths);
      }
    } else {
      SCOPED_TRACE("seed " + std::to_string(seed));
      check(inner_host_storage<M>(lengths), lengths);
    }
  }
}

template <class Rec, class Check>
void for_every_inner_mapping(std::size_t n, Check&& check) {
  auto run = [&]<L Layout, S Strategy>(const char* label) {
    SCOPED_TRACE(label);
    for_inline_counts<Rec, Layout, Strategy>(n, check);
  };
  run.template operator()<L::aos, S::none>("aos none");
  run.template operator()<L::aos, S::partial>("aos partial");
  run.template operator()<L::aos, S::full>("aos full");
  run.template operator()<L::aos, S::object>("aos object");
  run.template operator()<L::soa, S::none>("soa none");
  run.template operator()<L::soa, S::partial>("soa partial");
  run.template operator()<L::soa, S::full>("soa full");
  run.template operator()<L::soa, S::object>("soa object");
  run.template operator()<L::aosoa32, S::none>("aosoa32 none");
  run.template operator()<L::aosoa32, S::partial>("aosoa32 partial");
  run.template operator()<L::aosoa32, S::full>("aosoa32 full");
  run.template operator()<L::aosoa32, S::object>("aosoa32 object");
}

template <class Rec>
class InnerArrayProperties : public testing::Test {};
using InnerRecords = testing::Types<Obj, TwoArrays>;
TYPED_TEST_SUITE(InnerArrayProperties, InnerRecords);

TYPED_TEST(InnerArrayProperties, EveryOwnedByteIsInsideAnAlignedBlobOnceAndTheRestIsWaste) {
  for (std::size_t n : {1, 5, 17, 64, 77})  // 77: AoSoA's third tile partly filled
    for_every_inner_mapping<TypeParam>(n, [&](const auto& s, const ArrayLengths&) {
      SCOPED_TRACE("n = " + std::to_string(n));
      expect_owned_once_inside_aligned_blobs(s);
    });
}

TYPED_TEST(InnerArrayProperties, ValuesWrittenThroughReferencesComeBack) {
  for (std::size_t n : {1, 17, 64, 77})
    for_every_inner_mapping<TypeParam>(n, [&](const auto& s, const ArrayLengths& lengths) {
      SCOPED_TRACE("n = " + std::to_string(n));
      expect_round_trip(s, lengths);
    });
}

//! A storage whose length header claims more elements than the arena run holds: record 0's
//! third element is record 1's first.
void check_overlapping_runs() {
  auto s = inner_host_storage<IM<Obj, L::soa, S::none>>({{2, 1}});
  const Location len = s.mapping().locate_length<B>(0);
  const std::uint32_t three = 3;
  std::memcpy(s.blob(len.blob) + len.offset, &three, 4);
  expect_owned_once_inside_aligned_blobs(s);
}

TEST(InnerArrayPropertiesCheck, CatchesOverlap) { EXPECT_FATAL_FAILURE(check_overlapping_runs(), "overlaps"); }

TEST(InnerArrayEquivalence, PartialWithNothingInlineIsNoneAndAoSObjectIsFull) {
  const ArrayLengths lengths = random_lengths<TwoArrays>(20, true, 7);
  for (bool soa : {false, true}) {
    auto compare = [&](const auto& s1, const auto& s2) {
      expect_owned_once_inside_aligned_blobs(s1);
      for (std::size_t b = 0; b < s1.mapping().blob_count; ++b) EXPECT_EQ(s1.mapping().blob_bytes(b), s2.mapping().blob_bytes(b));
      for (std::size_t i = 0; i < 20; ++i) {
        std::vector<std::pair<std::size_t, std::size_t>> l1, l2;
        for_each_owned(s1.mapping(), s1.view().blobs, i, [&](const Location& l, auto, auto, auto) { l1.emplace_back(l.blob, l.offset); });
        for_each_owned(s2.mapping(), s2.view().blobs, i, [&](const Location& l, auto, auto, auto) { l2.emplace_back(l.blob, l.offset); });
        EXPECT_EQ(l1, l2) << "record " << i;
      }
    };
    if (soa) {
      compare(inner_host_storage<IM<TwoArrays, L::soa, S::partial>>(lengths, 0), inner_host_storage<IM<TwoArrays, L::soa, S::none>>(lengths));
    } else {
      compare(inner_host_storage<IM<TwoArrays, L::aos, S::partial>>(lengths, 0), inner_host_storage<IM<TwoArrays, L::aos, S::none>>(lengths));
      const ArrayLengths bounded_lengths = random_lengths<TwoArrays>(20, false, 8);
      compare(inner_host_storage<IM<TwoArrays, L::aos, S::object>>(bounded_lengths),
              inner_host_storage<IM<TwoArrays, L::aos, S::full>>(bounded_lengths));
    }
  }
}

TEST(InnerArrayRagged, CsrOffsetsGiveLengthsAndRowsAreRunsOfOneArena) {
  const std::vector<std::uint64_t> offsets = {0, 2, 2, 5};
  const ArrayLengths lengths = lengths_from_csr(offsets);
  ASSERT_EQ(lengths, (ArrayLengths{{2, 0, 3}}));
  const auto s = inner_host_storage<RaggedMapping<int>>(lengths);
  const auto view = s.view();
  for (std::size_t r = 0; r < 3; ++r)
    for (std::size_t k = 0; k < view.length<RaggedElements>(r); ++k) {
      view.get<RaggedElements>(r, k) = static_cast<int>(10 * r + k);
      EXPECT_AT(s.mapping().locate_element<RaggedElements>(view.blobs, r, k), 3u, (offsets[r] + k) * sizeof(int));
    }
  EXPECT_EQ(s.mapping().footprint().arena_bytes, 5 * sizeof(int));
  expect_owned_once_inside_aligned_blobs(s);
  EXPECT_THROW(lengths_from_csr(std::vector<int>{1, 2}), std::invalid_argument);
  EXPECT_THROW(lengths_from_csr(std::vector<int>{0, 3, 2}), std::invalid_argument);
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}
#define EXPECT_ERROR(statement, text) \
  EXPECT_NE(error_of([&] { statement; }).find(text), std::string::npos) << error_of([&] { statement; })

TEST(InnerArrayErrors, NameTheProblem) {
  EXPECT_ERROR((IM<Obj, L::aos, S::full>{ragged}), "record 2 has length 6 above its capacity 4");
  EXPECT_ERROR((IM<Obj, L::soa, S::partial>(ragged, 5)), "inline count 5 above array 0's capacity 4");
  EXPECT_ERROR((IM<Obj, L::soa, S::none>(ragged, 2)), "for the partial strategy only");
  EXPECT_ERROR((IM<Obj, L::soa, S::none>(ArrayLengths{{1}, {2}})), "2 length lists for a record with 1 inner arrays");
  EXPECT_ERROR((IM<TwoArrays, L::aos, S::none>(ArrayLengths{{1, 2}, {2}})), "array 1 has 1 lengths, array 0 has 2");
  const IM<Obj, L::aos, S::none> m(ragged);
  HostStorage<IM<Obj, L::aos, S::none>> s(m);
  EXPECT_ERROR(m.write_headers(s.view().blobs, {{3, 0, 6, 5}}), "lengths differ");
  const IM<Obj, L::soa, S::full> full(bounded);  // Max = 4 slots: a length of 5 would overflow them
  HostStorage<IM<Obj, L::soa, S::full>> fs(full);
  EXPECT_ERROR(full.write_headers(fs.view().blobs, {{3, 0, 5, 4}}), "lengths differ");
}

}  // namespace

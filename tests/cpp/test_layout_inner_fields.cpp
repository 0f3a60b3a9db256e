// Inner arrays with a strategy and an inlining size per array field, and writable lengths and
// elements (lb/layout/inner_array.hpp, docs/inner-arrays-library.md): golden offsets and
// footprints of mixed-strategy records computed by hand; the uniform spelling is the per-field
// one; a mixed mapping's SoA columns are those of each field's own strategy; the rebuild of
// every array (Car::path each step) over traffic-like records in AoS and SoA, every strategy
// and mix, up to the capacity reserved; capacities; broken preconditions abort; errors.

// The length and element preconditions are checked in this unit whatever NDEBUG says.
#define LB_INNER_CHECKS 1

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "inner_fields_cases.hpp"
#include "lb/exec/cpu_launcher.hpp"

namespace {

using namespace inner_fields;

template <class Rec, L Layout, S... Strategies>
using FM = InnerFieldsMapping<Rec, Layout, InnerStrategies<Strategies...>>;

// The single-strategy spelling is the per-field one with that strategy for every field.
static_assert(std::is_same_v<InnerArrayMapping<Cell, L::aos, S::partial>, FM<Cell, L::aos, S::partial, S::partial>>);
static_assert(std::is_same_v<InnerArrayMapping<Cell, L::soa, S::object>, FM<Cell, L::soa, S::object, S::object>>);
static_assert(FM<Cell, L::aos, S::none, S::full>::has_arena && !FM<Cell, L::aos, S::object, S::full>::has_arena);
static_assert(FM<Cell, L::soa, S::none, S::full>::has_arena_of<B> && !FM<Cell, L::soa, S::none, S::full>::has_arena_of<D>);
static_assert(FM<Cell, L::soa, S::full, S::partial>::strategy_of<D> == S::partial);
static_assert(InnerArrayMapping<Cell, L::soa, S::full>::strategy == S::full);
static_assert(std::is_same_v<OneFieldStrategies<Cell, D, S::partial>, InnerStrategies<S::full, S::partial>>);
static_assert(std::is_same_v<OneFieldStrategies<Cell, B, S::none, S::object>, InnerStrategies<S::none, S::object>>);
static_assert(std::is_same_v<OneFieldStrategies<Car, B, S::object>, UniformStrategies<Car, S::object>>);

bool same(const Location& a, const Location& b) { return a.blob == b.blob && a.offset == b.offset; }
#define EXPECT_AT(loc, b, off) EXPECT_TRUE(same(loc, Location{b, off})) << "got blob " << (loc).blob << " offset " << (loc).offset

void expect_footprint(const InnerFootprint& f, std::size_t inline_bytes, std::size_t arena_bytes, std::size_t wasted) {
  EXPECT_EQ(f.inline_bytes, inline_bytes);
  EXPECT_EQ(f.arena_bytes, arena_bytes);
  EXPECT_EQ(f.wasted_bytes, wasted);
}

// Cell {double x; incoming u32[<= 8]; u8 type; outgoing u16[<= 6]}, 3 records, incoming
// lengths 3 0 1, outgoing 2 6 0.
const ArrayLengths cell_lengths = {{3, 0, 1}, {2, 6, 0}};

TEST(InnerFieldsGolden, AoSPartialIncomingBesideFullOutgoing) {
  // {double x 0; u32 len 8; u32 off 12; u32 in[2] 16..24; u8 type 24; u32 len 28;
  //  u16 out[6] 32..44}: 48 bytes with the padding to 8. Incoming overflows 1, 0, 0.
  const auto s = inner_host_storage<FM<Cell, L::aos, S::partial, S::full>>(cell_lengths, InnerArraySizes{{2, 0}, {}});
  const auto& m = s.mapping();
  const auto view = s.view();
  EXPECT_EQ(m.record_stride(), 48u);
  EXPECT_AT(m.locate<A>(1), 0u, 48u);
  EXPECT_AT(m.locate_length<B>(1), 0u, 48u + 8);
  EXPECT_AT(m.locate_arena_offset<B>(1), 0u, 48u + 12);
  EXPECT_AT(m.locate_element<B>(view.blobs, 2, 1), 0u, 96u + 20);
  EXPECT_AT(m.locate_element<B>(view.blobs, 0, 2), 1u, 0u);
  EXPECT_AT(m.locate<C>(2), 0u, 96u + 24);
  EXPECT_AT(m.locate_length<D>(2), 0u, 96u + 28);
  EXPECT_AT(m.locate_element<D>(view.blobs, 1, 5), 0u, 48u + 32 + 10);
  EXPECT_EQ(m.blob_bytes(1), 4u);  // incoming's arena: record 0's third element
  EXPECT_EQ(m.blob_bytes(2), 0u);  // outgoing has none
  EXPECT_EQ(view.capacity<B>(0), 3u);
  EXPECT_EQ(view.capacity<B>(1), 2u);  // the two inline slots
  EXPECT_EQ(view.capacity<D>(1), 6u);
  // Records 144 + arena 4; data: x 24, type 3, headers 24 + 12, elements 16 + 16 = 95.
  expect_footprint(m.footprint(), 144, 4, 148 - 95);
  // Incoming: headers 24 + slots 24, arena 4; slots unused 2 + 1. Outgoing: headers 12 +
  // slots 36; 10 of 18 slots unused.
  expect_footprint(m.footprint_of<B>(), 48, 4, 12);
  expect_footprint(m.footprint_of<D>(), 48, 0, 20);
}

TEST(InnerFieldsGolden, AoSReservedCapacityGivesEveryRecordItsRun) {
  // Incoming reserves Max = 8 per record: 2 inline + 6 in the arena, runs at 0, 6, 12.
  const auto s = inner_host_storage<FM<Cell, L::aos, S::partial, S::full>>(
      cell_lengths, InnerArraySizes{{2, 0}, {{8, 8, 8}, {}}});
  const auto view = s.view();
  EXPECT_EQ(s.mapping().blob_bytes(1), 18u * 4);
  EXPECT_AT(s.mapping().locate_element<B>(view.blobs, 1, 7), 1u, (6u + 5) * 4);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(view.capacity<B>(i), 8u);
  expect_footprint(s.mapping().footprint_of<B>(), 48, 72, 48 + 72 - 24 - 16);
  // Footprints follow the lengths written: the waste shrinks as the arrays fill up.
  EXPECT_EQ(view.length<B>(1), 0u);
}

TEST(InnerFieldsGolden, SoANoneIncomingBesideFullOutgoing) {
  // Blobs: x 0; incoming: lengths 1, offsets 2, slots 3, arena 4; type 5; outgoing: lengths
  // 6, offsets 7, slots 8, arena 9.
  const auto s = inner_host_storage<FM<Cell, L::soa, S::none, S::full>>(cell_lengths);
  const auto& m = s.mapping();
  const auto view = s.view();
  static_assert(FM<Cell, L::soa, S::none, S::full>::blob_count == 10);
  EXPECT_AT(m.locate<C>(2), 5u, 2u);
  EXPECT_AT(m.locate_arena_offset<B>(2), 2u, 8u);
  EXPECT_AT(m.locate_element<B>(view.blobs, 2, 0), 4u, 3u * 4);  // runs at 0, 3, 3
  EXPECT_AT(m.locate_length<D>(1), 6u, 4u);
  EXPECT_AT(m.locate_element<D>(view.blobs, 1, 5), 8u, 5u * 3 * 2 + 2);  // column 5, row 1
  EXPECT_EQ(m.blob_bytes(3) + m.blob_bytes(7) + m.blob_bytes(9), 0u);
  EXPECT_EQ(m.blob_bytes(8), 36u);
  // Columns: x 24, incoming 12 + 12, type 3, outgoing 12 + 36 = 99; arena 16.
  expect_footprint(m.footprint(), 99, 16, 99 + 16 - 95);
  expect_footprint(m.footprint_of<B>(), 24, 16, 0);
  expect_footprint(m.footprint_of<D>(), 48, 0, 20);
}

template <class M>
std::vector<std::vector<unsigned char>> blobs_of(const HostStorage<M>& s) {
  std::vector<std::vector<unsigned char>> out;
  for (std::size_t b = 0; b < M::blob_count; ++b) {
    const auto* p = reinterpret_cast<const unsigned char*>(s.blob(b));
    out.emplace_back(p, p + s.mapping().blob_bytes(b));
  }
  return out;
}

//! Storages of one mapping type built two ways, rebuilt twice: the same bytes.
template <class M>
void expect_same_bytes_after_rebuild(const HostStorage<M>& s1, const HostStorage<M>& s2) {
  for (std::uint32_t step : {1u, 2u}) {
    lb::exec::run_serial(s1.size(), Rebuild<View<M>>{s1.view(), step});
    lb::exec::run_serial(s2.size(), Rebuild<View<M>>{s2.view(), step});
  }
  EXPECT_EQ(blobs_of(s1), blobs_of(s2));
}

TEST(InnerFieldsEquivalence, OneInlineCountForAllIsThePerFieldCountsAllEqual) {
  const std::size_t n = 37;
  ArrayLengths lengths(2, std::vector<std::uint32_t>(n));
  for (std::size_t i = 0; i < n; ++i) lengths[0][i] = i % 11, lengths[1][i] = (i * 3) % 13;  // past Max: ragged
  auto compare = [&]<L Layout>() {
    using M = InnerArrayMapping<Cell, Layout, S::partial>;
    expect_same_bytes_after_rebuild(inner_host_storage<M>(lengths, 2),
                                    inner_host_storage<M>(lengths, InnerArraySizes{{2, 2}, {}}));
  };
  compare.template operator()<L::aos>();
  compare.template operator()<L::soa>();
}

//! In SoA a field's four blobs depend on its strategy and N only: those of Cell with
//! strategies (In, Out) equal those of the uniform mappings by In (incoming's blobs 1-4) and by
//! Out (type's and outgoing's, 5-9; and x, 0: incoming holds 8 either way, so the sum over its
//! capacity agrees), byte for byte after the same rebuild.
template <S In, S Out>
void expect_soa_columns_of_own_strategy() {
  const std::size_t n = 29;
  ArrayLengths lengths(2, std::vector<std::uint32_t>(n));
  for (std::size_t i = 0; i < n; ++i) lengths[0][i] = i % 7, lengths[1][i] = (i * 5) % 7;
  const ArrayLengths capacities{std::vector<std::uint32_t>(n, 8), {}};
  auto rebuilt = [&]<class M>(std::size_t in_n, std::size_t out_n) {
    const auto s = inner_host_storage<M>(lengths, InnerArraySizes{{in_n, out_n}, capacities});
    for (std::uint32_t step : {1u, 2u}) lb::exec::run_serial(n, Rebuild<View<M>>{s.view(), step});
    return blobs_of(s);
  };
  const auto in_n = [](S strategy) -> std::size_t { return strategy == S::partial ? 3 : 0; };
  const auto mixed = rebuilt.template operator()<FM<Cell, L::soa, In, Out>>(in_n(In), in_n(Out));
  const auto in = rebuilt.template operator()<InnerArrayMapping<Cell, L::soa, In>>(in_n(In), in_n(In));
  const auto out = rebuilt.template operator()<InnerArrayMapping<Cell, L::soa, Out>>(in_n(Out), in_n(Out));
  for (std::size_t b : {1, 2, 3, 4}) EXPECT_EQ(mixed[b], in[b]) << "incoming blob " << b;
  for (std::size_t b : {0, 5, 6, 7, 8, 9}) EXPECT_EQ(mixed[b], out[b]) << "x, type or outgoing blob " << b;
}

TEST(InnerFieldsEquivalence, SoAColumnsOfAFieldAreThoseOfItsOwnStrategy) {
  {
    SCOPED_TRACE("partial/full");
    expect_soa_columns_of_own_strategy<S::partial, S::full>();
  }
  SCOPED_TRACE("object/partial");
  expect_soa_columns_of_own_strategy<S::object, S::partial>();
}

TEST(InnerFieldsRebuild, EveryArrayRewrittenUpToItsCapacityReadsBack) {
  for (std::size_t n : {1, 23})
    for_each_case(n, [&]<class M>(const std::string& label, const ArrayLengths& lengths, const InnerArraySizes& sizes) {
      SCOPED_TRACE(label + ", n = " + std::to_string(n));
      const auto s = inner_host_storage<M>(lengths, sizes);
      const auto caps = expected_capacities<M>(lengths, sizes);
      expect_state(observe(s), caps, lengths, 0);
      for (std::uint32_t step : {1u, 2u, 3u}) {
        lb::exec::run_serial(n, Rebuild<View<M>>{s.view(), step});
        expect_state(observe(s), caps, lengths, step);
      }
    });
}

TEST(InnerFieldsCapacity, CarPathReservesMaxOrAGivenCapacityPerStrategy) {
  // Car::path (Max 30) for 4 cars starting empty: the arena a reservation takes per strategy.
  const ArrayLengths empty{{0, 0, 0, 0}};
  const ArrayLengths at_max{{30, 30, 30, 30}}, per_car{{10, 29, 15, 6}};  // the authors' max velocities
  auto arena_bytes = [&]<S Strategy>(std::size_t inline_count, const ArrayLengths& capacities) {
    using M = InnerArrayMapping<Car, L::soa, Strategy>;
    const auto s = inner_host_storage<M>(empty, InnerArraySizes{{inline_count}, capacities});
    return s.mapping().footprint().arena_bytes;
  };
  EXPECT_EQ(arena_bytes.template operator()<S::none>(0, at_max), 4u * 30 * 4);
  EXPECT_EQ(arena_bytes.template operator()<S::partial>(6, at_max), 4u * 24 * 4);
  EXPECT_EQ(arena_bytes.template operator()<S::partial>(15, at_max), 4u * 15 * 4);
  EXPECT_EQ(arena_bytes.template operator()<S::partial>(15, per_car), (0u + 14 + 0 + 0) * 4);
  EXPECT_EQ(arena_bytes.template operator()<S::partial>(6, per_car), (4u + 23 + 9 + 0) * 4);
  EXPECT_EQ(arena_bytes.template operator()<S::none>(0, per_car), (10u + 29 + 15 + 6) * 4);
  EXPECT_EQ(arena_bytes.template operator()<S::full>(0, at_max), 0u);
  EXPECT_EQ(arena_bytes.template operator()<S::object>(0, per_car), 0u);
  EXPECT_EQ(arena_bytes.template operator()<S::none>(0, {}), 0u);  // the lengths: nothing
  // The per-car capacities, and every one writable to the last slot.
  const auto s = inner_host_storage<InnerArrayMapping<Car, L::aos, S::partial>>(empty, InnerArraySizes{{6}, per_car});
  const auto view = s.view();
  for (std::size_t i = 0; i < 4; ++i) {
    const std::uint32_t cap = view.capacity<B>(i);
    EXPECT_EQ(cap, std::max<std::uint32_t>(6, per_car[0][i]));
    for (std::uint32_t k = 0; k < cap; ++k) view.get<B>(i, k) = static_cast<std::uint32_t>(100 * i + k);
    view.set_length<B>(i, cap);
  }
  for (std::size_t i = 0; i < 4; ++i) {
    ASSERT_EQ(view.length<B>(i), view.capacity<B>(i));
    for (std::uint32_t k = 0; k < view.length<B>(i); ++k) ASSERT_EQ(view.get<B>(i, k), 100 * i + k) << i << " " << k;
  }
}

TEST(InnerFieldsPreconditionsDeathTest, LengthOrElementPastTheCapacityAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const auto s = inner_host_storage<InnerArrayMapping<Car, L::soa, S::partial>>(
      ArrayLengths{{0, 0}}, InnerArraySizes{{6}, {{15, 15}}});
  const auto view = s.view();
  view.set_length<B>(1, 15);  // at the capacity: fine
  EXPECT_DEATH(view.set_length<B>(0, 16), "length 16 at record 0, past its capacity 15");
  EXPECT_DEATH(view.get<B>(1, 15) = 1, "element 15 at record 1, past its capacity 15");
  const auto full = inner_host_storage<FM<Cell, L::aos, S::none, S::full>>(cell_lengths);
  EXPECT_DEATH(full.view().set_length<D>(2, 7), "length 7 at record 2, past its capacity 6");
  EXPECT_DEATH(full.view().set_length<B>(1, 1), "length 1 at record 1, past its capacity 0");  // reserved its length 0
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

TEST(InnerFieldsErrors, NameTheProblem) {
  using M = FM<Cell, L::aos, S::partial, S::full>;
  EXPECT_ERROR((M(cell_lengths, InnerArraySizes{{2}, {}})), "1 inline counts for a record with 2 inner arrays");
  EXPECT_ERROR((M(cell_lengths, InnerArraySizes{{2, 1}, {}})), "array 1: an inline count of 1 is for the partial strategy only");
  EXPECT_ERROR((M(cell_lengths, InnerArraySizes{{9, 0}, {}})), "inline count 9 above array 0's capacity 8");
  EXPECT_ERROR((M(cell_lengths, InnerArraySizes{{}, {{4, 4, 4}}})), "1 capacity lists for a record with 2 inner arrays");
  EXPECT_ERROR((M(cell_lengths, InnerArraySizes{{}, {{4, 4}, {}}})), "array 0 has 2 capacities for 3 records");
  EXPECT_ERROR((M(cell_lengths, InnerArraySizes{{}, {{2, 4, 4}, {}}})),
               "array 0 of record 0 has length 3 above the capacity 2 given for it");
  EXPECT_ERROR((M(cell_lengths, InnerArraySizes{{}, {{}, {6, 7, 6}}})), "array 1 of record 1: a capacity of 7 above Max = 6");
  EXPECT_ERROR((FM<Cell, L::soa, S::full, S::object>(cell_lengths, 1)), "for the partial strategy only");
  // The headers must be written with the capacities the mapping was built from.
  const InnerArraySizes sizes{{2, 0}, {{8, 8, 8}, {}}};
  const M m(cell_lengths, sizes);
  HostStorage<M> s(m);
  EXPECT_ERROR(m.write_headers(s.view().blobs, cell_lengths), "lengths differ");
  EXPECT_NO_THROW(m.write_headers(s.view().blobs, cell_lengths, sizes.capacities));
}

}  // namespace

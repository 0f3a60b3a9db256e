// Access recording (lb/layout/recording.hpp) and Kofler et al.'s KDLG and partition
// (lb/layout/kdlg.hpp, docs/kdlg.md): hand-written bodies whose traces are known exactly, the
// paper's worked example rebuilt as a body, records whose partition is known by hand,
// untouched fields, one field, ties and chains, several kernels, and the fast δ against the
// definition computed the slow way on random traces.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "lb/layout/host_storage.hpp"
#include "lb/layout/kdlg.hpp"
#include "lb/layout/recording.hpp"
#include "layout_testing.hpp"

namespace {

using namespace lb::layout;

using layout_testing::A;  // the tag types the layout tests share
using layout_testing::B;
using layout_testing::C;
using layout_testing::D;
using layout_testing::E;
using Mixed = Record<Field<A, double>, Field<B, float>, Field<C, std::uint16_t>>;

constexpr std::uint64_t kInf = kInfiniteDistance;

//! The trace a hand-written body leaves, written out: (field, view address, kind).
template <class Tag, class M>
Access expected(const View<M>& v, std::size_t i, AccessKind kind) {
  const auto& ref = v.template get<Tag>(i);
  return {Mixed::index_of<Tag>, reinterpret_cast<std::uintptr_t>(&ref), sizeof(ref), kind};
}

//! A body over any view: plain loads and stores, a read-modify-write, whole records, an
//! increment.
template <class V>
void mixed_body(const V& v) {
  const float b = v.template get<B>(1);
  v.template get<A>(1) += b;
  v.template get<C>(2) = 7;
  const auto r = v.load(0);
  v.store(3, r);
  ++v.template get<C>(3);
}

template <class M>
void expect_mixed_body_trace(const M& mapping) {
  SCOPED_TRACE(testing::Message() << "mapping with " << M::blob_count << " blobs");
  auto fill_values = [](const View<M>& v) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      v.template get<A>(i) = 0.5 + double(i);
      v.template get<B>(i) = 10.0f + float(i);
      v.template get<C>(i) = std::uint16_t(100 + i);
    }
  };
  HostStorage<M> recorded(mapping), plain(mapping);
  const View<M> v = recorded.view(), p = plain.view();
  fill_values(v);
  fill_values(p);
  std::vector<Access> log;
  mixed_body(RecordingView<M>(v, log));
  mixed_body(p);  // the same body over the plain view

  using K = AccessKind;
  const std::vector<Access> want = {
      expected<B>(v, 1, K::load),  expected<A>(v, 1, K::load),  expected<A>(v, 1, K::store),
      expected<C>(v, 2, K::store), expected<A>(v, 0, K::load),  expected<B>(v, 0, K::load),
      expected<C>(v, 0, K::load),  expected<A>(v, 3, K::store), expected<B>(v, 3, K::store),
      expected<C>(v, 3, K::store), expected<C>(v, 3, K::load),  expected<C>(v, 3, K::store)};
  EXPECT_EQ(log, want);
  for (std::size_t i = 0; i < v.size(); ++i) {  // recording changed nothing the body computes
    EXPECT_EQ(v.template get<A>(i), p.template get<A>(i)) << i;
    EXPECT_EQ(v.template get<B>(i), p.template get<B>(i)) << i;
    EXPECT_EQ(v.template get<C>(i), p.template get<C>(i)) << i;
  }
  EXPECT_EQ(v.template get<A>(1), 1.5 + 11.0);
  EXPECT_EQ(v.template get<C>(3), 101);
}

TEST(Recording, HandWrittenBodyGivesItsTraceOnEveryMapping) {
  expect_mixed_body_trace(AoSMapping<Mixed>{5});
  expect_mixed_body_trace(SoAMapping<Mixed>{5});
  expect_mixed_body_trace(PartitionMapping<Mixed>(5, FieldPartition{{0, 1, 0}, {{}, {ClusterLayout::Kind::soa, 1}}}));
}

TEST(Recording, RecordAccessorBindsReferencesAndOtherMemoryCounts) {
  HostStorage<AoSMapping<Mixed>> s(AoSMapping<Mixed>{2});
  const auto v = s.view();
  std::vector<Access> log;
  const RecordingView<AoSMapping<Mixed>> rv(v, log);
  float other[4] = {1, 2, 3, 4};
  auto a = rv.at(1);
  auto& x = a.get<A>();  // a per-record body's way (SAMPO's update_agent)
  auto& c = a.get<C>();
  x = x + 1.0;
  c = 9;
  if (c == 9u) x = recorded_other(other[2], log) * 2.0f;
  using K = AccessKind;
  const auto addr = [](const auto& r) { return reinterpret_cast<std::uintptr_t>(&r); };
  const std::vector<Access> want = {{0, addr(v.get<A>(1)), 8, K::load},
                                    {0, addr(v.get<A>(1)), 8, K::store},
                                    {2, addr(v.get<C>(1)), 2, K::store},
                                    {2, addr(v.get<C>(1)), 2, K::load},
                                    {kOtherMemory, addr(other[2]), 4, K::load},
                                    {0, addr(v.get<A>(1)), 8, K::store}};
  EXPECT_EQ(log, want);
  EXPECT_EQ(v.get<A>(1), 6.0);
  EXPECT_EQ(v.get<C>(1), 9);
  EXPECT_EQ(field_bytes<Mixed>(), (std::vector<std::size_t>{8, 4, 2}));
}

// --- the paper's worked example (Fig. 2, l.71) ----------------------------------------------

using Abcd = Record<Field<A, int>, Field<B, int>, Field<C, int>, Field<D, int>>;
const std::vector<std::string> kAbcd = {"a", "b", "c", "d"};

//! Fig. 2a rebuilt: a loop of 32 iterations reads a and b of one record each (2 * 4 bytes an
//! iteration), then c is written; d is never accessed.
template <class V>
void figure2_body(const V& s) {
  int sum = 0;
  for (std::size_t j = 0; j < 32; ++j) {
    sum += s.template get<A>(j);
    sum += s.template get<B>(j);
  }
  s.template get<C>(0) = sum;
}

template <class M>
Kdlg figure2_kdlg(const M& mapping) {
  HostStorage<M> s(mapping);
  std::vector<Access> log;
  figure2_body(RecordingView<M>(s.view(), log));
  return kernel_kdlg(field_bytes<Abcd>(), log);
}

TEST(Kdlg, PaperWorkedExampleOnAnyMapping) {
  for (const Kdlg& g : {figure2_kdlg(AoSMapping<Abcd>{32}), figure2_kdlg(SoAMapping<Abcd>{32})}) {
    EXPECT_EQ(g.delta(0, 1), 4u);    // a and b: always accessed one after the other
    EXPECT_EQ(g.delta(2, 1), 252u);  // c after the loop: from the first b, 31 * 8 + 4
    EXPECT_EQ(g.delta(2, 0), 256u);  // from the first a, 4 more
    for (std::size_t f = 0; f < 3; ++f) EXPECT_EQ(g.delta(3, f), kInf);  // d: never accessed
    EXPECT_EQ(g.delta(1, 2), g.delta(2, 1));
    EXPECT_EQ(g.delta(3, 3), 0u);
    EXPECT_EQ(g.field_bytes, (std::vector<std::size_t>{4, 4, 4, 4}));
  }
  const Kdlg g = figure2_kdlg(AoSMapping<Abcd>{32});
  // Fig. 3's three partitions: ε = the NVIDIA L1 line, then ε past each of 252 and 256.
  EXPECT_EQ(partition_name(kdlg_partition(g), kAbcd), "a+b|c|d");
  EXPECT_EQ(partition_name(kdlg_partition(g, 252), kAbcd), "a+b|c|d");  // δ < ε, strictly
  EXPECT_EQ(partition_name(kdlg_partition(g, 253), kAbcd), "a+b+c|d");
  EXPECT_EQ(partition_name(kdlg_partition(g, 4), kAbcd), "a|b|c|d");
  EXPECT_EQ(partition_name(kdlg_partition(g, kInf), kAbcd), "a+b+c|d");  // ∞ never joins
  EXPECT_EQ(kdlg_partition(g, 253).merges, (std::vector<KdlgMerge>{{0, 1, 4}, {1, 2, 252}}));
}

// --- hand-built traces ------------------------------------------------------------------------

//! A trace from (field, address, bytes) triples, all loads.
std::vector<Access> trace(std::initializer_list<std::tuple<std::size_t, std::uintptr_t, std::size_t>> items) {
  std::vector<Access> t;
  for (const auto& [f, address, bytes] : items) t.push_back({f, address, bytes, AccessKind::load});
  return t;
}
constexpr std::size_t kO = kOtherMemory;

TEST(Kdlg, CountsDistinctBytesNotAccesses) {
  // a, then b's same 4 bytes 100 times, then c: 8 distinct bytes from a to c (summing the
  // accesses would give 404).
  std::vector<Access> t = trace({{0, 0, 4}});
  for (int k = 0; k < 100; ++k) t.push_back({1, 4, 4, AccessKind::load});
  t.push_back({2, 8, 4, AccessKind::store});
  const Kdlg g = kernel_kdlg({4, 4, 4}, t);
  EXPECT_EQ(g.delta(0, 2), 8u);
  EXPECT_EQ(g.delta(0, 1), 4u);
  EXPECT_EQ(g.delta(1, 2), 8u);  // the first b to c: b's 4 bytes (again) and c's
}

TEST(Kdlg, OtherMemoryBetweenAccessesCounts) {
  // a, 200 bytes of another array, b: δ 204, split at 128; with 100 bytes, 104: one cluster.
  const Kdlg far = kernel_kdlg({4, 4}, trace({{0, 0, 4}, {kO, 1000, 200}, {1, 4, 4}}));
  const Kdlg near = kernel_kdlg({4, 4}, trace({{0, 0, 4}, {kO, 1000, 100}, {1, 4, 4}}));
  EXPECT_EQ(far.delta(0, 1), 204u);
  EXPECT_EQ(near.delta(0, 1), 104u);
  EXPECT_EQ(kdlg_partition(far).clusters.size(), 2u);
  EXPECT_EQ(kdlg_partition(near).clusters.size(), 1u);
}

TEST(Kdlg, EveryAccessNeedsAPartnerBeforeOrAfter) {
  // a b, 1000 other bytes, b again: the second b's nearest a is 1004 bytes back and none
  // follows, so a and b are apart (pairing each access only with the other field's next
  // access would give 4). Read backwards, the same gap (the distance counts the later
  // access's bytes and not the earlier one's: here b's 4 and a's 4 on top of the 1000).
  const Kdlg g = kernel_kdlg({4, 4}, trace({{0, 0, 4}, {1, 4, 4}, {kO, 100, 1000}, {1, 4, 4}}));
  EXPECT_EQ(g.delta(0, 1), 1004u);
  const Kdlg r = kernel_kdlg({4, 4}, trace({{1, 4, 4}, {kO, 100, 1000}, {1, 4, 4}, {0, 0, 4}}));
  EXPECT_EQ(r.delta(0, 1), 1008u);
  // a b, 1000 other bytes, a b: every access has its partner next to it, so 4 (the nearer
  // side counts; taking the farther side too would make it 1004 and split every pair a
  // kernel loads together, computes long and stores together).
  const Kdlg both = kernel_kdlg({4, 4}, trace({{0, 0, 4}, {1, 4, 4}, {kO, 100, 1000}, {0, 0, 4}, {1, 4, 4}}));
  EXPECT_EQ(both.delta(0, 1), 4u);
}

TEST(Kdlg, PartitionKnownByHand) {
  // Five 8-byte fields: p and q read together, r and s read together 512 bytes later, t read
  // alone another 512 bytes later, then p and q written back together.
  const Kdlg g = kernel_kdlg(std::vector<std::size_t>(5, 8),
                             trace({{0, 0, 8}, {1, 8, 8}, {kO, 100, 512}, {2, 16, 8}, {3, 24, 8}, {kO, 700, 512},
                                    {4, 32, 8}, {0, 0, 8}, {1, 8, 8}}));
  EXPECT_EQ(g.delta(0, 1), 8u);
  EXPECT_EQ(g.delta(2, 3), 8u);
  const KdlgPartition p = kdlg_partition(g);
  const std::vector<std::string> names = {"p", "q", "r", "s", "t"};
  EXPECT_EQ(partition_name(p, names), "p+q|r+s|t");
  EXPECT_EQ(cluster_names(p, names), (std::vector<std::vector<std::string>>{{"p", "q"}, {"r", "s"}, {"t"}}));
  const FieldPartition fp = to_field_partition(p, 5);
  EXPECT_EQ(fp.cluster_of_field, (std::vector<std::size_t>{0, 0, 1, 1, 2}));
  ASSERT_EQ(fp.clusters.size(), 3u);
  for (const ClusterLayout& c : fp.clusters) EXPECT_EQ(c.kind, ClusterLayout::Kind::aos);
  using Five = Record<Field<A, double>, Field<B, double>, Field<C, double>, Field<D, double>, Field<E, double>>;
  const PartitionMapping<Five> m(10, fp);  // the run-time mapping takes it as it is
  EXPECT_EQ(m.size(), 10u);
}

TEST(Kdlg, UntouchedFieldsAreInfiniteAndStayAlone) {
  const Kdlg g = kernel_kdlg({4, 8, 2}, trace({{1, 0, 8}, {1, 0, 8}}));
  EXPECT_EQ(g.delta(0, 1), kInf);
  EXPECT_EQ(g.delta(0, 2), kInf);
  EXPECT_EQ(g.delta(1, 2), kInf);
  EXPECT_EQ(distance_text(g.delta(0, 1)), "inf");
  EXPECT_EQ(distance_text(252), "252");
  EXPECT_EQ(partition_name(kdlg_partition(g), {"x", "y", "z"}), "x|y|z");
  const Kdlg empty = kernel_kdlg({4, 4}, {});
  EXPECT_EQ(empty.delta(0, 1), kInf);
  EXPECT_EQ(kdlg_partition(empty).clusters.size(), 2u);
}

TEST(Kdlg, SingleFieldRecord) {
  const Kdlg g = kernel_kdlg({16}, trace({{0, 0, 16}, {kO, 64, 4}, {0, 16, 16}}));
  ASSERT_EQ(g.distances, (std::vector<std::uint64_t>{0}));
  const KdlgPartition p = kdlg_partition(g);
  EXPECT_EQ(p.clusters, (std::vector<std::vector<std::size_t>>{{0}}));
  EXPECT_TRUE(p.merges.empty());
  EXPECT_EQ(partition_name(p, {"pos"}), "pos");
}

//! A KDLG given by its δ (upper triangle, row by row).
Kdlg kdlg_of(std::size_t n, std::initializer_list<std::uint64_t> upper) {
  Kdlg g{std::vector<std::size_t>(n, 4), std::vector<std::uint64_t>(n * n, 0)};
  auto it = upper.begin();
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = a + 1; b < n; ++b, ++it) g.distances[a * n + b] = g.distances[b * n + a] = *it;
  return g;
}

TEST(Kdlg, TiesChainsAndTheThreshold) {
  // Three equal edges: the first two (by field order) join all three, the third is discarded.
  const KdlgPartition tie = kdlg_partition(kdlg_of(3, {4, 4, 4}));
  EXPECT_EQ(tie.clusters, (std::vector<std::vector<std::size_t>>{{0, 1, 2}}));
  EXPECT_EQ(tie.merges, (std::vector<KdlgMerge>{{0, 1, 4}, {0, 2, 4}}));
  // δ = ε exactly does not join (the paper: δ < ε).
  EXPECT_EQ(kdlg_partition(kdlg_of(2, {128})).clusters.size(), 2u);
  EXPECT_EQ(kdlg_partition(kdlg_of(2, {127})).clusters.size(), 1u);
  // A chain: a-b 100, b-c 100, a-c 200: Kruskal joins all three although a-c is past ε (the
  // algorithm, not the paper's "every edge of a cluster below ε"); the diameter shows it.
  const Kdlg chain = kdlg_of(3, {100, 200, 100});
  const KdlgPartition p = kdlg_partition(chain);
  EXPECT_EQ(p.clusters, (std::vector<std::vector<std::size_t>>{{0, 1, 2}}));
  EXPECT_EQ(p.merges, (std::vector<KdlgMerge>{{0, 1, 100}, {1, 2, 100}}));
  EXPECT_EQ(cluster_diameter(chain, p.clusters[0]), 200u);
  // Clusters come in the order of their first field, fields in record order.
  const KdlgPartition q = kdlg_partition(kdlg_of(4, {500, 8, 500, 500, 4, 500}));
  EXPECT_EQ(q.clusters, (std::vector<std::vector<std::size_t>>{{0, 2}, {1, 3}}));
  EXPECT_EQ(q.merges, (std::vector<KdlgMerge>{{1, 3, 4}, {0, 2, 8}}));
}

TEST(Kdlg, ProgramOfKernelsTakesTheMaximumOverKernelsThatAccessEither) {
  const std::vector<std::size_t> bytes = {4, 4, 4};
  const KernelTrace close{"close", trace({{0, 0, 4}, {1, 4, 4}})};         // a b: 4
  const KernelTrace apart{"apart", trace({{0, 0, 4}, {kO, 64, 96}, {1, 4, 4}})};  // a .. b: 100
  const KernelTrace only_a{"only_a", trace({{0, 0, 4}})};
  const KernelTrace only_c{"only_c", trace({{2, 8, 4}})};
  EXPECT_EQ(program_kdlg(bytes, {close}).delta(0, 1), 4u);
  EXPECT_EQ(program_kdlg(bytes, {close, apart}).delta(0, 1), 100u);
  EXPECT_EQ(program_kdlg(bytes, {apart, close}).delta(0, 1), 100u);
  EXPECT_EQ(program_kdlg(bytes, {close, only_c}).delta(0, 1), 4u);  // touches neither a nor b
  EXPECT_EQ(program_kdlg(bytes, {close, only_a}).delta(0, 1), kInf);  // reads a without b
  EXPECT_EQ(program_kdlg(bytes, {close, only_c}).delta(0, 2), kInf);
  EXPECT_EQ(program_kdlg(bytes, {}).delta(0, 1), kInf);
  EXPECT_EQ(program_kdlg(bytes, {close}).distances, kernel_kdlg(bytes, close.accesses).distances);
}

TEST(Kdlg, BadInputIsOneClearError) {
  try {
    kernel_kdlg({4, 4}, trace({{0, 0, 4}, {2, 8, 4}}));
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "access 1 of the trace is to field 2, but the record has 2 fields");
  }
  const KdlgPartition p = kdlg_partition(kdlg_of(2, {4}));
  EXPECT_THROW(partition_name(p, {"a|b", "c"}), std::invalid_argument);
  EXPECT_THROW(partition_name(p, {"a", "x:y"}), std::invalid_argument);
}

// --- the fast δ against its definition ----------------------------------------------------------

//! δ computed straight from the definition: for every access x to f or g, the distinct bytes
//! between x and the other field's nearer access (the nearest before x or the nearest after).
std::uint64_t slow_delta(const std::vector<Access>& t, std::size_t f, std::size_t g) {
  auto dist = [&](std::size_t p, std::size_t q) {
    std::set<std::uintptr_t> bytes;
    for (std::size_t r = p + 1; r <= q; ++r)
      for (std::size_t k = 0; k < t[r].bytes; ++k) bytes.insert(t[r].address + k);
    return std::uint64_t(bytes.size());
  };
  bool seen_f = false, seen_g = false;
  std::uint64_t d = 0;
  for (std::size_t x = 0; x < t.size(); ++x) {
    if (t[x].field != f && t[x].field != g) continue;
    (t[x].field == f ? seen_f : seen_g) = true;
    const std::size_t other = t[x].field == f ? g : f;
    std::uint64_t nearest = kInf;
    for (std::size_t y = x + 1; y < t.size(); ++y)
      if (t[y].field == other) {
        nearest = std::min(nearest, dist(x, y));
        break;
      }
    for (std::size_t y = x; y-- > 0;)
      if (t[y].field == other) {
        nearest = std::min(nearest, dist(y, x));
        break;
      }
    if (nearest != kInf) d = std::max(d, nearest);
  }
  return seen_f && seen_g ? d : kInf;
}

TEST(Kdlg, MatchesTheDefinitionOnRandomTraces) {
  std::mt19937 rng(2015);
  const std::vector<std::size_t> bytes = {4, 8, 4, 16, 2};
  for (int round = 0; round < 200; ++round) {
    std::vector<Access> t;
    const int length = int(rng() % 40);
    for (int k = 0; k < length; ++k) {
      const std::size_t pick = rng() % (bytes.size() + 1);  // one past the fields: other memory
      const std::size_t record = rng() % 6;                 // few records: bytes repeat
      if (pick == bytes.size())
        t.push_back({kOtherMemory, 10000 + 4 * (rng() % 8), 4, AccessKind::load});
      else
        t.push_back({pick, record * 64 + pick * 16, bytes[pick], AccessKind::store});
    }
    const Kdlg g = kernel_kdlg(bytes, t);
    for (std::size_t f = 0; f < bytes.size(); ++f)
      for (std::size_t h = 0; h < bytes.size(); ++h)
        ASSERT_EQ(g.delta(f, h), f == h ? 0 : slow_delta(t, f, h)) << "round " << round << " fields " << f << ", " << h;
  }
}

}  // namespace

// The frontier BFS over every inner-array layout on the CPU (the GPU kernel's body), against
// the queue BFS; the variant checks; the inner suite's BFS planner and its Variant (on the
// CPU). tests/cpp/test_bfs_gpu.cpp runs the same cases on the GPU.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "bfs_cases.hpp"
#include "lb/bfs/laid_out.hpp"
#include "inner/bfs_bench.hpp"
#include "lb/harness/preset.hpp"
#include "temp_files.hpp"

namespace {

using namespace lb::bfs;
using lb::datasets::Graph;

TEST(FrontierBfsCpu, EveryVariantMatchesTheQueueBfs) { expect_every_variant_matches(Device::cpu); }

TEST(FrontierBfsCpu, EveryVariantMatchesTheQueueBfsOnTheRoadNetExcerpt) {
  expect_every_variant_matches_on_the_roadnet_excerpt(Device::cpu);
}

TEST(FrontierBfsCpu, PoisonShowsUntilARun) { expect_poison_then_levels(Device::cpu); }

TEST(FrontierBfsCpu, APoisonedVertexIsNeverRelaxed) {
  // A vertex a search's initialisation missed must keep the poison (validation then names it),
  // not be relaxed to a plausible level.
  const Graph g = lb::datasets::graph_from_edges(3, {{0, 1}, {1, 2}}).graph;
  auto storage = lay_out<VertexMapping<lb::layout::InnerLayout::soa, lb::layout::InnerStrategy::full>>(g, 0);
  for (std::size_t i = 0; i < 3; ++i) set_distance(storage.view(), i, kPoison, 0);
  EXPECT_FALSE(relax_neighbours(storage.view(), 0, 0));
  EXPECT_EQ(levels_of(storage), (std::vector<int>{0, kPoison, kPoison}));
}

TEST(FrontierBfsCpu, VariantsThatCannotHoldTheGraphAreRefused) {
  const Graph star = star_graph(kMaxDegree + 1);
  for (auto s : {lb::layout::InnerStrategy::full, lb::layout::InnerStrategy::object}) try {
      make_frontier_bfs(star, {lb::layout::InnerLayout::soa, s, 0}, Device::cpu);
      FAIL() << "a degree above the capacity was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("vertex 0 has degree 10, above the 9 slots"), std::string::npos) << e.what();
    }
  // none and partial take any degree.
  for (auto s : {lb::layout::InnerStrategy::none, lb::layout::InnerStrategy::partial}) {
    auto search = make_frontier_bfs(star, {lb::layout::InnerLayout::aos, s, 0}, Device::cpu);
    search->run(0);
    EXPECT_EQ(search->levels(), lb::datasets::bfs_levels(star, 0));
  }
  EXPECT_THROW(make_frontier_bfs(star, {lb::layout::InnerLayout::soa, lb::layout::InnerStrategy::none, 2}, Device::cpu),
               std::invalid_argument);  // an inline count without partial
  EXPECT_THROW(
      make_frontier_bfs(star, {lb::layout::InnerLayout::soa, lb::layout::InnerStrategy::partial, kMaxInline + 1},
                        Device::cpu),
      std::invalid_argument);
}

TEST(FrontierBfsCpu, TheSearchesAreNamedAndTheDeviceLoopsAreRefusedOnTheCpu) {
  for (Search s : {Search::per_level, Search::persistent, Search::queue}) EXPECT_EQ(parse_search(to_string(s)), s);
  EXPECT_EQ(to_string(Search::persistent), "persistent");
  EXPECT_EQ(to_string(Search::queue), "queue");
  try {
    parse_search("frontier");
    FAIL() << "parsed";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown search 'frontier' (per-level, persistent or queue)");
  }
  for (Search s : {Search::persistent, Search::queue}) try {
      make_frontier_bfs(star_graph(3), {}, Device::cpu, s);
      FAIL() << "the CPU took the " << to_string(s) << " search";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("the " + std::string(to_string(s)) + " search runs on the GPU only"),
                std::string::npos)
          << e.what();
    }
}

// The device loops' two bodies run serially on the CPU over every variant, as test searches:
// the kernels add only the grid, the barriers and (the queue) the atomics around them.

//! A graph laid out on the host, as the CPU search holds it; run is the test's loop.
template <class M>
class HostLaidOut : public FrontierBfs {
 public:
  HostLaidOut(const Graph& g, std::size_t inline_count) : storage_(lay_out<M>(g, inline_count)) {}
  void poison() override { start(kPoison, kNoSource); }
  std::vector<int> levels() const override { return levels_of(storage_); }
  const lb::layout::InnerFootprint& footprint() const override { return storage_.mapping().footprint(); }

 protected:
  void start(int value, std::size_t source) {
    for (std::size_t i = 0; i < storage_.size(); ++i) set_distance(storage_.view(), i, value, source);
  }
  lb::layout::HostStorage<M> storage_;
};

//! The persistent kernel's levels: 7 "threads" one after another, each relax_strided with 4
//! distances ahead (several chunks a thread). A thread here sees the writes of the threads
//! before it in the level, which (relax_strided's argument) changes no frontier test.
template <class M>
class StridedHostSearch final : public HostLaidOut<M> {
 public:
  using HostLaidOut<M>::HostLaidOut;
  int run(std::uint32_t source, cudaStream_t) override {
    constexpr std::size_t kThreads = 7;
    this->start(kInfinity, source);
    for (int level = 0;; ++level) {
      bool changed = false;
      for (std::size_t t = 0; t < kThreads; ++t)
        changed |= relax_strided<4>(this->storage_.view(), t, kThreads, this->storage_.size(), level);
      if (!changed) return level + 1;
    }
  }
};

//! The queue kernel's levels: discover_neighbours with 4 neighbours ahead (a road graph's
//! vertex in up to 3 rounds) over each level's queue; the claim as atomicCAS does it.
template <class M>
class QueueHostSearch final : public HostLaidOut<M> {
 public:
  using HostLaidOut<M>::HostLaidOut;
  int run(std::uint32_t source, cudaStream_t) override {
    this->start(kInfinity, source);
    std::vector<std::size_t> frontier{source}, next;
    for (int level = 0;; ++level) {
      next.clear();
      for (std::size_t i : frontier)
        discover_neighbours<4>(this->storage_.view(), i, [&](auto&& d, std::size_t u) {
          if (d != kInfinity) return;
          d = level + 1;
          next.push_back(u);
        });
      if (next.empty()) return level + 1;
      std::swap(frontier, next);
    }
  }
};

TEST(FrontierBfsCpu, ThePersistentSearchsLoadsFirstBodyMatchesTheQueueBfsInEveryVariant) {
  const MakeSearch make = [](const Graph& g, const Variant& v) { return make_search<StridedHostSearch>(g, v); };
  expect_variants_match("relax_strided", make, bfs_cases());
  expect_variants_match("relax_strided", make, high_degree_cases(), arena_variants());
}

TEST(FrontierBfsCpu, TheQueueSearchsBodyMatchesTheQueueBfsInEveryVariant) {
  const MakeSearch make = [](const Graph& g, const Variant& v) { return make_search<QueueHostSearch>(g, v); };
  expect_variants_match("discover_neighbours", make, bfs_cases());
  expect_variants_match("discover_neighbours", make, high_degree_cases(), arena_variants());
}

TEST(FrontierBfsCpu, RelaxStridedChangesWhatRelaxNeighboursChanges) {
  // One level of a path 0 - 1 - ... - 9 from 0 with vertex 4 at level 2 too: every stride and
  // first gives the same distances and the same answer as relax_neighbours over its vertices.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> e;
  for (std::uint32_t u = 0; u + 1 < 10; ++u) e.insert(e.end(), {{u, u + 1}, {u + 1, u}});
  const Graph path = lb::datasets::graph_from_edges(10, e).graph;
  using M = VertexMapping<lb::layout::InnerLayout::aos, lb::layout::InnerStrategy::partial>;
  const std::vector<int> start{0, 1, 2, kInfinity, 2, kInfinity, kInfinity, kInfinity, kInfinity, kInfinity};
  for (std::size_t stride : {1, 2, 3, 10, 11})
    for (std::size_t first = 0; first < stride; ++first) {
      auto strided = lay_out<M>(path, 1), reference = lay_out<M>(path, 1);
      for (std::size_t i = 0; i < 10; ++i) set_distance(strided.view(), i, start[i], lb::bfs::kNoSource);
      for (std::size_t i = 0; i < 10; ++i) set_distance(reference.view(), i, start[i], lb::bfs::kNoSource);
      bool want = false;
      for (std::size_t i = first; i < 10; i += stride) want |= relax_neighbours(reference.view(), i, 2);
      EXPECT_EQ(relax_strided<2>(strided.view(), first, stride, 10, 2), want) << stride << " " << first;
      EXPECT_EQ(levels_of(strided), levels_of(reference)) << stride << " " << first;
    }
}

TEST(FrontierBfsCpu, ThePersistentGridIsWhatStaysResidentOrSaysWhyNone) {
  // 8 blocks an SM on 132 SMs: a large graph takes them all, a small one the blocks it needs.
  EXPECT_EQ(persistent_grid(Search::persistent, true, 8, 132, 1'088'092, 256), 8u * 132);
  EXPECT_EQ(persistent_grid(Search::persistent, true, 8, 132, 5'000, 256), 20u);
  EXPECT_EQ(persistent_grid(Search::persistent, true, 8, 132, 256, 256), 1u);
  EXPECT_EQ(persistent_grid(Search::queue, true, 8, 132, 0, 256), 1u);
  auto error_of = [](bool cooperative, int per_sm, Search search = Search::persistent) {
    try {
      persistent_grid(search, cooperative, per_sm, 132, 1000, 256);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of(true, 0),
            "persistent BFS: no block of 256 threads of its kernel fits on an SM (0 a multiprocessor, 132 "
            "multiprocessors), so a cooperative launch cannot hold its grid; run the per-level search");
  EXPECT_NE(error_of(false, 8).find("cannot launch kernels cooperatively"), std::string::npos);
  EXPECT_TRUE(error_of(false, 8, Search::queue).starts_with("queue BFS: ")) << error_of(false, 8, Search::queue);
}

TEST(FrontierBfsCpu, TraversedEdgesAreTheReachedVerticesOutDegrees) {
  const Graph g = lb::datasets::graph_from_edges(4, {{0, 1}, {1, 0}, {1, 2}, {3, 0}}).graph;
  EXPECT_EQ(traversed_edges(g, lb::datasets::bfs_levels(g, 0)), 3u);  // 3 is not reached
  EXPECT_EQ(traversed_edges(g, lb::datasets::bfs_levels(g, 3)), 4u);
}

}  // namespace

// --- the inner suite's BFS planner and variant ---------------------------------------------

namespace lb::benches::inner {
namespace {

std::vector<std::string> bfs_names(const Preset& preset) {
  std::vector<std::string> names;
  for (const auto& b : find_suite("inner").plan(preset, {}))
    if (b.name.starts_with("inner/bfs/")) names.push_back(b.name);
  return names;
}

//! Points the data folder ($LB_DATA_DIR) at this test's temporary folder.
class BfsPlan : public TempFilesTest {
 protected:
  void SetUp() override {
    TempFilesTest::SetUp();
    ::setenv("LB_DATA_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("LB_DATA_DIR");
    TempFilesTest::TearDown();
  }
  std::string error_of(const std::string& bfs) {
    const std::string text = R"({"description": "t", "suites": {"inner": {"bfs": {)" + bfs + "}}}}";
    try {
      find_suite("inner").plan(load_preset(write("inner.json", text)), {});
    } catch (const PresetError& e) {
      return e.what();
    }
    return "no error";
  }
};

TEST_F(BfsPlan, QuickPresetNamesEveryStrategyOnTheGeneratedGraph) {
  const auto names = bfs_names(load_preset("quick"));
  EXPECT_EQ(names.size(), 2u * (1 + 3 + 1 + 1));  // per layout: none, partial 0/3/10, full, object
  for (const char* want :
       {"inner/bfs/none/aos/int/inline:0/graph:road-like", "inner/bfs/partial/soa/int/inline:3/graph:road-like",
        "inner/bfs/partial/aos/int/inline:10/graph:road-like", "inner/bfs/full/soa/int/inline:9/graph:road-like",
        "inner/bfs/object/aos/int/inline:9/graph:road-like"})
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
}

TEST_F(BfsPlan, PaperPresetTakesRoadNetPaWhenTheFileIsThere) {
  auto names = bfs_names(load_preset("paper"));
  EXPECT_EQ(names.size(), 2u * 3 * (1 + 11 + 1 + 1));  // every search
  EXPECT_TRUE(std::all_of(names.begin(), names.end(),
                          [](const std::string& n) { return n.find("/graph:road-like") != std::string::npos; }));
  write("roadNet-PA.txt", "0\t1\n1\t0\n");
  names = bfs_names(load_preset("paper"));
  EXPECT_TRUE(std::all_of(names.begin(), names.end(),
                          [](const std::string& n) { return n.find("/graph:roadnet-pa") != std::string::npos; }));
}

TEST_F(BfsPlan, TheDeviceLoopSearchesAreNamedThePapersKeepsItsNameAndAxisSelectsEach) {
  // The BFS program alone: --axis on the whole suite needs the axis in each of its programs.
  const Preset paper = load_preset("paper");
  auto planned = [&](const std::string& search) {
    std::vector<std::string> out;
    for (const auto& b : plan_program("inner", bfs_program(), paper, paper.suites["inner"]["bfs"], "bfs",
                                      {.axes = {{"search", {search}}}}))
      out.push_back(b.name);
    return out;
  };
  const auto persistent = planned("persistent"), queue = planned("queue"), per_level = planned("per-level");
  ASSERT_EQ(persistent.size(), 2u * (1 + 11 + 1 + 1));
  ASSERT_EQ(per_level.size(), persistent.size());
  ASSERT_EQ(queue.size(), persistent.size());
  for (std::size_t k = 0; k < per_level.size(); ++k) {  // the same variants, in the same order
    EXPECT_EQ(per_level[k] + "/search:persistent", persistent[k]);
    EXPECT_EQ(per_level[k] + "/search:queue", queue[k]);
  }
  EXPECT_EQ(per_level.front(), "inner/bfs/none/aos/int/inline:0/graph:road-like");
  // A preset without "searches" (quick) runs the paper's only.
  for (const auto& name : bfs_names(load_preset("quick"))) EXPECT_EQ(name.find("search:"), std::string::npos) << name;
  EXPECT_NE(error_of(R"("layouts": ["soa"], "strategies": ["full"], "inline_sizes": [0], "searches": ["frontier"])")
                .find("unknown search 'frontier' (expected one of: per-level, persistent, queue)"),
            std::string::npos);
}

TEST_F(BfsPlan, PresetErrorsNameTheKey) {
  const std::string ok = R"("layouts": ["soa"], "strategies": ["full"], "inline_sizes": [0])";
  EXPECT_EQ(error_of(ok), "no error");
  const std::pair<std::string, std::string> cases[] = {
      {R"("layouts": ["soa"], "strategies": ["full"], "inline_sizes": [0, 11])",
       "inline sizes must lie in [0, 10]; got 11"},
      {R"("layouts": ["aosoa"], "strategies": ["full"], "inline_sizes": [0])", "unknown inner-array layout 'aosoa'"},
      {ok + R"(, "graph": "roadNet-CA")", "unknown graph 'roadNet-CA' (roadnet-pa, road-like or auto)"},
      {ok + R"(, "graph": "roadnet-pa")", "graph 'roadnet-pa' needs "},
      {ok + R"(, "source": -1)", "'source' must be a vertex id"},
      {ok + R"(, "sizes": [1])", "sizes"},
  };
  for (const auto& [text, message] : cases)
    EXPECT_NE(error_of(text).find(message), std::string::npos) << error_of(text);
}

TEST_F(BfsPlan, VariantValidatesAndNamesAPoisonedVertex) {
  // A small file in the data folder stands for roadNet-PA: its statistics differ (reported on
  // stderr), the search runs; the same Variant the GPU benchmark runs, here on the CPU.
  write("roadNet-PA.txt", "# tiny\n5\t6\n6\t5\n6\t7\n7\t6\n8\t9\n");
  auto v = make_bfs_variant("roadnet-pa", 5, {layout::InnerLayout::aos, layout::InnerStrategy::partial, 1},
                            bfs::Device::cpu);
  v->setup(nullptr);
  v->poison(nullptr);
  v->run(nullptr);
  Check check = v->validate(nullptr);
  EXPECT_TRUE(check.ok) << check.message;
  EXPECT_EQ(check.counters["checked"], 5);
  const Work w = v->work();
  EXPECT_EQ(w.unit, "edges");
  EXPECT_EQ(w.units, 4);  // 5, 6 and 7 are reached: out-degrees 1 + 2 + 1
  // Levels 0..2: 3 scans of 5 distances; 3 reached vertices' lengths and the arena offset of
  // the one with a neighbour past N = 1 (6: 5 and 7); 4 ids and 4 distances.
  EXPECT_EQ(w.bytes_read, 3 * 5 * 4 + (3 + 1) * 4 + 4 * 2 * 4);
  EXPECT_EQ(w.bytes_written, 5 * 4 + 3 * 4);
  EXPECT_GT(v->footprint_bytes(), 0);
  v->poison(nullptr);  // as a search that wrote nothing
  check = v->validate(nullptr);
  EXPECT_FALSE(check.ok);
  EXPECT_EQ(check.message, "vertex 0 (file id 5): level -1515870810, the queue BFS says 0 (still poisoned)");
  EXPECT_EQ(check.counters["max_abs_err"], 1515870812.0);  // vertex 2 (file id 7): poison against level 2
}

}  // namespace
}  // namespace lb::benches::inner

namespace {

TEST(FrontierBfsCpu, TheLastVertexRelaxesItsNeighboursToo) {
  // A path whose source is the last vertex: every level goes through it.
  const lb::datasets::Graph path = lb::datasets::graph_from_edges(4, {{3, 2}, {2, 1}, {1, 0}}).graph;
  for (auto layout : {lb::layout::InnerLayout::aos, lb::layout::InnerLayout::soa})
    for (auto strategy : {lb::layout::InnerStrategy::none, lb::layout::InnerStrategy::partial}) {
      auto search = lb::bfs::make_frontier_bfs(path, {layout, strategy, 0}, lb::bfs::Device::cpu);
      search->run(3);
      EXPECT_EQ(search->levels(), (std::vector<int>{3, 2, 1, 0}));
    }
}

}  // namespace

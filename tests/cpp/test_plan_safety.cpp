// Plans and trees against hostile presets (issue 41, classes 2, 3, 4, 7): every string that
// becomes part of a benchmark name passes the name grammar, with one error at its preset line;
// a plan is refused at a stated, overridable limit (LB_MAX_BENCHMARKS) before it holds more;
// a tile sweep stops at the size; a tree file is read as presets are (bounded, duplicate keys
// refused).

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>
#include <string>

#include "lb/datasets/text.hpp"
#include "lb/harness/plan.hpp"
#include "lb/harness/suite.hpp"
#include "lb/layout/choice.hpp"
#include "lb/layout/decision_tree.hpp"
#include "lb/layout/kdlg.hpp"
#include "preset_testing.hpp"

namespace lb::harness {
namespace {

//! The error planning `suite` of the preset `text` gives ("" when it plans).
std::string plan_error(const std::string& suite, const std::string& text) {
  try {
    find_suite(suite).plan(lb::testing::preset_from(text), {});
  } catch (const PresetError& e) {
    return e.what();
  }
  return "";
}

//! The N-body object of the quick preset with one partition of the name `name` (JSON text).
std::string nbody_with_partition(const std::string& name) {
  return "{\"kofler\": {\"nbody\": {\"sizes\": [1024], \"steps\": 1,\n"
         "  \"layouts\": [\"split\"],\n"
         "  \"partitions\": {" + name + ": [[\"pos\"], [\"vel\"]]}}}}";
}

TEST(NameGrammar, EveryPartOfANameIsPrintableAsciiWithoutBlanksSlashesOrColons) {
  for (const char* good : {"soa", "pos|vel", "tiled-64", "1e-3", "a+b=c,d", "x_y.z"})
    EXPECT_EQ(name_part_problem(good), "") << good;
  EXPECT_EQ(name_part_problem(""), "it is empty");
  EXPECT_EQ(name_part_problem("a b"), "it holds a blank");
  EXPECT_EQ(name_part_problem("a\nb"), "it holds the byte \\x0a");
  EXPECT_EQ(name_part_problem(std::string("a\0b", 3)), "it holds the byte \\x00");
  EXPECT_EQ(name_part_problem("a\tb"), "it holds the byte \\x09");
  EXPECT_EQ(name_part_problem("caf\xc3\xa9"), "it holds the byte \\xc3");
  EXPECT_EQ(name_part_problem("a:b"), "it holds ':', which separates a name's parts");
  EXPECT_EQ(name_part_problem("a/b"), "it holds '/', which separates a name's parts");
}

TEST(NameGrammar, APresetStringThatWouldBreakANameIsOneErrorAtItsLine) {
  EXPECT_EQ(plan_error("kofler", nbody_with_partition("\"pos|vel\"")), "");
  for (const char* bad : {"\"a\\nb\"", "\"a b\"", "\"a:b\"", "\"a\\u0000b\"", "\"a\\tb\""}) {
    const std::string message = plan_error("kofler", nbody_with_partition(bad));
    EXPECT_EQ(message.rfind("test.json:3: partition '", 0), 0u) << bad << ": " << message;
    EXPECT_NE(message.find("cannot be part of a benchmark name"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

//! Sets LB_MAX_BENCHMARKS for one test.
struct PlanLimit {
  explicit PlanLimit(const char* value) { ::setenv(datasets::text::kMaxPlanEnv, value, 1); }
  ~PlanLimit() { ::unsetenv(datasets::text::kMaxPlanEnv); }
};

//! An IDW section planning `sizes` x 2 layouts x 1 version x 1 precision x 1 power.
std::string idw_with_sizes(int sizes) {
  std::string list;
  for (int s = 1; s <= sizes; ++s) list += (s > 1 ? ", " : "") + std::to_string(s * 32);
  return "{\"idw\": {\"sizes\": [" + list + "],\n \"versions\": [\"naive\"], \"layouts\": [\"soa\", \"aos\"],\n"
         " \"precisions\": [\"float\"], \"powers\": [2], \"cpu_baselines\": false}}";
}

TEST(PlanLimit, APlanAtTheLimitIsPlannedAndOneMoreIsRefusedStatingItsSize) {
  const PlanLimit limit("10");
  EXPECT_EQ(find_suite("idw").plan(lb::testing::preset_from(idw_with_sizes(5)), {}).size(), 10u);
  EXPECT_EQ(plan_error("idw", idw_with_sizes(6)),
            "test.json:1: suite idw plans 12 benchmarks, more than the limit of 10; plan fewer, or set "
            "LB_MAX_BENCHMARKS to raise the limit");
}

TEST(PlanLimit, ASuiteOfSeveralProgramsStatesItsTotal) {
  const PlanLimit limit("3");
  // N-body 2 sizes x 2 layouts, then BlackScholes 1 x 2: 6 benchmarks, 4 of them past the limit.
  const std::string message = plan_error(
      "kofler", "{\"kofler\": {\"nbody\": {\"sizes\": [1024, 2048], \"steps\": 1, \"layouts\": [\"aos\", \"soa\"]},\n"
                " \"blackscholes\": {\"sizes\": [1024], \"layouts\": [\"aos\", \"soa\"]}}}");
  EXPECT_EQ(message, "test.json:1: suite kofler plans 6 benchmarks, more than the limit of 3; plan fewer, or set "
                     "LB_MAX_BENCHMARKS to raise the limit");
}

TEST(PlanLimit, AHugePresetIsCountedToTenTimesTheLimitThenRefused) {
  ::unsetenv(datasets::text::kMaxPlanEnv);
  EXPECT_EQ(datasets::text::max_plan_benchmarks(), 100000u);
  {
    // 60,000 sizes x 2 layouts: 120,000 benchmarks, counted past the limit, 100,000 held.
    const std::string message = plan_error("idw", idw_with_sizes(60000));
    EXPECT_NE(message.find("plans 120000 benchmarks, more than the limit of 100000"), std::string::npos) << message;
  }
  const PlanLimit limit("100");
  // 600 sizes x 2 layouts = 1,200: counting stops past 10 x 100.
  const std::string message = plan_error("idw", idw_with_sizes(600));
  EXPECT_EQ(message, "test.json:1: suite idw plans more than 1000 benchmarks (counting stopped at program shepard), "
                     "more than the limit of 100; plan fewer, or set LB_MAX_BENCHMARKS to raise the limit");
}

TEST(PlanLimit, KdlgTilesAreCountedBeforeTheyAreMade) {
  const PlanLimit limit("1000");
  const layout::KdlgPartition three_pairs{{{0, 1}, {2, 3}, {4, 5}}, {}};
  const std::vector<std::string> names{"a", "b", "c", "d", "e", "f"};
  std::vector<std::size_t> tiles(10);
  std::iota(tiles.begin(), tiles.end(), std::size_t{1});
  EXPECT_EQ(layout::kdlg_tile_choices(three_pairs, names, tiles).size(), 1000u);  // 10^3: at the limit
  tiles.push_back(11);
  try {
    layout::kdlg_tile_choices(three_pairs, names, tiles);
    ADD_FAILURE() << "11^3 layouts made";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "11 tiles over 3 clusters make 1331 layouts, more than the limit of 1000; set LB_MAX_BENCHMARKS to "
              "raise the limit");
  }
  // 2^16 tiles over 5 clusters: 2^80 layouts, beyond the count's 64 bits (never wrapped to a small number).
  std::vector<std::size_t> many(std::size_t{1} << 16);
  std::iota(many.begin(), many.end(), std::size_t{1});
  const layout::KdlgPartition five_pairs{{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}}, {}};
  const std::vector<std::string> ten{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"};
  try {
    layout::kdlg_tile_choices(five_pairs, ten, many);
    ADD_FAILURE() << "2^80 layouts made";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("make over 2^64 layouts"), std::string::npos) << e.what();
  }
}

TEST(TileSweep, StopsAtTheSizeEvenAtTheLargestSize) {
  const PlanLimit limit("1000");
  // size 2^64 - 1: the doubling tile would wrap to 0 and sweep for ever.
  const std::string message = plan_error(
      "kofler", "{\"kofler\": {\"blackscholes\": {\"sizes\": [18446744073709551615], \"layouts\": [\"tiled\"],\n"
                " \"tiles\": \"sweep\"}}}");
  EXPECT_EQ(message.find("plans more than"), std::string::npos) << message;
}

TEST(TrafficPreset, SeedZeroIsAcceptedAsTheCommandLineTakesIt) {
  const std::string message = plan_error(
      "inner", "{\"inner\": {\"traffic\": {\"network\": \"no-such-network.graphml\", \"cars\": 1, \"steps\": 1,\n"
               " \"seed\": 0, \"layouts\": [\"aos\"], \"fields\": [\"none\"], \"strategies\": [\"full\"]}}}");
  EXPECT_EQ(message.find("seed"), std::string::npos) << message;
}

TEST(TrafficPreset, LayoutOverridesNarrowTheMethodsLayoutToItsFieldsAndStrategies) {
  const std::string head =
      "{\"inner\": {\"traffic\": {\"network\": \"no-such-network.graphml\", \"cars\": 1, \"steps\": 1,\n"
      " \"layouts\": [\"soa\", \"aosoa32\"], \"fields\": [\"none\", \"path\"], \"strategies\": [\"none\", \"object\"],\n"
      " \"layout_overrides\": ";
  std::set<std::string> tiled;
  for (const auto& b : find_suite("inner").plan(
           lb::testing::preset_from(head + "{\"aosoa32\": {\"fields\": [\"path\"], \"strategies\": [\"object\"]}}}}}"), {}))
    if (b.name.find("/aosoa32/") != std::string::npos) tiled.insert(b.name.substr(0, b.name.find("/network:")));
  EXPECT_EQ(tiled, (std::set<std::string>{"inner/traffic/object/aosoa32/int/inline:30/field:path"}));
  EXPECT_NE(plan_error("inner", head + "{\n\"aosoa\": {}}}}}").find(":4: unknown inner-array layout 'aosoa'"),
            std::string::npos);
  EXPECT_NE(plan_error("inner", head + "{\"aosoa32\": {\n\"fields\": [\"cars\"]}}}}}")
                .find(":4: unknown traffic array field 'cars'"),
            std::string::npos);
  EXPECT_NE(plan_error("inner", head + "{\"aosoa32\": {\"steps\": [1]}}}}}").find("unknown key 'steps' in aosoa32"),
            std::string::npos);
}

TEST(DecisionTreeFile, AKeyGivenTwiceIsRefusedAsInAPreset) {
  const auto path = std::filesystem::temp_directory_path() / ("lb_test_tree_twice." + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << "{\"format\": \"layoutbench-kofler-tree/1\",\n \"format\": \"x\"}";
  try {
    layout::read_decision_tree(path.string());
    ADD_FAILURE() << "a key given twice was read";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              path.string() + ":2: key 'format' appears twice in one object (first at line 1); give it once");
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace lb::harness

// The one planner over a program's declared axes (lb/harness/plan.hpp), on a toy program that
// runs nothing: its keyed axes read and checked at their lines, its loops expanded in order, a
// constraint, the command line's --sizes, --precision and --axis applied the same way to every
// axis (an open axis's list replaced, an enumerated one narrowed), and their errors; --axis's
// parsing.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lb/harness/plan.hpp"
#include "lb/harness/suite.hpp"
#include "preset_testing.hpp"

namespace lb::harness {
namespace {

//! t/toy/<a|b>/<x|y|z>/<float|double>[/tile:<t>]/size:<n>/block:<k>: layout z has tiles (its
//! key "tiles"), version b never runs on layout y.
Program toy() {
  const Steps tiles = [](const Point& at, const Reader& r) {
    return at.text("layout") == "z" ? r.steps("tile") : std::vector<Step>{Step{}};
  };
  return {
      "toy",
      {{"version", {"a", "b"}},
       {.name = "layout", .values = {"x", "y", "z"}, .key = "layouts"},
       {.name = "precision", .values = {"float", "double"}, .key = "precisions", .shorthand = Shorthand::precision},
       {.name = "tile", .type = AxisType::count, .key = "tiles", .required = false, .word = "sweep"},
       {.name = "size",
        .type = AxisType::count,
        .key = "sizes",
        .limits =
            [](const nlohmann::json& v) {
              return v.get<std::size_t>() <= 1000 ? "" : fmt::format("size must be at most 1000; {} is not", v.dump());
            },
        .shorthand = Shorthand::sizes},
       {.name = "block", .type = AxisType::integer, .key = "block", .scalar = true, .required = false, .fallback = 1}},
      {},
      {"note"},
      [tiles](const Reader&) {
        return Expansion{
            .loops = {over(
                "size",
                {over("version", {over("precision", {over("layout", {over("tile", tiles, {over("block")})})})})})},
            .make = [](const Point&) { return ProgramCase{}; },
            .admits = [](const Point& at) { return !(at.text("version") == "b" && at.text("layout") == "y"); }};
      }};
}

const Program& the_toy() {
  static const Program p = toy();
  return p;
}

const char* const kToy =
    "{\"toy\": {\"sizes\": [10, 20],\n"
    " \"layouts\": [\"x\", \"y\", \"z\"],\n"
    " \"precisions\": [\"float\"],\n"
    " \"tiles\": [4, 8]}}";

std::vector<std::string> names(const std::string& text, const Overrides& overrides = {}) {
  const Preset p = lb::testing::preset_from(text);
  std::vector<std::string> out;
  for (const auto& b : plan_program("t", the_toy(), p, p.suites["toy"], "toy", overrides)) out.push_back(b.name);
  return out;
}

std::string error(const std::string& text, const Overrides& overrides = {}) {
  try {
    names(text, overrides);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

TEST(PlanAxes, TheLoopsExpandInOrderEachPointNamedByItsNamedAxes) {
  const auto got = names(kToy);
  ASSERT_EQ(got.size(), 2u * (3 + 2 + 3 - 1));  // per size: a: x, y, z x 2 tiles; b: the same less y
  EXPECT_EQ(got[0], "t/toy/a/x/float/size:10/block:1");
  EXPECT_EQ(got[2], "t/toy/a/z/float/tile:4/size:10/block:1");
  EXPECT_EQ(got[3], "t/toy/a/z/float/tile:8/size:10/block:1");
  EXPECT_EQ(got[4], "t/toy/b/x/float/size:10/block:1");  // b on y: the constraint leaves it out
  EXPECT_EQ(got[5], "t/toy/b/z/float/tile:4/size:10/block:1");
  EXPECT_EQ(got[7], "t/toy/a/x/float/size:20/block:1");
}

TEST(PlanAxes, SizesAndPrecisionSetTheAxesTheyMapOnto) {
  // size is open: the preset's list replaced, in the command line's order, within its limits.
  const auto got = names(kToy, {.sizes = {30, 5}});
  ASSERT_EQ(got.size(), 2u * 7);
  EXPECT_EQ(got[0], "t/toy/a/x/float/size:30/block:1");
  EXPECT_EQ(got[7], "t/toy/a/x/float/size:5/block:1");
  EXPECT_EQ(error(kToy, {.sizes = {2000}}), "--sizes: size must be at most 1000; 2000 is not (for toy)");
  // precision is enumerated: narrowed to what the preset lists (double it does not).
  EXPECT_EQ(names(kToy, {.precisions = {"double", "float"}}), names(kToy));
  EXPECT_TRUE(names(kToy, {.precisions = {"double"}}).empty());
}

TEST(PlanAxes, AxisNarrowsAnEnumeratedAxisAndReplacesAnOpenOne) {
  // version (the program's own values) and layout (the preset's list) narrowed, in the plan's
  // order; size and tile replaced.
  EXPECT_EQ(names(kToy, {.axes = {{"version", {"b"}}, {"size", {"20"}}, {"layout", {"z", "x"}}, {"tile", {"8"}}}}),
            (std::vector<std::string>{"t/toy/b/x/float/size:20/block:1", "t/toy/b/z/float/tile:8/size:20/block:1"}));
  // A scalar key takes several values; a tile the preset does not list, as --sizes a size.
  EXPECT_EQ(
      names(kToy, {.axes = {{"size", {"10"}}, {"layout", {"z"}}, {"tile", {"16"}}, {"block", {"2", "4"}}}}),
      (std::vector<std::string>{"t/toy/a/z/float/tile:16/size:10/block:2", "t/toy/a/z/float/tile:16/size:10/block:4",
                                "t/toy/b/z/float/tile:16/size:10/block:2", "t/toy/b/z/float/tile:16/size:10/block:4"}));
  // A point without the axis (layout x has no tile) is kept: the axis does not apply there.
  EXPECT_EQ(names(kToy, {.axes = {{"size", {"10"}}, {"version", {"a"}}, {"layout", {"x"}}, {"tile", {"8"}}}}),
            std::vector<std::string>{"t/toy/a/x/float/size:10/block:1"});
}

TEST(PlanAxes, AValueTheProgramLacksLeavesItNothingToPlan) {
  EXPECT_TRUE(names(kToy, {.axes = {{"layout", {"w"}}}}).empty());
  EXPECT_TRUE(names(kToy, {.precisions = {"half"}}).empty());
}

TEST(PlanAxes, CommandLineMistakesAreOneErrorNamingTheOption) {
  EXPECT_EQ(error(kToy, {.axes = {{"colour", {"red"}}}}),
            "--axis colour: toy has no axis 'colour' (toy has the axes version, layout, precision, tile, size, block)");
  EXPECT_EQ(error(kToy, {.sizes = {10}, .axes = {{"size", {"20"}}}}),
            "--axis size and --sizes both set toy's axis 'size': give it once");
  EXPECT_EQ(error(kToy, {.axes = {{"size", {"ten"}}}}), "--axis size: 'ten' is not a positive integer");
  EXPECT_EQ(error(kToy, {.axes = {{"block", {"-1.5"}}}}), "--axis block: '-1.5' is not an integer");
  EXPECT_EQ(error(kToy, {.axes = {{"size", {"10", "010"}}}}), "--axis size: 10 is given twice; give each value once");
}

TEST(PlanAxes, PresetMistakesAreOneErrorAtTheirLine) {
  EXPECT_EQ(error("{\"toy\": {\"sizes\": [10],\n \"layouts\": [\"w\"], \"precisions\": [\"float\"]}}"),
            "test.json:2: unknown layout 'w' (expected one of: x, y, z)");
  EXPECT_EQ(
      error("{\"toy\": {\"sizes\": [10],\n \"layouts\": [\"x\"], \"precisions\": [\"float\"],\n \"tiles\": [0]}}"),
      "test.json:3: 'tiles' must list positive integers; element 1 is 0");
  EXPECT_EQ(error("{\"toy\": {\"sizes\": [1001],\n \"layouts\": [\"x\"], \"precisions\": [\"float\"]}}"),
            "test.json:1: size must be at most 1000; 1001 is not");
  EXPECT_EQ(error("{\"toy\": {\n \"layouts\": [\"x\"], \"precisions\": [\"float\"]}}"),
            "test.json:1: 'toy' needs 'sizes'");
  EXPECT_EQ(
      error("{\"toy\": {\"sizes\": [10], \"layouts\": [\"x\"], \"precisions\": [\"float\"],\n \"block\": \"2\"}}"),
      "test.json:2: 'block' must be an integer");
  EXPECT_EQ(error("{\"toy\": {\"sizes\": [10], \"layouts\": [\"x\"], \"precisions\": [\"float\"],\n \"tile\": [2]}}"),
            "test.json:2: unknown key 'tile' in toy (expected: layouts, precisions, tiles, sizes, block, note)");
  // A key's word stands for the program to read: no values, and no error.
  EXPECT_EQ(
      names("{\"toy\": {\"sizes\": [10], \"layouts\": [\"z\"], \"precisions\": [\"float\"], \"tiles\": \"sweep\", "
            "\"note\": 1}}"),
      std::vector<std::string>{});
}

TEST(PlanAxes, ANamePlannedByTwoLoopsIsPlannedOnce) {
  Program twice = toy();
  twice.expand = [](const Reader&) {
    return Expansion{.loops = {over("size", {over("version", {over("precision", {over("layout", {over("block")})})})}),
                               over("size", {over("version", {over("precision", {over("layout", {over("block")})})})})},
                     .make = [](const Point&) { return ProgramCase{}; }};
  };
  const Preset p =
      lb::testing::preset_from("{\"toy\": {\"sizes\": [10], \"layouts\": [\"x\"], \"precisions\": [\"float\"]}}");
  EXPECT_EQ(plan_cases(twice, p, p.suites["toy"], "toy", {}).size(), 2u);  // a and b, once each
}

TEST(PlanAxes, AnAxissUnnamedValueIsLeftOutOfTheNameButStillSelects) {
  Program quiet = toy();
  quiet.axes.back().unnamed = "1";  // block 1: the names from before the axis
  const Preset p = lb::testing::preset_from(
      "{\"toy\": {\"sizes\": [10], \"layouts\": [\"x\"], \"precisions\": [\"float\"], \"block\": 1}}");
  auto planned = [&](const Overrides& o) {
    std::vector<std::string> out;
    for (const auto& b : plan_program("t", quiet, p, p.suites["toy"], "toy", o)) out.push_back(b.name);
    return out;
  };
  EXPECT_EQ(planned({.axes = {{"version", {"a"}}, {"block", {"1", "2"}}}}),
            (std::vector<std::string>{"t/toy/a/x/float/size:10", "t/toy/a/x/float/size:10/block:2"}));
  EXPECT_EQ(planned({.axes = {{"version", {"a"}}, {"block", {"2"}}}}),
            std::vector<std::string>{"t/toy/a/x/float/size:10/block:2"});  // block 1 left out though unnamed
}

TEST(PlanAxes, ASuiteRefusesAValueNoneOfItsProgramsHasAndAPlanOfNothing) {
  Program other = toy();
  other.name = "other";
  other.axes[1].values = {"x", "w"};  // "w" is other's alone
  const SuitePrograms suite{Section::programs, "toy program", {toy(), other}};
  const Preset p = lb::testing::preset_from(
      "{\"s\": {\"toy\": {\"sizes\": [10], \"layouts\": [\"x\"], \"precisions\": [\"float\"]},\n"
      " \"other\": {\"sizes\": [10], \"layouts\": [\"w\"], \"precisions\": [\"float\"]}}}");
  std::vector<std::string> got;
  for (const auto& b : plan_suite("s", suite, p, {.axes = {{"layout", {"w"}}}})) got.push_back(b.name);
  EXPECT_EQ(got, (std::vector<std::string>{"s/other/a/w/float/size:10/block:1", "s/other/b/w/float/size:10/block:1"}));
  try {
    plan_suite("s", suite, p, {.axes = {{"layout", {"v"}}}});
    ADD_FAILURE() << "planned";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "--axis layout: unknown layout 'v' (suite s's programs have: x, y, z, w)");
  }
  try {
    plan_suite("s", suite, p, {.axes = {{"version", {"b"}}, {"layout", {"y"}}}});
    ADD_FAILURE() << "planned";
  } catch (const PresetError& e) {
    EXPECT_STREQ(e.what(),
                 "test.json:1: suite s plans no benchmark: its programs (toy, other) plan none at --axis "
                 "version=b --axis layout=y");
  }
}

TEST(AxisOption, ParsesNameAndValuesAndRefusesEachMistakeInOneLine) {
  EXPECT_EQ(
      parse_axis_options({"layout=aos,soa", "tile=64"}),
      (std::vector<std::pair<std::string, std::vector<std::string>>>{{"layout", {"aos", "soa"}}, {"tile", {"64"}}}));
  auto error_of = [](std::vector<std::string> texts) {
    try {
      parse_axis_options(texts);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of({"layout"}), "--axis 'layout' is not NAME=VALUES (e.g. --axis layout=aos,soa)");
  EXPECT_EQ(error_of({"=aos"}), "--axis '=aos' is not NAME=VALUES (e.g. --axis layout=aos,soa)");
  EXPECT_EQ(error_of({"layout="}), "--axis layout: an empty list of values");
  EXPECT_EQ(error_of({"layout=aos,,soa"}), "--axis layout: an empty value in 'aos,,soa'");
  EXPECT_EQ(error_of({"layout=aos,"}), "--axis layout: an empty value in 'aos,'");
  EXPECT_EQ(error_of({"layout=aos,aos"}), "--axis layout: 'aos' is given twice; give each value once");
  EXPECT_EQ(error_of({"layout=aos", "layout=soa"}),
            "--axis layout is given twice; give an axis once, its values comma-separated");
}

TEST(AxisType, RegistryNames) {
  EXPECT_EQ(to_string(AxisType::count), "count");
  EXPECT_EQ(to_string(AxisType::integer), "integer");
  EXPECT_EQ(to_string(AxisType::number), "number");
  EXPECT_EQ(to_string(AxisType::text), "text");
}

}  // namespace
}  // namespace lb::harness

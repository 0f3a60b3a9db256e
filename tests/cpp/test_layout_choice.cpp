// The layout kinds' one name table (lb/layout/choice.hpp): every kind round-trips through its
// name, an unknown name is one error listing the names, a program that lacks a kind says so,
// the registry exports the same table, and the dispatch reaches a mapping of the program's
// ProgramLayouts for a value of every kind.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "kofler/layout_choice.hpp"
#include "kofler/suite.hpp"
#include "lb/kofler/sort.hpp"
#include "lb/harness/plan.hpp"
#include "lb/harness/suite.hpp"
#include "preset_testing.hpp"

namespace lb::layout {
namespace {

TEST(LayoutKinds, EveryKindRoundTripsThroughItsName) {
  std::set<std::string_view> seen;
  std::size_t count = 0;
  for_each_kind([&]<class K>() {
    ++count;
    EXPECT_TRUE(seen.insert(K::name).second) << K::name << " is named twice";
    const LayoutKind parsed = parse_kind(K::name);
    EXPECT_TRUE(std::holds_alternative<K>(parsed)) << K::name;
    EXPECT_EQ(LayoutChoice{K{}}.name(), K::name);
    EXPECT_EQ(LayoutChoice{parsed}.name(), K::name);
    EXPECT_EQ(K::param_keys.size(), K{}.values().size()) << K::name;
  });
  EXPECT_EQ(count, std::variant_size_v<LayoutKind>);
  EXPECT_EQ(kind_names(), (std::vector<std::string_view>{"aos", "soa", "tiled", "tiled-ct", "split", "split-ct", "kdlg",
                                                         "tiled-tree", "kdlg-tree", "kdlg-tree-plus", "kdlg-tiles"}));
}

TEST(LayoutKinds, AValueWritesTheTablesParametersAndLabel) {
  EXPECT_EQ(LayoutChoice{kind::Tiled{64}}.param(), "tile:64");
  EXPECT_EQ(LayoutChoice{kind::TiledCt{32}}.param(), "tile:32");
  EXPECT_EQ((LayoutChoice{kind::SplitCt{{"pos|vel", {}}}}.param()), "partition:pos|vel");
  EXPECT_EQ(LayoutChoice{kind::Soa{}}.param(), "");
  kind::Kdlg kdlg;
  kdlg.partition = "a+b|c";
  EXPECT_EQ(LayoutChoice{kdlg}.param(), "partition:a+b|c");
  EXPECT_EQ(LayoutChoice{kdlg}.label(), "runs_as=partition");
  kdlg.runs_as = kind::TiledCt{32};
  EXPECT_EQ(LayoutChoice{kdlg}.label(), "runs_as=tiled-ct-32");
  kind::TiledTree tree;
  tree.partition = "a+b+c";  // not in its name: one cluster whatever the tree
  tree.fields = {{0, 0, 0}, {{ClusterLayout::Kind::tiled, 64}}};
  tree.tree_gpu = "G";
  EXPECT_EQ(LayoutChoice{tree}.param(), "");
  EXPECT_EQ(LayoutChoice{tree}.label(), "cluster_layouts=tiled-64;runs_as=partition;tree_gpu=G");
  tree.unavailable = "no tree";
  EXPECT_EQ(LayoutChoice{tree}.label(), "");
  EXPECT_EQ(LayoutChoice{tree}.unavailable(), "no tree");
}

TEST(LayoutKinds, AnUnknownNameIsOneErrorListingTheNames) {
  try {
    parse_kind("aoss");
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown layout 'aoss' (expected one of: aos, soa, tiled, tiled-ct, split, split-ct, kdlg, "
                           "tiled-tree, kdlg-tree, kdlg-tree-plus, kdlg-tiles)");
  }
  // in a preset: the same message, at the line
  const auto preset = lb::testing::preset_from(R"({"p": {"layouts": ["aos", "aoss"]}})");
  try {
    benches::kofler::layout_choices(preset, preset.suites["p"], "p", 64, {"a"}, {}, {});
    ADD_FAILURE() << "no error";
  } catch (const harness::PresetError& e) {
    EXPECT_EQ(std::string(e.what()), "test.json:1: unknown layout 'aoss' (expected one of: aos, soa, tiled, tiled-ct, "
                                     "split, split-ct, kdlg, tiled-tree, kdlg-tree, kdlg-tree-plus, kdlg-tiles)");
  }
}

TEST(LayoutKinds, WhatAProgramTakesFollowsFromWhatItCompiles) {
  const ProgramKinds none{{}, {}, false};
  EXPECT_EQ(none.taken(), (std::vector<std::string>{"aos", "soa", "tiled", "split"}));
  const ProgramKinds sort{{4, 32}, {}, true};  // the bitonic sort's: no compile-time split
  EXPECT_EQ(sort.taken(),
            (std::vector<std::string>{"aos", "soa", "tiled", "tiled-ct", "split", "kdlg", "tiled-tree", "kdlg-tree",
                                      "kdlg-tree-plus", "kdlg-tiles"}));
  EXPECT_FALSE(sort.takes<kind::SplitCt>());
  EXPECT_TRUE((ProgramKinds{{4}, {"p"}, true}.takes<kind::SplitCt>()));
}

//! The PresetError message of planning `object` as the Kofler program `program` of the paper preset's suite.
std::string plan_error(const harness::Program& program, const std::string& object) {
  const auto preset = lb::testing::preset_from(object);
  try {
    harness::plan_cases(program, preset, preset.suites, program.name, {});
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

TEST(LayoutKinds, AProgramThatLacksAKindSaysSoAndWhatItTakes) {
  // bitonic sort and LavaMD compile no split: split-ct is the one kind they lack
  EXPECT_EQ(plan_error(benches::kofler::bitonic_program(),
                       R"({"sizes": [1024], "versions": ["bitonic"], "layouts": ["split-ct"],
                           "partitions": {"p": [["key"], ["id", "weight", "value"]]}})"),
            "test.json:1: layout 'split-ct' needs compile-time splits, which this program has not (it takes: aos, soa, "
            "tiled, tiled-ct, split, kdlg, tiled-tree, kdlg-tree, kdlg-tree-plus, kdlg-tiles)");
  EXPECT_NE(plan_error(benches::kofler::lavamd_program(),
                       R"({"boxes_1d": [2], "precisions": ["float"], "layouts": ["split-ct"],
                           "partitions": {"p": [["v"], ["x", "y", "z"]]}})")
                .find("layout 'split-ct' needs compile-time splits, which this program has not"),
            std::string::npos);
  // the registry's layout axis of each program lists what it takes
  for (const harness::Program& p : harness::find_suite("kofler").programs.programs) {
    const auto& layouts = p.axis("layout").values;
    const bool splits = p.name == "nbody" || p.name == "blackscholes" || p.name == "sampo";
    EXPECT_EQ(std::count(layouts.begin(), layouts.end(), "split-ct"), splits ? 1 : 0) << p.name;
    EXPECT_EQ(std::count(layouts.begin(), layouts.end(), "split"), 1) << p.name;
  }
}

TEST(LayoutKinds, AProgramsLayoutAxisRefusesAKindAsItsChoicesDo) {
  const ProgramKinds none{{}, {}, false};  // compiles nothing, records nothing
  EXPECT_EQ(none.refusal("split"), "");
  EXPECT_EQ(none.refusal("tiled-ct"),
            "layout 'tiled-ct' needs compile-time tiles, which this program has not (it takes: aos, soa, tiled, split)");
  EXPECT_EQ(none.refusal("kdlg"),
            "layout 'kdlg' needs recorded accesses, which this program has not (it takes: aos, soa, tiled, split)");
  EXPECT_EQ(none.refusal("aoss"), "unknown layout 'aoss' (expected one of: aos, soa, tiled, tiled-ct, split, split-ct, "
                                  "kdlg, tiled-tree, kdlg-tree, kdlg-tree-plus, kdlg-tiles)");
  // Each Kofler program's layout axis (the planner's check of a preset's "layouts") takes
  // exactly its values, and words the rest as the table does.
  for (const harness::Program& p : harness::find_suite("kofler").programs.programs) {
    const harness::Axis& layouts = p.axis("layout");
    for (const std::string_view name : kind_names()) {
      const bool listed = std::find(layouts.values.begin(), layouts.values.end(), name) != layouts.values.end();
      EXPECT_EQ(layouts.limits(nlohmann::json(name)).empty(), listed) << p.name << ": " << name;
    }
  }
  EXPECT_EQ(plan_error(benches::kofler::nbody_program(), R"({"layouts": ["aoss"]})"),
            "test.json:1: unknown layout 'aoss' (expected one of: aos, soa, tiled, tiled-ct, split, split-ct, kdlg, "
            "tiled-tree, kdlg-tree, kdlg-tree-plus, kdlg-tiles)");
}

TEST(LayoutKinds, TheRunTimeSplitIsEveryProgramsBitonicSortAndLavaMdIncluded) {
  // Through the same dispatch as every program: a preset's partition of the sort record.
  const auto preset = lb::testing::preset_from(R"({"sizes": [1024], "versions": ["bitonic"], "layouts": ["split"],
      "partitions": {"key|rest": [["key"], ["id", "weight", "value"]]}})");
  std::vector<std::string> names;
  for (const auto& b : harness::plan_program("kofler", benches::kofler::bitonic_program(), preset, preset.suites,
                                             "bitonic", {}))
    names.push_back(b.name);
  EXPECT_EQ(names, (std::vector<std::string>{"kofler/bitonic/bitonic/split/u32/partition:key|rest/size:1024"}));
}

TEST(LayoutKinds, TheRegistryExportsTheTable) {
  const nlohmann::json table = layout_table_json();
  std::vector<std::string> names;
  for (const auto& k : table["kinds"]) names.push_back(k["name"]);
  const auto table_names = kind_names();
  EXPECT_EQ(names, (std::vector<std::string>(table_names.begin(), table_names.end())));
  EXPECT_EQ(table["kinds"][2]["compiled"], "tiled-ct");  // tiled's compiled twin
  EXPECT_EQ(table["kinds"][8]["label"], (nlohmann::json{"cluster_layouts", "runs_as", "tree_gpu"}));
  EXPECT_EQ(table["kinds"][9]["name"], "kdlg-tree-plus");  // its trial writes its label
  EXPECT_EQ(table["kinds"][9]["label"], (nlohmann::json{"chosen", "runs_as", "trial_us", "tree_gpu"}));
  EXPECT_EQ(table["kinds"][9]["code"], "runs_as");
  EXPECT_TRUE(table["kinds"][9]["trial"]);
  EXPECT_FALSE(table["kinds"][9]["tree"]);
  EXPECT_FALSE(table["kinds"][8]["trial"]);
  EXPECT_EQ(table["runs_as"], (nlohmann::json{"aos", "soa", "tiled-ct"}));
  EXPECT_EQ(harness::registry_json()["layouts"], table);
}

//! What with_mapping made for a value: its mapping type, by name.
template <class P>
std::string made(const LayoutChoice& c) {
  std::string which;
  with_mapping<P>(c, 64, [&](const auto& m) {
    using M = std::decay_t<decltype(m)>;
    static_assert(kInList<M, typename P::mappings>);
    which = std::is_same_v<M, AoSMapping<typename P::record>>            ? "aos"
            : std::is_same_v<M, SoAMapping<typename P::record>>          ? "soa"
            : std::is_same_v<M, Pow2AoSoAMapping<typename P::record>>    ? "pow2 tiles"
            : std::is_same_v<M, RuntimeAoSoAMapping<typename P::record>> ? "tiles"
            : std::is_same_v<M, Pow2PartitionMapping<typename P::record>> ? "pow2 partition"
            : std::is_same_v<M, PartitionMapping<typename P::record>>    ? "partition"
                                                                         : "compiled";
  });
  return which;
}

TEST(LayoutKinds, EveryKindReachesAMappingOfTheProgramByItsType) {
  using P = lb::kofler::SortLayouts;  // no compile-time split
  const FieldPartition two{{0, 1, 1, 1}, {{ClusterLayout::Kind::aos, 1}, {ClusterLayout::Kind::tiled, 3}}};
  EXPECT_EQ((made<P>({kind::Aos{}})), "aos");
  EXPECT_EQ((made<P>({kind::Soa{}})), "soa");
  EXPECT_EQ((made<P>({kind::Tiled{8}})), "pow2 tiles");
  EXPECT_EQ((made<P>({kind::Tiled{3}})), "tiles");
  EXPECT_EQ((made<P>({kind::TiledCt{32}})), "compiled");
  EXPECT_EQ((made<P>({kind::Split{{"p", two}}})), "partition");
  EXPECT_EQ((made<P>({kind::KdlgTiles{{"p", two}}})), "partition");
  kind::Kdlg kdlg;
  kdlg.fields = two;
  EXPECT_EQ((made<P>({kdlg})), "partition");
  kdlg.runs_as = kind::Soa{};
  EXPECT_EQ((made<P>({kdlg})), "soa");
  kind::KdlgTree tree;
  tree.fields = two;
  tree.runs_as = kind::TiledCt{4};
  EXPECT_EQ((made<P>({tree})), "compiled");
  kind::TiledTree all;
  all.fields = {{0, 0, 0, 0}, {{ClusterLayout::Kind::tiled, 16}}};
  EXPECT_EQ((made<P>({all})), "pow2 partition");
  // what P does not compile: an error, nothing made
  EXPECT_THROW((made<P>({kind::TiledCt{64}})), std::invalid_argument);
  EXPECT_THROW((made<P>({kind::SplitCt{{"p", two}}})), std::invalid_argument);
}

}  // namespace
}  // namespace lb::layout

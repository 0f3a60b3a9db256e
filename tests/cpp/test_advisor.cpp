// Kofler et al.'s method after the KDLG (docs/advisor.md): the decision-tree reader (a good
// file, each bad file's one error, the class at the intervals' edges), the advisor's output on
// the paper's worked example recorded by hand, and the method's layout values as exact field
// partitions, names and plan errors.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kofler/layout_choice.hpp"
#include "lb/kofler/recorded.hpp"
#include "lb/kofler/sort.hpp"
#include "lb/layout/advisor.hpp"
#include "lb/layout/decision_tree.hpp"
#include "lb/harness/suite.hpp"
#include "preset_testing.hpp"

namespace {

using namespace lb::layout;
using K = ClusterLayout::Kind;

//! A tree of three classes: soa for 1..4 B, tiled:32 for 5..8 B, aos from 9 B.
const char* kTree = R"({"format": "layoutbench-kofler-tree/1", "gpu": {"name": "Test GPU", "uuid": "GPU-1234"},
  "feature": "cluster_bytes", "tile_unit": "records", "classes": ["aos", "soa", "tiled:32"],
  "intervals": [{"from_bytes": 1, "to_bytes": 4, "class": "soa"},
                {"from_bytes": 5, "to_bytes": 8, "class": "tiled:32"},
                {"from_bytes": 9, "to_bytes": null, "class": "aos"}]})";

DecisionTree test_tree() { return decision_tree_from_json(nlohmann::json::parse(kTree), "tree.json"); }

//! The error reading kTree with `key` of the interval `k` (or of the tree, k < 0) set to `value`.
std::string tree_error(int k, const std::string& key, const nlohmann::json& value) {
  nlohmann::json j = nlohmann::json::parse(kTree);
  (k < 0 ? j : j["intervals"][k])[key] = value;
  try {
    decision_tree_from_json(j, "tree.json");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

bool operator==(const ClusterLayout& a, const ClusterLayout& b) { return a.kind == b.kind && a.lanes == b.lanes; }

TEST(DecisionTree, ReadsAGoodFile) {
  const auto path = std::filesystem::temp_directory_path() / ("lb_test_tree." + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << kTree;
  const DecisionTree t = read_decision_tree(path.string());
  std::filesystem::remove(path);
  EXPECT_EQ(t.source, path.string());
  EXPECT_EQ(t.gpu_name, "Test GPU");
  EXPECT_EQ(t.gpu_uuid, "GPU-1234");
  ASSERT_EQ(t.intervals.size(), 3u);
  EXPECT_EQ(t.intervals[1].from_bytes, 5u);
  EXPECT_EQ(t.intervals[1].to_bytes, 8u);
  EXPECT_TRUE((t.intervals[1].layout == ClusterLayout{K::tiled, 32}));
  EXPECT_EQ(t.intervals[2].to_bytes, DecisionTree::kUnbounded);
}

TEST(DecisionTree, ClassAtTheIntervalsEdges) {
  const DecisionTree t = test_tree();
  EXPECT_TRUE((t.class_for(1) == ClusterLayout{K::soa, 1}));
  EXPECT_TRUE((t.class_for(4) == ClusterLayout{K::soa, 1}));
  EXPECT_TRUE((t.class_for(5) == ClusterLayout{K::tiled, 32}));
  EXPECT_TRUE((t.class_for(8) == ClusterLayout{K::tiled, 32}));
  EXPECT_TRUE((t.class_for(9) == ClusterLayout{K::aos, 1}));
  EXPECT_TRUE((t.class_for(DecisionTree::kUnbounded) == ClusterLayout{K::aos, 1}));
  EXPECT_THROW(t.class_for(0), std::invalid_argument);
}

TEST(DecisionTree, EachBadFileIsOneErrorNamingTheFileAndTheProblem) {
  EXPECT_EQ(tree_error(-1, "format", "layoutbench-kofler-tree/2"),
            "tree.json: format 'layoutbench-kofler-tree/2' is not 'layoutbench-kofler-tree/1'");
  EXPECT_EQ(tree_error(-1, "feature", "cluster_fields"), "tree.json: feature 'cluster_fields' is not 'cluster_bytes'");
  EXPECT_EQ(tree_error(-1, "tile_unit", "bytes"), "tree.json: tile_unit 'bytes' is not 'records'");
  EXPECT_EQ(tree_error(-1, "gpu", nlohmann::json::object({{"name", "x"}})), "tree.json: 'gpu' needs 'uuid' (a string)");
  EXPECT_EQ(tree_error(-1, "intervals", nlohmann::json::array()), "tree.json: 'intervals' must be a non-empty list");
  EXPECT_EQ(tree_error(0, "from_bytes", 2), "tree.json: interval 1: the intervals must start at 1 byte, not 2");
  EXPECT_EQ(tree_error(1, "from_bytes", 7),
            "tree.json: interval 2: from_bytes 7 leaves a gap after the previous interval, which ends at 4");
  EXPECT_EQ(tree_error(1, "from_bytes", 3),
            "tree.json: interval 2: from_bytes 3 overlaps the previous interval, which ends at 4");
  EXPECT_EQ(tree_error(1, "to_bytes", 4), "tree.json: interval 2: to_bytes 4 is below from_bytes 5");
  EXPECT_EQ(tree_error(1, "to_bytes", nullptr), "tree.json: interval 2: only the last interval's 'to_bytes' is null");
  EXPECT_EQ(tree_error(2, "to_bytes", 100),
            "tree.json: interval 3: the last interval's 'to_bytes' must be null (no upper end)");
  // A tile outside the training's 1 to 32768 records is named out of range, never planned.
  for (const char* tile : {"0", "32769", "999999999", "18446744073709551615", "99999999999999999999999"})
    EXPECT_EQ(tree_error(1, "class", std::string("tiled:") + tile),
              std::string("tree.json: interval 2: class 'tiled:") + tile +
                  "': the tile is out of range (1 to 32768 records, the training's tiles)");
  EXPECT_EQ(tree_error(1, "class", "tiled:32768"), "no error");
  EXPECT_EQ(tree_error(1, "class", "tiled:1"), "no error");
  EXPECT_EQ(tree_error(1, "class", "tiled:"), "tree.json: interval 2: unknown class 'tiled:' (aos, soa or tiled:<t>)");
  EXPECT_EQ(tree_error(1, "class", "tiled:-3"), "tree.json: interval 2: unknown class 'tiled:-3' (aos, soa or tiled:<t>)");
  EXPECT_EQ(tree_error(1, "class", "hybrid"), "tree.json: interval 2: unknown class 'hybrid' (aos, soa or tiled:<t>)");
  EXPECT_EQ(tree_error(1, "from_bytes", -5), "tree.json: interval 2: 'from_bytes' must be a positive integer");
  EXPECT_EQ(tree_error(1, "to_bytes", "8"), "tree.json: interval 2: 'to_bytes' must be a positive integer or null");

  const auto path = std::filesystem::temp_directory_path() / ("lb_test_tree_bad." + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << "{\"format\": ";
  try {
    read_decision_tree(path.string());
    ADD_FAILURE() << "malformed JSON read";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path.string() + ":1: malformed JSON", 0), 0u) << e.what();
  }
  std::filesystem::remove(path);
  try {
    read_decision_tree(path.string());
    ADD_FAILURE() << "a missing file read";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), path.string() + ": cannot open file (No such file or directory)");
  }
}

//! The paper's worked example (l.71, Fig. 2a) recorded by hand: 32 iterations each loading a
//! and b of record i (4 B floats of a 12-byte AoS record), then c of record 0.
lb::kofler::RecordedProgram worked_example() {
  lb::kofler::RecordedProgram r{"example", {"a", "b", "c"}, {4, 4, 4}, {{"fig2a", {}}}, "32 records, one thread"};
  const std::uintptr_t base = 4096;
  for (std::uintptr_t i = 0; i < 32; ++i) {
    r.kernels[0].accesses.push_back({0, base + 12 * i, 4, AccessKind::load});
    r.kernels[0].accesses.push_back({1, base + 12 * i + 4, 4, AccessKind::load});
  }
  r.kernels[0].accesses.push_back({2, base + 8, 4, AccessKind::load});
  return r;
}

TEST(Advisor, WorkedExampleGivesClustersAPlusBAndCWithoutATree) {
  const auto r = worked_example();
  const Advice a = advise(r.field_names, r.field_bytes, r.kernels, 128, nullptr);
  EXPECT_EQ(partition_name(a.partition, a.field_names), "a+b|c");
  EXPECT_EQ(advice_text(a),
            "fields (sigma, bytes): a 4 b 4 c 4\n"
            "delta (distinct bytes between accesses; inf: never near within a kernel):\n"
            "      a   b   c\n"
            "  a   0   4 256\n"
            "  b   4   0 252\n"
            "  c 256 252   0\n"
            "clusters (epsilon 128 B): a+b|c\n"
            "  a+b: sigma 8 B, diameter 4\n"
            "  c: sigma 4 B, diameter 0\n"
            "merges:\n"
            "  joined a and b at delta 4\n"
            "no tree given: clusters only\n");
  const nlohmann::json j = advice_json(a);
  EXPECT_EQ(j["partition"], "a+b|c");
  EXPECT_EQ(j["delta"][0], nlohmann::json::parse("[0, 4, 256]"));
  EXPECT_EQ(j["clusters"][0]["bytes"], 8);
  EXPECT_FALSE(j["clusters"][0].contains("layout"));
  EXPECT_TRUE(j["tree"].is_null());
}

TEST(Advisor, WithATreeEachClusterGetsItsClassAndInfinityPrintsAsInf) {
  auto r = worked_example();
  r.field_names.push_back("d");  // never accessed: δ = ∞ to every field
  r.field_bytes.push_back(8);
  const DecisionTree tree = test_tree();
  const Advice a = advise(r.field_names, r.field_bytes, r.kernels, 128, &tree);
  const std::string text = advice_text(a);
  EXPECT_NE(text.find("  a   0   4 256 inf\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  a+b: sigma 8 B, diameter 4, layout tiled:32\n"
                      "  c: sigma 4 B, diameter 0, layout soa\n"
                      "  d: sigma 8 B, diameter 0, layout tiled:32\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("tree tree.json:\n  kdlg-tree: a+b tiled:32 | c soa | d tiled:32\n"
                      "  tiled-tree: one cluster, sigma 20 B, layout aos\n"),
            std::string::npos)
      << text;
  const nlohmann::json j = advice_json(a);
  EXPECT_EQ(j["delta"][0][3], "inf");
  EXPECT_EQ(j["clusters"][1]["layout"], "soa");
  EXPECT_EQ(j["whole_record_layout"], "aos");
  EXPECT_EQ(j["tree"], "tree.json");
}

//! The partition of a value of a kind that has one (kind::PartitionValue).
const FieldPartition& fields_of(const LayoutChoice& c) {
  return std::visit(
      [](const auto& k) -> const FieldPartition& {
        if constexpr (std::is_base_of_v<kind::PartitionValue, std::decay_t<decltype(k)>>) return k.fields;
        else throw std::logic_error("a kind without a partition");
      },
      c.kind);
}

//! What a method value runs as: "aos", "soa", "tiled-ct:<t>", "" (the run-time partition).
std::string runs_as_of(const kind::MethodValue& k) {
  if (!k.runs_as) return "";
  if (const auto* t = std::get_if<kind::TiledCt>(&*k.runs_as)) return "tiled-ct:" + std::to_string(t->tile);
  return std::string(std::visit([](const auto& c) { return std::decay_t<decltype(c)>::name; }, *k.runs_as));
}
std::string runs_as_of(const LayoutChoice& c) {
  return std::visit(
      [](const auto& k) -> std::string {
        if constexpr (std::is_base_of_v<kind::MethodValue, std::decay_t<decltype(k)>>) return runs_as_of(k);
        else throw std::logic_error("not a method value");
      },
      c.kind);
}

//! A program object's choices with the method from the worked example's partition and `tree`.
std::vector<LayoutChoice> method_choices(const std::string& object, const DecisionTree* tree,
                                         const std::function<KdlgPartition()>& partition = {}) {
  const auto r = worked_example();
  MethodSource m{partition ? partition
                           : [&] {
                               return kdlg_partition(program_kdlg(r.field_bytes, r.kernels));
                             },
                 r.field_bytes, tree, "give --tree-option FILE"};
  const auto preset = lb::testing::preset_from(R"({"example": )" + object + "}");
  return lb::benches::kofler::layout_choices(preset, preset.suites["example"], "example", 1024, r.field_names, {}, {}, &m);
}

TEST(MethodLayouts, EachValueIsItsExactFieldPartitionAndNamesIt) {
  const DecisionTree tree = test_tree();
  const auto c = method_choices(R"({"layouts": ["kdlg-tree", "aos", "tiled-tree", "kdlg"]})", &tree);
  ASSERT_EQ(c.size(), 4u);  // aos, then the method's in their order: kdlg, tiled-tree, kdlg-tree
  EXPECT_TRUE(c[0].is<kind::Aos>());

  EXPECT_EQ(c[1].name(), "kdlg");
  ASSERT_TRUE(c[1].is<kind::Kdlg>());
  EXPECT_EQ(fields_of(c[1]).cluster_of_field, (std::vector<std::size_t>{0, 0, 1}));
  ASSERT_EQ(fields_of(c[1]).clusters.size(), 2u);
  EXPECT_TRUE((fields_of(c[1]).clusters[0] == ClusterLayout{K::aos, 1}) &&
              (fields_of(c[1]).clusters[1] == ClusterLayout{K::aos, 1}));
  EXPECT_EQ(c[1].param(), "partition:a+b|c");

  EXPECT_EQ(c[2].name(), "tiled-tree");  // one cluster of 12 B: aos
  ASSERT_TRUE(c[2].is<kind::TiledTree>());
  EXPECT_EQ(fields_of(c[2]).cluster_of_field, (std::vector<std::size_t>{0, 0, 0}));
  ASSERT_EQ(fields_of(c[2]).clusters.size(), 1u);
  EXPECT_TRUE((fields_of(c[2]).clusters[0] == ClusterLayout{K::aos, 1}));
  EXPECT_EQ(c[2].param(), "");  // whatever the tree chose: the label says
  EXPECT_EQ(c[2].label(), "cluster_layouts=aos;runs_as=aos;tree_gpu=Test GPU");  // the compiled AoS
  EXPECT_EQ(runs_as_of(c[2]), "aos");

  EXPECT_EQ(c[3].name(), "kdlg-tree");  // a+b: 8 B, tiled:32; c: 4 B, soa
  ASSERT_TRUE(c[3].is<kind::KdlgTree>());
  EXPECT_EQ(fields_of(c[3]).cluster_of_field, (std::vector<std::size_t>{0, 0, 1}));
  ASSERT_EQ(fields_of(c[3]).clusters.size(), 2u);
  EXPECT_TRUE((fields_of(c[3]).clusters[0] == ClusterLayout{K::tiled, 32}));
  EXPECT_TRUE((fields_of(c[3]).clusters[1] == ClusterLayout{K::soa, 1}));
  EXPECT_EQ(c[3].param(), "partition:a+b|c");
  EXPECT_EQ(c[3].label(), "cluster_layouts=tiled-32|soa;runs_as=partition;tree_gpu=Test GPU");  // none compiled
  EXPECT_EQ(runs_as_of(c[3]), "");
  EXPECT_EQ(c[3].params().size(), 1u);  // the name adds the size
  for (std::size_t k = 0; k < 4; ++k) EXPECT_EQ(c[k].unavailable(), "") << c[k].name();
  EXPECT_EQ(c[0].label(), "");  // not the method's
  EXPECT_EQ(c[1].label(), "runs_as=partition");  // two clusters of which one holds two fields: the run-time mapping
  EXPECT_EQ(runs_as_of(c[1]), "");
}

TEST(MethodLayouts, WithoutATreeTheSameValuesArePlannedUnderTheSameNamesAndCannotBeMade) {
  const DecisionTree tree = test_tree();
  const std::string object = R"({"layouts": ["kdlg", "tiled-tree", "kdlg-tree"]})";
  const auto with = method_choices(object, &tree), without = method_choices(object, nullptr);
  ASSERT_EQ(without.size(), with.size());
  for (std::size_t k = 0; k < with.size(); ++k) {
    EXPECT_EQ(without[k].name(), with[k].name());
    EXPECT_EQ(without[k].param(), with[k].param());
    EXPECT_EQ(fields_of(without[k]).cluster_of_field, fields_of(with[k]).cluster_of_field);
    EXPECT_EQ(without[k].label(), k == 0 ? with[0].label() : "");  // kdlg's says what runs it
  }
  EXPECT_EQ(without[0].unavailable(), "");  // kdlg needs no tree
  EXPECT_EQ(without[1].unavailable(), "layout 'tiled-tree' needs a decision tree: give --tree-option FILE");
  EXPECT_EQ(without[2].unavailable(), "layout 'kdlg-tree' needs a decision tree: give --tree-option FILE");
}

//! A partition of `clusters` (field ids) with `layouts`, over `fields` fields.
FieldPartition partition_of(std::vector<std::vector<std::size_t>> clusters, std::vector<ClusterLayout> layouts,
                            std::size_t fields) {
  FieldPartition p{std::vector<std::size_t>(fields), std::move(layouts)};
  for (std::size_t c = 0; c < clusters.size(); ++c)
    for (std::size_t f : clusters[c]) p.cluster_of_field[f] = c;
  return p;
}

//! compiled_layout's answer as "aos", "soa", "tiled-ct:<t>" or "none".
std::string compiled_text(const FieldPartition& p, const std::vector<std::size_t>& tiles) {
  kind::MethodValue k;
  k.runs_as = compiled_layout(p, tiles);
  return k.runs_as ? runs_as_of(k) : "none";
}

TEST(MethodLayouts, APartitionRunsAsTheCompiledLayoutWhoseAddressesItHas) {
  const ClusterLayout aos{K::aos, 1}, soa{K::soa, 1}, t1{K::tiled, 1}, t32{K::tiled, 32}, t64{K::tiled, 64};
  const std::vector<std::size_t> ct{4, 32};
  // one cluster of every field: its layout, where compiled
  EXPECT_EQ(compiled_text(partition_of({{0, 1, 2}}, {aos}, 3), ct), "aos");
  EXPECT_EQ(compiled_text(partition_of({{0, 1, 2}}, {t1}, 3), ct), "aos");  // one record a tile
  EXPECT_EQ(compiled_text(partition_of({{0, 1, 2}}, {soa}, 3), ct), "soa");
  EXPECT_EQ(compiled_text(partition_of({{0, 1, 2}}, {t32}, 3), ct), "tiled-ct:32");
  EXPECT_EQ(compiled_text(partition_of({{0, 1, 2}}, {t64}, 3), ct), "none");  // tile 64 not compiled
  EXPECT_EQ(compiled_text(partition_of({{0, 1, 2}}, {t32}, 3), {}), "none");
  // every field alone (N-body's pos|vel, each tiled or AoS): record i at i · its bytes = SoA
  EXPECT_EQ(compiled_text(partition_of({{0}, {1}}, {t32, t32}, 2), {}), "soa");
  EXPECT_EQ(compiled_text(partition_of({{0}, {1}}, {aos, t64}, 2), {}), "soa");
  EXPECT_EQ(compiled_text(partition_of({{0, 1}, {2}}, {soa, t32}, 3), {}), "soa");  // a SoA cluster is fields alone
  // a cluster of several fields beside others, not SoA: the run-time mapping
  EXPECT_EQ(compiled_text(partition_of({{0, 1}, {2}}, {aos, aos}, 3), ct), "none");
  EXPECT_EQ(compiled_text(partition_of({{0, 1}, {2}}, {t32, soa}, 3), ct), "none");
  // a one-field record: every layout is SoA
  EXPECT_EQ(compiled_text(partition_of({{0}}, {t64}, 1), {}), "soa");
}

TEST(MethodLayouts, EachValueRunsAsTheCompiledLayoutItIsAmongTheProgramsTiles) {
  // kTree: the 12-B record is AoS, the 8-B cluster a+b tiled:32, c (4 B) SoA.
  const DecisionTree tree = test_tree();
  const auto r = worked_example();
  KdlgPartition apart;  // each field its own cluster
  for (std::size_t f = 0; f < r.field_names.size(); ++f) apart.clusters.push_back({f});
  KdlgPartition ab_c;
  ab_c.clusters = {{0, 1}, {2}};
  const auto made = [&]<class Kind>(const KdlgPartition& p, std::vector<std::size_t> tiles) {
    const LayoutChoice c{method_value<Kind>(p, r.field_names, r.field_bytes, &tree, "hint", tiles)};
    return runs_as_of(c) + " / " + c.label();
  };
  EXPECT_EQ(made.operator()<kind::Kdlg>(apart, {}), "soa / runs_as=soa");
  EXPECT_EQ(made.operator()<kind::KdlgTree>(apart, {}),
            "soa / cluster_layouts=soa|soa|soa;runs_as=soa;tree_gpu=Test GPU");
  EXPECT_EQ(made.operator()<kind::TiledTree>(apart, {}), "aos / cluster_layouts=aos;runs_as=aos;tree_gpu=Test GPU");
  EXPECT_EQ(made.operator()<kind::KdlgTree>(ab_c, {32}),
            " / cluster_layouts=tiled-32|soa;runs_as=partition;tree_gpu=Test GPU");
  KdlgPartition ab;  // a two-field record as one 8-B cluster: tiled:32, compiled where 32 is
  ab.clusters = {{0, 1}};
  const std::vector<std::string> two{"a", "b"};
  const std::vector<std::size_t> bytes{4, 4};
  EXPECT_EQ(runs_as_of(method_value<kind::KdlgTree>(ab, two, bytes, &tree, "h", {4, 32})), "tiled-ct:32");
  EXPECT_EQ(runs_as_of(method_value<kind::KdlgTree>(ab, two, bytes, &tree, "h", {4})), "");
  EXPECT_EQ(LayoutChoice{method_value<kind::KdlgTree>(ab, two, bytes, &tree, "h", {4})}.label(),
            "cluster_layouts=tiled-32;runs_as=partition;tree_gpu=Test GPU");
  EXPECT_EQ(runs_as_of(method_value<kind::KdlgTree>(ab, two, bytes, nullptr, "h", {4, 32})), "");  // unavailable
}

//! kTree in a file of this process's, as `--kofler-tree` gives one (the suite reads it by path).
std::string tree_file() {
  static const std::string path = [] {
    const auto p = std::filesystem::temp_directory_path() / ("lb_test_plan_tree." + std::to_string(::getpid()) + ".json");
    std::ofstream(p) << kTree;
    return p.string();
  }();
  return path;
}

//! Every Kofler program's planned cases of the paper preset, with the tree file `tree` as the
//! suite's tree input (empty: without).
std::vector<lb::harness::PlannedCase> kofler_paper_plan(const std::string& tree) {
  const lb::harness::Preset preset = lb::harness::load_preset("paper");
  lb::harness::Overrides overrides;
  if (!tree.empty()) overrides.inputs[lb::benches::kofler::kTreeInput] = tree;
  std::vector<lb::harness::PlannedCase> plan;
  for (const lb::harness::Program& p : lb::harness::find_suite("kofler").programs.programs) {
    auto part = lb::harness::plan_cases(p, preset, preset.suites["kofler"][p.name], p.name, overrides);
    plan.insert(plan.end(), part.begin(), part.end());
  }
  return plan;
}

TEST(MethodLayouts, APresetPlansTheSameBenchmarksWithOrWithoutATreeAndWithoutOneTheTreesFailWhenMade) {
  const auto with = kofler_paper_plan(tree_file());
  const auto without = kofler_paper_plan("");
  std::filesystem::remove(tree_file());  // read once per process: planned above
  ASSERT_EQ(without.size(), with.size());
  std::size_t tree_values = 0;
  for (std::size_t k = 0; k < with.size(); ++k) {
    const std::string name = with[k].name();
    EXPECT_EQ(without[k].name(), name);
    const std::string layout = with[k].id.layout;
    if (layout == "kdlg") {  // needs no tree: the same label, what runs it
      EXPECT_EQ(with[k].run.label.rfind("runs_as=", 0), 0u) << name;
      EXPECT_EQ(without[k].run.label, with[k].run.label) << name;
      continue;
    }
    const bool trial = layout == "kdlg-tree-plus";  // needs the tree too; its trial writes its label
    if (layout != "tiled-tree" && layout != "kdlg-tree" && !trial) {
      EXPECT_EQ(with[k].run.label + without[k].run.label, "") << name;
      continue;
    }
    ++tree_values;
    if (trial) {
      EXPECT_EQ(with[k].run.label, "") << name;
      EXPECT_EQ(with[k - 1].id.layout, "kdlg-tree") << name;  // planned beside the paper's choice
      EXPECT_EQ(with[k].id.params, with[k - 1].id.params) << name;  // the same partition and size
      EXPECT_EQ(with[k].id.precision, with[k - 1].id.precision) << name;
      // made by its trial, which times on the run's GPU timer (none in this process)
      EXPECT_THROW(with[k].run.make(), std::logic_error) << name;
    } else {
      EXPECT_EQ(with[k].run.label.rfind("cluster_layouts=", 0), 0u) << name;
      EXPECT_NE(with[k].run.label.find(";tree_gpu=Test GPU"), std::string::npos) << name;
      EXPECT_NE(with[k].run.label.find(";runs_as="), std::string::npos) << name;
    }
    EXPECT_EQ(without[k].run.label, "") << name;
    // Made without a tree: the error, before the program makes anything (no GPU needed here).
    try {
      without[k].run.make();
      ADD_FAILURE() << name << " was made without a tree";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()), "layout '" + layout + "' needs a decision tree: give --kofler-tree FILE (make "
                                       "reproduce trains one: suite kofler-tree, docs/kofler-tree.md)");
    }
  }
  EXPECT_GT(tree_values, 10u);  // every program's, every size
}

TEST(ExtendedValue, IsKdlgTreesPartitionBesideItAndTriesAosSoaKdlgTreeAndTiledTree) {
  const DecisionTree tree = test_tree();
  const auto c = method_choices(R"({"layouts": ["kdlg-tree-plus", "aos", "kdlg-tree", "tiled-tree"]})", &tree);
  ASSERT_EQ(c.size(), 4u);  // aos, then the table's order: tiled-tree, kdlg-tree, kdlg-tree-plus
  ASSERT_TRUE(c[3].is<kind::KdlgTreePlus>());
  EXPECT_EQ(c[3].name(), "kdlg-tree-plus");
  EXPECT_EQ(c[3].param(), c[2].param());  // partition:a+b|c, whatever the tree
  EXPECT_EQ(c[3].param(), "partition:a+b|c");
  EXPECT_EQ(c[3].label() + c[3].unavailable(), "");  // its trial writes the label
  const auto candidates = trial_candidates(std::get<kind::KdlgTreePlus>(c[3].kind));
  ASSERT_EQ(candidates.size(), 4u);
  EXPECT_TRUE(candidates[0].is<kind::Aos>() && candidates[1].is<kind::Soa>());
  EXPECT_EQ(candidates[2].label(), c[2].label());  // kdlg-tree exactly: a+b tiled:32 | c soa
  EXPECT_EQ(candidates[3].label(), c[1].label());  // tiled-tree exactly: one cluster of 12 B, aos
  std::vector<std::string> codes;
  for (const auto& k : candidates) codes.push_back(code_of(k));
  EXPECT_EQ(codes, (std::vector<std::string>{"aos", "soa", "partition", "aos"}));
  EXPECT_TRUE(same_code(candidates[3], candidates[0]));  // tiled-tree runs the compiled AoS
  EXPECT_FALSE(same_code(candidates[2], candidates[0]));
  EXPECT_TRUE(same_code(candidates[2], candidates[2]));
  // Run-time partitions are the same code only with the same clusters laid out alike.
  kind::KdlgTree other = std::get<kind::KdlgTree>(candidates[2].kind);
  other.fields.clusters[0].lanes = 16;
  EXPECT_FALSE(same_code(candidates[2], LayoutChoice{other}));
  // It cannot be made as a mapping of its own: its trial makes the candidates.
  EXPECT_THROW(lb::benches::kofler::with_mapping<lb::kofler::SortLayouts>(c[3], 64, [](const auto&) {}),
               std::invalid_argument);
  // Without a tree: planned all the same, unavailable with the tree's message.
  const auto without = method_choices(R"({"layouts": ["kdlg-tree-plus"]})", nullptr);
  ASSERT_EQ(without.size(), 1u);
  EXPECT_EQ(without[0].param(), "partition:a+b|c");
  EXPECT_EQ(without[0].unavailable(), "layout 'kdlg-tree-plus' needs a decision tree: give --tree-option FILE");
}

//! A variant of a trial whose timed runs take the times given, valid unless told; it logs
//! which candidate `made` it.
class Scripted final : public lb::harness::Variant {
 public:
  Scripted(std::vector<double> times, bool valid) : times_(std::move(times)), valid_(valid) {}
  void setup(cudaStream_t) override {}
  void poison(cudaStream_t) override {}
  void run(cudaStream_t) override {}
  lb::harness::Check validate(cudaStream_t) override { return {valid_, valid_ ? "" : "wrong output", false, {}}; }
  lb::harness::Work work() const override { return {}; }
  double footprint_bytes() const override { return 0; }
  double next_time() { return times_.at(next_++); }

 private:
  std::vector<double> times_;
  bool valid_;
  std::size_t next_ = 0;
};

struct TrialScript {
  std::map<std::string, std::vector<double>> times;  //!< by candidate name
  std::set<std::string> invalid;
  std::vector<std::string> made;  //!< the candidates made, in order
};

//! made_by_trial of the worked example's kdlg-tree-plus (the test tree: kdlg-tree on the run-time
//! partition, tiled-tree the compiled AoS) over Scripted variants.
std::unique_ptr<lb::harness::Variant> tried(TrialScript& script) {
  const DecisionTree tree = test_tree();
  const auto c = method_choices(R"({"layouts": ["kdlg-tree-plus"]})", &tree);
  const lb::benches::kofler::MakeVariant make = [&](const LayoutChoice& k) -> std::unique_ptr<lb::harness::Variant> {
    const std::string name(k.name());
    script.made.push_back(name);
    return std::make_unique<Scripted>(script.times[name], !script.invalid.contains(name));
  };
  const lb::harness::TrialTiming timing{
      nullptr, [] {}, [](lb::harness::Variant& v) { return dynamic_cast<Scripted&>(v).next_time(); }};
  return lb::benches::kofler::made_by_trial(std::get<kind::KdlgTreePlus>(c.at(0).kind), make, timing);
}

TEST(ExtendedValue, TheTrialTimesEachCodeOnceAndPicksTheFastestThatBeatsAosBeyondBothExtremes) {
  TrialScript s;
  s.times = {{"aos", {10e-6, 11e-6, 12e-6, 11e-6, 11e-6}},
             {"soa", {9e-6, 9.5e-6, 9.9e-6, 9.5e-6, 9.5e-6}},  // beats AoS: slowest 9.9 < fastest 10
             {"kdlg-tree", {8e-6, 8e-6, 8e-6, 8e-6, 10.5e-6}}};  // a smaller median, but not beyond AoS
  const auto v = tried(s);
  // tiled-tree is the compiled AoS: not made again; then the chosen one, made afresh
  EXPECT_EQ(s.made, (std::vector<std::string>{"aos", "soa", "kdlg-tree", "soa"}));
  EXPECT_EQ(v->made_label,
            "chosen=soa;runs_as=soa;trial_us=aos:11.0[10.0,12.0]|soa:9.5[9.0,9.9]|kdlg-tree:8.0[8.0,10.5]|"
            "tiled-tree:as aos;tree_gpu=Test GPU");
}

TEST(ExtendedValue, AosStaysUnlessBeatenAndAnInvalidCandidateIsOutOfTheTrial) {
  TrialScript s;
  s.times = {{"aos", {10e-6, 10e-6, 10e-6, 10e-6, 10e-6}},
             {"soa", {9e-6, 9e-6, 9e-6, 9e-6, 10e-6}},  // ties AoS's fastest: not beyond it
             {"kdlg-tree", {1e-6, 1e-6, 1e-6, 1e-6, 1e-6}}};
  s.invalid = {"kdlg-tree"};  // fastest, but wrong
  const auto v = tried(s);
  EXPECT_EQ(s.made, (std::vector<std::string>{"aos", "soa", "kdlg-tree", "aos"}));
  EXPECT_EQ(v->made_label,
            "chosen=aos;runs_as=aos;trial_us=aos:10.0[10.0,10.0]|soa:9.0[9.0,10.0]|kdlg-tree:invalid|"
            "tiled-tree:as aos;tree_gpu=Test GPU");
  // AoS wrong: no reference, the benchmark fails with its message
  TrialScript broken = s;
  broken.invalid = {"aos"};
  try {
    tried(broken);
    ADD_FAILURE() << "a trial without a valid AoS chose";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "the trial's reference failed validation: wrong output");
  }
}

//! The PresetError of planning `object` (no error: "no error").
std::string choice_error(const std::string& object, const DecisionTree* tree,
                         const std::function<KdlgPartition()>& partition = {}) {
  try {
    method_choices(object, tree, partition);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

TEST(MethodLayouts, APlanErrorNamesAProgramThatCannotBeRecorded) {
  // A program whose accesses cannot be recorded: the recorder's error, with the layout.
  const std::string e = choice_error(R"({"layouts": ["aos", "kdlg"]})", nullptr, [] {
    return lb::kofler::record_program("no-such-program"), KdlgPartition{};
  });
  EXPECT_EQ(e.rfind("test.json:1: layout 'kdlg' needs the program's recorded accesses: no recorded bodies for program "
                    "'no-such-program'; recordable: ",
                    0),
            0u)
      << e;
  // The benches' method source names the program the same way.
  const auto preset = lb::testing::preset_from(R"({"p": {"layouts": ["kdlg"]}})");
  try {
    const auto m = lb::benches::kofler::method_source("no-such-program", {"a"}, {4}, {});
    lb::benches::kofler::layout_choices(preset, preset.suites["p"], "p", 64, {"a"}, {}, {}, &m);
    ADD_FAILURE() << "an unrecordable program planned";
  } catch (const lb::harness::PresetError& err) {
    EXPECT_NE(std::string(err.what()).find("no recorded bodies for program 'no-such-program'"), std::string::npos)
        << err.what();
  }
}

//! A partition of the fields a..e into clusters of field indices (its merges: none).
KdlgPartition clusters_of(std::vector<std::vector<std::size_t>> clusters) { return {std::move(clusters), {}}; }

TEST(KdlgTiles, EveryCombinationOfTheTilesOverTheClustersOfSeveralFieldsTheOthersSoa) {
  const std::vector<std::string> names{"a", "b", "c", "d", "e"};
  const auto c = kdlg_tile_choices(clusters_of({{0, 1}, {2}, {3, 4}}), names, {1, 2, 4});
  ASSERT_EQ(c.size(), 9u);  // the first cluster's tile varying slowest
  const char* params[] = {"1,1", "1,2", "1,4", "2,1", "2,2", "2,4", "4,1", "4,2", "4,4"};
  for (std::size_t k = 0; k < c.size(); ++k) {
    EXPECT_EQ(c[k].name(), "kdlg-tiles");
    EXPECT_EQ(c[k].param(), std::string("partition:a+b|c|d+e/tiles:") + params[k]);
    EXPECT_EQ(fields_of(c[k]).cluster_of_field, (std::vector<std::size_t>{0, 0, 1, 2, 2}));
    ASSERT_EQ(fields_of(c[k]).clusters.size(), 3u);
    EXPECT_TRUE((fields_of(c[k]).clusters[0] == ClusterLayout{K::tiled, std::size_t{1} << (k / 3)})) << k;
    EXPECT_TRUE((fields_of(c[k]).clusters[1] == ClusterLayout{K::soa, 1})) << k;  // one field: SoA
    EXPECT_TRUE((fields_of(c[k]).clusters[2] == ClusterLayout{K::tiled, std::size_t{1} << (k % 3)})) << k;
    EXPECT_EQ(c[k].label() + c[k].unavailable(), "");  // no tree: nothing chosen, nothing missing
  }
  static_assert(kind::KdlgTiles::code == MappingCode::run_time_partition);  // as kdlg's partitions
  EXPECT_EQ(c[5].params(),
            (std::vector<std::pair<std::string, std::string>>{{"partition", "a+b|c|d+e"}, {"tiles", "2,4"}}));
}

TEST(KdlgTiles, APresetPlansThemAfterTheMethodsValuesFromItsKdlgTilesAndNeedsNoTree) {
  // the worked example: a+b|c, one cluster of several fields
  const auto c = method_choices(R"({"layouts": ["kdlg-tiles", "kdlg"], "kdlg_tiles": [16, 1]})", nullptr);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_TRUE(c[0].is<kind::Kdlg>());
  EXPECT_EQ(c[1].param(), "partition:a+b|c/tiles:16");
  EXPECT_EQ(c[2].param(), "partition:a+b|c/tiles:1");
  EXPECT_TRUE((fields_of(c[1]).clusters[0] == ClusterLayout{K::tiled, 16}) &&
              (fields_of(c[1]).clusters[1] == ClusterLayout{K::soa, 1}));
}

TEST(KdlgTiles, EachMistakeIsOnePresetErrorAtItsLine) {
  EXPECT_EQ(choice_error(R"({"layouts": ["kdlg-tiles"], "kdlg_tiles": [1, 0]})", nullptr),
            "test.json:1: 'kdlg_tiles' must list positive integers; element 2 is 0");
  EXPECT_EQ(choice_error(R"({"layouts": ["kdlg-tiles"], "kdlg_tiles": [4]})", nullptr,
                         [] { return clusters_of({{0}, {1}, {2}}); }),
            "test.json:1: layout 'kdlg-tiles': the KDLG partition a|b|c has no cluster of several fields to tile");
  EXPECT_NE(choice_error(R"({"layouts": ["kdlg-tiles"]})", nullptr).find("kdlg_tiles"), std::string::npos);
  // A program without recorded accesses has no KDLG to sweep.
  const auto preset = lb::testing::preset_from(R"({"p": {"layouts": ["kdlg-tiles"], "kdlg_tiles": [2]}})");
  try {
    lb::benches::kofler::layout_choices(preset, preset.suites["p"], "p", 64, {"a"}, {}, {});
    ADD_FAILURE() << "kdlg-tiles planned without the program's recorded accesses";
  } catch (const lb::harness::PresetError& err) {
    EXPECT_NE(std::string(err.what()).find("layout 'kdlg-tiles' needs recorded accesses, which this program has not"),
              std::string::npos)
        << err.what();
  }
}

}  // namespace

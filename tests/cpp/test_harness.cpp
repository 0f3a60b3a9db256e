// Harness: presets (named, malformed, unknown keys with file:line), the suite registry, the IDW
// plan (names, counts, overrides, bad names), and the journal's Google Benchmark run format.

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <tuple>

#include "lb/harness/journal.hpp"
#include "lb/harness/memory_fit.hpp"
#include "lb/harness/preset.hpp"
#include "lb/harness/suite.hpp"
#include "planned_runs.hpp"
#include "preset_testing.hpp"
#include "scoped_env.hpp"
#include "temp_files.hpp"

namespace {

using namespace lb::harness;
namespace fs = std::filesystem;

//! A file in this process's own temporary folder: ctest runs every test as its own process,
//! in parallel, and a shared path let one test read another's preset.
std::string write_temp(const std::string& name, const std::string& text) {
  const auto dir = fs::temp_directory_path() / ("lb_harness_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto p = dir / name;
  std::ofstream(p) << text;
  return p.string();
}

//! The PresetError of loading `text` and planning `suite` from it ("" if none).
std::string preset_error(const std::string& text, const std::string& suite = "idw", const Overrides& overrides = {}) {
  try {
    const Preset p = load_preset(write_temp("lb_preset_test.json", text));
    find_suite(suite).plan(p, overrides);
  } catch (const PresetError& e) {
    return e.what();
  }
  return "";
}

TEST(Preset, NamedPresetsLoad) {
  const Preset quick = load_preset("quick");
  EXPECT_EQ(quick.name, "quick");
  EXPECT_TRUE(quick.suites.contains("idw"));
  const Preset paper = load_preset("paper");
  EXPECT_EQ(paper.suites["idw"]["sizes"].back(), 1024000);
}

TEST(Preset, NamedPresetsAreThePresetFolderSortedWithDescriptions) {
  if (std::getenv("LB_PRESET_DIR")) GTEST_SKIP() << "LB_PRESET_DIR moves the named presets";
  const auto names = preset_names();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  for (const char* shipped : {"quick", "paper", "paper-full", "compare"})
    EXPECT_NE(std::find(names.begin(), names.end(), shipped), names.end()) << shipped;
  EXPECT_FALSE(load_preset("quick").description.empty());
}

TEST(Preset, NonStringDescriptionIsAnErrorAtItsLine) {
  EXPECT_NE(preset_error("{\n\"description\": 3,\n\"suites\": {\"idw\": {}}}").find(
                ":2: 'description' must be a string"),
            std::string::npos);
}

TEST(Preset, ExtendsMergesObjectsKeyByKeyAndEverythingElseReplaces) {
  const auto merged = merge_preset(nlohmann::json::parse(R"({"a": {"x": 1, "y": [1, 2]}, "b": {"z": 1}, "c": 1})"),
                                   nlohmann::json::parse(R"({"a": {"y": [3], "w": null}, "b": [1], "c": {"k": 2}})"));
  EXPECT_EQ(merged, nlohmann::json::parse(R"({"a": {"x": 1, "y": [3], "w": null}, "b": [1], "c": {"k": 2}})"));
}

TEST(Preset, CompareIsPaperWithNineRepetitionsAndStatesNothingElse) {
  if (std::getenv("LB_PRESET_DIR")) GTEST_SKIP() << "LB_PRESET_DIR moves the named presets";
  const Preset compare = load_preset("compare"), paper = load_preset("paper");
  ASSERT_EQ(compare.extended.size(), 1u);
  EXPECT_EQ(compare.extended[0].path, paper.path);
  EXPECT_EQ(compare.text.find("\"suites\""), std::string::npos);  // not a copy of paper's
  EXPECT_EQ(compare.suites, paper.suites);
  EXPECT_EQ(compare.repetitions, 9);
  EXPECT_EQ(std::tuple(compare.min_time_s, compare.spread_flag_pct, compare.noise_target_pct, compare.noise_cap_s),
            std::tuple(paper.min_time_s, paper.spread_flag_pct, paper.noise_target_pct, paper.noise_cap_s));
  EXPECT_NE(compare.description, paper.description);
}

//! A preset folder of the test's own (LB_PRESET_DIR), holding the files it writes.
class PresetExtends : public TempFilesTest {
 protected:
  ScopedEnv preset_dir_{"LB_PRESET_DIR", dir_.c_str()};
  std::string path(const std::string& name) const { return (dir_ / (name + ".json")).string(); }
  //! The PresetError of loading `name` and planning the idw suite from it ("" if none).
  static std::string error_of(const std::string& name) {
    try {
      find_suite("idw").plan(load_preset(name), {});
    } catch (const PresetError& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(PresetExtends, AChainMergesFromTheFarthestUpAndAFileElsewhereMayExtendANamedOne) {
  write("base.json", R"({"description": "base", "repetitions": 3, "min_time_s": 0.5, "suites": {
    "idw": {"sizes": [1024, 2048], "versions": ["naive"], "precisions": ["float"], "powers": [2]},
    "kriging": {"scales": [1]}}})");
  write("mid.json", R"({"extends": "base", "repetitions": 5, "suites": {"idw": {"sizes": [4096]}}})");
  const std::string top = (dir_.parent_path() / (dir_.filename().string() + "_top.json")).string();
  std::ofstream(top) << R"({"extends": "mid", "description": "top", "suites": {"idw": {"powers": [3]}}})";
  const Preset p = load_preset(top);
  std::filesystem::remove(top);
  EXPECT_EQ(p.path, top);
  EXPECT_EQ(p.description, "top");
  EXPECT_EQ(p.repetitions, 5);
  EXPECT_EQ(p.min_time_s, 0.5);
  EXPECT_EQ(p.suites, nlohmann::json::parse(R"({"kriging": {"scales": [1]},
    "idw": {"sizes": [4096], "versions": ["naive"], "precisions": ["float"], "powers": [3]}})"));
  ASSERT_EQ(p.extended.size(), 2u);
  EXPECT_EQ(p.extended[0].path, path("mid"));
  EXPECT_EQ(p.extended[1].path, path("base"));
}

TEST_F(PresetExtends, ACircleIsOneErrorNamingItsFiles) {
  write("a.json", "{\"suites\": {\"idw\": {}},\n\"extends\": \"b\"}");
  write("b.json", "{\"suites\": {\"idw\": {}},\n\n\"extends\": \"a\"}");
  EXPECT_EQ(error_of("a"), fmt::format("{1}:3: 'extends' goes round in a circle: {0} extends {1} extends {0}", path("a"),
                                       path("b")));
  write("self.json", "{\"extends\": \"self\", \"suites\": {\"idw\": {}}}");
  EXPECT_EQ(error_of("self"), fmt::format("{0}:1: 'extends' goes round in a circle: {0} extends {0}", path("self")));
}

TEST_F(PresetExtends, AMissingParentIsOneErrorNamingBothFiles) {
  write("x.json", "{\"suites\": {\"idw\": {}},\n\"extends\": \"nope\"}");
  EXPECT_EQ(error_of("x"), fmt::format("{}:2: 'extends' names preset 'nope', but there is no {}/nope.json (the preset "
                                       "folder {} holds x)",
                                       path("x"), dir_.string(), dir_.string()));
}

TEST_F(PresetExtends, ExtendsIsTheNameOfANamedPresetAsAStringNeverAPath) {
  write("quick.json", "{\"suites\": {\"idw\": {}}}");
  for (const char* bad : {"\"../quick\"", "\"/etc/passwd\"", "\"quick.json\"", "\"sub\\\\quick\"",
                          "\"../../harness/presets/quick\""}) {
    write("child.json", std::string("{\"suites\": {\"idw\": {}},\n\"extends\": ") + bad + "}");
    const auto msg = error_of("child");
    EXPECT_NE(msg.find(path("child") + ":2: 'extends' names a preset of the preset folder, not a path; got " + bad),
              std::string::npos)
        << bad << " -> " << msg;
  }
  for (const char* bad : {"3", "[\"quick\"]", "null", "{\"name\": \"quick\"}"}) {
    write("child.json", std::string("{\"suites\": {\"idw\": {}},\n\"extends\": ") + bad + "}");
    const auto msg = error_of("child");
    EXPECT_NE(msg.find(path("child") + ":2: 'extends' must name a preset as a string"), std::string::npos)
        << bad << " -> " << msg;
  }
}

TEST_F(PresetExtends, EachFilesKeysAreCheckedAndErrorsPointIntoTheFileAKeyCameFrom) {
  write("base.json", "{\"suites\": {\"idw\": {\"versions\": [\"naive\"], \"precisions\": [\"float\"],\n"
                     "\"sizes\": [-1], \"powers\": [2]}},\n\"repetition\": 3}");
  write("child.json", "{\"extends\": \"base\",\n\"repetitions\": 2}");
  EXPECT_EQ(error_of("child").find(path("base") + ":3: unknown key 'repetition' in preset (expected: extends, "), 0u)
      << error_of("child");
  write("base.json", "{\"suites\": {\"idw\": {\"versions\": [\"naive\"], \"precisions\": [\"float\"],\n"
                     "\"sizes\": [-1], \"powers\": [2]}}}");
  EXPECT_EQ(error_of("child").find(path("base") + ":2: 'sizes' must list positive integers"), 0u) << error_of("child");
  write("child.json", "{\"extends\": \"base\",\n\"suites\": {\"idw\":\n{\"sizes\": [0]}}}");
  EXPECT_EQ(error_of("child").find(path("child") + ":3: 'sizes' must list positive integers"), 0u) << error_of("child");
  write("child.json", "{\"extends\": \"base\",\n\"suites\": {\"idw\":\n{\"sizes\": [1024]}}}");
  EXPECT_EQ(error_of("child"), "");
}

TEST(SuiteRegistry, ListsSuitesInRunOrderWithTheKrigingModelStepAndEveryPreset) {
  const auto registry = registry_json();
  ASSERT_EQ(registry["suites"].size(), suites().size());
  for (std::size_t k = 0; k < suites().size(); ++k) EXPECT_EQ(registry["suites"][k]["name"], suites()[k].name);
  const auto& kriging = registry["suites"][1];
  ASSERT_EQ(kriging["name"], "kriging");
  ASSERT_EQ(kriging["steps"].size(), 1u);
  EXPECT_EQ(kriging["steps"][0]["preset_key"], "model");
  EXPECT_EQ(kriging["steps"][0]["command"], "krige");
  ASSERT_EQ(registry["presets"].size(), preset_names().size());
  for (const auto& p : registry["presets"])
    EXPECT_EQ(p["description"], load_preset(p["name"].get<std::string>()).description);
}

TEST(SuiteRegistry, EveryInputComesFromAPythonStepOfAnEarlierSuite) {
  // harness/run.py runs a suite's Python step right after it, so an input's file exists before
  // the suite that takes it runs; read_registry refuses any other registry.
  std::size_t inputs = 0;
  for (auto s = suites().begin(); s != suites().end(); ++s)
    for (const auto& input : s->inputs) {
      ++inputs;
      EXPECT_TRUE(input.read) << input.name;
      if (input.from.suite.empty()) continue;
      const auto producer = std::find_if(suites().begin(), s, [&](const Suite& p) { return p.name == input.from.suite; });
      ASSERT_NE(producer, s) << input.name << ": " << input.from.suite << " is not a suite before " << s->name;
      const auto step = std::find_if(producer->steps.begin(), producer->steps.end(),
                                     [&](const ArtifactStep& a) { return a.name == input.from.step; });
      ASSERT_NE(step, producer->steps.end()) << input.name;
      EXPECT_EQ(step->runner, "python") << input.name;
      EXPECT_NE(std::find(step->outputs.begin(), step->outputs.end(), input.from.output), step->outputs.end())
          << input.name;
    }
  EXPECT_GT(inputs, 0u);
  for (const auto& s : suites())
    for (const auto& step : s.steps)
      if (!step.committed.folder.empty()) {
        EXPECT_EQ(step.runner, "python") << step.name;
        EXPECT_EQ(step.outputs.size(), 1u) << step.name;
        EXPECT_FALSE(step.committed.format.empty()) << step.name;
        EXPECT_TRUE(step.committed.reuse.empty() ||
                    std::any_of(step.parameters.begin(), step.parameters.end(),
                                [&](const StepParameter& p) { return p.key == step.committed.reuse; }))
            << step.name;
      }
}

TEST(Preset, RecordedPathIsRelativeToTheSourceTree) {
  // Results record the preset file; committed ones must not name a maintainer's checkout.
  if (std::getenv("LB_PRESET_DIR")) GTEST_SKIP() << "LB_PRESET_DIR moves the named presets";
  EXPECT_EQ(repo_relative(load_preset("quick").path), "harness/presets/quick.json");
  EXPECT_EQ(repo_relative(preset_dir() + "/../presets/paper.json"), "harness/presets/paper.json");
  const std::string outside = std::filesystem::temp_directory_path() / "my-preset.json";
  EXPECT_EQ(repo_relative(outside), outside);
}

TEST(Preset, UnknownNameListsTheKnownOnes) {
  try {
    load_preset("fast");
    FAIL();
  } catch (const PresetError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("unknown preset 'fast'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("quick"), std::string::npos) << msg;
  }
}

TEST(Preset, MalformedJsonGivesFileAndLine) {
  const auto msg = preset_error("{\n  \"repetitions\": 3,\n  \"suites\": {\n    \"idw\": [1,\n  }\n}\n");
  EXPECT_NE(msg.find("lb_preset_test.json:5:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("malformed JSON"), std::string::npos) << msg;
}

TEST(Preset, UnknownKeyGivesItsLine) {
  const auto msg = preset_error(
      "{\n  \"suites\": {\n    \"idw\": {\n      \"sizes\": [1024],\n      \"sizez\": [1],\n"
      "      \"versions\": [\"naive\"], \"precisions\": [\"float\"], \"powers\": [2]\n    }\n  }\n}\n");
  EXPECT_NE(msg.find("lb_preset_test.json:5: unknown key 'sizez'"), std::string::npos) << msg;
}

TEST(Preset, BadNamesInsideTheSuite) {
  const std::string head = "{\"suites\": {\"idw\": {\"sizes\": [1024], \"powers\": [2], ";
  EXPECT_NE(preset_error(head + "\"versions\": [\"naive\"], \"precisions\": [\"half\"]}}}").find("unknown precision 'half'"),
            std::string::npos);
  EXPECT_NE(preset_error(head + "\"versions\": [\"cdp\"], \"precisions\": [\"float\"]}}}").find("unknown IDW version 'cdp'"),
            std::string::npos);
  EXPECT_NE(preset_error(head + "\"versions\": [\"naive\"], \"precisions\": [\"float\"], \"layouts\": [\"aosoa\"]}}}")
                .find("unknown layout 'aosoa' (expected one of: soa, aos, aoas, builtin, soaos, hybrid, aosoa32, "
                      "xy-aosoa32)"),
            std::string::npos);
  EXPECT_NE(preset_error(head + "\"versions\": [\"naive\"], \"precisions\": [\"float\"], \"block\": 100}}}").find("multiple of 32"),
            std::string::npos);
  EXPECT_NE(preset_error(head + "\"versions\": [\"naive\"], \"precisions\": [\"float\"], "
                                "\"version_overrides\": {\"cdp\": {\"sizes\": [1]}}}}}")
                .find("unknown key 'cdp' in version_overrides"),
            std::string::npos);
}

TEST(Plan, QuickCoversTheWholeMatrixWithUniqueWellFormedNames) {
  const auto plan = find_suite("idw").plan(load_preset("quick"), {});
  // per size: float 4 layouts + double 6, x 2 powers = 20 per version: naive, tiled and
  // cdp-improved; cdp-original only at 10K; roofline on aoas only (2 precisions x 2 powers);
  // CPU 2 x 2 x 2 = 8; the method's layouts (layout_overrides): aosoa32 naive float and
  // xy-aosoa32 tiled in both, x 2 powers = 6.
  EXPECT_EQ(plan.size(), (3 * 20 + 20 + 4 + 8 + 6) + (3 * 20 + 4 + 8 + 6));
  std::set<std::string> names;
  const std::regex gpu(R"(idw/shepard/(naive|tiled|cdp-original|cdp-improved|roofline)/(soa|aos|aoas|builtin|soaos|hybrid|aosoa32|xy-aosoa32)/(float|double)/p:[23]/size:\d+/block:256)");
  const std::regex cpu(R"(idw/shepard/cpu-(serial|omp)/aos/(float|double)/p:[23]/size:\d+)");
  for (const auto& b : plan) {
    EXPECT_TRUE(std::regex_match(b.name, gpu) || std::regex_match(b.name, cpu)) << b.name;
    EXPECT_TRUE(names.insert(b.name).second) << "duplicate " << b.name;
  }
  EXPECT_TRUE(names.count("idw/shepard/tiled/hybrid/double/p:3/size:51200/block:256"));
  EXPECT_FALSE(names.count("idw/shepard/tiled/hybrid/float/p:3/size:51200/block:256"));
  EXPECT_TRUE(names.count("idw/shepard/cdp-original/aos/float/p:3/size:10240/block:256"));
  EXPECT_FALSE(names.count("idw/shepard/cdp-original/aos/float/p:3/size:51200/block:256"));
  EXPECT_FALSE(names.count("idw/shepard/roofline/soa/float/p:2/size:51200/block:256"));
  EXPECT_TRUE(names.count("idw/shepard/naive/aosoa32/float/p:3/size:51200/block:256"));
  EXPECT_FALSE(names.count("idw/shepard/naive/aosoa32/double/p:2/size:51200/block:256"));
  EXPECT_FALSE(names.count("idw/shepard/tiled/aosoa32/float/p:2/size:51200/block:256"));
  EXPECT_TRUE(names.count("idw/shepard/tiled/xy-aosoa32/double/p:2/size:10240/block:256"));
  EXPECT_FALSE(names.count("idw/shepard/cdp-improved/xy-aosoa32/double/p:2/size:10240/block:256"));
}

TEST(Preset, LayoutOverridesNarrowALayoutToItsVersionsAndPrecisions) {
  const std::string head =
      "{\"suites\": {\"idw\": {\"sizes\": [1024], \"versions\": [\"naive\", \"tiled\"], \"powers\": [2],\n"
      "\"precisions\": [\"float\", \"double\"], \"cpu_baselines\": false,\n\"layout_overrides\": ";
  std::set<std::string> names;
  for (const auto& b : find_suite("idw").plan(
           load_preset(write_temp("lb_preset_test.json",
                                  head + "{\"aosoa32\": {\"versions\": [\"naive\"], \"precisions\": [\"float\"]}}}}}")),
           {}))
    if (b.name.find("aosoa32") != std::string::npos) names.insert(b.name);
  // aosoa32 where its scope says; xy-aosoa32 (no scope) in both versions and precisions
  EXPECT_EQ(names, (std::set<std::string>{"idw/shepard/naive/aosoa32/float/p:2/size:1024/block:256",
                                          "idw/shepard/naive/xy-aosoa32/float/p:2/size:1024/block:256",
                                          "idw/shepard/naive/xy-aosoa32/double/p:2/size:1024/block:256",
                                          "idw/shepard/tiled/xy-aosoa32/float/p:2/size:1024/block:256",
                                          "idw/shepard/tiled/xy-aosoa32/double/p:2/size:1024/block:256"}));
  auto msg = preset_error(head + "{\n\"aosoa\": {\"versions\": [\"naive\"]}}}}}");
  EXPECT_NE(msg.find("lb_preset_test.json:4: unknown layout 'aosoa'"), std::string::npos) << msg;
  msg = preset_error(head + "{\"aosoa32\": {\n\"versions\": [\"cpu-serial\"]}}}}}");
  EXPECT_NE(msg.find("lb_preset_test.json:4: unknown IDW version 'cpu-serial'"), std::string::npos) << msg;
  msg = preset_error(head + "{\"aosoa32\": {\n\"precisions\": [\"half\"]}}}}}");
  EXPECT_NE(msg.find("lb_preset_test.json:4: unknown precision 'half'"), std::string::npos) << msg;
  msg = preset_error(head + "{\"aosoa32\": {\n\"sizes\": [1024]}}}}}");
  EXPECT_NE(msg.find("unknown key 'sizes' in aosoa32 (expected: versions, precisions)"), std::string::npos) << msg;
  msg = preset_error(head + "[\"aosoa32\"]}}}");
  EXPECT_NE(msg.find("'layout_overrides' maps a layout to its scope"), std::string::npos) << msg;
}

TEST(Plan, OverridesReplaceSizesAndPrecisions) {
  const auto plan = find_suite("idw").plan(load_preset("quick"), Overrides{{1000}, {"double"}});
  // naive, cdp-improved: 6 layouts x 2 powers each; tiled: those and xy-aosoa32 (the
  // method's, layout_overrides); roofline: aoas x 2; CPU: 4.
  EXPECT_EQ(plan.size(), 3 * 12u + 2u + 2u + 4u);
  for (const auto& b : plan) {
    EXPECT_NE(b.name.find("/double/"), std::string::npos) << b.name;
    EXPECT_NE(b.name.find("size:1000"), std::string::npos) << b.name;
  }
  // A precision no program of the suite has: the command line's error.
  EXPECT_THROW(find_suite("idw").plan(load_preset("quick"), Overrides{{}, {"fp16"}}), std::invalid_argument);
}

TEST(Plan, KrigingQuickHasEveryExperimentAndTheWellSweep) {
  const auto plan = find_suite("kriging").plan(load_preset("quick"), {});
  // per scale (1, 2): 4 CPU programs + cpu-exp8 x 2 + exps 1-6 + exps 7 and 8 in two
  // precisions = 16; the sweep at scale 1 adds 100 and 1000 wells for exp 6, exp 7 x 2 and
  // exp 8 x 2 (10 wells are already planned); exp4_layouts adds exp 4 as aosoa32 per scale.
  EXPECT_EQ(plan.size(), 2 * 17u + 2 * 5u);
  std::set<std::string> names;
  const std::regex gpu(R"(kriging/ok/gpu-exp[1-8]/(soa|aos-const|dense|aosoa32)/(float|double)/scale:\d+/wells:\d+)");
  const std::regex cpu(R"(kriging/ok/cpu-exp([124]/soa|8/dense)/(float|double)/scale:\d+/wells:10)");
  for (const auto& b : plan) {
    EXPECT_TRUE(std::regex_match(b.name, gpu) || std::regex_match(b.name, cpu)) << b.name;
    EXPECT_TRUE(names.insert(b.name).second) << "duplicate " << b.name;
  }
  EXPECT_TRUE(names.count("kriging/ok/gpu-exp6/aos-const/float/scale:2/wells:10"));
  EXPECT_TRUE(names.count("kriging/ok/gpu-exp7/dense/double/scale:1/wells:1000"));
  EXPECT_TRUE(names.count("kriging/ok/gpu-exp8/dense/float/scale:1/wells:1000"));
  EXPECT_TRUE(names.count("kriging/ok/cpu-exp8/dense/double/scale:2/wells:10"));
  EXPECT_FALSE(names.count("kriging/ok/gpu-exp6/aos-const/double/scale:1/wells:10"));  // exp 6 is float
  EXPECT_TRUE(names.count("kriging/ok/gpu-exp4/aosoa32/double/scale:2/wells:10"));
  // --sizes overrides the scales, --precision filters.
  const auto narrow = find_suite("kriging").plan(load_preset("quick"), Overrides{{4}, {"float"}});
  for (const auto& b : narrow) EXPECT_NE(b.name.find("/float/"), std::string::npos) << b.name;
  EXPECT_EQ(std::count_if(narrow.begin(), narrow.end(),
                          [](const auto& b) { return b.name.find("scale:4/") != std::string::npos; }),
            5);  // cpu-exp4 and cpu-exp8 float, gpu-exp6, gpu-exp7 and gpu-exp8 float
}

TEST(ProgramKriging, CpuProgramsAreValidatedSampledAndCountedAsPlanned) {
  // The planned CPU programs at scale 1 (49,500 estimates), sampled above 1000 estimates, run
  // as `layoutbench run` runs them (no GPU needed).
  const auto plan = find_suite("kriging").plan(
      load_preset(write_temp("lb_kriging_cpu.json",
                             R"({"suites": {"kriging": {"scales": [1], "experiments": [6], "cpu_sample_estimates": 1000}}})")),
      {});
  const auto runs = lb::testing::run_planned(
      plan, [](const std::string& name) { return name.find("/cpu-exp") != std::string::npos; }, 1);
  ASSERT_EQ(runs.size(), 6u);
  for (const auto& run : runs) {
    const std::string name = run.benchmark_name();
    ASSERT_FALSE(run_failed(run)) << name << ": " << run_failure_message(run);
    EXPECT_EQ(run.counters.at("estimates").value, 49500) << name;
    EXPECT_GT(run.counters.at("estimates_per_s").value, 0) << name;
    EXPECT_EQ(run.counters.at("sampled").value, 1) << name;
    EXPECT_EQ(run.counters.at("sample_points").value, 100) << name;  // 50 x every 50th of 90 rows
    EXPECT_GT(run.counters.at("checked").value, 0) << name;
    EXPECT_LE(run.counters.at("max_abs_err").value, run.counters.at("tolerance").value) << name;
    EXPECT_TRUE(run.counters.count("unvalidated")) << name;
    EXPECT_FALSE(run.counters.count("bound_s")) << name << ": a GPU bound on a CPU time";
  }
}

TEST(Preset, KrigingSuiteErrorsNameTheKeyAndLine) {
  auto error = [](const std::string& text) {
    try {
      find_suite("kriging").plan(load_preset(write_temp("lb_kriging_preset.json", text)), {});
    } catch (const PresetError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error("{\"suites\": {\"kriging\": {\"scales\": [1],\n \"experiments\": [9]}}}").find(":2: no experiment 9"),
            std::string::npos);
  EXPECT_NE(error("{\"suites\": {\"kriging\": {\"scales\": [0], \"experiments\": [1]}}}").find("scale 0"),
            std::string::npos);
  EXPECT_NE(error("{\"suites\": {\"kriging\": {\"scales\": [1], \"experiments\": [1], \"wells\": 5}}}")
                .find("unknown key 'wells'"),
            std::string::npos);
  EXPECT_NE(error("{\"suites\": {\"kriging\": {\"experiments\": [1]}}}").find("'kriging' needs 'scales'"),
            std::string::npos);
  EXPECT_NE(error("{\"suites\": {\"kriging\": {\"scales\": [1], \"experiments\": [4],\n\"exp4_layouts\": [\"aos\"]}}}")
                .find(":2: unknown well layout 'aos' (expected one of: soa, aosoa32)"),
            std::string::npos);
  EXPECT_NE(error("{\"suites\": {\"kriging\": {\"scales\": [1], \"experiments\": [7], "
                  "\"exp7_precisions\": [\"half\"]}}}")
                .find("unknown precision 'half'"),
            std::string::npos);
  EXPECT_NE(error("{\"suites\": {\"kriging\": {\"scales\": [1], \"experiments\": [6], "
                  "\"well_sweep\": {\"wells\": [1], \"scales\": [1], \"experiments\": [6]}}}}")
                .find("1 wells is not in 2..4096"),
            std::string::npos);
}

TEST(Journal, AppendsOneJsonObjectPerLine) {
  const auto path = (fs::temp_directory_path() / "lb_journal_test.jsonl").string();
  fs::remove(path);
  {
    Journal j(path);
    j.write({{"type", "start"}, {"name", "a"}});
    j.write({{"type", "done"}, {"name", "a"}, {"ok", true}});
  }
  std::ifstream in(path);
  std::string l1, l2, l3;
  std::getline(in, l1);
  std::getline(in, l2);
  EXPECT_FALSE(std::getline(in, l3));
  EXPECT_EQ(nlohmann::json::parse(l1)["type"], "start");
  EXPECT_EQ(nlohmann::json::parse(l2)["ok"], true);
}

TEST(Journal, RunEntryHasGoogleBenchmarkKeys) {
  benchmark::BenchmarkReporter::Run run;
  run.run_name.function_name = "idw/shepard/naive/aos/float/p:2/size:10";
  run.run_name.time_type = "manual_time";
  run.run_type = benchmark::BenchmarkReporter::Run::RT_Iteration;
  run.iterations = 4;
  run.real_accumulated_time = 0.008;
  run.cpu_accumulated_time = 0.004;
  run.time_unit = benchmark::kMillisecond;
  run.repetitions = 3;
  run.repetition_index = 1;
  run.threads = 1;
  run.counters["interactions"] = benchmark::Counter(100);
  const auto j = run_to_json(run);
  EXPECT_EQ(j["name"], "idw/shepard/naive/aos/float/p:2/size:10/manual_time");
  EXPECT_EQ(j["run_type"], "iteration");
  EXPECT_DOUBLE_EQ(j["real_time"].get<double>(), 2.0);  // 8 ms over 4 iterations
  EXPECT_EQ(j["time_unit"], "ms");
  EXPECT_EQ(j["interactions"], 100);
  EXPECT_FALSE(j.contains("error_occurred"));
}

TEST(MemoryFit, RefusesWhatCannotFitOnTheHostAndSaysHowMuch) {
  const double available = double(host_available_bytes());
  EXPECT_GT(available, 0.0);
  EXPECT_EQ(memory_shortfall({.host_bytes = 1024}), "");
  const std::string why = memory_shortfall({.host_bytes = 4 * available + double(1ull << 40)});
  EXPECT_NE(why.find("needs"), std::string::npos) << why;
  EXPECT_NE(why.find("GiB of host memory"), std::string::npos) << why;
  EXPECT_NE(why.find("GiB available"), std::string::npos) << why;
  EXPECT_THROW(require_memory({.host_bytes = 1e30}, "test"), MemoryShortfall);
}

TEST(Preset, SizesAreWholePositiveNumbers) {
  for (const char* sizes : {"[-1024]", "[1024.5]", "[0]", "[\"1024\"]"}) {
    const auto msg = preset_error(std::string("{\"suites\": {\"idw\": {\n\"sizes\": ") + sizes +
                                  ", \"versions\": [\"naive\"], \"precisions\": [\"float\"], \"powers\": [2]}}}");
    EXPECT_NE(msg.find("lb_preset_test.json:2: 'sizes' must list positive integers"), std::string::npos) << msg;
  }
  // A version override's list is named at its own line, not at the suite's key of that name.
  const auto msg = preset_error(
      "{\"suites\": {\"idw\": {\"sizes\": [1024], \"versions\": [\"naive\"], \"precisions\": [\"float\"],\n"
      "\"powers\": [2], \"version_overrides\": {\n\"naive\": {\"sizes\": [-1]}}}}}");
  EXPECT_NE(msg.find("lb_preset_test.json:3: 'sizes' must list positive integers"), std::string::npos) << msg;
}

TEST(Preset, RepeatedListEntriesAreRefusedAtTheirLine) {
  // A repeat would plan the same benchmark name twice.
  const auto idw = preset_error("{\"suites\": {\"idw\": {\n\"sizes\": [1000, 1000], \"versions\": [\"naive\"], "
                                "\"precisions\": [\"float\"], \"powers\": [2]}}}");
  EXPECT_NE(idw.find("lb_preset_test.json:2: 'sizes' lists 1000 twice (elements 1 and 2)"), std::string::npos) << idw;
  const auto kofler = preset_error("{\"suites\": {\"kofler\": {\"nbody\": {\"sizes\": [1024], \"steps\": 1,\n"
                                   "\"layouts\": [\"aos\", \"soa\", \"aos\"]}}}}",
                                   "kofler");
  EXPECT_NE(kofler.find("lb_preset_test.json:2: 'layouts' lists \"aos\" twice (elements 1 and 3)"), std::string::npos)
      << kofler;
  const auto inner = preset_error("{\"suites\": {\"inner\": {\"synthetic\": {\"objects\": 1024, \"layouts\": [\"aos\"],"
                                  "\n\"inline_sizes\": [0, 32, 0], \"strategies\": [\"none\"]}}}}",
                                  "inner");
  EXPECT_NE(inner.find("lb_preset_test.json:2: 'inline_sizes' lists 0 twice (elements 1 and 3)"), std::string::npos)
      << inner;
}

TEST(Preset, NoiseKeysAreCheckedAtTheirLine) {
  const std::string idw = "\"suites\": {\"idw\": {\"sizes\": [1024], \"versions\": [\"naive\"], \"precisions\": [\"float\"], \"powers\": [2]}}";
  auto msg = preset_error("{\n\"noise_target_pct\": 101,\n" + idw + "}");
  EXPECT_NE(msg.find("lb_preset_test.json:2: 'noise_target_pct' must be a number from 0 to 100; got 101"), std::string::npos)
      << msg;
  msg = preset_error("{\"repetitions\": 3,\n\"noise_cap_s\": -1,\n" + idw + "}");
  EXPECT_NE(msg.find("lb_preset_test.json:2: 'noise_cap_s' must be a number >= 0; got -1"), std::string::npos) << msg;
  msg = preset_error("{\"noise_target_pct\": \"1%\",\n" + idw + "}");
  EXPECT_NE(msg.find("lb_preset_test.json:1: 'noise_target_pct' must be a number from 0 to 100; got \"1%\""),
            std::string::npos)
      << msg;
  const Preset p = load_preset(write_temp("lb_noise_preset.json", "{\"noise_target_pct\": 0.5, \"noise_cap_s\": 4, " + idw + "}"));
  EXPECT_EQ(p.noise_target_pct, 0.5);
  EXPECT_EQ(p.noise_cap_s, 4);
  for (const char* named : {"quick", "paper", "paper-full", "compare"}) {  // each states them, or one it extends
    const Preset preset = load_preset(named);
    EXPECT_TRUE(preset.mentions("\"noise_target_pct\"")) << named;
    EXPECT_TRUE(preset.mentions("\"noise_cap_s\"")) << named;
  }
}

TEST(Preset, ARepeatedKeyIsRefusedNamingBothLines) {
  const std::string idw = "\"idw\": {\"sizes\": [1024], \"versions\": [\"naive\"], \"precisions\": [\"float\"], \"powers\": [2]}";
  // JSON parsers keep one of the two values without a word: the preset refuses.
  auto msg = preset_error("{\"repetitions\": 3,\n\"suites\": {" + idw + "},\n\"repetitions\": 5}");
  EXPECT_NE(msg.find("lb_preset_test.json:3: key 'repetitions' appears twice in one object (first at line 1)"),
            std::string::npos)
      << msg;
  // Nested, after a string holding an escaped quote and the key's name.
  msg = preset_error("{\"description\": \"say \\\"sizes\\\": no\",\n\"suites\": {\"idw\": {\"sizes\": [1024],\n"
                     "\"versions\": [\"naive\"], \"precisions\": [\"float\"], \"powers\": [2],\n\"sizes\": [2048]}}}");
  EXPECT_NE(msg.find("lb_preset_test.json:4: key 'sizes' appears twice in one object (first at line 2)"),
            std::string::npos)
      << msg;
  // The same key in different objects is no repeat.
  EXPECT_EQ(preset_error("{\"suites\": {" + idw + "}, \"description\": \"sizes\"}"), "");
}

TEST(Preset, RepetitionsAreAWholeNumberFrom1To1000) {
  const std::string suites = "\"suites\": {\"idw\": {\"sizes\": [1024], \"versions\": [\"naive\"], "
                             "\"precisions\": [\"float\"], \"powers\": [2]}}";
  for (const char* bad : {"2.5", "1e12", "1000000000000", "0", "-1", "1001", "\"3\"", "18446744073709551615"}) {
    const auto msg = preset_error(std::string("{") + suites + ",\n\"repetitions\": " + bad + "}");
    EXPECT_NE(msg.find("lb_preset_test.json:2: 'repetitions' must be an integer from 1 to 1000; got "), std::string::npos)
        << bad << " -> " << msg;
  }
  for (int good : {1, 1000})
    EXPECT_EQ(load_preset(write_temp("ok.json", "{" + suites + ", \"repetitions\": " + std::to_string(good) + "}"))
                  .repetitions,
              good);
}

TEST(Plan, AKoflerOrInnerSectionThatPlansNothingIsAnError) {
  for (const std::string suite : {"kofler", "inner"}) {
    const auto msg = preset_error(fmt::format("{{\"suites\": {{\n\"{}\": {{}}}}}}", suite), suite);
    EXPECT_NE(msg.find(fmt::format("lb_preset_test.json:2: suite {0} plans no benchmark: '{0}' names no program", suite)),
              std::string::npos)
        << msg;
  }
  // nbody runs on version gpu, bitonic's cub-radix on SoA only: at these values nothing is left.
  const auto msg = preset_error(
      "{\"suites\": {\n\"kofler\": {\"nbody\": {\"sizes\": [1024], \"steps\": 1, "
      "\"layouts\": [\"aos\"]}, \"bitonic\": {\"sizes\": [1024], \"versions\": [\"bitonic\", "
      "\"cub-radix\"], \"layouts\": [\"aos\"]}}}}",
      "kofler", Overrides{.sizes = {}, .precisions = {}, .axes = {{"version", {"cub-radix"}}, {"layout", {"aos"}}}});
  EXPECT_NE(
      msg.find("lb_preset_test.json:2: suite kofler plans no benchmark: its programs (nbody, bitonic) plan none at "
               "--axis version=cub-radix --axis layout=aos"),
      std::string::npos)
      << msg;
}

TEST(Plan, APrecisionNoProgramOfTheSuiteHasIsOneErrorNamingThoseTheyHave) {
  // nbody is a float program: --precision double is one no program of this section has.
  try {
    find_suite("kofler").plan(lb::testing::preset_from("{\"kofler\": {\"nbody\": {\"sizes\": [1024], \"steps\": 1, "
                                                       "\"layouts\": [\"aos\"]}}}"),
                              Overrides{.sizes = {}, .precisions = {"double"}});
    ADD_FAILURE() << "planned";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "--precision: unknown precision 'double' (suite kofler's programs have: float)");
  }
  // The inner programs compute in int: --precision float once planned every one of them.
  try {
    find_suite("inner").plan(load_preset("quick"), Overrides{.sizes = {}, .precisions = {"float"}});
    ADD_FAILURE() << "planned";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "--precision: unknown precision 'float' (suite inner's programs have: int)");
  }
}

}  // namespace

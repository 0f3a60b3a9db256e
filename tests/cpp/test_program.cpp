//! The program interface's harness side (harness/program.cpp) and the Kofler layout choices,
//! on the CPU: counters under the one naming convention, the order set-up / poison / run /
//! validate, a failed check skipping the benchmark, one set-up per name across repetitions.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <vector>

#include "kofler/layout_choice.hpp"
#include "lb/harness/journal.hpp"
#include "lb/harness/program.hpp"

namespace lb::harness {
namespace {

TEST(ProgramCounters, DeriveRatesAndBoundsFromDeclaredWork) {
  Ceilings c;
  c.copy_bandwidth_gbs = 1000;  // 1e12 B/s
  c.fp32_fma_per_s = 1e12;
  c.fp32_rcp_per_s = 1e11;
  c.fp64_fma_per_s = 5e11;
  Work w{.unit = "keys", .units = 1e6, .bytes_read = 3e9, .bytes_written = 1e9, .fp32_fma = 2e9, .fp32_special = 5e8};
  const auto m = rate_counters(w, 0.01, c);
  EXPECT_DOUBLE_EQ(m.at("keys"), 1e6);
  EXPECT_DOUBLE_EQ(m.at("keys_per_s"), 1e8);
  EXPECT_DOUBLE_EQ(m.at("bytes_per_s"), 4e11);
  EXPECT_DOUBLE_EQ(m.at("memory_bound_s"), 4e-3);
  EXPECT_DOUBLE_EQ(m.at("pct_copy_bandwidth"), 40);
  EXPECT_DOUBLE_EQ(m.at("compute_bound_s"), 5e-3);  // the special-function unit binds: 5e8 / 1e11
  EXPECT_DOUBLE_EQ(m.at("pct_compute_bound"), 50);
  EXPECT_DOUBLE_EQ(m.at("bound_s"), 5e-3);
  EXPECT_DOUBLE_EQ(m.at("pct_of_bound"), 50);
}

TEST(ProgramCounters, NoWorkOfAKindLeavesItsBoundOut) {
  Ceilings c;
  c.copy_bandwidth_gbs = 1000;
  const auto m = rate_counters(Work{.unit = "x", .units = 1, .bytes_read = 1e9}, 0.002, c);
  EXPECT_FALSE(m.contains("compute_bound_s"));
  EXPECT_DOUBLE_EQ(m.at("pct_of_bound"), 50);
  EXPECT_TRUE(rate_counters(Work{}, 0.0, c).empty());
}

//! A CPU program: doubles its input into its output; `skip_writes` leaves the output alone.
struct Log {
  std::vector<std::string> calls;
};
class Doubler : public Variant {
 public:
  Doubler(Log& log, bool skip_writes) : log_(log), skip_writes_(skip_writes) {}
  void setup(cudaStream_t) override {
    log_.calls.push_back("setup");
    in_.assign(1000, 1.5);
    out_.assign(1000, 0.0);
  }
  void poison(cudaStream_t) override {
    log_.calls.push_back("poison");
    out_.assign(out_.size(), std::numeric_limits<double>::quiet_NaN());
  }
  void run(cudaStream_t) override {
    log_.calls.push_back("run");
    if (!skip_writes_)
      for (std::size_t i = 0; i < in_.size(); ++i) out_[i] = 2 * in_[i];
  }
  Check validate(cudaStream_t) override {
    log_.calls.push_back("validate");
    for (std::size_t i = 0; i < out_.size(); ++i)
      if (!(out_[i] == 3.0)) return {false, "output " + std::to_string(i) + " is wrong", false, {}};
    return {true, "", false, {{"checked", double(out_.size())}}};
  }
  Work work() const override { return {.unit = "elements", .units = 1000, .bytes_read = 8000, .bytes_written = 8000}; }
  double footprint_bytes() const override { return 16000; }

 private:
  Log& log_;
  bool skip_writes_;
  std::vector<double> in_, out_;
};

struct Captured : benchmark::BenchmarkReporter {
  std::vector<Run> runs;
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& r) override { runs.insert(runs.end(), r.begin(), r.end()); }
};

std::vector<benchmark::BenchmarkReporter::Run> run_one(const std::string& name, Log& log, bool skip_writes,
                                                       int repetitions) {
  Ceilings c;
  c.copy_bandwidth_gbs = 10;
  ProgramCase pc{Where::cpu, {}, [&] { return std::make_unique<Doubler>(log, skip_writes); }};
  benchmark::ClearRegisteredBenchmarks();
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& st) { run_case(st, name, pc, c, nullptr); })
      ->UseManualTime()
      ->Iterations(2)
      ->Repetitions(repetitions)
      ->ReportAggregatesOnly(false);
  Captured reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::ClearRegisteredBenchmarks();
  return reporter.runs;
}

TEST(ProgramRun, SetsUpPoisonsRunsAndValidatesOnceThenTimesWithCounters) {
  Log log;
  const auto runs = run_one("test/doubler/ok", log, false, 3);
  // one set-up and validation for three repetitions of two iterations each
  const std::vector<std::string> first = {"setup", "poison", "run", "validate", "run", "run"};
  ASSERT_GE(log.calls.size(), first.size());
  EXPECT_EQ(std::vector<std::string>(log.calls.begin(), log.calls.begin() + 6), first);
  EXPECT_EQ(std::count(log.calls.begin(), log.calls.end(), "setup"), 1);
  EXPECT_EQ(std::count(log.calls.begin(), log.calls.end(), "run"), 1 + 3 * 2);
  std::size_t iteration_runs = 0;
  for (const auto& r : runs) {
    if (r.run_type != benchmark::BenchmarkReporter::Run::RT_Iteration) continue;
    ++iteration_runs;
    EXPECT_FALSE(run_failed(r));
    EXPECT_EQ(r.counters.at("elements").value, 1000);
    EXPECT_EQ(r.counters.at("footprint_bytes").value, 16000);
    EXPECT_EQ(r.counters.at("checked").value, 1000);
    EXPECT_EQ(r.counters.at("unvalidated").value, 0);
    EXPECT_GT(r.counters.at("pct_copy_bandwidth").value, 0);
  }
  EXPECT_EQ(iteration_runs, 3u);
}

TEST(ProgramRun, AProgramThatSkipsItsWritesFailsOnThePoisonAndIsNotTimed) {
  Log log;
  const auto runs = run_one("test/doubler/skips", log, true, 1);
  ASSERT_FALSE(runs.empty());
  EXPECT_TRUE(run_failed(runs.front()));
  EXPECT_NE(run_failure_message(runs.front()).find("output 0 is wrong"), std::string::npos);
  EXPECT_EQ(std::count(log.calls.begin(), log.calls.end(), "run"), 1);  // the validation run only
}

TEST(ProgramRun, ACaseThatCannotFitIsSkippedWithTheReasonBeforeSetUp) {
  Log log;
  Ceilings c;
  ProgramCase pc{Where::cpu, {.host_bytes = 1e18}, [&] { return std::make_unique<Doubler>(log, false); }};
  benchmark::ClearRegisteredBenchmarks();
  benchmark::RegisterBenchmark("test/doubler/huge", [=](benchmark::State& st) { run_case(st, "test/doubler/huge", pc, c, nullptr); })
      ->UseManualTime()->Iterations(1);
  Captured reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::ClearRegisteredBenchmarks();
  ASSERT_EQ(reporter.runs.size(), 1u);
  EXPECT_NE(run_failure_message(reporter.runs[0]).find("does not fit"), std::string::npos);
  EXPECT_TRUE(log.calls.empty());
}

// --- Kofler layout choices ---------------------------------------------------------------

Preset preset_from(const std::string& text) {
  Preset p;
  p.name = "test";
  p.path = "test.json";
  p.text = text;
  p.suites = nlohmann::json::parse(text);
  return p;
}

TEST(KoflerLayouts, SweepTilesArePowersOfTwoUpToTheSizeAndPartitionsAreData) {
  const Preset p = preset_from(R"({"layouts": ["aos", "soa", "tiled", "split", "split-ct"], "tiles": "sweep",
    "partitions": {"pos|vel": [["pos"], ["vel"]], "mixed": [{"fields": ["vel"], "layout": "tiled:8"}, ["pos"]]}})");
  const auto c = kofler::layout_choices(p, p.suites, "nbody", 40, {"pos", "vel"}, {}, {"pos|vel", "mixed"});
  std::vector<std::string> names;
  for (const auto& l : c) names.push_back(l.layout + (l.param().empty() ? "" : "/" + l.param()));
  EXPECT_EQ(names, (std::vector<std::string>{"aos", "soa", "tiled/tile:2", "tiled/tile:4", "tiled/tile:8", "tiled/tile:16",
                                             "tiled/tile:32", "split/partition:mixed", "split-ct/partition:mixed",
                                             "split/partition:pos|vel", "split-ct/partition:pos|vel"}));
  const auto& mixed = c[7].fields;
  EXPECT_EQ(mixed.cluster_of_field, (std::vector<std::size_t>{1, 0}));
  EXPECT_EQ(mixed.clusters[0].kind, layout::ClusterLayout::Kind::tiled);
  EXPECT_EQ(mixed.clusters[0].lanes, 8u);
}

TEST(KoflerLayouts, MistakesNameTheProblem) {
  auto error_of = [](const std::string& text, std::vector<std::size_t> ct_tiles = {},
                     std::vector<std::string> ct_splits = {}) {
    const Preset p = preset_from(text);
    try {
      kofler::layout_choices(p, p.suites, "nbody", 64, {"pos", "vel"}, ct_tiles, ct_splits);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of(R"({"layouts": ["aoss"]})").find("unknown layout 'aoss'"), std::string::npos);
  EXPECT_NE(error_of(R"({"layouts": ["tiled-ct"], "compile_time_tiles": [64]})", {32}).find("tile 64 is not compiled in"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"layouts": ["split"], "partitions": {"p": [["pos"]]}})").find("leaves out field 'vel'"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"layouts": ["split"], "partitions": {"p": [["pos", "vel"], ["vel"]]}})").find("in two clusters"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"layouts": ["split"], "partitions": {"p": [["pos", "mass"]]}})").find("\"mass\" is not a field"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"layouts": ["split-ct"], "partitions": {"p": [["pos"], ["vel"]]}})").find("no compile-time split"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"layouts": ["split"], "partitions": {"p": [{"fields": ["pos", "vel"], "layout": "tiled:0"}]}})")
                .find("not aos, soa or tiled"),
            std::string::npos);
}

}  // namespace
}  // namespace lb::harness

namespace lb::harness {
namespace {
struct A {};
struct B {};
using TwoFields = layout::Record<layout::Field<A, double>, layout::Field<B, float>>;
struct SplitAB {
  static constexpr std::string_view name = "a|b";
  template <class Rec>
  using mapping = layout::SplitMapping<Rec, layout::Cluster<layout::AoS, A>, layout::Cluster<layout::AoS, B>>;
};

TEST(KoflerLayouts, EveryChoiceBuildsItsMappingAndRunTimeEqualsCompileTimeBytes) {
  const Preset p = preset_from(R"({"layouts": ["aos", "soa", "tiled", "tiled-ct", "split", "split-ct"],
    "tiles": [4], "compile_time_tiles": [4], "partitions": {"a|b": [["a"], ["b"]]}})");
  const auto choices = kofler::layout_choices(p, p.suites, "t", 10, {"a", "b"}, {4}, {"a|b"});
  std::map<std::string, std::size_t> first_blob_bytes;
  for (const auto& c : choices)
    kofler::with_mapping<TwoFields>(c, 10, kofler::Tiles<4>{}, layout::LayoutList<SplitAB>{}, [&](const auto& m) {
      first_blob_bytes[c.layout] = m.blob_bytes(0);
      EXPECT_EQ(m.size(), 10u);
    });
  EXPECT_EQ(first_blob_bytes.at("aos"), 160u);       // {double, float} padded to 16 B
  EXPECT_EQ(first_blob_bytes.at("soa"), 80u);        // the doubles
  EXPECT_EQ(first_blob_bytes.at("tiled"), 3u * 48);  // 3 tiles of 4 doubles + 4 floats
  EXPECT_EQ(first_blob_bytes.at("tiled-ct"), first_blob_bytes.at("tiled"));
  EXPECT_EQ(first_blob_bytes.at("split"), 80u);
  EXPECT_EQ(first_blob_bytes.at("split-ct"), first_blob_bytes.at("split"));
}
}  // namespace
}  // namespace lb::harness

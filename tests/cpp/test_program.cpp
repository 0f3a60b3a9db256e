//! The program interface's harness side (harness/program.cpp) and the Kofler layout choices,
//! on the CPU: counters under the one naming convention, the order set-up / poison / run /
//! validate, a failed check skipping the benchmark, one set-up per name across repetitions.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "kofler/layout_choice.hpp"
#include "lb/harness/journal.hpp"
#include "lb/harness/program.hpp"
#include "lb/harness/suite.hpp"
#include "lb/harness/trial.hpp"
#include "preset_testing.hpp"

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
  // no bytes declared: no byte counters (not "0 bytes read")
  const auto units_only = rate_counters(Work{.unit = "x", .units = 1}, 0.002, c);
  EXPECT_EQ(units_only.size(), 2u);
  EXPECT_DOUBLE_EQ(units_only.at("x_per_s"), 500);
}

TEST(ProgramCounters, PercentagesAreOfTheTimeTheWorkTakesAndTheUnitRateOfTheWholeRun) {
  Ceilings c;
  c.copy_bandwidth_gbs = 1000;
  c.fp64_fma_per_s = 1e12;
  const Work w{.unit = "estimates", .units = 1e6, .bytes_written = 1e9, .fp64_fma = 2e9};
  // a 10 ms run whose declared work (a device part) took 4 ms
  const auto m = rate_counters(w, 0.01, 0.004, c);
  EXPECT_DOUBLE_EQ(m.at("estimates_per_s"), 1e8);
  EXPECT_DOUBLE_EQ(m.at("bytes_per_s"), 2.5e11);
  EXPECT_DOUBLE_EQ(m.at("memory_bound_s"), 1e-3);
  EXPECT_DOUBLE_EQ(m.at("pct_copy_bandwidth"), 25);
  EXPECT_DOUBLE_EQ(m.at("compute_bound_s"), 2e-3);
  EXPECT_DOUBLE_EQ(m.at("pct_compute_bound"), 50);
  EXPECT_DOUBLE_EQ(m.at("pct_of_bound"), 50);
  // the part not measured: the bounds, but no percentages of them and no byte rate
  const auto unmeasured = rate_counters(w, 0.01, std::numeric_limits<double>::quiet_NaN(), c);
  EXPECT_DOUBLE_EQ(unmeasured.at("bound_s"), 2e-3);
  EXPECT_DOUBLE_EQ(unmeasured.at("estimates_per_s"), 1e8);
  for (const char* key : {"pct_copy_bandwidth", "pct_compute_bound", "pct_of_bound", "bytes_per_s"})
    EXPECT_FALSE(unmeasured.contains(key)) << key;
}

TEST(ProgramCounters, BusBytesBoundTheWholeRunAndTheBindingBoundIsTheLargest) {
  Ceilings c;
  c.copy_bandwidth_gbs = 1000;
  c.fp32_fma_per_s = 1e12;
  c.h2d_pinned_gbs = 20;
  c.d2h_pinned_gbs = 10;
  c.h2d_pageable_gbs = c.d2h_pageable_gbs = 5;  // never the bound: the bus can do the pinned rate
  // a 10 ms run (device part 2 ms): writes 1 GB on the device (1 ms), 1e9 FMAs (1 ms),
  // uploads 40 MB (2 ms at 20 GB/s) and downloads 50 MB (5 ms at 10 GB/s)
  const Work w{.unit = "estimates", .units = 1e6, .bytes_written = 1e9, .fp32_fma = 1e9,
               .bus_h2d_bytes = 4e7, .bus_d2h_bytes = 5e7};
  const auto m = rate_counters(w, 0.01, 0.002, c);
  EXPECT_DOUBLE_EQ(m.at("bus_h2d_bytes"), 4e7);
  EXPECT_DOUBLE_EQ(m.at("bus_d2h_bytes"), 5e7);
  EXPECT_DOUBLE_EQ(m.at("bus_bound_s"), 5e-3);  // the slower direction, not the sum
  EXPECT_DOUBLE_EQ(m.at("pct_bus_bandwidth"), 50);
  EXPECT_DOUBLE_EQ(m.at("bound_s"), 5e-3);  // end to end: the bus binds
  EXPECT_DOUBLE_EQ(m.at("pct_of_bound"), 50);
  EXPECT_DOUBLE_EQ(m.at("device_bound_s"), 1e-3);  // device only, over the device part
  EXPECT_DOUBLE_EQ(m.at("pct_of_device_bound"), 50);
  EXPECT_DOUBLE_EQ(m.at("pct_copy_bandwidth"), 50);  // unchanged: over the device part

  // Where the device binds, the end-to-end bound is the device's, over the whole run.
  const Work light{.unit = "estimates", .units = 1e6, .bytes_written = 1e9, .bus_d2h_bytes = 1e6};
  const auto l = rate_counters(light, 0.01, 0.002, c);
  EXPECT_DOUBLE_EQ(l.at("bus_bound_s"), 1e-4);
  EXPECT_DOUBLE_EQ(l.at("bound_s"), 1e-3);
  EXPECT_DOUBLE_EQ(l.at("pct_of_bound"), 10);
  EXPECT_DOUBLE_EQ(l.at("pct_of_device_bound"), 50);

  // No bus bytes: no bus counters, and bound_s / pct_of_bound keep their device meaning.
  const Work device_only{.unit = "estimates", .units = 1e6, .bytes_written = 1e9};
  const auto d = rate_counters(device_only, 0.01, 0.002, c);
  for (const char* key : {"bus_h2d_bytes", "bus_bound_s", "pct_bus_bandwidth", "device_bound_s", "pct_of_device_bound"})
    EXPECT_FALSE(d.contains(key)) << key;
  EXPECT_DOUBLE_EQ(d.at("pct_of_bound"), 50);
}

TEST(ProgramCounters, CeilingsRecordTheBusInTheContext) {
  Ceilings c;
  c.h2d_pinned_gbs = 1, c.d2h_pinned_gbs = 2, c.h2d_pageable_gbs = 3, c.d2h_pageable_gbs = 4;
  const auto j = c.to_json();
  EXPECT_DOUBLE_EQ(j.at("h2d_pinned_gbs").get<double>(), 1);
  EXPECT_DOUBLE_EQ(j.at("d2h_pinned_gbs").get<double>(), 2);
  EXPECT_DOUBLE_EQ(j.at("h2d_pageable_gbs").get<double>(), 3);
  EXPECT_DOUBLE_EQ(j.at("d2h_pageable_gbs").get<double>(), 4);
}

//! A CPU program: doubles its input into its output; `skip_writes` leaves the output alone.
struct Log {
  std::vector<std::string> calls;
};
class Doubler : public Variant {
 public:
  //! `after_timing`: the message its after-timing check returns (empty: it passes).
  Doubler(Log& log, bool skip_writes, std::string after_timing = {})
      : log_(log), skip_writes_(skip_writes), after_timing_(std::move(after_timing)) {}
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
  std::string after_timing() override {
    log_.calls.push_back("after_timing");
    return after_timing_;
  }
  double work_seconds(double seconds) override {
    log_.calls.push_back("work_seconds");
    return seconds;
  }

 private:
  Log& log_;
  bool skip_writes_;
  std::string after_timing_;
  std::vector<double> in_, out_;
};

struct Captured : benchmark::BenchmarkReporter {
  std::vector<Run> runs;
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& r) override { runs.insert(runs.end(), r.begin(), r.end()); }
};

std::vector<benchmark::BenchmarkReporter::Run> run_one(const std::string& name, Log& log, bool skip_writes,
                                                       int repetitions, const std::string& after_timing = {},
                                                       const std::string& label = {},
                                                       const std::string& made_label = {}) {
  Ceilings c;
  c.copy_bandwidth_gbs = 10;
  ProgramCase pc{Where::cpu, {}, [&] {
                   auto v = std::make_unique<Doubler>(log, skip_writes, after_timing);
                   v->made_label = made_label;
                   return v;
                 }};
  pc.label = label;
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

TEST(ProgramRun, TheCasesLabelIsEveryRunsLabel) {
  Log log;
  const auto runs = run_one("test/doubler/labelled", log, false, 2, {}, "cluster_layouts=soa;tree_gpu=Test GPU");
  ASSERT_FALSE(runs.empty());
  for (const auto& r : runs) EXPECT_EQ(r.report_label, "cluster_layouts=soa;tree_gpu=Test GPU");
  EXPECT_EQ(run_one("test/doubler/unlabelled", log, false, 1).front().report_label, "");
}

TEST(ProgramRun, WhatMakingAVariantDecidedFollowsTheCasesLabelInEveryRun) {
  Log log;
  for (const auto& r : run_one("test/doubler/made", log, false, 2, {}, "", "chosen=soa;runs_as=soa"))
    EXPECT_EQ(r.report_label, "chosen=soa;runs_as=soa");
  for (const auto& r : run_one("test/doubler/both", log, false, 2, {}, "planned=x", "chosen=aos"))
    EXPECT_EQ(r.report_label, "planned=x;chosen=aos");
  // a variant that fails its check still says what was made
  const auto failed = run_one("test/doubler/made-wrong", log, true, 1, {}, "", "chosen=aos");
  ASSERT_FALSE(failed.empty());
  EXPECT_TRUE(run_failed(failed.front()));
  EXPECT_EQ(failed.front().report_label, "chosen=aos");
}

//! A trial's device as a test gives it: no stream, nothing to wait for, each run 1 ms longer.
TrialTiming counting_timing(Log& log) {
  auto next = std::make_shared<double>(0);
  return {nullptr, [&log] { log.calls.push_back("wait"); }, [&log, next](Variant& v) {
            v.prepare(nullptr);
            log.calls.push_back("timed run");
            v.run(nullptr);
            return *next += 1e-3;
          }};
}

TEST(Trial, AVariantIsValidatedOnceAsRunCaseDoesThenTimedRunByRun) {
  Log log;
  Doubler ok(log, false);
  const TrialOutcome o = trial_of(ok, counting_timing(log), 3);
  EXPECT_EQ(log.calls, (std::vector<std::string>{"setup", "poison", "run", "wait", "validate", "timed run", "run",
                                                 "timed run", "run", "timed run", "run", "after_timing"}));
  EXPECT_EQ(o.seconds, (std::vector<double>{1e-3, 2e-3, 3e-3}));
  EXPECT_EQ(o.invalid, "");
  // one that fails validation is not timed
  Log wrong_log;
  Doubler wrong(wrong_log, true);
  const TrialOutcome w = trial_of(wrong, counting_timing(wrong_log));
  EXPECT_EQ(w.invalid, "output 0 is wrong");
  EXPECT_TRUE(w.seconds.empty());
  EXPECT_EQ(std::count(wrong_log.calls.begin(), wrong_log.calls.end(), "timed run"), 0);
  // a failure found after timing makes it invalid too
  Log late_log;
  Doubler late(late_log, false, "a launch failed while timed");
  const TrialOutcome l = trial_of(late, counting_timing(late_log));
  EXPECT_EQ(l.invalid, "a launch failed while timed");
  EXPECT_TRUE(l.seconds.empty());
}

TrialOutcome timed_runs(std::vector<double> seconds) {
  TrialOutcome o;
  o.seconds = std::move(seconds);
  return o;
}

TEST(TrialChoice, TheReferenceUnlessACandidatesSlowestRunBeatsItsFastest) {
  const TrialOutcome aos = timed_runs({10, 11, 12}), soa = timed_runs({9, 9.5, 10}), faster = timed_runs({8, 9, 9.9}),
                     fastest = timed_runs({5, 6, 9.95});
  EXPECT_EQ(trial_choice({aos, soa}), 0u);  // 10 is not beyond 10
  EXPECT_EQ(trial_choice({aos, soa, faster}), 2u);
  EXPECT_EQ(trial_choice({aos, soa, faster, fastest}), 3u);  // of those beyond AoS, the smallest median
  EXPECT_EQ(trial_choice({soa, aos, faster}, 1), 2u);  // the reference is the one named
  // shared and invalid candidates are never chosen
  TrialOutcome shared = fastest, invalid = fastest;
  shared.shares = 0;
  invalid.invalid = "wrong";
  EXPECT_EQ(trial_choice({aos, shared, invalid}), 0u);
  // no valid reference: no choice
  TrialOutcome bad_aos = aos;
  bad_aos.invalid = "wrong output";
  EXPECT_THROW(trial_choice({bad_aos, faster}), std::invalid_argument);
}

TEST(ProgramRun, EveryTimedLoopEndsWithTheAfterTimingCheckThenTheWorkSeconds) {
  Log log;
  run_one("test/doubler/checked-after", log, false, 2);
  std::vector<std::string> after;
  for (const auto& call : log.calls)
    if (call == "after_timing" || call == "work_seconds") after.push_back(call);
  EXPECT_EQ(after, (std::vector<std::string>{"after_timing", "work_seconds", "after_timing", "work_seconds"}));
}

TEST(ProgramRun, AFailureFoundAfterTimingFailsTheBenchmarkWithItsMessageAndNoCounters) {
  Log log;
  const auto runs = run_one("test/doubler/fails-after", log, false, 1, "3 device-side launches failed");
  ASSERT_FALSE(runs.empty());
  EXPECT_TRUE(run_failed(runs.front()));
  EXPECT_EQ(run_failure_message(runs.front()), "3 device-side launches failed");
  EXPECT_FALSE(runs.front().counters.contains("elements"));
}

TEST(ProgramRun, ACpuCaseGetsNoBoundsFromTheProcesssGpuCeilings) {
  Log log;
  const Ceilings saved = env().ceilings;
  env().ceilings.copy_bandwidth_gbs = 1000;  // as a GPU run's process has them
  ProgramCase pc{Where::cpu, {}, [&] { return std::make_unique<Doubler>(log, false); }};
  benchmark::ClearRegisteredBenchmarks();
  benchmark::RegisterBenchmark("test/doubler/cpu", [=](benchmark::State& st) { run_case(st, "test/doubler/cpu", pc); })
      ->UseManualTime()->Iterations(2);
  Captured reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::ClearRegisteredBenchmarks();
  env().ceilings = saved;
  ASSERT_EQ(reporter.runs.size(), 1u);
  EXPECT_FALSE(run_failed(reporter.runs[0]));
  EXPECT_TRUE(reporter.runs[0].counters.contains("bytes_per_s"));
  EXPECT_FALSE(reporter.runs[0].counters.contains("memory_bound_s"));
  EXPECT_FALSE(reporter.runs[0].counters.contains("pct_copy_bandwidth"));
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

using lb::testing::preset_from;

TEST(KoflerLayouts, SweepTilesArePowersOfTwoUpToTheSizeAndPartitionsAreData) {
  const Preset p = preset_from(R"({"layouts": ["aos", "soa", "tiled", "split", "split-ct"], "tiles": "sweep",
    "partitions": {"pos|vel": [["pos"], ["vel"]], "mixed": [{"fields": ["vel"], "layout": "tiled:8"}, ["pos"]]}})");
  const auto c = benches::kofler::layout_choices(p, p.suites, "nbody", 40, {"pos", "vel"}, {}, {"pos|vel", "mixed"});
  std::vector<std::string> names;
  for (const auto& l : c) names.push_back(std::string(l.name()) + (l.param().empty() ? "" : "/" + l.param()));
  EXPECT_EQ(names, (std::vector<std::string>{"aos", "soa", "tiled/tile:2", "tiled/tile:4", "tiled/tile:8", "tiled/tile:16",
                                             "tiled/tile:32", "split/partition:mixed", "split-ct/partition:mixed",
                                             "split/partition:pos|vel", "split-ct/partition:pos|vel"}));
  const auto& mixed = std::get<layout::kind::Split>(c[7].kind).fields;
  EXPECT_EQ(mixed.cluster_of_field, (std::vector<std::size_t>{1, 0}));
  EXPECT_EQ(mixed.clusters[0].kind, layout::ClusterLayout::Kind::tiled);
  EXPECT_EQ(mixed.clusters[0].lanes, 8u);
}

TEST(KoflerLayouts, MistakesNameTheProblem) {
  auto error_of = [](const std::string& text, std::vector<std::size_t> ct_tiles = {},
                     std::vector<std::string> ct_splits = {}) {
    const Preset p = preset_from(text);
    try {
      benches::kofler::layout_choices(p, p.suites, "nbody", 64, {"pos", "vel"}, ct_tiles, ct_splits);
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
  // a program without compile-time splits takes no split-ct; one with others has not this one
  EXPECT_NE(error_of(R"({"layouts": ["split-ct"], "partitions": {"p": [["pos"], ["vel"]]}})")
                .find("layout 'split-ct' needs compile-time splits, which this program has not (it takes: aos, soa, "
                      "tiled, split)"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"layouts": ["split-ct"], "partitions": {"p": [["pos"], ["vel"]]}})", {}, {"q"})
                .find("partition 'p' has no compile-time split (this program has: q)"),
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
using TwoFieldLayouts = layout::ProgramLayouts<TwoFields, layout::Tiles<4>, layout::LayoutList<SplitAB>>;
namespace kind = layout::kind;

TEST(KoflerLayouts, EveryChoiceBuildsItsMappingAndRunTimeEqualsCompileTimeBytes) {
  const Preset p = preset_from(R"({"layouts": ["aos", "soa", "tiled", "tiled-ct", "split", "split-ct"],
    "tiles": [4], "compile_time_tiles": [4], "partitions": {"a|b": [["a"], ["b"]]}})");
  const auto choices = benches::kofler::layout_choices(p, p.suites, "t", 10, {"a", "b"}, TwoFieldLayouts::compile_time_tiles(),
                                              TwoFieldLayouts::compile_time_partitions());
  std::map<std::string, std::size_t> first_blob_bytes;
  for (const auto& c : choices)
    benches::kofler::with_mapping<TwoFieldLayouts>(c, 10, [&](const auto& m) {
      first_blob_bytes[std::string(c.name())] = m.blob_bytes(0);
      EXPECT_EQ(m.size(), 10u);
    });
  EXPECT_EQ(first_blob_bytes.at("aos"), 160u);       // {double, float} padded to 16 B
  EXPECT_EQ(first_blob_bytes.at("soa"), 80u);        // the doubles
  EXPECT_EQ(first_blob_bytes.at("tiled"), 3u * 48);  // 3 tiles of 4 doubles + 4 floats
  EXPECT_EQ(first_blob_bytes.at("tiled-ct"), first_blob_bytes.at("tiled"));
  EXPECT_EQ(first_blob_bytes.at("split-ct"), 80u);     // the doubles' blob
  EXPECT_EQ(first_blob_bytes.at("split"), 256u + 40);  // one blob: the doubles' region, the floats' at 256
}

TEST(KoflerLayouts, AChoiceThatIsUnavailableHereBuildsNoMapping) {
  kind::KdlgTree k;
  k.partition = "a|b";
  k.fields = {{0, 1}, {{}, {}}};
  k.unavailable = "layout 'kdlg-tree' needs a decision tree: give --kofler-tree FILE";
  const benches::kofler::LayoutChoice c{k};
  bool built = false;
  try {
    benches::kofler::with_mapping<TwoFieldLayouts>(c, 10, [&](const auto&) { built = true; });
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), c.unavailable());
  }
  EXPECT_FALSE(built);
}

TEST(KoflerLayouts, AMethodLayoutRunsAsTheCompiledLayoutItNamesElseOnTheRunTimePartition) {
  kind::KdlgTree k;
  k.partition = "a+b";
  k.fields = {{0, 0}, {{layout::ClusterLayout::Kind::tiled, 4}}};
  const auto ran = [&] {
    std::string which = "other";
    benches::kofler::with_mapping<TwoFieldLayouts>(benches::kofler::LayoutChoice{k}, 10, [&](const auto& m) {
      using M = std::decay_t<decltype(m)>;
      if constexpr (std::is_same_v<M, layout::AoSoAMapping<TwoFields, 4>>) which = "tiled-ct 4";
      if constexpr (std::is_same_v<M, layout::SoAMapping<TwoFields>>) which = "soa";
      if constexpr (std::is_same_v<M, layout::AoSMapping<TwoFields>>) which = "aos";
      if constexpr (std::is_same_v<M, layout::Pow2PartitionMapping<TwoFields>>) which = "partition";
    });
    return which;
  };
  EXPECT_EQ(ran(), "partition");  // no compiled layout named (compiled_layout found none)
  k.runs_as = kind::TiledCt{4};
  EXPECT_EQ(ran(), "tiled-ct 4");
  k.runs_as = kind::Soa{};
  EXPECT_EQ(ran(), "soa");
  k.runs_as = kind::Aos{};
  EXPECT_EQ(ran(), "aos");
  k.unavailable = "needs a tree";  // unavailable wins: nothing is made
  EXPECT_THROW(ran(), std::invalid_argument);
}
}  // namespace
}  // namespace lb::harness

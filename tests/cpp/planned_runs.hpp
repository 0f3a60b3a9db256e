#pragma once
// Runs planned benchmarks as `layoutbench run` runs them (manual time), in this process, and
// returns what Google Benchmark reports: for tests of a suite's benchmarks and their counters.

#include <functional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "lb/harness/suite.hpp"

namespace lb::testing {

using BenchRun = benchmark::BenchmarkReporter::Run;

struct CapturedRuns : benchmark::BenchmarkReporter {
  std::vector<BenchRun> runs;
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<BenchRun>& r) override { runs.insert(runs.end(), r.begin(), r.end()); }
};

//! The entries of `plan` whose names `wanted` accepts, `iterations` timed iterations each.
inline std::vector<BenchRun> run_planned(const std::vector<harness::PlannedBenchmark>& plan,
                                         const std::function<bool(const std::string&)>& wanted, int iterations) {
  benchmark::ClearRegisteredBenchmarks();
  for (const auto& b : plan)
    if (wanted(b.name))
      benchmark::RegisterBenchmark(b.name.c_str(), [run = b.run](benchmark::State& st) { run(st); })
          ->UseManualTime()
          ->Iterations(iterations);
  CapturedRuns captured;
  benchmark::RunSpecifiedBenchmarks(&captured);
  benchmark::ClearRegisteredBenchmarks();
  return captured.runs;
}

}  // namespace lb::testing

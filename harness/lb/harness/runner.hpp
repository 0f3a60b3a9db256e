#pragma once
//! How `layoutbench run` runs a plan: one benchmark at a time through Google Benchmark, in
//! rounds of repetitions until the noise rules (lb/harness/noise.hpp) are satisfied or its
//! cap is spent, each CPU benchmark holding the host's CPU lock (lb/harness/host_lock.hpp)
//! throughout, each benchmark journaled once it ends (JournalReporter).

#include <set>
#include <string>
#include <vector>

#include "lb/harness/host_lock.hpp"
#include "lb/harness/journal.hpp"
#include "lb/harness/noise.hpp"
#include "lb/harness/suite.hpp"

namespace lb::harness {

struct RunnerOptions {
  int repetitions = 3;     //!< the first round's (a case's own repetitions win)
  double min_time_s = 0;   //!< Google Benchmark's minimum time per repetition; 0: its flag's
  NoiseRules noise;        //!< a case with its own repetitions runs them only
  std::string cpu_lock = kDefaultCpuLock;  //!< the host's CPU benchmark lock file
};

//! The benchmarks of `plan` not in `skip`, in plan order. A benchmark's result (its median
//! entry) records `noise` (repetitions, rounds, the median's interval in seconds, its
//! coverage and relative half-width, the target and cap, target_met, capped, bimodal) and a
//! CPU benchmark's `host_lock` (the file, seconds waited, and the Unix times it was held
//! from and to). Throws std::runtime_error when the CPU lock cannot be taken.
void run_benchmarks(const std::vector<PlannedBenchmark>& plan, const std::set<std::string>& skip,
                    const RunnerOptions& options, JournalReporter& reporter);

}  // namespace lb::harness

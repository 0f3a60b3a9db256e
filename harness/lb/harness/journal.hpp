#pragma once
//! Crash-safe results: every finished benchmark is appended to a JSON-lines journal and
//! flushed to disk at once; the run orchestrator (harness/run.py) assembles Google Benchmark
//! JSON from it and resumes a killed run with only the missing benchmarks.
//! Records: {"type":"context"}, {"type":"start","name"}, {"type":"run","name","run"},
//! {"type":"done","name","ok"}.

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

namespace lb::harness {

//! Whether a benchmark run failed, and its message: Google Benchmark 1.8 reports errors as
//! `skipped` / `skip_message`, 1.7 as `error_occurred` / `error_message`.
template <class Run>
bool run_failed(const Run& r) {
  if constexpr (requires { r.skipped; })
    return static_cast<bool>(r.skipped);
  else
    return r.error_occurred;
}
template <class Run>
std::string run_failure_message(const Run& r) {
  if constexpr (requires { r.skip_message; })
    return r.skip_message;
  else
    return r.error_message;
}

class Journal {
 public:
  explicit Journal(const std::string& path);
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;
  ~Journal();
  void write(const nlohmann::json& record);

 private:
  std::FILE* file_ = nullptr;
};

//! Google Benchmark run -> the JSON object Google Benchmark's own JSON reporter writes.
nlohmann::json run_to_json(const benchmark::BenchmarkReporter::Run& run);

//! Google Benchmark display reporter: journals each run, prints one progress line per
//! finished benchmark ("[k/N] name  median ± spread  eta"), and ends the process with exit
//! code 3 after recording a benchmark that left the CUDA context unusable.
class JournalReporter : public benchmark::BenchmarkReporter {
 public:
  JournalReporter(Journal& journal, std::size_t already_done, std::size_t total, double spread_flag_pct);

  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

  //! Called by the benchmark wrapper when a benchmark's function is first entered.
  void started(const std::string& name);
  std::size_t failures() const { return failures_; }

 private:
  void finish_pending();

  Journal& journal_;
  std::size_t done_, total_, started_in_process_ = 0, finished_in_process_ = 0, failures_ = 0;
  double spread_flag_pct_;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
  std::string current_;  //!< the benchmark whose function ran last
  std::string pending_;  //!< reported, waiting for its aggregates (or the next benchmark)
  std::vector<Run> pending_runs_;
};

//! Set when a CUDA error left the context unusable; the process must restart to go on.
void mark_context_lost();
bool context_lost();

}  // namespace lb::harness

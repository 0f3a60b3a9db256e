#pragma once
//! Crash-safe results: every finished benchmark is appended to a JSON-lines journal and
//! flushed to disk at once; the run orchestrator (harness/run.py) assembles Google Benchmark
//! JSON from it and resumes a killed run with only the missing benchmarks.
//! Records: {"type":"context"}, {"type":"start","name"}, {"type":"run","name","run"},
//! {"type":"done","name","ok"}; a benchmark's run records and its done record are written
//! together when it ends (a benchmark without a done record runs again on resume).

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
  //! Several records, flushed to disk once.
  void write_all(const std::vector<nlohmann::json>& records);

 private:
  std::FILE* file_ = nullptr;
};

//! Google Benchmark run -> the JSON object Google Benchmark's own JSON reporter writes.
nlohmann::json run_to_json(const benchmark::BenchmarkReporter::Run& run);

//! A benchmark's entries as the result file holds them: its repetitions (numbered 0..n-1, each
//! saying n, over however many Google Benchmark calls they took) and, when none failed, the
//! aggregates mean, median, stddev, cv and spread over all of them (Google Benchmark's shape,
//! each counter aggregated the same way), `annotations`' keys added to the median's entry.
std::vector<nlohmann::json> benchmark_entries(std::vector<benchmark::BenchmarkReporter::Run> repetitions,
                                              const nlohmann::json& annotations);

//! Google Benchmark display reporter for one benchmark at a time, over one or more Google
//! Benchmark calls (rounds of repetitions, lb/harness/runner.hpp): begin writes its start,
//! ReportRuns keeps its repetitions (Google Benchmark's per-call aggregates are left out; the
//! name without the tokens a round's settings add: "<name>/manual_time" in every round),
//! finish journals them with the aggregates and the done record at once and prints one
//! progress line ("[k/N] name  median ± spread  eta"). After a benchmark that left the CUDA
//! context unusable it records what it has and ends the process with exit code 3.
class JournalReporter : public benchmark::BenchmarkReporter {
 public:
  JournalReporter(Journal& journal, std::size_t already_done, std::size_t total, double spread_flag_pct);

  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override;
  //! Google Benchmark calls it at the end of each call: a round, not the benchmark, ends.
  void Finalize() override {}

  void begin(const std::string& name);
  const std::vector<Run>& repetitions() const { return runs_; }
  bool failed() const;
  //! Journals the benchmark begun last (benchmark_entries with `annotations`, then done).
  //! `progress_note` ends its progress line (the noise decision, in words).
  void finish(const nlohmann::json& annotations, const std::string& progress_note = {});
  std::size_t failures() const { return failures_; }

 private:
  Journal& journal_;
  std::size_t done_, total_, finished_in_process_ = 0, failures_ = 0;
  double spread_flag_pct_;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
  std::string name_;  //!< the benchmark begun and not finished; empty: none
  std::vector<Run> runs_;
};

//! Set when a CUDA error left the context unusable; the process must restart to go on.
void mark_context_lost();
bool context_lost();

}  // namespace lb::harness

#include "lb/harness/journal.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include <fmt/format.h>

namespace lb::harness {
namespace {

bool g_context_lost = false;

std::string human_time(double seconds) {
  if (seconds < 1e-3) return fmt::format("{:.2f} us", seconds * 1e6);
  if (seconds < 1.0) return fmt::format("{:.3f} ms", seconds * 1e3);
  return fmt::format("{:.3f} s", seconds);
}

std::string clock_text(double seconds) {
  const auto s = static_cast<long>(seconds + 0.5);
  return fmt::format("{}:{:02d}", s / 60, s % 60);
}

}  // namespace

void mark_context_lost() { g_context_lost = true; }
bool context_lost() { return g_context_lost; }

Journal::Journal(const std::string& path) {
  file_ = std::fopen(path.c_str(), "a");
  if (!file_) throw std::runtime_error("cannot open journal " + path + " for appending");
}
Journal::~Journal() {
  if (file_) std::fclose(file_);
}
void Journal::write(const nlohmann::json& record) {
  const std::string line = record.dump() + "\n";
  std::fwrite(line.data(), 1, line.size(), file_);
  std::fflush(file_);
  fsync(fileno(file_));
}

nlohmann::json run_to_json(const benchmark::BenchmarkReporter::Run& run) {
  using Run = benchmark::BenchmarkReporter::Run;
  nlohmann::json j;
  j["name"] = run.benchmark_name();
  j["run_name"] = run.run_name.str();
  j["run_type"] = run.run_type == Run::RT_Iteration ? "iteration" : "aggregate";
  j["repetitions"] = run.repetitions;
  if (run.run_type == Run::RT_Iteration) j["repetition_index"] = run.repetition_index;
  j["threads"] = run.threads;
  if (run.run_type == Run::RT_Aggregate) {
    j["aggregate_name"] = run.aggregate_name;
    j["aggregate_unit"] = run.aggregate_unit == benchmark::kPercentage ? "percentage" : "time";
  }
  if (run_failed(run)) {
    // Zero times, as Google Benchmark writes them (tools/compare.py expects the keys).
    j["error_occurred"] = true;
    j["error_message"] = run_failure_message(run);
  }
  j["iterations"] = run.iterations;
  if (run.run_type == Run::RT_Aggregate && run.aggregate_unit == benchmark::kPercentage) {
    // As Google Benchmark writes them: a fraction, not a time (e.g. cv, spread).
    j["real_time"] = run.real_accumulated_time;
    j["cpu_time"] = run.cpu_accumulated_time;
  } else {
    j["real_time"] = run.GetAdjustedRealTime();
    j["cpu_time"] = run.GetAdjustedCPUTime();
    j["time_unit"] = benchmark::GetTimeUnitString(run.time_unit);
  }
  for (const auto& [name, counter] : run.counters) j[name] = counter.value;
  if (!run.report_label.empty()) j["label"] = run.report_label;
  return j;
}

JournalReporter::JournalReporter(Journal& journal, std::size_t already_done, std::size_t total,
                                 double spread_flag_pct)
    : journal_(journal), done_(already_done), total_(total), spread_flag_pct_(spread_flag_pct) {}

void JournalReporter::started(const std::string& name) {
  if (name == current_) return;
  finish_pending();
  current_ = name;
  ++started_in_process_;
  journal_.write({{"type", "start"}, {"name", name}});
}

void JournalReporter::ReportRuns(const std::vector<Run>& runs) {
  if (runs.empty()) return;
  const std::string name = runs.front().run_name.function_name;
  if (name != pending_) {
    finish_pending();
    pending_ = name;
  }
  for (const auto& r : runs) {
    journal_.write({{"type", "run"}, {"name", name}, {"run", run_to_json(r)}});
    pending_runs_.push_back(r);
  }
  // Aggregates are the last report of a benchmark; a lost context ends the process now.
  if (runs.front().run_type == Run::RT_Aggregate || context_lost()) finish_pending();
  if (context_lost()) {
    std::fprintf(stderr, "CUDA context lost: restarting the process to continue\n");
    std::fflush(stderr);
    std::_Exit(3);
  }
}

void JournalReporter::Finalize() { finish_pending(); }

void JournalReporter::finish_pending() {
  if (pending_.empty()) return;
  bool ok = true;
  std::string error;
  std::vector<double> times;
  double median = NAN, spread = NAN;
  bool throttled = false;
  for (const auto& r : pending_runs_) {
    if (run_failed(r)) {
      ok = false;
      error = run_failure_message(r);
      continue;
    }
    if (r.run_type == Run::RT_Iteration) {
      times.push_back(r.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(r.time_unit));
      if (auto it = r.counters.find("throttled"); it != r.counters.end() && it->second.value > 0) throttled = true;
    }
  }
  if (!times.empty()) {
    std::sort(times.begin(), times.end());
    median = times[times.size() / 2];
    if (times.size() % 2 == 0) median = 0.5 * (times[times.size() / 2 - 1] + times[times.size() / 2]);
    spread = 100.0 * (times.back() - times.front()) / median;
  }
  journal_.write({{"type", "done"}, {"name", pending_}, {"ok", ok}});
  ++done_;
  ++finished_in_process_;
  if (!ok) ++failures_;

  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  const double eta = finished_in_process_ ? elapsed / finished_in_process_ * (total_ - std::min(done_, total_)) : 0;
  std::string line = fmt::format("[{}/{}] {}  ", done_, total_, pending_);
  if (!ok)
    line += "FAILED: " + error;
  else
    line += fmt::format("{} ± {:.1f}%", human_time(median), spread);
  if (ok && spread > spread_flag_pct_) line += "  [spread above " + fmt::format("{:g}", spread_flag_pct_) + "%]";
  if (throttled) line += "  [throttled]";
  line += fmt::format("  (elapsed {}, left ~{})", clock_text(elapsed), clock_text(eta));
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
  pending_.clear();
  pending_runs_.clear();
}

}  // namespace lb::harness

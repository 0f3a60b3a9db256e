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
void Journal::write(const nlohmann::json& record) { write_all({record}); }
void Journal::write_all(const std::vector<nlohmann::json>& records) {
  std::string lines;
  for (const auto& record : records) lines += record.dump() + "\n";
  std::fwrite(lines.data(), 1, lines.size(), file_);
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

namespace {

using Run = benchmark::BenchmarkReporter::Run;

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
double mean_of(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return sum / double(v.size());
}
//! The sample standard deviation, as Google Benchmark's (0 for one value).
double stddev_of(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  const double mean = mean_of(v);
  double sum = 0;
  for (double x : v) sum += (x - mean) * (x - mean);
  return std::sqrt(sum / double(v.size() - 1));
}

//! Google Benchmark's default statistics and the harness's spread, each as a time or a fraction.
struct Statistic {
  const char* name;
  bool fraction;
  double (*compute)(const std::vector<double>&);
};
const Statistic kStatistics[] = {
    {"mean", false, mean_of},
    {"median", false, [](const std::vector<double>& v) { return median_of(v); }},
    {"stddev", false, stddev_of},
    {"cv", true, [](const std::vector<double>& v) { return mean_of(v) != 0 ? stddev_of(v) / mean_of(v) : 0.0; }},
    {"spread", true,
     [](const std::vector<double>& v) {
       const double median = median_of(v);
       return median > 0 ? (*std::max_element(v.begin(), v.end()) - *std::min_element(v.begin(), v.end())) / median
                         : 0.0;
     }},
};

template <class Name>
void clear_round_tokens(Name& name) {
  name.min_time.clear();
  if constexpr (requires { name.min_warmup_time; }) name.min_warmup_time.clear();  // Google Benchmark >= 1.7
  name.iterations.clear();
  name.repetitions.clear();
}

}  // namespace

std::vector<nlohmann::json> benchmark_entries(std::vector<Run> repetitions, const nlohmann::json& annotations) {
  std::vector<nlohmann::json> out;
  bool failed = false;
  for (std::size_t k = 0; k < repetitions.size(); ++k) {
    repetitions[k].repetitions = static_cast<std::int64_t>(repetitions.size());
    repetitions[k].repetition_index = static_cast<std::int64_t>(k);
    failed = failed || run_failed(repetitions[k]);
    out.push_back(run_to_json(repetitions[k]));
  }
  if (failed || repetitions.empty()) return out;
  const Run& first = repetitions.front();
  std::vector<double> real, cpu;
  for (const auto& r : repetitions) {
    real.push_back(r.GetAdjustedRealTime());
    cpu.push_back(r.GetAdjustedCPUTime());
  }
  for (const Statistic& s : kStatistics) {
    nlohmann::json j = out.front();  // the names, label and threads of the benchmark
    j.erase("repetition_index");
    j["name"] = first.run_name.str() + "_" + s.name;
    j["run_type"] = "aggregate";
    j["aggregate_name"] = s.name;
    j["aggregate_unit"] = s.fraction ? "percentage" : "time";
    j["iterations"] = repetitions.size();  // as Google Benchmark: the count of repetitions
    j["real_time"] = s.compute(real);
    j["cpu_time"] = s.compute(cpu);
    if (s.fraction) j.erase("time_unit");
    for (const auto& [key, counter] : first.counters) {
      std::vector<double> values;
      for (const auto& r : repetitions) values.push_back(r.counters.count(key) ? r.counters.at(key).value : NAN);
      j[key] = s.compute(values);
    }
    if (std::string(s.name) == "median")
      for (const auto& [key, value] : annotations.items()) j[key] = value;
    out.push_back(std::move(j));
  }
  return out;
}

JournalReporter::JournalReporter(Journal& journal, std::size_t already_done, std::size_t total,
                                 double spread_flag_pct)
    : journal_(journal), done_(already_done), total_(total), spread_flag_pct_(spread_flag_pct) {}

void JournalReporter::begin(const std::string& name) {
  name_ = name;
  runs_.clear();
  journal_.write({{"type", "start"}, {"name", name}});
}

bool JournalReporter::failed() const {
  return std::any_of(runs_.begin(), runs_.end(), [](const Run& r) { return run_failed(r); });
}

void JournalReporter::ReportRuns(const std::vector<Run>& runs) {
  for (const auto& r : runs)
    if (r.run_type == Run::RT_Iteration) {
      runs_.push_back(r);
      // One name for every round: the rounds' own repetition, iteration and time settings
      // would otherwise each add a token ("repeats:3", "iterations:12", "min_time:0.001").
      clear_round_tokens(runs_.back().run_name);
    }
  if (context_lost()) {
    finish(nlohmann::json::object());
    std::fprintf(stderr, "CUDA context lost: restarting the process to continue\n");
    std::fflush(stderr);
    std::_Exit(3);
  }
}

void JournalReporter::finish(const nlohmann::json& annotations, const std::string& progress_note) {
  if (name_.empty()) return;
  const bool ok = !failed() && !runs_.empty();
  std::string error = runs_.empty() ? "no repetition was reported" : "";
  std::vector<double> times;
  bool throttled = false;
  for (const auto& r : runs_) {
    if (run_failed(r)) {
      error = run_failure_message(r);
      continue;
    }
    times.push_back(r.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(r.time_unit));
    if (auto it = r.counters.find("throttled"); it != r.counters.end() && it->second.value > 0) throttled = true;
  }
  std::vector<nlohmann::json> records;
  for (auto& entry : benchmark_entries(runs_, annotations))
    records.push_back({{"type", "run"}, {"name", name_}, {"run", std::move(entry)}});
  records.push_back({{"type", "done"}, {"name", name_}, {"ok", ok}});
  journal_.write_all(records);
  ++done_;
  ++finished_in_process_;
  if (!ok) ++failures_;

  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  const double eta = finished_in_process_ ? elapsed / finished_in_process_ * (total_ - std::min(done_, total_)) : 0;
  std::string line = fmt::format("[{}/{}] {}  ", done_, total_, name_);
  if (!ok) {
    line += "FAILED: " + error;
  } else {
    const double median = median_of(times);
    const double spread = 100.0 * (*std::max_element(times.begin(), times.end()) - *std::min_element(times.begin(), times.end())) / median;
    line += fmt::format("{} ± {:.1f}%", human_time(median), spread);
    if (spread > spread_flag_pct_) line += "  [spread above " + fmt::format("{:g}", spread_flag_pct_) + "%]";
    if (!progress_note.empty()) line += "  " + progress_note;
  }
  if (throttled) line += "  [throttled]";
  line += fmt::format("  (elapsed {}, left ~{})", clock_text(elapsed), clock_text(eta));
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
  name_.clear();
  runs_.clear();
}

}  // namespace lb::harness

#include "lb/harness/runner.hpp"

#include <chrono>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "lb/common/cuda_check.hpp"

namespace lb::harness {
namespace {

using Run = benchmark::BenchmarkReporter::Run;

//! A benchmark's function as Google Benchmark runs it: every failure becomes the repetition's
//! error (a sticky CUDA error also marks the context lost, which ends the process).
void run_guarded(const std::function<void(benchmark::State&)>& run, benchmark::State& st) {
  if (context_lost()) {
    st.SkipWithError("CUDA context lost earlier in this process");
    return;
  }
  try {
    run(st);
  } catch (const CudaError& err) {
    if (err.sticky()) mark_context_lost();
    st.SkipWithError(err.what());
  } catch (const std::bad_alloc&) {
    st.SkipWithError("out of host memory (std::bad_alloc) while running this benchmark");
  } catch (const std::exception& err) {
    st.SkipWithError(err.what());
  }
}

//! One Google Benchmark call: `repetitions` of `b`, `iterations` each (0: as many as its
//! minimum time takes). Returns its wall seconds.
double run_round(const PlannedBenchmark& b, std::size_t repetitions, benchmark::IterationCount iterations,
                 double min_time_s, JournalReporter& reporter) {
  benchmark::ClearRegisteredBenchmarks();
  auto* registered = benchmark::RegisterBenchmark(b.name.c_str(),
                                                  [run = b.run](benchmark::State& st) { run_guarded(run, st); })
                         ->UseManualTime()
                         // Microseconds: the fastest GPU kernels take tens of µs, and Google Benchmark's
                         // tools/compare.py prints times as integers in the file's unit (ms printed them as 0).
                         ->Unit(benchmark::kMicrosecond)
                         ->Repetitions(static_cast<int>(repetitions));
  if (iterations > 0)
    registered->Iterations(iterations);  // Google Benchmark refuses a minimum time beside it
  else if (min_time_s > 0)
    registered->MinTime(min_time_s);
  const auto t0 = std::chrono::steady_clock::now();
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::ClearRegisteredBenchmarks();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<double> times_s(const std::vector<Run>& runs) {
  std::vector<double> out;
  for (const auto& r : runs) out.push_back(r.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(r.time_unit));
  return out;
}

//! The timed seconds of one repetition (its iterations' manual times), the first round's mean.
double timed_s_per_repetition(const std::vector<Run>& runs) {
  double sum = 0;
  for (const auto& r : runs) sum += r.real_accumulated_time;
  return runs.empty() ? 0 : sum / double(runs.size());
}

nlohmann::json noise_json(const NoiseAssessment& a, const NoiseState& s, const NoiseRules& rules, std::size_t rounds,
                          bool capped) {
  const double half_width = a.interval.relative_half_width();
  return {{"repetitions", a.interval.n},
          {"rounds", rounds},
          {"interval_s", {a.interval.low, a.interval.high}},
          {"interval_rank", a.interval.rank},
          {"coverage", a.interval.coverage},
          {"half_width_pct", std::isfinite(half_width) ? nlohmann::json(100 * half_width) : nlohmann::json()},
          {"target_pct", rules.target_pct > 0 ? nlohmann::json(rules.target_pct) : nlohmann::json()},
          {"cap_s", rules.cap_s},
          {"extra_s", s.extra_s},
          {"target_met", a.target_met},
          {"capped", capped},
          {"bimodal", a.bimodal}};
}

std::string progress_note(const NoiseAssessment& a, const NoiseRules& rules, bool capped) {
  const double half_width = 100 * a.interval.relative_half_width();
  std::string note = std::isfinite(half_width) ? fmt::format("n={} median ±{:.2f}%", a.interval.n, half_width)
                                               : fmt::format("n={}", a.interval.n);
  if (capped) note += fmt::format("  [noise target {:g}% missed: capped]", rules.target_pct);
  if (a.bimodal) note += "  [bimodal]";
  return note;
}

}  // namespace

void run_benchmarks(const std::vector<PlannedBenchmark>& plan, const std::set<std::string>& skip,
                    const RunnerOptions& options, JournalReporter& reporter) {
  for (const auto& b : plan) {
    if (skip.count(b.name)) continue;
    // CPU benchmarks alone on the host; other benchmarks share it (host_lock.hpp).
    HostLock lock(options.cpu_lock, b.where == Where::cpu ? HostLock::Mode::exclusive : HostLock::Mode::shared);
    // A case with its own repetitions (the tree's training) runs them, no more.
    const NoiseRules rules = b.repetitions > 0 ? NoiseRules{} : options.noise;
    const int first = b.repetitions > 0 ? b.repetitions : options.repetitions;
    reporter.begin(b.name);
    run_round(b, static_cast<std::size_t>(first), 0, b.min_time_s > 0 ? b.min_time_s : options.min_time_s, reporter);

    NoiseState state;
    NoiseAssessment assessment;
    std::size_t rounds = 1;
    bool capped = false;
    while (!reporter.failed() && !reporter.repetitions().empty()) {
      const auto& runs = reporter.repetitions();
      state.n = runs.size();
      assessment = assess_noise(times_s(runs), rules);
      if (!wants_more(assessment, state, rules)) break;
      if (rounds == 1) state.seconds_per_repetition = timed_s_per_repetition(runs);
      const std::size_t more = next_round(assessment, state, rules);
      if (more == 0) {
        capped = true;
        break;
      }
      state.bimodal_before = state.bimodal_before || assessment.bimodal;
      // The first round's iterations per repetition: every repetition times the same work.
      const double wall = run_round(b, more, runs.front().iterations, 0, reporter);
      state.extra_s += wall;
      state.seconds_per_repetition = wall / double(more);
      ++rounds;
    }
    nlohmann::json annotations = nlohmann::json::object();
    std::string note;
    if (!reporter.failed() && !reporter.repetitions().empty()) {
      annotations["noise"] = noise_json(assessment, state, rules, rounds, capped);
      note = progress_note(assessment, rules, capped);
    }
    if (b.where == Where::cpu)
      annotations["host_lock"] = {{"file", options.cpu_lock},
                                  {"waited_s", lock.waited_s()},
                                  {"held_from_unix_s", lock.held_from_unix_s()},
                                  {"held_to_unix_s", unix_now_s()}};
    reporter.finish(annotations, note);
  }
}

}  // namespace lb::harness

#pragma once
//! A short trial of several variants before a benchmark (issue 39 §4, docs/advisor.md "The
//! extended value"): each variant made, validated and run a few times as the harness runs one
//! (run_case's validated run, then its timed iterations' prepare, L2 flush and CUDA events),
//! and the rule that picks one of them. The benchmark then times the one picked afresh.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lb/harness/program.hpp"

namespace lb::harness {

class GpuTimer;

//! The timed runs of each candidate of a trial.
inline constexpr std::size_t kTrialRuns = 5;

//! One candidate's trial.
struct TrialOutcome {
  std::vector<double> seconds;  //!< its timed runs; empty where invalid or shared
  std::string invalid;          //!< non-empty: it failed validation (the check's message)
  std::optional<std::size_t> shares;  //!< the earlier candidate whose trial it shares (the same code)
};

//! How a trial runs on the device: the stream, a wait for it, and one timed run of a variant
//! (prepared, L2 flushed, timed as a benchmark's iteration). gpu_trial_timing is the harness's;
//! tests give others.
struct TrialTiming {
  cudaStream_t stream = nullptr;
  std::function<void()> wait;
  std::function<double(Variant&)> time;
};
TrialTiming gpu_trial_timing(GpuTimer& timer);

//! The trial of one variant: its validation_run (program.hpp; an invalid one ends there), then
//! `runs` timed runs (and after_timing, whose message makes it invalid).
TrialOutcome trial_of(Variant& v, const TrialTiming& timing, std::size_t runs = kTrialRuns);

//! The rule: candidate `reference` (AoS) unless beaten. A candidate beats it when its slowest
//! run is faster than the reference's fastest (the min–max of the median's interval,
//! noise.hpp, at kTrialRuns); of those that do, the one of the smallest median. Shared and
//! invalid candidates are not chosen (a shared one is its earlier candidate). An invalid
//! reference: std::invalid_argument with its message.
std::size_t trial_choice(const std::vector<TrialOutcome>& outcomes, std::size_t reference = 0);

}  // namespace lb::harness

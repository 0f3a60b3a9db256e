#pragma once
//! Noise the run controls (docs/architecture.md, "Noise the run controls"): the median's
//! interval, the bimodality rule and when a benchmark runs more repetitions. Pure functions
//! of the repetitions' times, so each rule is tested on synthetic samples.

#include <cstddef>
#include <vector>

namespace lb::harness {

//! The median of `times` and its distribution-free interval: [x(l), x(n+1-l)] of the sorted
//! times with the largest l whose coverage reaches 95 % (n >= 6), else min-max (n <= 5).
struct MedianInterval {
  double median = 0, low = 0, high = 0;
  std::size_t n = 0;
  std::size_t rank = 0;   //!< l (1-based); 1 is min-max
  double coverage = 0;    //!< P(low <= true median <= high) under any continuous distribution
  //! (high - low) / (2 median); +inf with fewer than two repetitions (no interval).
  double relative_half_width() const;
};
MedianInterval median_interval(std::vector<double> times);

//! 1 - 2 P(B <= l - 1), B ~ Binomial(n, 1/2): the coverage of [x(l), x(n+1-l)].
double order_statistic_coverage(std::size_t n, std::size_t l);

//! The bimodality rule (one rule: plots/estimates.py applies the same to results on
//! file): of three or more times, some split of the sorted times leaves at least
//! max(1, ceil(n/10)) on each side, and the gap between the sides exceeds kBimodalGapOfMedian
//! of the median and kBimodalGapOverRange times the wider side's range. Up to ten repetitions a
//! lone time standing apart is a group: at n = 3 it is what widens an interval into a verdict.
inline constexpr double kBimodalGapOfMedian = 0.02;
inline constexpr double kBimodalGapOverRange = 3.0;
bool is_bimodal(std::vector<double> times);

//! The most repetitions adaptive rounds take a benchmark to.
inline constexpr std::size_t kMaxAdaptiveRepetitions = 1000;

//! The preset's noise keys: target 0 turns adaptive repetitions off.
struct NoiseRules {
  double target_pct = 0;  //!< relative half-width of the median's interval to reach, in %
  double cap_s = 0;       //!< wall seconds the extra rounds of one benchmark may take
};

//! Where a benchmark's repetitions stand after a round.
struct NoiseState {
  std::size_t n = 0;               //!< repetitions so far
  double extra_s = 0;              //!< wall seconds of the extra rounds so far
  double seconds_per_repetition = 0;  //!< of the last extra round (first: the timed time)
  bool bimodal_before = false;     //!< found bimodal after an earlier round (re-measured since)
};

//! What the rules say of a sample.
struct NoiseAssessment {
  MedianInterval interval;
  bool target_met = false;
  bool bimodal = false;
};
NoiseAssessment assess_noise(const std::vector<double>& times, const NoiseRules& rules);

//! Whether the rules ask for more repetitions: adaptive repetitions are on and the target is
//! missed, or the sample is bimodal and has not been re-measured since it first was.
bool wants_more(const NoiseAssessment& a, const NoiseState& s, const NoiseRules& rules);

//! How many repetitions the next round runs (0: stop): none unless wants_more; else as many as
//! there are (n doubles), cut to what the cap has left at s.seconds_per_repetition (none when
//! not one fits) and to kMaxAdaptiveRepetitions in all. wants_more with 0 here: capped.
std::size_t next_round(const NoiseAssessment& a, const NoiseState& s, const NoiseRules& rules);

}  // namespace lb::harness

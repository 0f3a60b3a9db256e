#include "lb/harness/noise.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace lb::harness {
namespace {

double median_of_sorted(const std::vector<double>& s) {
  const std::size_t n = s.size();
  return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

//! P(B <= k), B ~ Binomial(n, 1/2), summed in logs (n up to kMaxAdaptiveRepetitions).
double binomial_half_cdf(std::size_t n, std::size_t k) {
  double sum = 0;
  for (std::size_t i = 0; i <= k && i <= n; ++i)
    sum += std::exp(std::lgamma(double(n) + 1) - std::lgamma(double(i) + 1) - std::lgamma(double(n - i) + 1) -
                    double(n) * std::log(2.0));
  return sum;
}

}  // namespace

double MedianInterval::relative_half_width() const {
  if (n < 2 || !(median > 0)) return std::numeric_limits<double>::infinity();
  return (high - low) / (2 * median);
}

double order_statistic_coverage(std::size_t n, std::size_t l) {
  if (l == 0 || 2 * l > n + 1) return 0;
  return 1 - 2 * binomial_half_cdf(n, l - 1);
}

MedianInterval median_interval(std::vector<double> times) {
  MedianInterval m;
  m.n = times.size();
  if (times.empty()) return m;
  std::sort(times.begin(), times.end());
  m.median = median_of_sorted(times);
  m.rank = 1;  // min-max unless a narrower interval reaches 95 %
  for (std::size_t l = 2; 2 * l <= m.n && order_statistic_coverage(m.n, l) >= 0.95; ++l) m.rank = l;
  m.low = times[m.rank - 1];
  m.high = times[m.n - m.rank];
  m.coverage = order_statistic_coverage(m.n, m.rank);
  return m;
}

bool is_bimodal(std::vector<double> times) {
  const std::size_t n = times.size();
  const std::size_t side = std::max<std::size_t>(1, (n + 9) / 10);
  if (n < 3 || n < 2 * side) return false;
  std::sort(times.begin(), times.end());
  const double median = median_of_sorted(times);
  for (std::size_t i = side; i + side <= n; ++i) {  // lower side times[0..i), upper times[i..n)
    const double gap = times[i] - times[i - 1];
    const double wider = std::max(times[i - 1] - times[0], times[n - 1] - times[i]);
    if (gap > kBimodalGapOfMedian * median && gap > kBimodalGapOverRange * wider) return true;
  }
  return false;
}

NoiseAssessment assess_noise(const std::vector<double>& times, const NoiseRules& rules) {
  NoiseAssessment a;
  a.interval = median_interval(times);
  a.target_met = rules.target_pct > 0 && a.interval.relative_half_width() * 100 <= rules.target_pct;
  a.bimodal = is_bimodal(times);
  return a;
}

bool wants_more(const NoiseAssessment& a, const NoiseState& s, const NoiseRules& rules) {
  return rules.target_pct > 0 && (!a.target_met || (a.bimodal && !s.bimodal_before));
}

std::size_t next_round(const NoiseAssessment& a, const NoiseState& s, const NoiseRules& rules) {
  if (!wants_more(a, s, rules) || s.n >= kMaxAdaptiveRepetitions) return 0;
  const double left = rules.cap_s - s.extra_s;
  if (!(left > 0)) return 0;
  std::size_t k = std::min(std::max<std::size_t>(s.n, 1), kMaxAdaptiveRepetitions - s.n);
  // Cut to the repetitions the cap has time for: none when not even one fits (capped).
  if (const double fit = std::floor(left / s.seconds_per_repetition); s.seconds_per_repetition > 0 && fit < double(k))
    k = static_cast<std::size_t>(std::max(fit, 0.0));
  return k;
}

}  // namespace lb::harness

#include "lb/harness/trial.hpp"

#include <algorithm>
#include <stdexcept>

#include "lb/common/cuda_check.hpp"
#include "lb/harness/gpu_timer.hpp"
#include "lb/harness/noise.hpp"

namespace lb::harness {

TrialTiming gpu_trial_timing(GpuTimer& timer) {
  const cudaStream_t stream = timer.stream();
  return {stream, [stream] { check(cudaStreamSynchronize(stream), "trial run"); },
          [&timer, stream](Variant& v) {
            v.prepare(stream);
            timer.flush_l2();
            if (v.times_itself()) return v.run_timed(stream);
            return timer.time([&](cudaStream_t s) { v.run(s); });
          }};
}

TrialOutcome trial_of(Variant& v, const TrialTiming& timing, std::size_t runs) {
  TrialOutcome out;
  if (const Check c = validation_run(v, timing.stream, timing.wait); !c.ok) {
    out.invalid = c.message.empty() ? "failed validation" : c.message;
    return out;
  }
  for (std::size_t r = 0; r < runs; ++r) out.seconds.push_back(timing.time(v));
  if (std::string why = v.after_timing(); !why.empty()) {
    out.seconds.clear();
    out.invalid = std::move(why);
  }
  return out;
}

std::size_t trial_choice(const std::vector<TrialOutcome>& outcomes, std::size_t reference) {
  const TrialOutcome& ref = outcomes.at(reference);
  if (!ref.invalid.empty()) throw std::invalid_argument("the trial's reference failed validation: " + ref.invalid);
  if (ref.seconds.empty()) throw std::invalid_argument("the trial's reference has no timed run");
  const MedianInterval r = median_interval(ref.seconds);
  std::optional<std::size_t> best;
  double best_median = 0;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const TrialOutcome& o = outcomes[i];
    if (i == reference || o.shares || !o.invalid.empty() || o.seconds.empty()) continue;
    const MedianInterval m = median_interval(o.seconds);
    if (m.high < r.low && (!best || m.median < best_median)) {
      best = i;
      best_median = m.median;
    }
  }
  return best.value_or(reference);
}

}  // namespace lb::harness

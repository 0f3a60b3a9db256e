#include "lb/harness/program.hpp"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "lb/common/cuda_check.hpp"
#include "lb/harness/gpu_timer.hpp"
#include "lb/harness/suite.hpp"

namespace lb::harness {

std::map<std::string, double> rate_counters(const Work& w, double seconds, double work_seconds, const Ceilings& c) {
  std::map<std::string, double> out;
  if (!(seconds > 0)) return out;
  if (!w.unit.empty()) {
    out[w.unit] = w.units;
    out[w.unit + "_per_s"] = w.units / seconds;
  }
  const bool timed = work_seconds > 0;  // false for NaN: the work's own time was not measured
  // Each bound as a time, and as a percentage of the time the work took where that is known.
  auto bound_counters = [&](const std::string& bound_name, const std::string& pct_name, double bound_s) {
    out[bound_name] = bound_s;
    if (timed) out[pct_name] = 100.0 * bound_s / work_seconds;
  };
  const double bytes = w.bytes_read + w.bytes_written;
  if (bytes > 0) {
    out["bytes_read"] = w.bytes_read;
    out["bytes_written"] = w.bytes_written;
    if (timed) out["bytes_per_s"] = bytes / work_seconds;
  }
  double bound = 0;
  if (bytes > 0 && c.copy_bandwidth_gbs > 0) {
    bound = bytes / (c.copy_bandwidth_gbs * 1e9);
    bound_counters("memory_bound_s", "pct_copy_bandwidth", bound);
  }
  // Each unit's time at its measured rate; the busiest one bounds the run.
  double compute_s = 0;
  auto unit_time = [&](double count, double rate) {
    if (count > 0 && rate > 0) compute_s = std::max(compute_s, count / rate);
  };
  unit_time(w.fp32_fma, c.fp32_fma_per_s);
  unit_time(w.fp32_special, c.fp32_rcp_per_s);
  unit_time(w.fp64_fma, c.fp64_fma_per_s);
  if (compute_s > 0) {
    bound_counters("compute_bound_s", "pct_compute_bound", compute_s);
    bound = std::max(bound, compute_s);
  }
  // The bus: each direction at its pinned rate (the fastest the bus moves data), the slower
  // one binding (uploads and downloads can run at once); it bounds the whole run, not t_w.
  double bus_s = 0;
  if (w.bus_h2d_bytes > 0 && c.h2d_pinned_gbs > 0) bus_s = w.bus_h2d_bytes / (c.h2d_pinned_gbs * 1e9);
  if (w.bus_d2h_bytes > 0 && c.d2h_pinned_gbs > 0) bus_s = std::max(bus_s, w.bus_d2h_bytes / (c.d2h_pinned_gbs * 1e9));
  if (w.bus_h2d_bytes > 0 || w.bus_d2h_bytes > 0) {
    out["bus_h2d_bytes"] = w.bus_h2d_bytes;
    out["bus_d2h_bytes"] = w.bus_d2h_bytes;
  }
  if (bus_s > 0) {
    out["bus_bound_s"] = bus_s;
    out["pct_bus_bandwidth"] = 100.0 * bus_s / seconds;
    if (bound > 0) bound_counters("device_bound_s", "pct_of_device_bound", bound);
    const double end_to_end = std::max(bound, bus_s);
    out["bound_s"] = end_to_end;
    out["pct_of_bound"] = 100.0 * end_to_end / seconds;
  } else if (bound > 0) {
    bound_counters("bound_s", "pct_of_bound", bound);
  }
  return out;
}

std::map<std::string, double> rate_counters(const Work& w, double seconds, const Ceilings& c) {
  return rate_counters(w, seconds, seconds, c);
}

namespace {

//! The variant of the last case, kept across a benchmark's repetitions (Google Benchmark calls
//! the function once per repetition): set up and validated once per name.
struct Current {
  std::string name;
  std::unique_ptr<Variant> variant;
  Check check;
};

Current& current() {
  static Current c;
  return c;
}

double time_cpu(benchmark::State& state, Variant& v) {
  double total_s = 0;
  const double fraction = v.sampled_fraction();
  for (auto _ : state) {
    v.prepare(nullptr);
    const auto t0 = std::chrono::steady_clock::now();
    v.run(nullptr);
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / fraction;
    state.SetIterationTime(dt);
    total_s += dt;
  }
  return state.iterations() > 0 ? total_s / static_cast<double>(state.iterations()) : 0.0;
}

}  // namespace

Check validation_run(Variant& v, cudaStream_t stream, const std::function<void()>& wait) {
  v.setup(stream);
  v.poison(stream);
  v.prepare(stream);
  if (v.times_itself())
    v.run_timed(stream);
  else
    v.run(stream);
  if (wait) wait();
  return v.validate(stream);
}

void run_case(benchmark::State& state, const std::string& name, const ProgramCase& c, const Ceilings& ceilings,
              cudaStream_t stream) {
  Current& cur = current();
  if (!c.label.empty()) state.SetLabel(c.label);
  if (cur.name != name) {
    cur = Current{};  // frees the previous variant's memory before the next one allocates
    if (const std::string why = memory_shortfall(c.memory); !why.empty()) {
      state.SkipWithError(fmt::format("does not fit: {}", why).c_str());
      return;
    }
    auto variant = c.make();
    std::function<void()> wait;
    if (c.where == Where::gpu) wait = [stream] { check(cudaStreamSynchronize(stream), "validation run"); };
    cur.check = validation_run(*variant, stream, wait);
    cur.variant = std::move(variant);
    cur.name = name;
  }
  if (cur.variant && !cur.variant->made_label.empty())  // every repetition: the label is each one's
    state.SetLabel(c.label.empty() ? cur.variant->made_label : c.label + ";" + cur.variant->made_label);
  if (!cur.check.ok) {
    state.SkipWithError(cur.check.message.c_str());
    return;
  }
  Variant& v = *cur.variant;
  const auto prepare = [&](cudaStream_t s) { v.prepare(s); };
  double seconds = 0;
  if (c.where == Where::cpu)
    seconds = time_cpu(state, v);
  else if (v.times_itself())
    seconds = env().timer->run_self_timed(state, name, [&](cudaStream_t s) { return v.run_timed(s); }, true, prepare);
  else
    seconds = env().timer->run(state, name, [&](cudaStream_t s) { v.run(s); }, true, prepare);
  if (const std::string why = v.after_timing(); !why.empty()) {
    state.SkipWithError(why.c_str());
    return;
  }
  const double work_s = v.work_seconds(seconds);
  for (const auto& [key, value] : rate_counters(v.work(), seconds, work_s, ceilings)) state.counters[key] = value;
  state.counters["footprint_bytes"] = v.footprint_bytes();
  for (const auto& [key, value] : cur.check.counters) state.counters[key] = value;
  state.counters["unvalidated"] = cur.check.unvalidated ? 1 : 0;
  v.add_counters(state, seconds);
}

void run_case(benchmark::State& state, const std::string& name, const ProgramCase& c) {
  // A GPU's ceilings do not bound a CPU program.
  if (c.where == Where::cpu)
    run_case(state, name, c, Ceilings{}, nullptr);
  else
    run_case(state, name, c, env().ceilings, env().timer->stream());
}

}  // namespace lb::harness

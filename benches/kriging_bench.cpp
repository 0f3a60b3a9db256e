//! Kriging (Li & Dong) benchmarks: the CPU programs (single core, as the paper; cpu-exp8 uses
//! every core through OpenMP) and the CUDA experiments 1-6, plus experiment 7 (cuBLAS GEMM
//! pair) and experiment 8 (the dual form, on the GPU and on the CPU), over the scales; a
//! well-count sweep for experiments 6, 7 and 8. Every CUDA run (outputs poisoned first) and
//! every CPU program (its first run, at spread points) is validated against the double reference
//! (lb/kriging/reference.hpp) before its time is used; `unvalidated` is 1 where the
//! tolerance is too wide to fail a wrong program. Experiment 6 also reports its difference
//! from experiment 5 over every estimate (the paper's accuracy question).
//!
//! Names: kriging/ok/<version>/<layout>/<precision>/scale:<s>/wells:<n>, with version
//! cpu-exp1|cpu-exp2|cpu-exp4|cpu-exp8 (the CPU programs; exps 3, 5, 6 use 2, 4, 4 in float)
//! or gpu-exp1..gpu-exp8, and layout soa (wells as x[] and y[] arrays in global memory),
//! aos-const (exps 5, 6: {x, y} structs in __constant__ memory) or dense (exps 7, 8: dense
//! arrays of A^-1 / alpha, the wells staged in shared memory by exp 8).

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <tuple>

#include <fmt/format.h>

#include "lb/common/cuda_check.hpp"
#include "lb/datasets/wells.hpp"
#include "lb/harness/gpu_timer.hpp"
#include "lb/harness/memory_fit.hpp"
#include "lb/harness/suite.hpp"
#include "lb/kriging/cpu.hpp"
#include "lb/kriging/device.hpp"
#include "lb/kriging/reference.hpp"

namespace lb::harness {
namespace {

enum class Prec { f32, f64 };
const char* to_string(Prec p) { return p == Prec::f32 ? "float" : "double"; }

struct WellSweep {
  std::vector<std::size_t> wells;
  std::vector<int> scales;
  std::vector<int> experiments;
};

struct Config {
  std::vector<int> scales;
  std::vector<int> experiments;            //!< CUDA experiments 1..8
  std::vector<Prec> exp7_precisions;       //!< experiments 7 and 8 run in either
  std::vector<Prec> precisions;            //!< --precision filter (empty = all)
  bool cpu_programs = true;
  double cpu_sample_estimates = 0x1.0p20;  //!< a CPU run above this many estimates is sampled
  WellSweep sweep;
};

template <class T>
std::vector<T> list_of(const Preset& preset, const nlohmann::json& j, const char* key, const char* where) {
  return preset.list_at<T>(j, key, where);
}

Prec parse_prec(const Preset& preset, const std::string& s, const char* key) {
  if (s == "float") return Prec::f32;
  if (s == "double") return Prec::f64;
  throw preset.error_at(key, fmt::format("unknown precision '{}' (float or double)", s));
}

Config read_config(const Preset& preset, const Overrides& overrides) {
  if (!preset.suites.contains("kriging")) throw preset.error_at("suites", "this preset has no 'kriging' suite");
  const auto& j = preset.suites["kriging"];
  preset.check_keys(j, "kriging",
                    {"scales", "experiments", "exp7_precisions", "cpu_programs", "cpu_sample_estimates", "well_sweep",
                     "model"});
  Config c;
  if (overrides.sizes.empty())
    c.scales = list_of<int>(preset, j, "scales", "kriging");
  else
    for (std::size_t s : overrides.sizes) {
      if (s > 100) throw std::invalid_argument(fmt::format("--sizes: scale {} is not in 1..100", s));
      c.scales.push_back(static_cast<int>(s));
    }
  for (int s : c.scales)
    if (s < 1 || s > 100) throw preset.error_at("scales", fmt::format("scale {} is not in 1..100", s));
  c.experiments = list_of<int>(preset, j, "experiments", "kriging");
  for (int e : c.experiments)
    if (e < 1 || e > 8) throw preset.error_at("experiments", fmt::format("no experiment {} (1..8)", e));
  if (j.contains("exp7_precisions"))
    for (const auto& p : list_of<std::string>(preset, j, "exp7_precisions", "kriging"))
      c.exp7_precisions.push_back(parse_prec(preset, p, "exp7_precisions"));
  else
    c.exp7_precisions = {Prec::f32, Prec::f64};
  for (const auto& p : overrides.precisions) c.precisions.push_back(parse_prec(preset, p, "precision"));
  if (j.contains("cpu_programs")) {
    if (!j["cpu_programs"].is_boolean()) throw preset.error_at("cpu_programs", "'cpu_programs' must be true or false");
    c.cpu_programs = j["cpu_programs"].get<bool>();
  }
  if (j.contains("cpu_sample_estimates")) {
    if (!j["cpu_sample_estimates"].is_number() || !(j["cpu_sample_estimates"].get<double>() >= 1000))
      throw preset.error_at("cpu_sample_estimates", "'cpu_sample_estimates' must be a number >= 1000");
    c.cpu_sample_estimates = j["cpu_sample_estimates"].get<double>();
  }
  if (j.contains("well_sweep")) {
    const auto& w = j["well_sweep"];
    preset.check_keys(w, "well_sweep", {"wells", "scales", "experiments"});
    c.sweep.wells = list_of<std::size_t>(preset, w, "wells", "well_sweep");
    c.sweep.scales = list_of<int>(preset, w, "scales", "well_sweep");
    c.sweep.experiments = list_of<int>(preset, w, "experiments", "well_sweep");
    for (std::size_t n : c.sweep.wells)
      if (n < 2 || n > 4096) throw preset.error_at("wells", fmt::format("{} wells is not in 2..4096", n));
    for (int e : c.sweep.experiments)
      if (e < 1 || e > 8) throw preset.error_at("experiments", fmt::format("no experiment {} (1..8)", e));
  }
  return c;
}

// --- inputs and references, cached ---------------------------------------------------------

const datasets::KrigingCase& kriging_case(int scale, std::size_t wells) {
  static std::map<std::pair<int, std::size_t>, datasets::KrigingCase> cache;
  const auto key = std::make_pair(scale, wells);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, datasets::generate_kriging_case({.scale = scale, .wells = wells})).first;
  return it->second;
}

template <class T>
const kriging::KrigingInput<T>& input(int scale, std::size_t wells) {
  static std::map<std::pair<int, std::size_t>, kriging::KrigingInput<T>> cache;
  const auto key = std::make_pair(scale, wells);
  auto it = cache.find(key);
  if (it == cache.end()) {
    if (cache.size() >= 2) cache.erase(cache.begin());
    const auto& c = kriging_case(scale, wells);
    it = cache.emplace(key, kriging::make_input<T>(c.wells, c.grid, kriging::Variogram::for_domain(c.width, c.height)))
             .first;
  }
  return it->second;
}

template <class T>
const kriging::CheckReference& reference(int scale, std::size_t wells) {
  static std::map<std::pair<int, std::size_t>, kriging::CheckReference> cache;
  const auto key = std::make_pair(scale, wells);
  auto it = cache.find(key);
  if (it == cache.end()) {
    if (cache.size() >= 2) cache.erase(cache.begin());
    const auto& in = input<T>(scale, wells);
    it = cache.emplace(key, kriging::make_check_reference(in, kriging::reference_points(in.points(), in.wells))).first;
  }
  return it->second;
}

// --- validation -------------------------------------------------------------------------------

struct GpuVariant {
  int experiment;
  Prec prec;
  int scale;
  std::size_t wells;
};

template <class T, class U>
std::pair<double, double> max_difference(const std::vector<T>& a, const std::vector<U>& b) {
  double worst = 0, scale = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    worst = std::max(worst, std::abs(double(a[k]) - double(b[k])));
    scale = std::max(scale, std::abs(double(b[k])));
  }
  return {worst, scale > 0 ? worst / scale : worst};
}

template <class T>
kriging::EstimateCheck validate(const GpuVariant& v, const kriging::DeviceRun<T>& run) {
  const kriging::CheckReference& ref = reference<T>(v.scale, v.wells);
  if (run.unwritten > 0) {  // checked first: a skipped point would otherwise read as NaN
    const std::size_t points = ref.in.points();
    kriging::EstimateCheck out;
    out.message = fmt::format("validation: {} of {} estimates never written (first: surface {}, grid point {})",
                              run.unwritten, run.estimates.size(), run.first_unwritten / points,
                              run.first_unwritten % points);
    return out;
  }
  return kriging::check_estimates(ref, run.estimates, kriging::float_algorithm_of(v.experiment));
}

void report_validation(benchmark::State& state, const kriging::EstimateCheck& check_result) {
  state.counters["max_abs_err"] = check_result.max_abs;
  state.counters["max_rel_err"] = check_result.max_rel;
  state.counters["tolerance"] = check_result.tolerance;
  state.counters["checked_points"] = double(check_result.checked);
  state.counters["kappa"] = check_result.kappa;
  state.counters["unvalidated"] = check_result.unvalidated ? 1 : 0;
}

//! Empty if a run of the case fits in host (and device) memory, else why not.
std::string memory_shortfall_of(int experiment, int scale, std::size_t wells, std::size_t value_bytes, bool on_device) {
  const auto& g = kriging_case(scale, wells).grid;
  const auto b = kriging::run_bytes(experiment, g.nx, g.ny, datasets::kKrigingBaseSurfaces, wells, value_bytes, on_device);
  const std::string why = memory_shortfall({.host_bytes = b.host, .device_bytes = b.device});
  return why.empty() ? why : "does not fit: " + why;
}

template <class T>
void run_gpu_typed(benchmark::State& state, const GpuVariant& v, const std::string& name) {
  if (const std::string why = memory_shortfall_of(v.experiment, v.scale, v.wells, sizeof(T), true); !why.empty()) {
    state.SkipWithError(why.c_str());
    return;
  }
  const auto& in = input<T>(v.scale, v.wells);
  std::unique_ptr<kriging::DeviceExperiment<T>> experiment;
  try {
    experiment = std::make_unique<kriging::DeviceExperiment<T>>(v.experiment, in);
  } catch (const datasets::InputError& e) {  // a design limit (constant memory, solver capacity)
    state.SkipWithError(fmt::format("does not run: {}", e.what()).c_str());
    return;
  }
  cudaStream_t stream = env().timer->stream();
  kriging::EstimateCheck check_result;
  double vs5_abs = -1, vs5_rel = -1;  // exp 6 vs exp 5 over all estimates (-1: not measured)
  try {
    const auto checked = experiment->run(stream, kriging::Poison::yes);
    check_result = validate(v, checked);
    if (check_result.ok && v.experiment == 6) {
      // The paper's accuracy report: exp 6 (float, fast math) against exp 5 (double) on the
      // original input, over every estimate, where exp 5 can run.
      const auto& in_d = input<double>(v.scale, v.wells);
      try {
        kriging::check_device_experiment(5, in_d.wells, in_d.surfaces, sizeof(double));
        const auto r5 = kriging::run_device_experiment(5, in_d, stream);
        std::tie(vs5_abs, vs5_rel) = max_difference(checked.estimates, r5.estimates);
      } catch (const datasets::InputError&) {
      }
    }
  } catch (const kriging::SingularSystem& e) {
    check_result.message = e.what();
  }
  if (!check_result.ok) {
    state.SkipWithError(check_result.message.c_str());
    return;
  }
  double device_total = 0, host_solve_total = 0;
  std::size_t device_runs = 0, host_solves = 0;
  const double seconds = env().timer->run_self_timed(state, name, [&](cudaStream_t s) {
    const auto r = experiment->run(s);
    if (std::isfinite(r.device_seconds)) device_total += r.device_seconds, ++device_runs;
    if (std::isfinite(r.host_solve_seconds)) host_solve_total += r.host_solve_seconds, ++host_solves;
    return r.seconds;
  });
  if (host_solves > 0) state.counters["host_solve_s"] = host_solve_total / double(host_solves);
  const double estimates = double(in.points()) * double(in.surfaces);
  state.counters["estimates"] = estimates;
  state.counters["estimates_per_s"] = estimates / seconds;
  report_validation(state, check_result);
  if (vs5_abs >= 0) {
    state.counters["vs_exp5_max_abs"] = vs5_abs;
    state.counters["vs_exp5_max_rel"] = vs5_rel;
  }
  if (device_runs > 0) {
    // Device-only time against writing the estimates once at the measured copy bandwidth.
    const double device_s = device_total / double(device_runs);
    const double output_bytes = estimates * sizeof(T);
    const double bound = output_bytes / (env().ceilings.copy_bandwidth_gbs * 1e9);
    state.counters["device_s"] = device_s;
    state.counters["output_bytes"] = output_bytes;
    state.counters["memory_bound_s"] = bound;
    state.counters["x_memory_bound"] = device_s / bound;
    state.counters["pct_copy_bandwidth"] = 100.0 * bound / device_s;
    if (v.experiment == 8) {
      // Its compute bound: per (point, well) one exp and one FMA (the covariance; the exp
      // counted as one FMA-slot instruction, a lower bound), per (point, well, surface) one
      // FMA, against the FMA ceiling of its precision.
      const double fmas = double(in.points()) * double(in.wells) * (2.0 + double(in.surfaces));
      const double rate = sizeof(T) == 4 ? env().ceilings.fp32_fma_per_s : env().ceilings.fp64_fma_per_s;
      if (rate > 0) {
        state.counters["compute_bound_s"] = fmas / rate;
        state.counters["pct_fma_ceiling"] = 100.0 * (fmas / rate) / device_s;
      }
    }
  }
}

void run_gpu(benchmark::State& state, const GpuVariant& v, const std::string& name) {
  if (v.prec == Prec::f32)
    run_gpu_typed<float>(state, v, name);
  else
    run_gpu_typed<double>(state, v, name);
}

// --- CPU programs ----------------------------------------------------------------------------

struct CpuVariant {
  kriging::CpuProgram program;
  Prec prec;
  int scale;
  double sample_estimates;
};

//! Every k-th mesh row: each grid point costs the same, so a sample's time scales by P / P'.
template <class T>
kriging::KrigingInput<T> sampled_rows(const kriging::KrigingInput<T>& in, std::size_t every) {
  kriging::KrigingInput<T> s = in;
  s.grid_y.clear();
  for (std::size_t i = 0; i < in.grid_y.size(); i += every) s.grid_y.push_back(in.grid_y[i]);
  return s;
}

//! Points of a CPU program's output checked against the reference (an even spread).
constexpr double kCpuCheckedPoints = 4096;

template <class T>
void run_cpu_typed(benchmark::State& state, const CpuVariant& v) {
  if (const std::string why = memory_shortfall_of(static_cast<int>(v.program), v.scale, datasets::kKrigingBaseWells,
                                                  sizeof(T), false);
      !why.empty()) {
    state.SkipWithError(why.c_str());
    return;
  }
  const auto& in = input<T>(v.scale, datasets::kKrigingBaseWells);
  const double estimates = double(in.points()) * double(in.surfaces);
  const std::size_t every = estimates > v.sample_estimates ? std::size_t(std::ceil(estimates / v.sample_estimates)) : 1;
  const kriging::KrigingInput<T> sample = every > 1 ? sampled_rows(in, every) : in;
  const double factor = double(in.points()) / double(sample.points());
  double total_s = 0;
  kriging::EstimateCheck check_result;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    auto out = kriging::run_cpu_program(v.program, sample);
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() * factor;
    benchmark::DoNotOptimize(out.data());
    state.SetIterationTime(dt);
    total_s += dt;
    if (!check_result.ok) {  // the first run's output, at spread points of the sample
      const double m = double(sample.wells + 1);
      check_result = kriging::check_estimates(kriging::make_check_reference(sample, kriging::reference_points(sample.points(), sample.wells,
                                                                                kCpuCheckedPoints * m * m)),
                              out, kriging::float_algorithm_of(static_cast<int>(v.program)));
      if (!check_result.ok) {
        state.SkipWithError(check_result.message.c_str());
        break;
      }
    }
  }
  if (!check_result.ok) return;
  report_validation(state, check_result);
  state.counters["estimates"] = estimates;
  state.counters["estimates_per_s"] = estimates * double(state.iterations()) / total_s;
  state.counters["sampled"] = every > 1 ? 1 : 0;
  state.counters["sample_points"] = double(sample.points());
}

void run_cpu(benchmark::State& state, const CpuVariant& v) {
  if (v.prec == Prec::f32)
    run_cpu_typed<float>(state, v);
  else
    run_cpu_typed<double>(state, v);
}

const char* layout_of(int experiment) {
  if (experiment >= 7) return "dense";
  return experiment >= 5 ? "aos-const" : "soa";
}

}  // namespace

std::vector<PlannedBenchmark> plan_kriging(const Preset& preset, const Overrides& overrides) {
  const Config c = read_config(preset, overrides);
  auto wanted = [&](Prec p) { return c.precisions.empty() || std::find(c.precisions.begin(), c.precisions.end(), p) != c.precisions.end(); };
  std::vector<PlannedBenchmark> plan;
  std::vector<std::string> names;
  auto add_gpu = [&](int e, Prec p, int scale, std::size_t wells) {
    if (!wanted(p)) return;
    std::string name = fmt::format("kriging/ok/gpu-exp{}/{}/{}/scale:{}/wells:{}", e, layout_of(e), to_string(p), scale, wells);
    if (std::find(names.begin(), names.end(), name) != names.end()) return;
    names.push_back(name);
    const GpuVariant v{e, p, scale, wells};
    plan.push_back({name, [v, name](benchmark::State& st) { run_gpu(st, v, name); }});
  };
  auto gpu_precisions = [&](int e) {
    if (e >= 7) return c.exp7_precisions;
    return std::vector<Prec>{e == 6 ? Prec::f32 : Prec::f64};
  };
  for (int scale : c.scales) {
    if (c.cpu_programs) {
      using P = kriging::CpuProgram;
      for (auto [program, prec] : {std::pair{P::rebuild_every_point, Prec::f64}, std::pair{P::reuse_matrix, Prec::f64},
                                   std::pair{P::shared_weights, Prec::f64}, std::pair{P::shared_weights, Prec::f32},
                                   std::pair{P::dual, Prec::f64}, std::pair{P::dual, Prec::f32}}) {
        if (!wanted(prec)) continue;
        const CpuVariant v{program, prec, scale, c.cpu_sample_estimates};
        plan.push_back({fmt::format("kriging/ok/cpu-exp{}/{}/{}/scale:{}/wells:{}", int(program),
                                    program == P::dual ? "dense" : "soa", to_string(prec), scale,
                                    datasets::kKrigingBaseWells),
                        [v](benchmark::State& st) { run_cpu(st, v); }});
      }
    }
    for (int e : c.experiments)
      for (Prec p : gpu_precisions(e)) add_gpu(e, p, scale, datasets::kKrigingBaseWells);
  }
  for (int scale : c.sweep.scales)
    for (std::size_t wells : c.sweep.wells)
      for (int e : c.sweep.experiments)
        for (Prec p : gpu_precisions(e)) add_gpu(e, p, scale, wells);
  return plan;
}

}  // namespace lb::harness

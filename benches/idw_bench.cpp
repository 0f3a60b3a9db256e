//! IDW (Mei & Tian 2016) benchmarks: every GPU version x layout x precision x power x size,
//! each validated against the double CPU reference before it is timed, plus the paper's
//! single-core CPU baseline and an OpenMP CPU time.

#include <omp.h>

#include <chrono>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "lb/common/cuda_check.hpp"
#include "lb/datasets/points.hpp"
#include "lb/exec/cpu_launcher.hpp"
#include "lb/harness/gpu_timer.hpp"
#include "lb/harness/memory_fit.hpp"
#include "lb/harness/suite.hpp"
#include "lb/idw/device.hpp"
#include "lb/idw/naive_body.hpp"
#include "lb/idw/reference.hpp"
#include "lb/idw/validation.hpp"
#include "lb/layout/host_storage.hpp"

namespace lb::harness {
namespace {

using idw::Precision;
using idw::Version;

constexpr std::uint64_t kDataSeed = 20160104;        // the paper's publication date
constexpr std::uint64_t kPredictionSeed = 20160105;  // a different stream for prediction points
constexpr double kSerialBudget = 0x1.0p25;           // interactions per timed CPU run (serial)
constexpr double kOpenMPBudget = 0x1.0p29;

//! What one version runs, where the preset narrows it ("version_overrides"): e.g. the
//! original CDP version only at the sizes where a child grid per point is affordable.
struct VersionScope {
  std::vector<std::size_t> sizes;    //!< empty = all sizes
  std::vector<std::string> layouts;  //!< empty = all layouts
  std::vector<double> powers;        //!< empty = all powers
  std::map<double, std::size_t> max_size_by_power;  //!< e.g. p = 3 (pow) only up to 100K
};

struct Config {
  std::vector<std::size_t> sizes;
  std::vector<Version> versions;
  std::vector<std::string> layouts;  //!< empty = all layouts of each precision
  std::vector<Precision> precisions;
  std::vector<double> powers;
  int block = 256;
  bool cpu_baselines = true;
  std::map<Version, VersionScope> scopes;

  template <class V>
  static bool admits(const std::vector<V>& allowed, const V& v) {
    return allowed.empty() || std::find(allowed.begin(), allowed.end(), v) != allowed.end();
  }
  bool runs(Version version, const std::string& layout, double p, std::size_t size) const {
    const auto it = scopes.find(version);
    if (!admits(layouts, layout)) return false;
    if (it == scopes.end()) return true;
    const VersionScope& scope = it->second;
    const auto cap = scope.max_size_by_power.find(p);
    return admits(scope.sizes, size) && admits(scope.layouts, layout) && admits(scope.powers, p) &&
           (cap == scope.max_size_by_power.end() || size <= cap->second);
  }
};

template <class T>
std::vector<T> list_of(const Preset& preset, const nlohmann::json& j, const char* key, std::string_view where = "idw") {
  return preset.list_at<T>(j, key, where);
}

Config read_config(const Preset& preset, const Overrides& overrides) {
  if (!preset.suites.contains("idw")) throw preset.error_at("suites", "this preset has no 'idw' suite");
  const auto& j = preset.suites["idw"];
  preset.check_keys(j, "idw",
                    {"sizes", "versions", "layouts", "precisions", "powers", "block", "cpu_baselines", "version_overrides"});
  Config c;
  c.sizes = overrides.sizes.empty() ? list_of<std::size_t>(preset, j, "sizes") : overrides.sizes;
  for (std::size_t s : c.sizes)
    if (s < 1) throw preset.error_at("sizes", "sizes must be positive");
  auto parse_each = [&](const std::vector<std::string>& names, const char* key, auto parse) {
    std::vector<decltype(parse(std::string{}))> out;
    for (const auto& n : names) {
      try {
        out.push_back(parse(n));
      } catch (const std::invalid_argument& e) {
        throw preset.error_at(key, e.what());
      }
    }
    return out;
  };
  c.versions = parse_each(list_of<std::string>(preset, j, "versions"), "versions", idw::parse_version);
  const auto precision_names =
      overrides.precisions.empty() ? list_of<std::string>(preset, j, "precisions") : overrides.precisions;
  c.precisions = parse_each(precision_names, "precisions", idw::parse_precision);
  c.powers = list_of<double>(preset, j, "powers");
  for (double p : c.powers)
    if (!(p > 0)) throw preset.error_at("powers", "powers must be positive");
  auto check_layouts = [&](const std::vector<std::string>& names) {
    for (const auto& l : names) {
      bool known = false;
      for (Precision p : {Precision::f32, Precision::f64})
        for (const auto& name : idw::layout_names(p)) known = known || name == l;
      if (!known) throw preset.error_at("layouts", fmt::format("unknown layout '{}'", l));
    }
  };
  if (j.contains("layouts") && !(j["layouts"].is_string() && j["layouts"] == "all")) {
    c.layouts = list_of<std::string>(preset, j, "layouts");
    check_layouts(c.layouts);
  }
  if (j.contains("version_overrides")) {
    preset.check_keys(j["version_overrides"], "version_overrides", {"naive", "tiled", "cdp-original", "cdp-improved", "roofline"});
    for (const auto& [name, o] : j["version_overrides"].items()) {
      preset.check_keys(o, name, {"sizes", "layouts", "powers", "max_size_by_power"});
      VersionScope scope;
      if (o.contains("sizes")) scope.sizes = list_of<std::size_t>(preset, o, "sizes", name);
      if (o.contains("layouts")) check_layouts(scope.layouts = list_of<std::string>(preset, o, "layouts", name));
      if (o.contains("powers")) scope.powers = list_of<double>(preset, o, "powers", name);
      if (o.contains("max_size_by_power")) {
        const auto& caps = o["max_size_by_power"];
        if (!caps.is_object()) throw preset.error_at("max_size_by_power", "'max_size_by_power' maps a power to a size");
        for (const auto& [power, size] : caps.items()) {
          double p = 0;
          try {
            p = std::stod(power);
          } catch (const std::exception&) {
            throw preset.error_at(power, fmt::format("'{}' is not a power", power));
          }
          if (!size.is_number_unsigned()) throw preset.error_at(power, "a maximum size must be a positive integer");
          scope.max_size_by_power[p] = size.get<std::size_t>();
        }
      }
      c.scopes[idw::parse_version(name)] = scope;
    }
  }
  if (j.contains("block")) {
    if (!j["block"].is_number_integer() || j["block"].get<int>() < 32 || j["block"].get<int>() > 1024 ||
        j["block"].get<int>() % 32 != 0)
      throw preset.error_at("block", "'block' must be a multiple of 32 in [32, 1024]");
    c.block = j["block"].get<int>();
  }
  if (j.contains("cpu_baselines")) c.cpu_baselines = j["cpu_baselines"].get<bool>();
  return c;
}

std::string power_text(double p) { return fmt::format("{:g}", p); }

// --- data, references and device problems, cached across benchmarks -------------------

struct Inputs {
  datasets::PointSet data, pred;
};

const Inputs& inputs(std::size_t size) {
  static std::map<std::size_t, Inputs> cache;
  auto it = cache.find(size);
  if (it == cache.end()) {
    if (cache.size() >= 2) cache.erase(cache.begin());
    Inputs in{datasets::uniform_points(size, kDataSeed), datasets::uniform_points(size, kPredictionSeed)};
    it = cache.emplace(size, std::move(in)).first;
  }
  return it->second;
}

//! The inputs as a variant of precision `prec` sees them (rounded), cached per (size, prec).
const Inputs& rounded_inputs(std::size_t size, Precision prec) {
  static std::map<std::pair<std::size_t, Precision>, Inputs> cache;
  const auto key = std::make_pair(size, prec);
  auto it = cache.find(key);
  if (it == cache.end()) {
    if (cache.size() >= 2) cache.erase(cache.begin());
    const Inputs& in = inputs(size);
    it = cache.emplace(key, Inputs{idw::rounded_to(in.data, prec), idw::rounded_to(in.pred, prec)}).first;
  }
  return it->second;
}

//! What validation checks a variant against, cached per (size, precision, power, block): the
//! sample's reference values and the probes planted next to every data tile (see
//! lb/idw/validation.hpp).
const idw::ValidationSet& validation_set(std::size_t size, Precision prec, double p, int block) {
  static std::map<std::tuple<std::size_t, Precision, double, int>, idw::ValidationSet> cache;
  const auto key = std::make_tuple(size, prec, p, block);
  auto it = cache.find(key);
  if (it == cache.end()) {
    if (cache.size() >= 2) cache.erase(cache.begin());
    const Inputs& in = rounded_inputs(size, prec);
    it = cache.emplace(key, idw::make_validation_set(in.data, in.pred, prec, p, static_cast<std::size_t>(block))).first;
  }
  return it->second;
}

//! The device problem of the current (layout, precision, size); one at a time on the GPU.
idw::DeviceProblem& device_problem(const std::string& layout, Precision prec, std::size_t size) {
  static std::tuple<std::string, Precision, std::size_t> key;
  static std::unique_ptr<idw::DeviceProblem> problem;
  const auto wanted = std::make_tuple(layout, prec, size);
  if (!problem || key != wanted) {
    problem.reset();
    const Inputs& in = inputs(size);
    problem = idw::make_device_problem(layout, prec, in.data, in.pred);
    key = wanted;
  }
  return *problem;
}

//! Host and device bytes of one benchmark: the cached inputs (data and prediction points,
//! 3 doubles each), and one layout copy of both sets on the device (and in host staging
//! for the GPU versions).
MemoryNeed memory_need(const std::string& layout, Precision prec, std::size_t size, bool on_device) {
  const double inputs = 2.0 * 3 * sizeof(double) * double(size);
  const double copy = 2.0 * double(idw::footprint_bytes(layout, prec, size));
  return {.host_bytes = inputs + copy, .device_bytes = on_device ? copy : 0.0};
}

// --- validation ------------------------------------------------------------------------

struct GpuVariant {
  Version version;
  std::string layout;
  Precision prec;
  double p;
  std::size_t size;
  int block;
};

//! Runs the variant once on the validation set's points (the timed points with probes planted,
//! same launch configuration), checks it and puts the timed points back.
idw::Validation validate(idw::DeviceProblem& problem, const GpuVariant& v) {
  return idw::validate_on_device(problem, v.version, v.p, v.block, validation_set(v.size, v.prec, v.p, v.block),
                                 inputs(v.size).pred, env().timer->stream());
}

// --- the two kinds of benchmark --------------------------------------------------------

//! Lower bound on the time of m*n interactions from the measured ceilings: 6 FP operations
//! (2 sub, mul, fma, add, fma) plus one reciprocal each, whichever unit saturates first.
double compute_limit_s(double interactions, Precision prec) {
  const Ceilings& c = env().ceilings;
  if (prec == Precision::f32) return interactions * std::max(6.0 / c.fp32_fma_per_s, 1.0 / c.fp32_rcp_per_s);
  return interactions * 6.0 / c.fp64_fma_per_s;
}

void run_gpu(benchmark::State& state, const GpuVariant& v, const std::string& name) {
  static std::map<std::string, idw::Validation> validated;
  if (const std::string why = memory_shortfall(memory_need(v.layout, v.prec, v.size, true)); !why.empty()) {
    state.SkipWithError(fmt::format("does not fit: {}", why).c_str());
    return;
  }
  idw::DeviceProblem& problem = device_problem(v.layout, v.prec, v.size);
  auto it = validated.find(name);
  if (it == validated.end()) it = validated.emplace(name, validate(problem, v)).first;
  const idw::Validation& check_result = it->second;
  if (!check_result.ok) {
    state.SkipWithError(check_result.message.c_str());
    return;
  }
  const double seconds =
      env().timer->run(state, name, [&](cudaStream_t s) { problem.launch(v.version, v.p, v.block, s); });
  if (const std::size_t failed = problem.failed_device_launches(); failed > 0) {
    state.SkipWithError(fmt::format("{} device-side (CDP) launches failed during timing", failed).c_str());
    return;
  }
  const double interactions = static_cast<double>(v.size) * static_cast<double>(v.size);
  const double limit = compute_limit_s(interactions, v.prec);
  state.counters["interactions"] = interactions;
  state.counters["interactions_per_s"] = interactions / seconds;
  state.counters["limit_s"] = limit;
  state.counters["pct_of_limit"] = 100.0 * limit / seconds;
  state.counters["footprint_bytes"] = static_cast<double>(problem.footprint_bytes());
  state.counters["max_rel_err"] = check_result.max_rel_err;
  state.counters["checked_points"] = static_cast<double>(check_result.checked);
  state.counters["tolerance"] = check_result.tolerance;
  state.counters["checked_probes"] = static_cast<double>(check_result.probes);
  state.counters["max_probe_share"] = check_result.max_probe_share;
}

struct CpuVariant {
  bool parallel;
  Precision prec;
  double p;
  std::size_t size;
};

//! The paper's baseline: the naive body on the plain struct (AoS) layout, on one core (or
//! all cores with OpenMP). At large sizes a sample of prediction points is timed and the
//! time scaled by n / sample (every point does identical work); the entry says so. Its
//! output is validated before timing, as the GPU versions' are.
void run_cpu(benchmark::State& state, const CpuVariant& v) {
  if (const std::string why = memory_shortfall(memory_need("aos", v.prec, v.size, false)); !why.empty()) {
    state.SkipWithError(fmt::format("does not fit: {}", why).c_str());
    return;
  }
  idw::dispatch("aos", v.prec, [&]<class Layout, class T>() {
    using M = idw::MappingOf<Layout, T>;
    const Inputs& in = inputs(v.size);
    layout::HostStorage<M> data(M{v.size}), pred(M{v.size});
    auto value = [](const datasets::PointSet& s, std::size_t i, T z) {
      layout::RecordValue<idw::Point<T>> r;
      r.template get<idw::X>() = static_cast<T>(s.x[i]);
      r.template get<idw::Y>() = static_cast<T>(s.y[i]);
      r.template get<idw::Z>() = z;
      return r;
    };
    layout::fill(data.view(), [&](std::size_t i) { return value(in.data, i, static_cast<T>(in.data.z[i])); });
    // Outputs start as NaN: the validation run must write every point it checks.
    layout::fill(pred.view(), [&](std::size_t i) { return value(in.pred, i, std::numeric_limits<T>::quiet_NaN()); });
    const double interactions = static_cast<double>(v.size) * static_cast<double>(v.size);
    const double budget = v.parallel ? kOpenMPBudget : kSerialBudget;
    const std::size_t min_sample = v.parallel ? 256 : 32;
    const bool sampled = interactions > budget;
    const std::size_t count =
        sampled ? std::min(v.size, std::max(min_sample, static_cast<std::size_t>(budget / v.size))) : v.size;
    auto index_of = [&](std::size_t k) { return count == v.size ? k : k * (v.size - 1) / (count - 1); };
    double total_s = 0;
    idw::Validation check_result;
    idw::with_power(v.p, [&](auto power) {
      const idw::NaiveBody body{data.view(), pred.view(), power};
      auto run_once = [&] {
        if (v.parallel)
          exec::run_openmp_on(count, index_of, body);
        else
          exec::run_serial_on(count, index_of, body);
      };
      const Inputs& rounded = rounded_inputs(v.size, v.prec);
      check_result = idw::validate_cpu_run(rounded.data, rounded.pred, v.prec, v.p, idw::cpu_check_points(count, index_of),
                                           run_once, [&](std::size_t i) { return pred.view().template get<idw::Z>(i); });
      if (!check_result.ok) return;
      for (auto _ : state) {
        const auto t0 = std::chrono::steady_clock::now();
        run_once();
        const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const double scaled = dt * static_cast<double>(v.size) / static_cast<double>(count);
        state.SetIterationTime(scaled);
        total_s += scaled;
        benchmark::DoNotOptimize(pred.blob(0));
      }
    });
    if (!check_result.ok) {
      state.SkipWithError(check_result.message.c_str());
      return;
    }
    state.counters["interactions"] = interactions;
    state.counters["interactions_per_s"] = interactions * static_cast<double>(state.iterations()) / total_s;
    state.counters["sampled"] = sampled ? 1 : 0;
    state.counters["sample_points"] = static_cast<double>(count);
    state.counters["omp_threads"] = v.parallel ? omp_get_max_threads() : 1;
    state.counters["max_rel_err"] = check_result.max_rel_err;
    state.counters["checked_points"] = static_cast<double>(check_result.checked);
    state.counters["tolerance"] = check_result.tolerance;
  });
}

}  // namespace

std::vector<PlannedBenchmark> plan_idw(const Preset& preset, const Overrides& overrides) {
  const Config c = read_config(preset, overrides);
  std::vector<PlannedBenchmark> plan;
  for (std::size_t size : c.sizes)
    for (Precision prec : c.precisions) {
      if (c.cpu_baselines)
        for (double p : c.powers)
          for (bool parallel : {false, true}) {
            const CpuVariant v{parallel, prec, p, size};
            plan.push_back({fmt::format("idw/shepard/{}/aos/{}/p:{}/size:{}", parallel ? "cpu-omp" : "cpu-serial",
                                        idw::to_string(prec), power_text(p), size),
                            [v](benchmark::State& st) { run_cpu(st, v); }});
          }
      for (const auto& layout : idw::layout_names(prec)) {
        for (Version version : c.versions)
          for (double p : c.powers) {
            if (!c.runs(version, layout, p, size)) continue;
            const GpuVariant v{version, layout, prec, p, size, c.block};
            std::string name = fmt::format("idw/shepard/{}/{}/{}/p:{}/size:{}/block:{}", idw::to_string(version),
                                           layout, idw::to_string(prec), power_text(p), size, c.block);
            plan.push_back({name, [v, name](benchmark::State& st) { run_gpu(st, v, name); }});
          }
      }
    }
  return plan;
}

}  // namespace lb::harness

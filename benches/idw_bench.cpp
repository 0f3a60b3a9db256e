//! IDW (Mei & Tian 2016) benchmarks: every GPU version x layout x precision x power x size,
//! each validated against the double CPU reference before it is timed, plus the paper's
//! single-core CPU baseline and an OpenMP CPU time; each a program variant
//! (lb/harness/program.hpp); the one planner (lb/harness/plan.hpp) names and runs them.

#include <omp.h>

#include <limits>
#include <map>
#include <memory>
#include <tuple>

#include <fmt/format.h>

#include "lb/datasets/points.hpp"
#include "lb/exec/cpu_launcher.hpp"
#include "lb/harness/memory_fit.hpp"
#include "lb/harness/plan.hpp"
#include "lb/harness/program.hpp"
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

Config read_config(const Preset& preset, const nlohmann::json& j, const Overrides& overrides) {
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

// --- the two kinds of benchmark, as program variants ---------------------------------------

//! What one run of n prediction points against n data points does: n^2 interactions of 6 FP
//! operations (2 sub, mul, fma, add, fma) plus one reciprocal each, whichever unit saturates
//! first; an ideal cache reads the data (x, y, z) and prediction points (x, y) once and writes
//! the n values.
Work idw_work(Precision prec, std::size_t size) {
  const double n = static_cast<double>(size), interactions = n * n;
  const double value_bytes = prec == Precision::f32 ? sizeof(float) : sizeof(double);
  Work w{.unit = "interactions", .units = interactions, .bytes_read = 5 * value_bytes * n, .bytes_written = value_bytes * n};
  if (prec == Precision::f32) {
    w.fp32_fma = 6 * interactions;
    w.fp32_special = interactions;
  } else {
    w.fp64_fma = 6 * interactions;
  }
  return w;
}

Check check_of(const idw::Validation& v) {
  return {v.ok, v.message, false, {{"max_rel_err", v.max_rel_err}, {"checked", double(v.checked)}, {"tolerance", v.tolerance}}};
}

struct GpuCase {
  Version version;
  std::string layout;
  Precision prec;
  double p;
  std::size_t size;
  int block;
};

//! One GPU version on the cached device problem of its (layout, precision, size). Its
//! validation run computes the validation set's points (the timed ones with probes planted:
//! same count, same launch configuration) and puts the timed points back.
class GpuIdw final : public Variant {
 public:
  explicit GpuIdw(const GpuCase& c) : c_(c) {}
  void setup(cudaStream_t) override { problem_ = &device_problem(c_.layout, c_.prec, c_.size); }
  void poison(cudaStream_t stream) override { idw::start_validation_run(*problem_, validation(), stream); }
  void run(cudaStream_t stream) override { problem_->launch(c_.version, c_.p, c_.block, stream); }
  Check validate(cudaStream_t stream) override {
    const idw::Validation v = idw::finish_validation_run(*problem_, validation(), inputs(c_.size).pred, stream);
    Check out = check_of(v);
    out.counters["checked_probes"] = static_cast<double>(v.probes);
    out.counters["max_probe_share"] = v.max_probe_share;
    return out;
  }
  std::string after_timing() override {
    const std::size_t failed = problem_->failed_device_launches();
    return failed > 0 ? fmt::format("{} device-side (CDP) launches failed during timing", failed) : "";
  }
  Work work() const override { return idw_work(c_.prec, c_.size); }
  double footprint_bytes() const override { return static_cast<double>(problem_->footprint_bytes()); }

 private:
  const idw::ValidationSet& validation() const { return validation_set(c_.size, c_.prec, c_.p, c_.block); }
  GpuCase c_;
  idw::DeviceProblem* problem_ = nullptr;
};

struct CpuCase {
  bool parallel;
  Precision prec;
  double p;
  std::size_t size;
};

//! The paper's baseline: the naive body on the plain struct (AoS) layout, on one core (or
//! all cores with OpenMP). At large sizes a sample of prediction points is run and the time
//! scaled by n / sample (every point does identical work: sampled_fraction); the entry says
//! so. Its output is validated before timing, as the GPU versions' are.
template <class T>
class CpuIdw final : public Variant {
  using M = idw::MappingOf<idw::LayoutAoS, T>;

 public:
  explicit CpuIdw(const CpuCase& c)
      : c_(c), data_(M{c.size}), pred_(M{c.size}), count_(sample_count(c)) {}
  void setup(cudaStream_t) override {
    const Inputs& in = inputs(c_.size);
    layout::fill(data_.view(), [&](std::size_t i) { return point(in.data, i, static_cast<T>(in.data.z[i])); });
    layout::fill(pred_.view(), [&](std::size_t i) { return point(in.pred, i, T{}); });
  }
  void poison(cudaStream_t) override {
    const Inputs& in = inputs(c_.size);
    layout::fill(pred_.view(), [&](std::size_t i) { return point(in.pred, i, std::numeric_limits<T>::quiet_NaN()); });
  }
  void run(cudaStream_t) override {
    idw::with_power(c_.p, [&](auto power) {
      const idw::NaiveBody body{data_.view(), pred_.view(), power};
      const auto index_of = [this](std::size_t k) { return sample_index(k); };
      if (c_.parallel)
        exec::run_openmp_on(count_, index_of, body);
      else
        exec::run_serial_on(count_, index_of, body);
    });
  }
  Check validate(cudaStream_t) override {
    const Inputs& rounded = rounded_inputs(c_.size, c_.prec);
    const auto points = idw::cpu_check_points(count_, [this](std::size_t k) { return sample_index(k); });
    return check_of(idw::check_cpu_run(rounded.data, rounded.pred, c_.prec, c_.p, points,
                                       [&](std::size_t i) { return pred_.view().template get<idw::Z>(i); }));
  }
  Work work() const override { return idw_work(c_.prec, c_.size); }
  double footprint_bytes() const override { return 2.0 * double(idw::footprint_bytes("aos", c_.prec, c_.size)); }
  double sampled_fraction() const override { return double(count_) / double(c_.size); }
  void add_counters(benchmark::State& state, double) const override {
    state.counters["sampled"] = count_ < c_.size ? 1 : 0;
    state.counters["sample_points"] = static_cast<double>(count_);
    state.counters["omp_threads"] = c_.parallel ? omp_get_max_threads() : 1;
  }

 private:
  //! All points, or an evenly spread sample of them when n^2 is over the budget of one run.
  static std::size_t sample_count(const CpuCase& c) {
    const double interactions = static_cast<double>(c.size) * static_cast<double>(c.size);
    const double budget = c.parallel ? kOpenMPBudget : kSerialBudget;
    const std::size_t min_sample = c.parallel ? 256 : 32;
    if (interactions <= budget) return c.size;
    return std::min(c.size, std::max(min_sample, static_cast<std::size_t>(budget / c.size)));
  }
  std::size_t sample_index(std::size_t k) const { return count_ == c_.size ? k : k * (c_.size - 1) / (count_ - 1); }
  static layout::RecordValue<idw::Point<T>> point(const datasets::PointSet& s, std::size_t i, T z) {
    layout::RecordValue<idw::Point<T>> r;
    r.template get<idw::X>() = static_cast<T>(s.x[i]);
    r.template get<idw::Y>() = static_cast<T>(s.y[i]);
    r.template get<idw::Z>() = z;
    return r;
  }
  CpuCase c_;
  layout::HostStorage<M> data_, pred_;
  std::size_t count_;
};

ProgramCase gpu_case(const GpuCase& c) {
  return {Where::gpu, memory_need(c.layout, c.prec, c.size, true), [c] { return std::make_unique<GpuIdw>(c); }};
}

ProgramCase cpu_case(const CpuCase& c) {
  return {Where::cpu, memory_need("aos", c.prec, c.size, false), [c]() -> std::unique_ptr<Variant> {
            if (c.prec == Precision::f32) return std::make_unique<CpuIdw<float>>(c);
            return std::make_unique<CpuIdw<double>>(c);
          }};
}

//! Shepard's IDW on its axes: <version>/<layout>/<precision>/p:<p>/size:<n>[/block:<b>].
BenchmarkId shepard_id(std::string_view version, std::string_view layout, Precision prec, double p, std::size_t size) {
  return {.version = std::string(version),
          .layout = std::string(layout),
          .precision = std::string(idw::to_string(prec)),
          .params = {{"p", power_text(p)}, {"size", std::to_string(size)}}};
}

std::vector<PlannedCase> plan_shepard(const Preset& preset, const nlohmann::json& j, std::string_view,
                                      const Overrides& overrides) {
  const Config c = read_config(preset, j, overrides);
  std::vector<PlannedCase> plan;
  for (std::size_t size : c.sizes)
    for (Precision prec : c.precisions) {
      if (c.cpu_baselines)
        for (double p : c.powers)
          for (bool parallel : {false, true}) {
            plan.push_back({shepard_id(parallel ? "cpu-omp" : "cpu-serial", "aos", prec, p, size),
                            cpu_case({parallel, prec, p, size})});
          }
      for (const auto& layout : idw::layout_names(prec)) {
        for (Version version : c.versions)
          for (double p : c.powers) {
            if (!c.runs(version, layout, p, size)) continue;
            BenchmarkId id = shepard_id(idw::to_string(version), layout, prec, p, size);
            id.params.emplace_back("block", std::to_string(c.block));
            plan.push_back({std::move(id), gpu_case({version, layout, prec, p, size, c.block})});
          }
      }
    }
  return plan;
}

}  // namespace

//! IDW's one program, Shepard's interpolation (the suite's section is its object).
Program shepard_program() {
  Axis versions{"version", {}}, layouts{"layout", {}};
  for (Version v : idw::gpu_versions()) versions.values.emplace_back(idw::to_string(v));
  versions.values.insert(versions.values.end(), {"cpu-serial", "cpu-omp"});
  for (Precision p : {Precision::f32, Precision::f64})
    for (const auto& l : idw::layout_names(p))
      if (std::find(layouts.values.begin(), layouts.values.end(), l) == layouts.values.end()) layouts.values.push_back(l);
  return {"shepard",
          {versions, layouts, {"precision", {"float", "double"}}, {"p", {}}, {"size", {}}, {"block", {}}},
          {"checked_probes", "max_probe_share", "sampled", "sample_points", "omp_threads"},
          plan_shepard};
}

}  // namespace lb::harness

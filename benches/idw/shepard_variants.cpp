#include "idw/shepard_variants.hpp"

#include <omp.h>

#include <limits>
#include <map>
#include <memory>
#include <tuple>

#include <fmt/format.h>

#include "lb/datasets/points.hpp"
#include "lb/exec/cpu_launcher.hpp"
#include "lb/harness/memory_fit.hpp"
#include "lb/idw/naive_body.hpp"
#include "lb/idw/reference.hpp"
#include "lb/idw/validation.hpp"
#include "lb/layout/host_storage.hpp"

namespace lb::benches::idw {
namespace {

constexpr std::uint64_t kDataSeed = 20160104;        // the paper's publication date
constexpr std::uint64_t kPredictionSeed = 20160105;  // a different stream for prediction points
constexpr double kSerialBudget = 0x1.0p25;           // interactions per timed CPU run (serial)
constexpr double kOpenMPBudget = 0x1.0p29;

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
    it = cache.emplace(key, Inputs{lb::idw::rounded_to(in.data, prec), lb::idw::rounded_to(in.pred, prec)}).first;
  }
  return it->second;
}

//! What validation checks a variant against, cached per (size, precision, power, block): the
//! sample's reference values and the probes planted next to every data tile (see
//! lb/idw/validation.hpp).
const lb::idw::ValidationSet& validation_set(std::size_t size, Precision prec, double p, int block) {
  static std::map<std::tuple<std::size_t, Precision, double, int>, lb::idw::ValidationSet> cache;
  const auto key = std::make_tuple(size, prec, p, block);
  auto it = cache.find(key);
  if (it == cache.end()) {
    if (cache.size() >= 2) cache.erase(cache.begin());
    const Inputs& in = rounded_inputs(size, prec);
    it = cache.emplace(key, lb::idw::make_validation_set(in.data, in.pred, prec, p, static_cast<std::size_t>(block))).first;
  }
  return it->second;
}

//! The device problem of the current (layout, precision, size); one at a time on the GPU.
lb::idw::DeviceProblem& device_problem(const std::string& layout, Precision prec, std::size_t size) {
  static std::tuple<std::string, Precision, std::size_t> key;
  static std::unique_ptr<lb::idw::DeviceProblem> problem;
  const auto wanted = std::make_tuple(layout, prec, size);
  if (!problem || key != wanted) {
    problem.reset();
    const Inputs& in = inputs(size);
    problem = lb::idw::make_device_problem(layout, prec, in.data, in.pred);
    key = wanted;
  }
  return *problem;
}

//! Host and device bytes of one benchmark: the cached inputs (data and prediction points,
//! 3 doubles each), and one layout copy of both sets on the device (and in host staging
//! for the GPU versions).
MemoryNeed memory_need(const std::string& layout, Precision prec, std::size_t size, bool on_device) {
  const double inputs = 2.0 * 3 * sizeof(double) * double(size);
  const double copy = 2.0 * double(lb::idw::footprint_bytes(layout, prec, size));
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

Check check_of(const lb::idw::Validation& v) {
  return {v.ok, v.message, false, {{"max_rel_err", v.max_rel_err}, {"checked", double(v.checked)}, {"tolerance", v.tolerance}}};
}


//! One GPU version on the cached device problem of its (layout, precision, size). Its
//! validation run computes the validation set's points (the timed ones with probes planted:
//! same count, same launch configuration) and puts the timed points back.
class GpuIdw final : public Variant {
 public:
  explicit GpuIdw(const GpuCase& c) : c_(c) {}
  void setup(cudaStream_t) override { problem_ = &device_problem(c_.layout, c_.prec, c_.size); }
  void poison(cudaStream_t stream) override { lb::idw::start_validation_run(*problem_, validation(), stream); }
  void run(cudaStream_t stream) override { problem_->launch(c_.version, c_.p, c_.block, stream); }
  Check validate(cudaStream_t stream) override {
    const lb::idw::Validation v = lb::idw::finish_validation_run(*problem_, validation(), inputs(c_.size).pred, stream);
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
  const lb::idw::ValidationSet& validation() const { return validation_set(c_.size, c_.prec, c_.p, c_.block); }
  GpuCase c_;
  lb::idw::DeviceProblem* problem_ = nullptr;
};


//! The paper's baseline: the naive body on the plain struct (AoS) layout, on one core (or
//! all cores with OpenMP). At large sizes a sample of prediction points is run and the time
//! scaled by n / sample (every point does identical work: sampled_fraction); the entry says
//! so. Its output is validated before timing, as the GPU versions' are.
template <class T>
class CpuIdw final : public Variant {
  using M = lb::idw::MappingOf<lb::idw::LayoutAoS, T>;

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
    lb::idw::with_power(c_.p, [&](auto power) {
      const lb::idw::NaiveBody body{data_.view(), pred_.view(), power};
      const auto index_of = [this](std::size_t k) { return sample_index(k); };
      if (c_.parallel)
        exec::run_openmp_on(count_, index_of, body);
      else
        exec::run_serial_on(count_, index_of, body);
    });
  }
  Check validate(cudaStream_t) override {
    const Inputs& rounded = rounded_inputs(c_.size, c_.prec);
    const auto points = lb::idw::cpu_check_points(count_, [this](std::size_t k) { return sample_index(k); });
    return check_of(lb::idw::check_cpu_run(rounded.data, rounded.pred, c_.prec, c_.p, points,
                                       [&](std::size_t i) { return pred_.view().template get<lb::idw::Z>(i); }));
  }
  Work work() const override { return idw_work(c_.prec, c_.size); }
  double footprint_bytes() const override { return 2.0 * double(lb::idw::footprint_bytes("aos", c_.prec, c_.size)); }
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
  static layout::RecordValue<lb::idw::Point<T>> point(const datasets::PointSet& s, std::size_t i, T z) {
    layout::RecordValue<lb::idw::Point<T>> r;
    r.template get<lb::idw::X>() = static_cast<T>(s.x[i]);
    r.template get<lb::idw::Y>() = static_cast<T>(s.y[i]);
    r.template get<lb::idw::Z>() = z;
    return r;
  }
  CpuCase c_;
  layout::HostStorage<M> data_, pred_;
  std::size_t count_;
};

}  // namespace

ProgramCase gpu_case(const GpuCase& c) {
  return {Where::gpu, memory_need(c.layout, c.prec, c.size, true), [c] { return std::make_unique<GpuIdw>(c); }};
}

ProgramCase cpu_case(const CpuCase& c) {
  return {Where::cpu, memory_need("aos", c.prec, c.size, false), [c]() -> std::unique_ptr<Variant> {
            if (c.prec == Precision::f32) return std::make_unique<CpuIdw<float>>(c);
            return std::make_unique<CpuIdw<double>>(c);
          }};
}

}  // namespace lb::benches::idw

// IDW validation on the CPU (lb/idw/validation.hpp): the probes catch a computation that skips
// one tile of data points, which a sample with the rigorous tolerance can miss at large sizes;
// the GPU tests' inputs (idw_cases.hpp) have a probe per tile; the CPU baselines are validated
// before they are timed, and a wrong body fails.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include <benchmark/benchmark.h>

#include "lb/datasets/points.hpp"
#include "lb/exec/cpu_launcher.hpp"
#include "lb/harness/preset.hpp"
#include "lb/harness/journal.hpp"
#include "lb/harness/suite.hpp"
#include "lb/idw/naive_body.hpp"
#include "lb/idw/validation.hpp"
#include "lb/layout/host_storage.hpp"

#include "idw_cases.hpp"

namespace {

using namespace lb;
using idw::Precision;

using FloatAoS = idw::MappingOf<idw::LayoutAoS, float>;

layout::HostStorage<FloatAoS> float_points(const datasets::PointSet& s) {
  layout::HostStorage<FloatAoS> h(FloatAoS{s.size()});
  layout::fill(h.view(), [&](std::size_t i) {
    layout::RecordValue<idw::Point<float>> r;
    r.get<idw::X>() = static_cast<float>(s.x[i]);
    r.get<idw::Y>() = static_cast<float>(s.y[i]);
    r.get<idw::Z>() = std::numeric_limits<float>::quiet_NaN();
    return r;
  });
  return h;
}

datasets::PointSet without(const datasets::PointSet& s, std::size_t first, std::size_t last) {
  datasets::PointSet r;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (i < first || i >= last) r.x.push_back(s.x[i]), r.y.push_back(s.y[i]), r.z.push_back(s.z[i]);
  return r;
}

//! The float naive body's outputs over `data` at the points the set checks (others 0).
std::vector<double> float_outputs(const datasets::PointSet& data, const idw::ValidationSet& set) {
  auto d = float_points(data);
  layout::fill(d.view(), [&](std::size_t i) {
    layout::RecordValue<idw::Point<float>> r = d.view().load(i);
    r.get<idw::Z>() = static_cast<float>(data.z[i]);
    return r;
  });
  auto q = float_points(set.pred);
  std::vector<std::size_t> points = set.indices;
  for (const auto& probe : set.probes) points.push_back(probe.pred_index);
  exec::run_openmp_on(points.size(), [&](std::size_t k) { return points[k]; },
                      idw::NaiveBody{d.view(), q.view(), idw::PowerTwo{}});
  std::vector<double> z(set.pred.size(), 0.0);
  for (std::size_t i : points) z[i] = q.view().get<idw::Z>(i);
  return z;
}

struct ProbeCase : ::testing::Test {
  static constexpr std::size_t kTile = 256;
  const datasets::PointSet data = idw::rounded_to(datasets::uniform_points(20000, 41), Precision::f32);
  const datasets::PointSet pred = idw::rounded_to(datasets::uniform_points(20000, 42), Precision::f32);
  const idw::ValidationSet set = idw::make_validation_set(data, pred, Precision::f32, 2.0, kTile);
};

TEST_F(ProbeCase, EveryTileHasAProbeAndTheRightAnswerPasses) {
  EXPECT_EQ(set.tiles, (data.size() + kTile - 1) / kTile);
  EXPECT_EQ(set.probes.size(), set.tiles);
  const auto v = idw::check_outputs(set, float_outputs(data, set));
  EXPECT_TRUE(v.ok) << v.message;
  EXPECT_EQ(v.probes, set.tiles);
  EXPECT_LT(v.max_probe_share, 1.0);
  // The bounds say something: well below the data's spread (values in [0, 1000)).
  for (const auto& probe : set.probes) ASSERT_LT(probe.bound, 20.0) << "probe " << probe.pred_index;
}

TEST_F(ProbeCase, ASkippedTileFailsOnItsProbe) {
  for (std::size_t tile : {std::size_t(0), std::size_t(40), set.tiles - 1}) {
    const std::size_t first = tile * kTile, last = std::min(data.size(), first + kTile);
    const auto v = idw::check_outputs(set, float_outputs(without(data, first, last), set));
    EXPECT_FALSE(v.ok) << "tile " << tile << " skipped, validation passed";
    EXPECT_NE(v.message.find("probe"), std::string::npos) << v.message;
  }
}

TEST_F(ProbeCase, ProbesReplacePointsButKeepTheCount) {
  ASSERT_EQ(set.pred.size(), pred.size());
  std::size_t moved = 0;
  for (std::size_t i = 0; i < pred.size(); ++i) moved += set.pred.x[i] != pred.x[i] || set.pred.y[i] != pred.y[i];
  EXPECT_EQ(moved, set.probes.size());
  for (const auto& probe : set.probes) {
    // Rounded like the data, and well outside the coincidence distance.
    EXPECT_EQ(set.pred.x[probe.pred_index], double(float(set.pred.x[probe.pred_index])));
    const double dx = set.pred.x[probe.pred_index] - data.x[probe.data_index];
    const double dy = set.pred.y[probe.pred_index] - data.y[probe.data_index];
    EXPECT_GT(dx * dx + dy * dy, 100 * idw::kCoincidentD2);
    EXPECT_EQ(probe.expected, data.z[probe.data_index]);
  }
}

// --- the GPU tests' inputs (idw_cases.hpp) ------------------------------------------------

TEST(IdwGpuTestInputs, EveryTileHasAProbeAndOnePointSitsOnADataPoint) {
  // The cases as test_idw_gpu.cpp runs them: the small ones at p = 2 and 3, the others at 2.
  std::vector<std::pair<lb::testing::IdwCase, double>> cases;
  for (double p : {2.0, 3.0})
    for (const auto& c : lb::testing::kIdwSmallCases) cases.emplace_back(c, p);
  cases.emplace_back(lb::testing::kRooflineOverflowCase, 2.0);
  for (const auto& c : lb::testing::kRooflineOddBlockCases) cases.emplace_back(c, 2.0);
  cases.emplace_back(lb::testing::IdwCase{1024, 102400, 256}, 2.0);  // the CDP launch-count case: n > the sample
  for (Precision prec : {Precision::f32, Precision::f64})
    for (const auto& [c, p] : cases) {
      SCOPED_TRACE("m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) + " block=" + std::to_string(c.block) +
                   " p=" + std::to_string(p) + (prec == Precision::f32 ? " float" : " double"));
      const auto in = lb::testing::idw_case_inputs(c, prec, p);
      EXPECT_EQ(in.set.tiles, (c.m + c.block - 1) / c.block);
      EXPECT_EQ(in.set.probes.size(), in.set.tiles);
      ASSERT_EQ(in.set.pred.size(), c.n);
      EXPECT_EQ(in.set.pred.x[in.on_data], in.data.x[in.data_index]);
      EXPECT_EQ(in.set.pred.y[in.on_data], in.data.y[in.data_index]);
      for (const auto& probe : in.set.probes) EXPECT_NE(probe.pred_index, in.on_data);
      const auto at = std::find(in.set.indices.begin(), in.set.indices.end(), in.on_data);
      if (at != in.set.indices.end()) {
        EXPECT_EQ(in.set.reference[at - in.set.indices.begin()], in.data.z[in.data_index]);
      }
    }
}

TEST(IdwGpuTestInputs, TheGpuTestsCheckPassesTheRightOutputsAndFailsASkippedTile) {
  // What check_variant in test_idw_gpu.cpp does with a kernel's outputs, with the float naive
  // body on the CPU in the kernel's place.
  const auto in = lb::testing::idw_case_inputs(lb::testing::kIdwSmallCases[1], Precision::f32, 2.0);
  const auto right = float_outputs(in.data, in.set);
  const auto v = idw::check_outputs(in.set, right);
  EXPECT_TRUE(v.ok) << v.message;
  EXPECT_EQ(v.probes, in.set.tiles);
  EXPECT_EQ(right[in.on_data], in.data.z[in.data_index]);
  const std::size_t block = lb::testing::kIdwSmallCases[1].block;
  for (std::size_t tile : {std::size_t(0), in.set.tiles - 1}) {
    const std::size_t first = tile * block, last = std::min(in.data.size(), first + block);
    const auto skipped = idw::check_outputs(in.set, float_outputs(without(in.data, first, last), in.set));
    EXPECT_FALSE(skipped.ok) << "tile " << tile << " skipped, the check passed";
  }
}

TEST(IdwValidation, OutputsOfTheWrongCountFailWithoutReadingPastThem) {
  // A truncated read-back (or an empty one) is a failure named as such, never an index past
  // the outputs: before, check_outputs indexed z at every probe and sample point regardless.
  const auto in = lb::testing::idw_case_inputs(lb::testing::kIdwSmallCases[0], Precision::f32, 2.0);
  auto outputs = float_outputs(in.data, in.set);
  ASSERT_TRUE(idw::check_outputs(in.set, outputs).ok);
  for (std::size_t keep : {std::size_t(0), outputs.size() / 2, outputs.size() - 1}) {
    const std::vector<double> cut(outputs.begin(), outputs.begin() + static_cast<std::ptrdiff_t>(keep));
    const auto v = idw::check_outputs(in.set, cut);
    EXPECT_FALSE(v.ok) << keep << " outputs";
    EXPECT_NE(v.message.find("outputs for"), std::string::npos) << v.message;
  }
  const std::vector<std::size_t> indices = {0, 1, 2};
  const std::vector<double> reference = {1.0, 2.0, 3.0}, short_got = {1.0, 2.0};
  const auto v = idw::check_sample(indices, reference, short_got, 1e-6);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.message.find("3 sample points"), std::string::npos) << v.message;
}

// --- CPU baselines --------------------------------------------------------------------

//! A CPU run of the float naive body over `body_data`, validated against `data`'s reference.
idw::Validation cpu_run(const datasets::PointSet& data, const datasets::PointSet& body_data,
                        const datasets::PointSet& pred, bool writes) {
  auto d = float_points(body_data);
  layout::fill(d.view(), [&](std::size_t i) {
    layout::RecordValue<idw::Point<float>> r = d.view().load(i);
    r.get<idw::Z>() = static_cast<float>(body_data.z[i]);
    return r;
  });
  auto q = float_points(pred);
  const std::size_t count = 100;
  auto index_of = [&](std::size_t k) { return k * (pred.size() - 1) / (count - 1); };
  const auto points = idw::cpu_check_points(count, index_of, 40);
  const idw::NaiveBody body{d.view(), q.view(), idw::PowerTwo{}};
  if (writes) exec::run_serial_on(count, index_of, body);
  return idw::check_cpu_run(data, pred, Precision::f32, 2.0, points,
                            [&](std::size_t i) { return q.view().get<idw::Z>(i); });
}

TEST(IdwCpuBaseline, TheRightBodyPasses) {
  const auto data = idw::rounded_to(datasets::uniform_points(3000, 51), Precision::f32);
  const auto pred = idw::rounded_to(datasets::uniform_points(3000, 52), Precision::f32);
  const auto v = cpu_run(data, data, pred, true);
  EXPECT_TRUE(v.ok) << v.message;
  EXPECT_EQ(v.checked, 40u);
}

TEST(IdwCpuBaseline, AWrongBodyFails) {
  const auto data = idw::rounded_to(datasets::uniform_points(3000, 51), Precision::f32);
  const auto pred = idw::rounded_to(datasets::uniform_points(3000, 52), Precision::f32);
  // A body that misses the last 256 data points, and one that writes nothing (outputs stay NaN).
  const auto missing = cpu_run(data, without(data, 3000 - 256, 3000), pred, true);
  EXPECT_FALSE(missing.ok);
  EXPECT_NE(missing.message.find("CPU reference"), std::string::npos) << missing.message;
  EXPECT_FALSE(cpu_run(data, data, pred, false).ok);
}

//! Captures the runs Google Benchmark reports.
class Capture : public benchmark::BenchmarkReporter {
 public:
  std::vector<Run> runs;
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& r) override { runs.insert(runs.end(), r.begin(), r.end()); }
};

TEST(IdwCpuBaseline, TheBenchmarksValidateBeforeTiming) {
  // The planned cpu-serial and cpu-omp entries at a small size, run as `layoutbench run` runs
  // them: each reports the points it checked against the reference.
  const auto plan = harness::find_suite("idw").plan(harness::load_preset("quick"), harness::Overrides{{300}, {"float"}});
  int registered = 0;
  for (const auto& b : plan)
    if (b.name.find("/cpu-") != std::string::npos && b.name.find("/p:2/") != std::string::npos) {
      benchmark::RegisterBenchmark(b.name.c_str(), [run = b.run](benchmark::State& st) { run(st); })
          ->UseManualTime()
          ->Iterations(1);
      ++registered;
    }
  ASSERT_EQ(registered, 2);
  Capture capture;
  benchmark::RunSpecifiedBenchmarks(&capture);
  ASSERT_EQ(capture.runs.size(), 2u);
  for (const auto& run : capture.runs) {
    ASSERT_FALSE(harness::run_failed(run)) << run.benchmark_name() << ": " << harness::run_failure_message(run);
    ASSERT_TRUE(run.counters.count("checked")) << run.benchmark_name() << ": not validated";
    EXPECT_EQ(run.counters.at("checked").value, 256.0) << run.benchmark_name();
    EXPECT_LE(run.counters.at("max_rel_err").value, run.counters.at("tolerance").value);
    // the program interface's counters: all 300 points run, no GPU bound on a CPU time
    EXPECT_EQ(run.counters.at("interactions").value, 300.0 * 300.0);
    EXPECT_EQ(run.counters.at("sampled").value, 0);
    EXPECT_EQ(run.counters.at("sample_points").value, 300);
    EXPECT_FALSE(run.counters.count("bound_s")) << run.benchmark_name();
  }
}

// --- the checks' edges (tools/mutate.py found them unpinned) ------------------------------

//! A prediction point that neither the sample nor a probe checks, and a probe outside the sample.
bool sampled(const idw::ValidationSet& set, std::size_t i) {
  for (std::size_t k : set.indices)
    if (k == i) return true;
  return false;
}

std::size_t unchecked_point(const idw::ValidationSet& set) {
  for (std::size_t i = 0; i < set.pred.size(); ++i) {
    bool probed = false;
    for (const auto& probe : set.probes) probed = probed || probe.pred_index == i;
    if (!probed && !sampled(set, i)) return i;
  }
  return set.pred.size();
}

const idw::Probe* unsampled_probe(const idw::ValidationSet& set) {
  for (const auto& probe : set.probes)
    if (!sampled(set, probe.pred_index)) return &probe;
  return nullptr;
}

TEST_F(ProbeCase, AProbeOffByMoreThanItsBoundFails) {
  const auto right = float_outputs(data, set);
  const idw::Probe* probe = unsampled_probe(set);
  ASSERT_NE(probe, nullptr);
  for (double share : {0.5, 0.99, 1.01, 1.5}) {
    auto z = right;
    z[probe->pred_index] = probe->expected + share * probe->bound;
    const auto v = idw::check_outputs(set, z);
    EXPECT_EQ(v.ok, share < 1) << "off by " << share << " of the bound: " << v.message;
    if (share > 1) {
      EXPECT_NE(v.message.find("probe " + std::to_string(probe->pred_index)), std::string::npos) << v.message;
    }
  }
}

TEST_F(ProbeCase, ANonFiniteOutputFailsWhereNothingElseLooks) {
  const std::size_t i = unchecked_point(set);
  ASSERT_LT(i, set.pred.size());
  for (double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    auto z = float_outputs(data, set);
    z[i] = bad;
    const auto v = idw::check_outputs(set, z);
    EXPECT_FALSE(v.ok) << bad;
    EXPECT_NE(v.message.find("output " + std::to_string(i) + " is not finite"), std::string::npos) << v.message;
  }
}

}  // namespace

// IDW on the CPU: the reference against independent facts (exactness at data points,
// constant fields, symmetry, a hand-computed case), and the naive kernel body through the
// CPU launcher for every layout, precision and power against the reference.

#include <gtest/gtest.h>

#include <cmath>

#include "lb/datasets/points.hpp"
#include "lb/exec/cpu_launcher.hpp"
#include "lb/idw/frame.hpp"
#include "lb/idw/interaction.hpp"
#include "lb/idw/naive_body.hpp"
#include "lb/idw/reference.hpp"
#include "lb/layout/host_storage.hpp"

#include "compare_testing.hpp"

namespace {

using namespace lb;
using idw::Precision;

TEST(IdwReference, HandComputedCase) {
  datasets::PointSet data;
  data.x = {0, 2};
  data.y = {0, 0};
  data.z = {10, 40};
  // q = (0.5, 0): d = 0.5 and 1.5; p = 2 weights 4 and 4/9 -> (40 + 160/9) / (4 + 4/9) = 13.
  EXPECT_NEAR(idw::reference_value(data, 0.5, 0.0, 2.0), 13.0, 1e-12);
  // p = 3: weights 8 and 8/27 -> (80 + 320/27) / (8 + 8/27) = 11.07142857...
  EXPECT_NEAR(idw::reference_value(data, 0.5, 0.0, 3.0), (80 + 320.0 / 27) / (8 + 8.0 / 27), 1e-12);
}

TEST(IdwReference, ExactAtDataPoints) {
  const auto data = datasets::uniform_points(500, 7);
  for (std::size_t i = 0; i < data.size(); i += 37)
    for (double p : {2.0, 3.0}) EXPECT_EQ(idw::reference_value(data, data.x[i], data.y[i], p), data.z[i]);
}

TEST(IdwReference, WeightsSumToOne) {
  // With normalised weights a constant field is reproduced exactly (up to rounding).
  auto data = datasets::uniform_points(300, 8);
  for (double& z : data.z) z = 123.25;
  const auto pred = datasets::uniform_points(50, 9);
  for (std::size_t i = 0; i < pred.size(); ++i)
    EXPECT_NEAR(idw::reference_value(data, pred.x[i], pred.y[i], 3.0), 123.25, 1e-10);
}

TEST(IdwReference, BoundedByDataValues) {
  const auto data = datasets::uniform_points(300, 10);
  const auto pred = datasets::uniform_points(100, 11);
  const auto [lo, hi] = std::minmax_element(data.z.begin(), data.z.end());
  for (std::size_t i = 0; i < pred.size(); ++i) {
    const double v = idw::reference_value(data, pred.x[i], pred.y[i], 2.0);
    EXPECT_GE(v, *lo);
    EXPECT_LE(v, *hi);
  }
}

TEST(IdwReference, CheckIndicesSampleLargeSets) {
  EXPECT_EQ(idw::check_indices(1000).size(), 1000u);
  const auto idx = idw::check_indices(1 << 20);
  EXPECT_EQ(idx.size(), 4096u);
  EXPECT_EQ(idx.front(), 0u);
  EXPECT_EQ(idx.back(), (1u << 20) - 1);
}

TEST(IdwReference, ToleranceGrowsWithLength) {
  EXPECT_LT(idw::tolerance(Precision::f64, 1 << 20), 1e-9);
  EXPECT_LT(idw::tolerance(Precision::f32, 10240), 2e-3);
  EXPECT_GT(idw::tolerance(Precision::f32, 1 << 20), idw::tolerance(Precision::f32, 1 << 10));
}

// The naive body over a layout, run by the CPU launcher, against the reference.
template <class Layout, class T>
void body_matches_reference(double p) {
  using M = idw::MappingOf<Layout, T>;
  const Precision prec = sizeof(T) == 4 ? Precision::f32 : Precision::f64;
  const auto data = idw::rounded_to(datasets::uniform_points(777, 21), prec);
  auto pred = idw::rounded_to(datasets::uniform_points(301, 22), prec);
  pred.x[5] = data.x[100];  // one prediction point exactly on a data point
  pred.y[5] = data.y[100];
  layout::HostStorage<M> d(M{data.size()}), q(M{pred.size()});
  auto value = [](const datasets::PointSet& s, std::size_t i, T z) {
    layout::RecordValue<idw::Point<T>> r;
    r.template get<idw::X>() = static_cast<T>(s.x[i]);
    r.template get<idw::Y>() = static_cast<T>(s.y[i]);
    r.template get<idw::Z>() = z;
    return r;
  };
  layout::fill(d.view(), [&](std::size_t i) { return value(data, i, static_cast<T>(data.z[i])); });
  layout::fill(q.view(), [&](std::size_t i) { return value(pred, i, T(-1)); });
  idw::with_power(p, [&](auto power) { exec::run_serial(pred.size(), idw::NaiveBody{d.view(), q.view(), power}); });
  const auto idx = idw::check_indices(pred.size());
  const auto ref = idw::reference_values(data, pred, idx, p);
  std::vector<double> got(idx.size());
  for (std::size_t k = 0; k < idx.size(); ++k) got[k] = q.view().template get<idw::Z>(idx[k]);
  EXPECT_TRUE(lb::testing::all_near_relative(got, ref, idw::tolerance(prec, data.size())))
      << Layout::name << " p=" << p << " (value k: prediction point check_indices()[k])";
  EXPECT_EQ(static_cast<double>(q.view().template get<idw::Z>(5)), data.z[100]) << Layout::name;
}

TEST(IdwNaiveBody, EveryLayoutPrecisionAndPowerOnTheCpu) {
  for (double p : {2.0, 3.0}) {
    [&]<class... Ls>(idw::LayoutList<Ls...>) {
      ((Ls::template supports<float> ? body_matches_reference<Ls, float>(p) : void()), ...);
      ((Ls::template supports<double> ? body_matches_reference<Ls, double>(p) : void()), ...);
    }(idw::AllLayouts{});
  }
}

TEST(IdwNaiveBody, WrongFunctionIsCaught) {
  // The check above must be able to fail: a body computing with p = 3 is not p = 2.
  const auto data = datasets::uniform_points(200, 31);
  const auto pred = datasets::uniform_points(20, 32);
  using M = idw::MappingOf<idw::LayoutSoA, double>;
  layout::HostStorage<M> d(M{data.size()}), q(M{pred.size()});
  layout::fill(d.view(), [&](std::size_t i) {
    layout::RecordValue<idw::Point<double>> r;
    r.get<idw::X>() = data.x[i];
    r.get<idw::Y>() = data.y[i];
    r.get<idw::Z>() = data.z[i];
    return r;
  });
  layout::fill(q.view(), [&](std::size_t i) {
    layout::RecordValue<idw::Point<double>> r;
    r.get<idw::X>() = pred.x[i];
    r.get<idw::Y>() = pred.y[i];
    r.get<idw::Z>() = 0;
    return r;
  });
  exec::run_serial(pred.size(), idw::NaiveBody{d.view(), q.view(), idw::PowerGeneral{3.0}});
  std::vector<double> got(pred.size()), want(pred.size());
  for (std::size_t i = 0; i < pred.size(); ++i) {
    got[i] = q.view().get<idw::Z>(i);
    want[i] = idw::reference_value(data, pred.x[i], pred.y[i], 2.0);
  }
  const auto diff = lb::testing::compare_values(got, want);
  EXPECT_TRUE(diff.problem.empty()) << diff.problem;  // finite, and far
  EXPECT_GT(diff.rel.err, idw::tolerance(Precision::f64, data.size()));
}

// --- the computing frame (frame.hpp) ---------------------------------------------------

datasets::GridSpec grid_spec(double lo, double hi, std::size_t n) { return {lo, hi, n, lo, hi, n}; }

TEST(IdwFrame, OrdinaryInputIsComputedInItsOwnUnits) {
  // The paper's inputs: no translation, no scale, values only divided by a power of two.
  const auto data = datasets::uniform_points(1000, 3);
  const auto spec = grid_spec(0, 1000, 64);
  const auto grid = datasets::grid_points(spec);
  for (Precision prec : {Precision::f32, Precision::f64})
    for (double p : {1.0, 2.0, 3.0}) {
      const idw::FramedProblem f = idw::frame_problem(data, spec, grid, p, prec);
      EXPECT_EQ(f.frame.scale_exp, 0);
      EXPECT_EQ(f.data.x, data.x);
      EXPECT_EQ(f.grid.y, grid.y);
      for (std::size_t i = 0; i < data.size(); i += 97) EXPECT_EQ(f.frame.value_from_frame(f.data.z[i]), data.z[i]);
    }
}

TEST(IdwFrame, FarOffAndHugeInputsGetAFrameWhereWeightsFit) {
  // Data 1e20 from the origin (float cannot tell the points apart) and at 1e300 (squared
  // distances overflow double): the frame translates exactly / scales by a power of two,
  // and IDW in it gives the value it gives the same points near the origin.
  // Integer coordinates, so origin + x * unit is exact in double.
  auto small = datasets::uniform_points(200, 4, 0.0, 1000.0);
  for (auto* v : {&small.x, &small.y})
    for (double& e : *v) e = std::floor(e);
  const auto spec_small = grid_spec(0, 1000, 11);
  const auto grid_small = datasets::grid_points(spec_small);
  for (auto [origin, unit] : {std::pair{0x1p66, 0x1p14}, std::pair{0.0, 0x1p990}}) {
    datasets::PointSet far = small;
    for (std::size_t i = 0; i < far.size(); ++i) {
      far.x[i] = origin + small.x[i] * unit;
      far.y[i] = origin + small.y[i] * unit;
    }
    const auto spec = grid_spec(origin, origin + 1000 * unit, 11);
    const auto grid = datasets::grid_points(spec);
    for (Precision prec : {Precision::f32, Precision::f64}) {
      const idw::FramedProblem f = idw::frame_problem(far, spec, grid, 2.0, prec);
      const auto data_in_t = idw::rounded_to(f.data, prec), grid_in_t = idw::rounded_to(f.grid, prec);
      for (std::size_t q = 0; q < grid.size(); ++q) {
        const double want = idw::reference_value(small, grid_small.x[q], grid_small.y[q], 2.0);
        const double got =
            f.frame.value_from_frame(idw::reference_value(data_in_t, grid_in_t.x[q], grid_in_t.y[q], 2.0));
        EXPECT_NEAR(got, want, (prec == Precision::f32 ? 1e-5 : 1e-12) * std::abs(want)) << q;
      }
    }
  }
}

TEST(IdwFrame, PowersNoFrameHoldsAreRefusedNamingWhy) {
  const auto data = datasets::uniform_points(100, 5);
  const auto spec = grid_spec(0, 1000, 10);
  const auto grid = datasets::grid_points(spec);
  try {
    idw::frame_problem(data, spec, grid, 1000.0, Precision::f64);
    FAIL() << "p = 1000 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--power 1000: the weights 1/d^p of this input span"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("more than double holds for 100 data points"), std::string::npos) << e.what();
  }
  // A power float cannot hold here but double can.
  EXPECT_THROW(idw::frame_problem(data, spec, grid, 40.0, Precision::f32), std::invalid_argument);
  EXPECT_NO_THROW(idw::frame_problem(data, spec, grid, 40.0, Precision::f64));
}

}  // namespace

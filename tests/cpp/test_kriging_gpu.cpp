// GPU: Li & Dong's CUDA experiments 1-6 against their CPU programs (1 vs 1, 2 vs 2, 3 vs 2,
// 4 vs 4, 5 vs 4 in double; 6 vs 4 in float, and 6 vs the double program), at the base case
// (scale 1, a mesh that is a multiple of every block shape) and at a 53 x 97 mesh (a
// multiple of none: 25 x 5, 10 x 9), plus exactness at a well on a mesh point, the error
// for too many wells and for a singular system. Without a GPU every test reports SKIPPED.

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "lb/datasets/wells.hpp"
#include "lb/kriging/cpu.hpp"
#include "lb/kriging/device.hpp"

#include "gpu_available.hpp"

namespace {

using namespace lb;

#define REQUIRE_GPU() \
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device visible"

datasets::KrigingCase make_case(std::size_t mesh_x, std::size_t mesh_y) {
  return datasets::generate_kriging_case({.mesh_x = mesh_x, .mesh_y = mesh_y});
}

template <class T>
kriging::KrigingInput<T> input_of(const datasets::KrigingCase& c) {
  return kriging::make_input<T>(c.wells, c.grid, kriging::Variogram::for_domain(c.width, c.height));
}

double max_abs_value(const kriging::KrigingInput<double>& in) {
  double z = 0;
  for (double v : in.values) z = std::max(z, std::abs(v));
  return z;
}

// Tolerances. kappa = ||A||_inf ||A^-1||_inf of the wells' A (condition_number_inf), m = n + 1,
// u the unit round-off of the precision. Gaussian elimination with partial pivoting is
// backward stable: each program's solution is exact for A, B perturbed by ~3 m u relatively
// (B's entries carry a few u more from the distance and exp), so its weights are within
// kappa * 4 m u of exact (relative, inf-norm) and its estimates within max|Z| kappa 4 m u.
//   double, GPU vs CPU: both sides carry that error (the device's exp and FMA contraction
//     round differently from the host's), so 8 m u; we allow 16 m u (176 ulps of
//     max|Z| kappa at the base case's 10 wells), a factor 2 for the inf-norm bound's
//     looseness on lambda's 1-norm. In practice the difference is a few ulps.
//   float fast-math (exp 6) vs the float CPU program: the device's B entries carry
//     __expf's error (2 + 1.173 |x| ulp, |x| = 3 h / a <= 6 on the base case: <= 9 u), the
//     approximate sqrt (~2 u, amplified by |x| in the exponent: <= 12 u) and the rounding of
//     the rest: ~30 u relative error in B instead of ~3 u; plus both sides' 4 m u. Sum
//     ~ (8 m + 30) u; we allow (16 m + 64) u of max|Z| kappa (the same factor 2).
//   float exp 6 vs the double CPU program on the same float-rounded inputs: the float side's
//     error alone, within the same bound.
double tolerance(const kriging::KrigingInput<double>& in, double u, double extra_ulps) {
  const double kappa = kriging::condition_number_inf(in);
  const double m = double(in.wells + 1);
  return max_abs_value(in) * kappa * (16 * m + extra_ulps) * u;
}

template <class T>
struct Diff {
  double max_abs = 0;
  std::size_t worst = 0, non_finite = 0;
};

template <class A, class B>
Diff<A> compare(const std::vector<A>& got, const std::vector<B>& want) {
  Diff<A> d;
  for (std::size_t k = 0; k < got.size(); ++k) {
    if (!std::isfinite(double(got[k]))) {
      ++d.non_finite;
      continue;
    }
    const double e = std::abs(double(got[k]) - double(want[k]));
    if (e > d.max_abs) d.max_abs = e, d.worst = k;
  }
  return d;
}

void check_double_experiment(int experiment, const datasets::KrigingCase& c) {
  const auto in = input_of<double>(c);
  const auto want = kriging::run_cpu_program(kriging::cpu_program_of(experiment), in);
  const auto run = kriging::run_device_experiment(experiment, in);
  const std::string what = "CUDA exp " + std::to_string(experiment) + " on " + std::to_string(c.grid.nx) + " x " +
                           std::to_string(c.grid.ny) + " x " + std::to_string(in.surfaces);
  ASSERT_EQ(run.estimates.size(), want.size()) << what;
  EXPECT_GT(run.seconds, 0.0) << what;
  const auto d = compare(run.estimates, want);
  EXPECT_EQ(d.non_finite, 0u) << what;
  const double tol = tolerance(in, std::numeric_limits<double>::epsilon() / 2, 0);
  EXPECT_LE(d.max_abs, tol) << what << ": worst at " << d.worst << " (" << run.estimates[d.worst] << " vs "
                            << want[d.worst] << ")";
  ::testing::Test::RecordProperty("max_abs_diff_exp" + std::to_string(experiment), std::to_string(d.max_abs));
}

void check_float_experiment6(const datasets::KrigingCase& c) {
  const auto in_f = input_of<float>(c);
  const auto in_d = kriging::widen(in_f);  // the same numbers in double
  const auto run = kriging::run_device_experiment(6, in_f);
  const auto want_f = kriging::krige_shared_weights(in_f);
  const auto want_d = kriging::krige_shared_weights(in_d);
  ASSERT_EQ(run.estimates.size(), want_f.size());
  EXPECT_GT(run.seconds, 0.0);
  const double tol = tolerance(in_d, 0x1.0p-24, 64);
  EXPECT_LT(tol, 1e-2 * max_abs_value(in_d));  // the bound says something (< 1 % of the depths)
  const auto vs_float = compare(run.estimates, want_f);
  const auto vs_double = compare(run.estimates, want_d);
  EXPECT_EQ(vs_float.non_finite, 0u);
  EXPECT_LE(vs_float.max_abs, tol) << "exp 6 vs float CPU exp 4, worst at " << vs_float.worst;
  EXPECT_LE(vs_double.max_abs, tol) << "exp 6 vs double CPU exp 4, worst at " << vs_double.worst;
  EXPECT_GT(vs_double.max_abs, 0.0);  // it really ran in float
  ::testing::Test::RecordProperty("exp6_max_abs_diff_vs_double", std::to_string(vs_double.max_abs));
  ::testing::Test::RecordProperty("exp6_tolerance", std::to_string(tol));
}

class KrigingGpu : public ::testing::TestWithParam<int> {};

TEST_P(KrigingGpu, MatchesItsCpuProgramAtTheBaseCase) {
  REQUIRE_GPU();
  check_double_experiment(GetParam(), datasets::kriging_base_case(1));
}

TEST_P(KrigingGpu, MatchesItsCpuProgramOnAMeshNoBlockShapeDivides) {
  REQUIRE_GPU();
  check_double_experiment(GetParam(), make_case(53, 97));  // 53 % 25, 53 % 10, 97 % 5, 97 % 9 all != 0
}

TEST_P(KrigingGpu, MatchesItsCpuProgramAtScale2) {
  REQUIRE_GPU();
  check_double_experiment(GetParam(), datasets::kriging_base_case(2));
}

INSTANTIATE_TEST_SUITE_P(Experiments1To5, KrigingGpu, ::testing::Values(1, 2, 3, 4, 5),
                         [](const auto& info) { return "exp" + std::to_string(info.param); });

TEST(KrigingGpuFloat, Exp6MatchesFloatAndDoubleCpuAtTheBaseCase) {
  REQUIRE_GPU();
  check_float_experiment6(datasets::kriging_base_case(1));
}

TEST(KrigingGpuFloat, Exp6MatchesOnAMeshNoBlockShapeDivides) {
  REQUIRE_GPU();
  check_float_experiment6(make_case(53, 97));
}

TEST(KrigingGpuFloat, Exp6IsRefusedInDoubleAndExp1InFloat) {
  REQUIRE_GPU();
  const auto c = datasets::kriging_base_case(1);
  EXPECT_THROW(kriging::run_device_experiment(6, input_of<double>(c)), datasets::InputError);
  EXPECT_THROW(kriging::run_device_experiment(1, input_of<float>(c)), datasets::InputError);
}

TEST(KrigingGpu, RepeatedRunsGiveTheSameEstimates) {
  REQUIRE_GPU();
  const auto in = input_of<double>(datasets::kriging_base_case(1));
  kriging::DeviceExperiment<double> e(5, in);
  const auto a = e.run(), b = e.run();
  EXPECT_EQ(a.estimates, b.estimates);
  EXPECT_GT(b.seconds, 0.0);
}

TEST(KrigingGpu, ExactAtAWellOnAMeshPoint) {
  REQUIRE_GPU();
  // Move well 0 onto mesh point (20, 40): x = 50 + 100 * 20, y = 50 + 100 * 40. Its row of A
  // and the point's B are then the same covariances, so lambda = e_0 up to rounding.
  auto c = datasets::kriging_base_case(1);
  c.wells.x[0] = 2050.0;
  c.wells.y[0] = 4050.0;
  ASSERT_NO_THROW(datasets::check_no_coincident_wells(c.wells, 500.0 * 500.0));
  const auto in = input_of<double>(c);
  ASSERT_EQ(in.grid_x[20], 2050.0);
  ASSERT_EQ(in.grid_y[40], 4050.0);
  const std::size_t p = 40 * in.grid_x.size() + 20, points = in.points();
  for (int experiment : {4, 5}) {
    const auto run = kriging::run_device_experiment(experiment, in);
    for (std::size_t h = 0; h < in.surfaces; ++h) {
      const double value = in.values[h * in.wells + 0];
      EXPECT_NEAR(run.estimates[h * points + p], value, 1e-9 * value) << "exp " << experiment << " surface " << h;
    }
  }
  // And exp 6 in float: B's entry for the well is exactly the sill (h = 0, __expf(0) = 1),
  // the rest differ from A's (host expf) by the fast-math error: within the float bound.
  const auto in_f = input_of<float>(c);
  const auto run6 = kriging::run_device_experiment(6, in_f);
  const double tol = tolerance(kriging::widen(in_f), 0x1.0p-24, 64);
  for (std::size_t h = 0; h < in.surfaces; ++h)
    EXPECT_NEAR(run6.estimates[h * points + p], double(in_f.values[h * in.wells]), tol) << "exp 6 surface " << h;
}

TEST(KrigingGpu, SmallSquareCaseExactAtCornerWells) {
  REQUIRE_GPU();
  // Four corner wells of a 100 m square on the 3 x 3 mesh's corners, one inside.
  datasets::WellSet w;
  w.x = {0, 100, 0, 100, 40};
  w.y = {0, 0, 100, 100, 70};
  w.surface_names = {"top", "base"};
  w.values = {10, 20, 30, 40, 25, 50, 65, 70, 90, 60};
  w.source = "square";
  const auto in = kriging::make_input<double>(w, {0, 100, 3, 0, 100, 3}, {1.0, 150.0});
  const std::size_t at_well[4] = {0, 2, 6, 8};
  for (int experiment : {1, 2, 3, 4, 5}) {
    const auto run = kriging::run_device_experiment(experiment, in);
    for (std::size_t h = 0; h < 2; ++h)
      for (std::size_t i = 0; i < 4; ++i) {
        const double value = in.values[h * in.wells + i];
        EXPECT_NEAR(run.estimates[h * 9 + at_well[i]], value, 1e-9 * value) << "exp " << experiment;
      }
  }
}

TEST(KrigingGpu, TooManyWellsIsAClearError) {
  REQUIRE_GPU();
  const auto over = datasets::generate_kriging_case({.wells = kriging::kDeviceMaxWells + 1, .mesh_x = 5, .mesh_y = 9});
  const auto in = input_of<double>(over);  // fine for the CPU programs (64 wells)
  for (int experiment : {1, 2, 3, 4, 5}) {
    try {
      kriging::run_device_experiment(experiment, in);
      ADD_FAILURE() << "exp " << experiment << ": 17 wells accepted";
    } catch (const datasets::InputError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("17 wells"), std::string::npos) << msg;
      EXPECT_NE(msg.find("at most 16"), std::string::npos) << msg;
    }
  }
  // The full device capacity works.
  const auto at = datasets::generate_kriging_case({.wells = kriging::kDeviceMaxWells, .mesh_x = 5, .mesh_y = 9});
  const auto in_at = input_of<double>(at);
  const auto run = kriging::run_device_experiment(5, in_at);
  const auto want = kriging::krige_shared_weights(in_at);
  const double tol = tolerance(in_at, std::numeric_limits<double>::epsilon() / 2, 0);
  EXPECT_LE(compare(run.estimates, want).max_abs, tol);
}

TEST(KrigingGpu, Exp3WithTooManySurfacesForOneBlockIsAClearError) {
  REQUIRE_GPU();
  const auto c = datasets::generate_kriging_case({.surfaces = 12, .mesh_x = 5, .mesh_y = 9});
  try {
    kriging::run_device_experiment(3, input_of<double>(c));
    ADD_FAILURE() << "exp 3 with 10 x 9 x 12 threads a block accepted";
  } catch (const datasets::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("1080 threads"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(kriging::run_device_experiment(4, input_of<double>(c)));  // only exp 3's shape is limited
}

TEST(KrigingGpu, CoincidentWellsGiveASingularSystemErrorNotNaN) {
  REQUIRE_GPU();
  datasets::WellSet w;
  w.x = {0, 100, 0, 100, 40, 100};  // well 5 on top of well 1
  w.y = {0, 0, 100, 100, 70, 0};
  w.surface_names = {"top", "base"};
  w.values = {10, 20, 30, 40, 25, 20, 50, 65, 70, 90, 60, 65};
  w.source = "square with a duplicate";
  const datasets::GridSpec grid{0, 100, 4, 0, 100, 4};
  const kriging::Variogram v{1.0, 150.0};
  auto expect_singular = [&](auto&& program, int experiment) {
    try {
      program();
      ADD_FAILURE() << "exp " << experiment << ": singular system accepted";
    } catch (const kriging::SingularSystem& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("singular"), std::string::npos) << msg;
      EXPECT_NE(msg.find("CUDA experiment " + std::to_string(experiment)), std::string::npos) << msg;
      EXPECT_NE(msg.find("closest wells are 1 at (100, 0) and 5 at (100, 0)"), std::string::npos) << msg;
    }
  };
  const auto in_d = kriging::make_input<double>(w, grid, v);
  const auto in_f = kriging::make_input<float>(w, grid, v);
  for (int experiment : {1, 2, 3, 4, 5})
    expect_singular([&] { kriging::run_device_experiment(experiment, in_d); }, experiment);
  expect_singular([&] { kriging::run_device_experiment(6, in_f); }, 6);
  // The context is still usable after the error (a failed solve is not a CUDA fault).
  EXPECT_NO_THROW(kriging::run_device_experiment(4, input_of<double>(datasets::kriging_base_case(1))));
}

}  // namespace

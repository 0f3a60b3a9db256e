// Kriging on the CPU (Li & Dong): the solver against a hand-solved system, the variogram,
// kriging's own facts (exact at the wells, weights summing to 1), the CPU programs of the
// paper's experiments against each other and float against double, the base-case
// generator (ordered surfaces, determinism, scaling), the wells CSV loader (good and
// malformed files) and the errors for singular systems and too many wells.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <utility>

#include <omp.h>
#include <unistd.h>

#include "lb/datasets/wells.hpp"
#include "lb/kriging/cpu.hpp"
#include "lb/kriging/dense_lu.hpp"
#include "lb/kriging/dual.hpp"
#include "lb/kriging/reference.hpp"
#include "lb/layout/host_storage.hpp"
#include "compare_testing.hpp"
#include "temp_files.hpp"

namespace {

using namespace lb;
using datasets::InputError;
using datasets::WellSet;
namespace fs = std::filesystem;

kriging::Variogram base_variogram(const datasets::KrigingCase& c) {
  return kriging::Variogram::for_domain(c.width, c.height);
}

template <class T>
kriging::KrigingInput<T> base_input(int scale = 1) {
  const auto c = datasets::kriging_base_case(scale);
  return kriging::make_input<T>(c.wells, c.grid, base_variogram(c));
}

//! Wells at the corners of a 100 m square and one inside, 2 surfaces: small enough to reason
//! about, and the grid 0:100:3 x 0:100:3 has points exactly at the four corner wells.
WellSet square_wells() {
  WellSet w;
  w.x = {0, 100, 0, 100, 40};
  w.y = {0, 0, 100, 100, 70};
  w.surface_names = {"top", "base"};
  w.values = {10, 20, 30, 40, 25,  // top
              50, 65, 70, 90, 60};  // base
  w.source = "square";
  return w;
}

std::string error_of(auto&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// --- the solver and the variogram ------------------------------------------------------

TEST(KrigingSolver, PartialPivotingSolvesAZeroDiagonalSystem) {
  // Zero diagonal: without row exchanges the first pivot is 0. Solution (1, 2, 3).
  double a[9] = {0, 1, 1, 1, 0, 1, 1, 1, 0};
  double b[3] = {5, 4, 3};
  ASSERT_TRUE(kriging::solve_in_place(a, b, 3).ok());
  EXPECT_NEAR(b[0], 1.0, 1e-15);
  EXPECT_NEAR(b[1], 2.0, 1e-15);
  EXPECT_NEAR(b[2], 3.0, 1e-15);
}

TEST(KrigingSolver, SingularMatrixIsReportedNotSolved) {
  double a[9] = {1, 2, 3, 2, 4, 6, 1, 0, 1};  // row 1 = 2 x row 0
  double b[3] = {1, 2, 3};
  const auto status = kriging::solve_in_place(a, b, 3);
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(status.singular_column, 2);
  EXPECT_LE(status.pivot, status.threshold);
  double nan_matrix[4] = {std::nan(""), 1, 1, 0};
  double rhs[2] = {1, 1};
  EXPECT_FALSE(kriging::solve_in_place(nan_matrix, rhs, 2).ok());
}

//! Experiment 4's aosoa32 wells (beyond the paper): well j at tile j / 32, lane j % 32, x and y
//! each a run of 32 values; the solver reads them through the layout library's view and gets
//! the weights of x[] and y[] bit for bit (the same arithmetic in the same order).
TEST(KrigingSolver, TiledWellsLayOutThirtyTwoWellsATileAndSolveAsTheArrays) {
  using M = kriging::TiledWellsMapping<double>;
  EXPECT_EQ(M::tile_bytes, 32 * 16u);
  EXPECT_EQ((M{40}.locate<kriging::WellX>(33).offset), 512 + 1 * 8u);
  EXPECT_EQ((M{40}.locate<kriging::WellY>(33).offset), 512 + 256 + 1 * 8u);
  EXPECT_EQ(M{40}.blob_bytes(0), 2 * 512u);
  const auto in = base_input<double>(1);
  layout::HostStorage<M> wells(M{in.wells});
  for (std::size_t j = 0; j < in.wells; ++j) {
    wells.view().get<kriging::WellX>(j) = in.well_x[j];
    wells.view().get<kriging::WellY>(j) = in.well_y[j];
  }
  const std::vector<double> a = kriging::kriging_matrix(in, 1);
  const int n = static_cast<int>(in.wells);
  for (std::size_t p : {std::size_t{0}, in.grid_x.size() / 2, in.grid_x.size() - 1}) {
    kriging::PointSystem<double> tiled, arrays;
    const double px = in.grid_x[p], py = in.grid_y[p % in.grid_y.size()];
    ASSERT_TRUE(kriging::solve_weights(a.data(), wells.view(), n, in.covariance, px, py, tiled).ok());
    ASSERT_TRUE(kriging::solve_weights(a.data(), in.well_x.data(), in.well_y.data(), n, in.covariance, px, py, arrays).ok());
    for (int j = 0; j <= n; ++j) EXPECT_EQ(tiled.b[j], arrays.b[j]) << "point " << p << ", weight " << j;
  }
}

TEST(KrigingVariogram, ExponentialModelAndDomainChoice) {
  const auto v = kriging::Variogram::for_domain(5000, 9000);
  EXPECT_DOUBLE_EQ(v.range, 0.5 * std::sqrt(5000.0 * 5000.0 + 9000.0 * 9000.0));
  EXPECT_EQ(v.sill, kriging::kSill);
  EXPECT_NEAR(v.gamma(v.range), 0.95 * v.sill, 0.003);  // practical range: 1 - e^-3 = 95.0 %
  EXPECT_EQ(v.gamma(0.0), 0.0);                         // nugget 0
  for (double h : {0.0, 100.0, 2500.0, 20000.0}) EXPECT_NEAR(v.gamma(h) + v.covariance(h), v.sill, 1e-15);
  const auto cov = kriging::Covariance<double>::from(v);
  EXPECT_NEAR(cov(1234.5), v.covariance(1234.5), 1e-15);
}

TEST(Kriging, TwoWellsMatchTheClosedForm) {
  // Two wells: subtracting the two covariance equations gives
  // lambda_1 = 1/2 + (C(d_1) - C(d_2)) / (2 (C(0) - C(d_12))), lambda_2 = 1 - lambda_1.
  WellSet w;
  w.x = {0, 1000};
  w.y = {0, 0};
  w.surface_names = {"s"};
  w.values = {10, 40};
  w.source = "two wells";
  const kriging::Variogram v{1.0, 3000.0};
  const auto in = kriging::make_input<double>(w, {0, 1, 1, 0, 1, 1}, v);
  const std::pair<double, double> points[] = {{250, 0}, {250, 300}, {1500, -200}, {500, 0}};
  for (auto [px, py] : points) {
    const double c1 = v.covariance(std::hypot(px, py)), c2 = v.covariance(std::hypot(px - 1000, py));
    const double l1 = 0.5 + (c1 - c2) / (2 * (v.sill - v.covariance(1000)));
    const auto lambda = kriging::weights_at(in, px, py);
    EXPECT_NEAR(lambda[0], l1, 1e-14) << px << "," << py;
    EXPECT_NEAR(lambda[1], 1 - l1, 1e-14);
    EXPECT_NEAR(kriging::estimates_at(in, px, py)[0], 10 * l1 + 40 * (1 - l1), 1e-12);
  }
  EXPECT_NEAR(kriging::weights_at(in, 500.0, 0.0)[0], 0.5, 1e-15);  // symmetry
}

TEST(Kriging, WeightsDoNotDependOnTheSill) {
  // C and B scale together with c: the reason kSill = 1 loses nothing. Checked with c != 1
  // so that a c dropped somewhere (e.g. A's diagonal written as 1) cannot hide.
  auto c = datasets::kriging_base_case(1);
  const auto unit = base_variogram(c);
  const kriging::Variogram tall{2.5, unit.range};
  const auto a = kriging::make_input<double>(c.wells, c.grid, unit), b = kriging::make_input<double>(c.wells, c.grid, tall);
  for (int experiment : {1, 2, 4}) {
    const auto program = kriging::cpu_program_of(experiment);
    const auto out_a = kriging::run_cpu_program(program, a), out_b = kriging::run_cpu_program(program, b);
    for (std::size_t k = 0; k < out_a.size(); k += 101) ASSERT_NEAR(out_a[k], out_b[k], 1e-12 * out_a[k]) << k;
  }
}

// --- kriging's facts ---------------------------------------------------------------------

TEST(Kriging, ExactAtTheWells) {
  const auto in = base_input<double>();
  for (std::size_t i = 0; i < in.wells; ++i) {
    const auto est = kriging::estimates_at(in, in.well_x[i], in.well_y[i]);
    for (std::size_t h = 0; h < in.surfaces; ++h) {
      const double value = in.values[h * in.wells + i];
      EXPECT_NEAR(est[h], value, 1e-9 * std::abs(value)) << "well " << i << " surface " << h;
    }
  }
}

TEST(Kriging, EveryProgramIsExactAtGridPointsOnWells) {
  const auto in = kriging::make_input<double>(square_wells(), {0, 100, 3, 0, 100, 3}, {1.0, 150.0});
  // Mesh points 0, 2, 6, 8 (x fastest) are the corner wells 0, 1, 2, 3.
  const std::size_t at_well[4] = {0, 2, 6, 8};
  for (int experiment : {1, 2, 4}) {
    const auto out = kriging::run_cpu_program(kriging::cpu_program_of(experiment), in);
    ASSERT_EQ(out.size(), 2u * 9u);
    for (std::size_t h = 0; h < 2; ++h)
      for (std::size_t i = 0; i < 4; ++i) {
        const double value = in.values[h * in.wells + i];
        EXPECT_NEAR(out[h * 9 + at_well[i]], value, 1e-9 * value) << "exp " << experiment << " surface " << h;
      }
  }
}

// The last row of A is (1 ... 1, 0), so sum(lambda) - 1 is one entry of the residual, which
// a backward-stable solve keeps within 3 m u (sum|lambda| + 1).
template <class T>
void expect_weights_sum_to_one() {
  const auto in = base_input<T>();
  const double u = std::numeric_limits<T>::epsilon() / 2, m = double(in.wells + 1);
  for (std::size_t p = 0; p < in.points(); p += 97) {
    const auto lambda = kriging::weights_at(in, in.grid_x[p % in.grid_x.size()], in.grid_y[p / in.grid_x.size()]);
    double sum = 0, sum_abs = 0;
    for (T l : lambda) {
      sum += l;
      sum_abs += std::abs(double(l));
    }
    EXPECT_NEAR(sum, 1.0, 3 * m * u * (sum_abs + 1)) << "point " << p;
  }
}
TEST(Kriging, WeightsSumToOneDouble) { expect_weights_sum_to_one<double>(); }
TEST(Kriging, WeightsSumToOneFloat) { expect_weights_sum_to_one<float>(); }

template <class T>
void expect_programs_agree(int scale) {
  const auto in = base_input<T>(scale);
  const auto e1 = kriging::krige_rebuild_every_point(in);
  const auto e2 = kriging::krige_reuse_matrix(in);
  const auto e4 = kriging::krige_shared_weights(in);
  ASSERT_EQ(e1.size(), in.surfaces * in.points());
  ASSERT_EQ(e1.size(), std::size_t(50 * 90 * 11 * scale * scale));
  // The three do the same arithmetic per point, in the same order: equal up to rounding
  // (in fact bit for bit today; a reordering would be allowed 4 ulps of max|Z|).
  T max_abs = 0;
  for (T v : e1) max_abs = std::max(max_abs, std::abs(v));
  const double tol = 4 * std::numeric_limits<T>::epsilon() * max_abs;
  EXPECT_TRUE(lb::testing::all_near(e2, e1, tol)) << "program 2 against program 1";
  EXPECT_TRUE(lb::testing::all_near(e4, e1, tol)) << "program 4 against program 1";
}
TEST(KrigingPrograms, Exp1Exp2Exp4AgreeDoubleScale1) { expect_programs_agree<double>(1); }
TEST(KrigingPrograms, Exp1Exp2Exp4AgreeFloatScale1) { expect_programs_agree<float>(1); }
TEST(KrigingPrograms, Exp1Exp2Exp4AgreeDoubleScale2) { expect_programs_agree<double>(2); }

TEST(KrigingPrograms, ExperimentsMapToTheirCpuPrograms) {
  using kriging::CpuProgram;
  EXPECT_EQ(kriging::cpu_program_of(1), CpuProgram::rebuild_every_point);
  EXPECT_EQ(kriging::cpu_program_of(3), CpuProgram::reuse_matrix);
  EXPECT_EQ(kriging::cpu_program_of(5), CpuProgram::shared_weights);
  EXPECT_EQ(kriging::cpu_program_of(6), CpuProgram::shared_weights);
  EXPECT_NE(error_of([] { kriging::cpu_program_of(7); }).find("GPU only"), std::string::npos);
  EXPECT_EQ(kriging::cpu_program_of(8), CpuProgram::dual);
  EXPECT_NE(error_of([] { kriging::cpu_program_of(9); }).find("no experiment 9"), std::string::npos);
}

TEST(KrigingPrograms, FloatAgreesWithDoubleWithinTheConditioningBound) {
  // The float program against the double program on the same (float-rounded) inputs, so
  // only the arithmetic differs. Gaussian elimination with partial pivoting is backward
  // stable (relative backward error ~ 3 m u at small growth); B's entries carry a few u
  // more (distance, exp); the forward error in lambda is then at most kappa_inf(A) times
  // that, and the combination multiplies it by max|Z|: tol = max|Z| kappa 4 m u.
  const auto in_f = base_input<float>();
  const auto in_d = kriging::widen(in_f);
  const double kappa = kriging::condition_number_inf(in_d);
  ASSERT_GT(kappa, 1.0);
  ASSERT_LT(kappa, 1e3);  // well-spaced wells: a well-conditioned A
  const auto out_f = kriging::krige_shared_weights(in_f);
  const auto out_d = kriging::krige_shared_weights(in_d);
  double max_z = 0;
  for (double v : in_d.values) max_z = std::max(max_z, std::abs(v));
  const auto diff = lb::testing::compare_values(out_f, out_d);
  const double u = 0x1.0p-24, m = double(in_f.wells + 1);
  const double tol = max_z * kappa * 4 * m * u;
  EXPECT_LT(tol, 1e-3 * max_z);  // the bound says something: below 1 m on 1300 m depths
  EXPECT_TRUE(lb::testing::within_absolute(diff, tol)) << "kappa " << kappa;
  EXPECT_GT(diff.abs.err, 0.0);  // the float program really ran in float
}

TEST(KrigingPrograms, ScalingKeepsTheWellsInfluence) {
  // At scale s the wells, the domain and the range are s times larger: the estimate at s p
  // equals the scale-1 estimate at p (up to rounding of the scaled coordinates and range).
  const auto c1 = base_input<double>(1), c4 = base_input<double>(4);
  const std::pair<double, double> points[] = {{50, 50}, {2345, 6789}, {4950, 8950}};
  for (auto [px, py] : points) {
    const auto a = kriging::estimates_at(c1, px, py), b = kriging::estimates_at(c4, 4 * px, 4 * py);
    for (std::size_t h = 0; h < a.size(); ++h) EXPECT_NEAR(a[h], b[h], 1e-10 * a[h]);
  }
}

// --- errors ------------------------------------------------------------------------------

TEST(KrigingErrors, CoincidentWellsGiveASingularSystemErrorNotNaN) {
  WellSet w = square_wells();
  w.x.push_back(100);  // a sixth well on top of well 1
  w.y.push_back(0);
  w.values = {10, 20, 30, 40, 25, 20, 50, 65, 70, 90, 60, 65};
  const datasets::GridSpec grid{0, 100, 4, 0, 100, 4};
  const kriging::Variogram v{1.0, 150.0};
  auto expect_singular = [&](auto&& program, const char* what) {
    try {
      program();
      ADD_FAILURE() << what << ": singular system accepted";
    } catch (const kriging::SingularSystem& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("singular"), std::string::npos) << msg;
      EXPECT_NE(msg.find("closest wells are 1 at (100, 0) and 5 at (100, 0), 0 apart"), std::string::npos) << msg;
      EXPECT_NE(msg.find("remove or merge"), std::string::npos) << msg;
    }
  };
  const auto in_d = kriging::make_input<double>(w, grid, v);
  const auto in_f = kriging::make_input<float>(w, grid, v);
  expect_singular([&] { kriging::krige_rebuild_every_point(in_d); }, "exp 1");
  expect_singular([&] { kriging::krige_reuse_matrix(in_d); }, "exp 2");
  expect_singular([&] { kriging::krige_shared_weights(in_d); }, "exp 4");
  expect_singular([&] { kriging::krige_shared_weights(in_f); }, "exp 4 float");
  expect_singular([&] { kriging::condition_number_inf(in_d); }, "condition number");
  expect_singular([&] { kriging::krige_dual(in_d); }, "exp 8");
  expect_singular([&] { kriging::krige_dual(in_f); }, "exp 8 float");
  // The data-level check names the same pair before any kriging.
  EXPECT_NE(error_of([&] { datasets::check_no_coincident_wells(w); }).find("well 5 coincides with well 1"),
            std::string::npos);
}

TEST(KrigingErrors, NearlyCoincidentWellsAreSingularInFloatOnly) {
  // 1 mm apart with a 5 km range: the two rows of A differ by ~6e-7, below float's pivot
  // tolerance (8 m u ~ 1e-5) but far above double's (~2e-14).
  auto c = datasets::kriging_base_case(1);
  c.wells.x[1] = c.wells.x[0] + 1e-3;
  c.wells.y[1] = c.wells.y[0];
  const auto v = base_variogram(c);
  EXPECT_NO_THROW(kriging::krige_shared_weights(kriging::make_input<double>(c.wells, c.grid, v)));
  EXPECT_THROW(kriging::krige_shared_weights(kriging::make_input<float>(c.wells, c.grid, v)), kriging::SingularSystem);
}

TEST(KrigingErrors, MoreWellsThanTheSolverHolds) {
  const std::size_t cap = kriging::kMaxWells;
  auto at_capacity = datasets::generate_kriging_case({.wells = cap, .mesh_x = 5, .mesh_y = 9});
  const auto in = kriging::make_input<double>(at_capacity.wells, at_capacity.grid, base_variogram(at_capacity));
  const auto out = kriging::krige_shared_weights(in);  // the full capacity works
  for (double v : out) ASSERT_TRUE(std::isfinite(v));
  const auto est = kriging::estimates_at(in, in.well_x[cap - 1], in.well_y[cap - 1]);
  EXPECT_NEAR(est[0], in.values[cap - 1], 1e-9 * in.values[cap - 1]);

  const auto over = datasets::generate_kriging_case({.wells = cap + 1, .mesh_x = 5, .mesh_y = 9});
  const auto over_in = kriging::make_input<float>(over.wells, over.grid, base_variogram(over));  // any count loads
  const auto msg = error_of([&] { kriging::krige_shared_weights(over_in); });
  EXPECT_NE(msg.find("65 wells"), std::string::npos) << msg;
  EXPECT_NE(msg.find("holds at most 64"), std::string::npos) << msg;
}

// --- the double reference (LU once, substitution per point) -------------------------------

TEST(KrigingReference, AgreesWithThePerPointSolverAtTheBaseCase) {
  const auto c = datasets::kriging_base_case(1);
  const auto in = kriging::make_input<double>(c.wells, c.grid, base_variogram(c));
  const auto program = kriging::krige_shared_weights(in);
  std::vector<std::size_t> all(in.points());
  for (std::size_t p = 0; p < all.size(); ++p) all[p] = p;
  const auto ref = lb::testing::transposed(kriging::reference_estimates(in, all), in.points(), in.surfaces);
  double zmax = 0;
  for (double v : ref) zmax = std::max(zmax, std::abs(v));
  // Two different eliminations of the same system: a few ulps of the depths apart.
  const auto diff = lb::testing::compare_values(program, ref);
  EXPECT_TRUE(lb::testing::within_absolute(diff, 1e-12 * zmax));
  EXPECT_LT(diff.abs.err, kriging::estimate_tolerance(in, kriging::condition_number_inf(in), kriging::kDoubleRoundoff, 0));
}

TEST(KrigingReference, ManyWellsExactAtTheWellsAndWeightsSumToOne) {
  // 300 wells: beyond the per-point solver's 64; the reference has no capacity limit.
  const auto c = datasets::generate_kriging_case({.wells = 300, .mesh_x = 20, .mesh_y = 30});
  const auto in = kriging::make_input<double>(c.wells, c.grid, base_variogram(c));
  const kriging::FactoredKriging f(in);
  std::vector<double> x(in.wells + 1);
  for (std::size_t i = 0; i < in.wells; i += 37) {
    const auto est = f.estimates_at(in.well_x[i], in.well_y[i]);
    for (std::size_t h = 0; h < in.surfaces; ++h)
      EXPECT_NEAR(est[h], in.values[h * in.wells + i], 1e-8 * in.values[h * in.wells + i]) << "well " << i;
  }
  f.solve_at(1234.5, 2345.6, x.data());
  double sum = 0;
  for (std::size_t i = 0; i < in.wells; ++i) sum += x[i];
  EXPECT_NEAR(sum, 1.0, 1e-10);
  const double kappa = f.condition_number_inf();
  EXPECT_TRUE(std::isfinite(kappa));
  EXPECT_GE(kappa, 1.0);
  // A^-1 A = I.
  const auto inv = f.inverse();
  const auto a = kriging::kriging_matrix(in);
  const std::size_t m = in.wells + 1;
  double off = 0;
  for (std::size_t r = 0; r < m; r += 29)
    for (std::size_t col = 0; col < m; col += 31) {
      double s = 0;
      for (std::size_t k = 0; k < m; ++k) s += inv[r * m + k] * a[k * m + col];
      off = std::max(off, std::abs(s - (r == col ? 1.0 : 0.0)));
    }
  EXPECT_LT(off, 1e-9 * kappa);
}

TEST(KrigingReference, CheckedPointsAreAllOrAnEvenSpreadWithTheEnds) {
  EXPECT_EQ(kriging::reference_points(49500, 10).size(), 49500u);
  const auto spread = kriging::reference_points(4950000, 1000);
  EXPECT_GE(spread.size(), 1024u);
  EXPECT_LT(spread.size(), 4096u);
  EXPECT_EQ(spread.front(), 0u);
  EXPECT_EQ(spread.back(), 4949999u);
  EXPECT_TRUE(std::is_sorted(spread.begin(), spread.end()));
  EXPECT_EQ(std::adjacent_find(spread.begin(), spread.end()), spread.end());  // no point twice
}

// --- the generator -----------------------------------------------------------------------

TEST(KrigingCase, BaseCaseShapeAndDomain) {
  const auto c = datasets::kriging_base_case(1);
  EXPECT_EQ(c.wells.wells(), 10u);
  EXPECT_EQ(c.wells.surfaces(), 11u);
  EXPECT_EQ(c.grid.nx * c.grid.ny * c.wells.surfaces(), 49500u);  // the paper's count at scale 1
  EXPECT_EQ(c.width, 5000.0);
  EXPECT_EQ(c.height, 9000.0);
  const auto xs = datasets::grid_axis(c.grid.x0, c.grid.x1, c.grid.nx);
  EXPECT_EQ(xs.front(), 50.0);  // cell centres, 100 m apart
  EXPECT_NEAR(xs[1] - xs[0], 100.0, 1e-12);
  EXPECT_EQ(xs.back(), 4950.0);
  EXPECT_EQ(xs, datasets::grid_axis(50, 4950, 50));
  const auto pts = datasets::grid_points(c.grid);  // the same coordinates as the IDW grid
  EXPECT_EQ(pts.x[49], xs[49]);
  for (std::size_t i = 0; i < c.wells.wells(); ++i) {
    EXPECT_GT(c.wells.x[i], 0.05 * c.width - 1e-9);
    EXPECT_LT(c.wells.x[i], 0.95 * c.width);
    EXPECT_GT(c.wells.y[i], 0.05 * c.height - 1e-9);
    EXPECT_LT(c.wells.y[i], 0.95 * c.height);
  }
  EXPECT_NO_THROW(datasets::check_no_coincident_wells(c.wells, 1000.0 * 1000.0));  // >= 1061 m apart
}

TEST(KrigingCase, ScaleMultipliesMeshDomainAndWellsNotValues) {
  const auto base = datasets::kriging_base_case(1);
  for (int s : datasets::kKrigingScales) {
    const auto c = datasets::kriging_base_case(s);
    EXPECT_EQ(c.grid.nx, 50u * static_cast<std::size_t>(s));
    EXPECT_EQ(c.grid.ny, 90u * static_cast<std::size_t>(s));
    EXPECT_EQ(c.width, 5000.0 * s);
    EXPECT_EQ(c.grid.x1, 5000.0 * s - 50.0);
    for (std::size_t i = 0; i < c.wells.wells(); ++i) {
      EXPECT_EQ(c.wells.x[i], base.wells.x[i] * s);
      EXPECT_EQ(c.wells.y[i], base.wells.y[i] * s);
    }
    EXPECT_EQ(c.wells.values, base.wells.values);
  }
  EXPECT_EQ(datasets::kriging_base_case(10).grid.nx * datasets::kriging_base_case(10).grid.ny * 11, 4'950'000u);
  EXPECT_NE(error_of([] { datasets::kriging_base_case(0); }).find("scale must be at least 1"), std::string::npos);
}

TEST(KrigingCase, DeterministicWithPinnedFirstValues) {
  const auto a = datasets::kriging_base_case(1), b = datasets::kriging_base_case(1);
  EXPECT_EQ(a.wells.x, b.wells.x);
  EXPECT_EQ(a.wells.values, b.wells.values);
  const auto other = datasets::generate_kriging_case({.seed = datasets::kKrigingSeed + 1});
  EXPECT_NE(a.wells.x, other.wells.x);
  // Positions are integer arithmetic on the random stream: exact on every platform. The
  // values go through std::sin, so they are pinned to within a few ulps of a math library.
  EXPECT_EQ(a.wells.x[0], 4423.2976372040821);
  EXPECT_EQ(a.wells.y[0], 7073.1512750058946);
  EXPECT_EQ(a.wells.x[9], 3801.8201052022541);
  EXPECT_NEAR(a.wells.value(0, 0), 583.50243815498925, 1e-10);
  EXPECT_NEAR(a.wells.value(10, 0), 1215.5446289359638, 1e-10);
}

TEST(KrigingCase, SurfacesAreOrderedAndEstimatesKeepTheOrder) {
  const auto c = datasets::kriging_base_case(1);
  const auto& w = c.wells;
  for (std::size_t i = 0; i < w.wells(); ++i)
    for (std::size_t h = 1; h < w.surfaces(); ++h)
      EXPECT_GT(w.value(h, i), w.value(h - 1, i) + 10.0) << "well " << i << " surface " << h;  // >= t/2 >= 15 m
  const auto in = kriging::make_input<double>(w, c.grid, base_variogram(c));
  for (std::size_t i = 0; i < in.wells; ++i) {
    const auto est = kriging::estimates_at(in, in.well_x[i], in.well_y[i]);
    for (std::size_t h = 1; h < in.surfaces; ++h) EXPECT_GT(est[h], est[h - 1]) << "well " << i;
  }
  // Between the wells kriging does not guarantee it (weights can be negative), but on this
  // case no two surfaces cross anywhere on the mesh (a property of the data set, relied on
  // by the model figure).
  const auto out = kriging::krige_shared_weights(in);
  const std::size_t points = in.points();
  std::size_t crossings = 0;
  for (std::size_t h = 1; h < in.surfaces; ++h)
    for (std::size_t p = 0; p < points; ++p) crossings += !(out[h * points + p] > out[(h - 1) * points + p]);
  EXPECT_EQ(crossings, 0u);
}

// --- the wells CSV loader ----------------------------------------------------------------

class WellsCsv : public TempFilesTest {
 protected:
  //! The message of the InputError that loading `text` raises ("" if none).
  std::string load_error(const std::string& text) {
    return error_of([&] { datasets::load_wells_csv(write("bad.csv", text)); });
  }
};

TEST_F(WellsCsv, ReadsHeaderNamesCommentsAndBlankLines) {
  const auto w = datasets::load_wells_csv(
      write("ok.csv", "# wells of the survey\nX, Y ,top,middle,base\r\n1,2,10,20,30\n\n4.5, -6 ,11,21,3.1e1\r\n7,8,12,22,32\n"));
  ASSERT_EQ(w.wells(), 3u);
  ASSERT_EQ(w.surfaces(), 3u);
  EXPECT_EQ(w.surface_names, (std::vector<std::string>{"top", "middle", "base"}));
  EXPECT_EQ(w.x[1], 4.5);
  EXPECT_EQ(w.y[1], -6.0);
  EXPECT_EQ(w.line, (std::vector<std::size_t>{3, 5, 6}));
  EXPECT_EQ(w.values, (std::vector<double>{10, 11, 12, 20, 21, 22, 30, 31, 32}));  // surface-major
  EXPECT_EQ(w.value(2, 1), 31.0);
  // One surface is enough; and the loaded wells krige.
  const auto one = datasets::load_wells_csv(write("one.csv", "x,y,depth\n0,0,1\n10,0,3\n"));
  const auto in = kriging::make_input<double>(one, {0, 10, 3, 0, 0, 1}, {1.0, 30.0});
  const auto out = kriging::krige_reuse_matrix(in);
  EXPECT_NEAR(out[0], 1.0, 1e-12);
  EXPECT_NEAR(out[1], 2.0, 1e-12);  // midway between two wells: the mean
  EXPECT_NEAR(out[2], 3.0, 1e-12);
}

TEST_F(WellsCsv, MissingOrMalformedHeader) {
  auto msg = load_error("1,2,3\n4,5,6\n");
  EXPECT_NE(msg.find("bad.csv:1: expected a header x,y,<surface 1>"), std::string::npos) << msg;
  msg = load_error("# c\nx,y\n1,2\n");
  EXPECT_NE(msg.find("bad.csv:2: expected a header"), std::string::npos) << msg;
  msg = load_error("x,y,top,5\n");
  EXPECT_NE(msg.find("bad.csv:1: column 4 of the header must name a surface, found '5'"), std::string::npos) << msg;
  msg = load_error("x,y,top,,base\n");
  EXPECT_NE(msg.find("column 4 of the header must name a surface"), std::string::npos) << msg;
  msg = load_error("x,y,top,top\n");
  EXPECT_NE(msg.find("bad.csv:1: columns 3 and 4 are both named 'top'"), std::string::npos) << msg;
}

TEST_F(WellsCsv, WrongColumnCountNamesFileAndLine) {
  auto msg = load_error("x,y,top,base\n1,2,3,4\n1,2,3\n");
  EXPECT_NE(msg.find("bad.csv:3: expected 4 columns (x,y + 2 surfaces), found 3"), std::string::npos) << msg;
  msg = load_error("x,y,top\n1,2,3,4\n");
  EXPECT_NE(msg.find("bad.csv:2: expected 3 columns (x,y + 1 surfaces), found 4"), std::string::npos) << msg;
}

TEST_F(WellsCsv, NonNumericValueNamesTheColumn) {
  auto msg = load_error("x,y,top,base\n1,2,3,4\n5,6,abc,8\n");
  EXPECT_NE(msg.find("bad.csv:3: column 3 (top) is not a number: 'abc'"), std::string::npos) << msg;
  msg = load_error("x,y,top\n1,,3\n");
  EXPECT_NE(msg.find("bad.csv:2: column 2 (y) is not a number"), std::string::npos) << msg;
}

TEST_F(WellsCsv, NaNAndInfinityRejected) {
  auto msg = load_error("x,y,top\n1,2,nan\n3,4,5\n");
  EXPECT_NE(msg.find("bad.csv:2: column 3 (top) is not finite: 'nan'"), std::string::npos) << msg;
  msg = load_error("x,y,top\n1,2,3\ninf,4,5\n");
  EXPECT_NE(msg.find("bad.csv:3: column 1 (x) is not finite"), std::string::npos) << msg;
}

TEST_F(WellsCsv, EmptyFileAndTooFewWells) {
  auto msg = load_error("");
  EXPECT_NE(msg.find("bad.csv: empty file"), std::string::npos) << msg;
  msg = load_error("# only a comment\n\n");
  EXPECT_NE(msg.find("empty file"), std::string::npos) << msg;
  msg = load_error("x,y,top\n");
  EXPECT_NE(msg.find("bad.csv: 0 wells; kriging needs at least 2"), std::string::npos) << msg;
  msg = load_error("x,y,top\n1,2,3\n");
  EXPECT_NE(msg.find("bad.csv: 1 well; kriging needs at least 2"), std::string::npos) << msg;
  msg = error_of([&] { datasets::load_wells_csv((dir_ / "missing.csv").string()); });
  EXPECT_NE(msg.find("cannot open"), std::string::npos) << msg;
}

TEST_F(WellsCsv, CoincidentWellsNamedByLine) {
  const auto msg = load_error("x,y,top\n1,1,5\n2,2,6\n# dup\n1,1.0000000001,7\n");
  EXPECT_NE(msg.find("bad.csv:5: well coincides with line 2 at (1, 1)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("kriging system singular"), std::string::npos) << msg;
  EXPECT_TRUE(load_error("x,y,top\n1,1,5\n1,1.001,7\n").empty());  // 1 mm apart: distinct wells
}

}  // namespace

// --- variogram models (issue 10 item 15) ---------------------------------------------------

TEST(KrigingVariogram, ModelsFollowThePracticalRangeConvention) {
  using kriging::VariogramModel;
  for (auto model : {VariogramModel::exponential, VariogramModel::gaussian, VariogramModel::spherical}) {
    const kriging::Variogram v{2.0, 1000.0, 0.5, model};
    EXPECT_EQ(v.gamma(0.0), 0.0) << kriging::to_string(model);
    EXPECT_NEAR(v.gamma(1e-9), 0.5, 1e-6);  // the nugget: gamma's jump at 0+
    const double at_range = model == VariogramModel::spherical ? 1.0 : 1.0 - std::exp(-3.0);
    EXPECT_NEAR(v.gamma(1000.0), 0.5 + 1.5 * at_range, 1e-12) << kriging::to_string(model);
    const auto cov = kriging::Covariance<double>::from(v);
    EXPECT_EQ(cov(0.0), 2.0);  // C(0) = the sill, nugget included
    for (double h : {1.0, 250.0, 999.0, 1500.0, 4000.0}) EXPECT_NEAR(cov(h), v.covariance(h), 1e-14) << h;
    EXPECT_EQ(kriging::parse_variogram_model(kriging::to_string(model)), model);
  }
  // Closed forms at h = a / 2.
  const auto at_half = [](VariogramModel m) { return kriging::Variogram{1.0, 1000.0, 0.0, m}.gamma(500.0); };
  EXPECT_NEAR(at_half(VariogramModel::exponential), 1.0 - std::exp(-1.5), 1e-15);
  EXPECT_NEAR(at_half(VariogramModel::gaussian), 1.0 - std::exp(-0.75), 1e-15);
  EXPECT_NEAR(at_half(VariogramModel::spherical), 0.75 - 0.0625, 1e-15);
  EXPECT_FALSE(kriging::parse_variogram_model("linear"));
}

TEST(KrigingVariogram, RefusesParametersThatAreNotAVariogram) {
  const auto c = datasets::kriging_base_case(1);
  for (auto [v, word] : {std::pair{kriging::Variogram{1.0, 0.0}, "range"}, std::pair{kriging::Variogram{1.0, -5.0}, "range"},
                         std::pair{kriging::Variogram{1.0, 100.0, -0.1}, "nugget"},
                         std::pair{kriging::Variogram{1.0, 100.0, 1.0}, "sill"},
                         std::pair{kriging::Variogram{std::nan(""), 100.0}, "sill"}}) {
    const auto msg = error_of([&] { kriging::make_input<double>(c.wells, c.grid, v); });
    EXPECT_NE(msg.find(word), std::string::npos) << msg;
  }
}

TEST(KrigingVariogram, EveryModelIsExactAtTheWellsAndTheNuggetSmoothsBetween) {
  const auto c = datasets::kriging_base_case(1);
  const double a = base_variogram(c).range;
  for (auto model : {kriging::VariogramModel::exponential, kriging::VariogramModel::gaussian,
                     kriging::VariogramModel::spherical}) {
    // A nugget keeps the gaussian model's A well conditioned; exact at the wells regardless.
    const kriging::Variogram v{1.0, a, 0.1, model};
    const auto in = kriging::make_input<double>(c.wells, c.grid, v);
    for (std::size_t i = 0; i < in.wells; ++i) {
      const auto est = kriging::estimates_at(in, in.well_x[i], in.well_y[i]);
      EXPECT_NEAR(est[0], in.values[i], 1e-9 * in.values[i]) << kriging::to_string(model) << " well " << i;
    }
    const auto w = kriging::weights_at(in, 1234.5, 2345.6);
    double sum = 0;
    for (double x : w) sum += x;
    EXPECT_NEAR(sum, 1.0, 1e-12);
  }
}

// --- float validation that fails a wrong program at every well count (issue 10 item 9) ------

namespace {

std::vector<std::size_t> every_point(std::size_t points) {
  std::vector<std::size_t> all(points);
  for (std::size_t p = 0; p < points; ++p) all[p] = p;
  return all;
}

//! The generated case with n wells on a mesh small enough for a full reference check (a
//! smaller one at 1000 wells: each point costs m^2 per reference).
datasets::KrigingCase well_count_case(std::size_t n) {
  return datasets::generate_kriging_case({.wells = n, .mesh_x = n < 1000 ? 20u : 10u, .mesh_y = n < 1000 ? 30u : 15u});
}

//! The wells without the last one (a kernel that drops a well).
WellSet without_last_well(const WellSet& w) {
  WellSet out = w;
  const std::size_t n = w.wells();
  out.x.pop_back();
  out.y.pop_back();
  out.values.clear();
  for (std::size_t h = 0; h < w.surfaces(); ++h)
    for (std::size_t i = 0; i + 1 < n; ++i) out.values.push_back(w.value(h, i));
  return out;
}

//! The wells in reverse order: the same kriging, other rounding (a correct float program).
WellSet reversed(const WellSet& w) {
  WellSet out = w;
  const std::size_t n = w.wells();
  std::reverse(out.x.begin(), out.x.end());
  std::reverse(out.y.begin(), out.y.end());
  for (std::size_t h = 0; h < w.surfaces(); ++h)
    std::reverse(out.values.begin() + std::ptrdiff_t(h * n), out.values.begin() + std::ptrdiff_t((h + 1) * n));
  return out;
}

//! Float estimates of `algorithm` on wells/variogram, at every grid point, as a program's
//! H x P output.
std::vector<float> float_program(const WellSet& w, const datasets::GridSpec& g, const kriging::Variogram& v,
                                 kriging::FloatAlgorithm algorithm) {
  const auto in = kriging::make_input<float>(w, g, v);
  const auto by_point = kriging::float_consistent_estimates(in, every_point(in.points()), algorithm);
  std::vector<float> out(by_point.size());
  for (std::size_t p = 0; p < in.points(); ++p)
    for (std::size_t h = 0; h < in.surfaces; ++h) out[h * in.points() + p] = float(by_point[p * in.surfaces + h]);
  return out;
}

}  // namespace

TEST(KrigingFloatCheck, FailsAWrongFloatProgramAtEveryWellCount) {
  // For each well count: a correct float program (other rounding) passes, a program that
  // drops a well or uses a 1 % wrong range fails; the rigorous bound alone (all that
  // checked float before) let both wrong programs pass at 100 and 1000 wells.
  using kriging::FloatAlgorithm;
  for (std::size_t n : {10, 100, 1000}) {
    const auto c = well_count_case(n);
    const auto v = base_variogram(c);
    const auto in_f = kriging::make_input<float>(c.wells, c.grid, v);
    const auto ref = kriging::make_check_reference(in_f, every_point(in_f.points()));
    auto wrong_range = v;
    wrong_range.range *= 1.01;
    const auto dropped = float_program(without_last_well(c.wells), c.grid, v, FloatAlgorithm::elimination);
    const auto misranged = float_program(c.wells, c.grid, wrong_range, FloatAlgorithm::elimination);
    const double rigorous = kriging::estimate_tolerance(ref.in, ref.kappa, kriging::kFloatRoundoff,
                                                        kriging::kFastFloatExtraUlps);
    for (const auto* wrong : {&dropped, &misranged}) {
      const auto check = kriging::check_estimates(ref, *wrong, FloatAlgorithm::elimination);
      EXPECT_FALSE(check.ok) << n << " wells: a wrong program passed, tolerance " << check.tolerance;
      EXPECT_FALSE(check.unvalidated) << n;
      // For the record: the rigorous bound alone lets the wrong program through.
      const auto diff =
          lb::testing::compare_values(*wrong, lb::testing::transposed(ref.values, in_f.points(), in_f.surfaces));
      EXPECT_TRUE(diff.problem.empty()) << diff.problem;
      if (n >= 100) {
        EXPECT_LT(diff.abs.err, rigorous) << n << ": the old bound would have caught it";
      }
    }
    const auto right = kriging::check_estimates(
        ref, float_program(reversed(c.wells), c.grid, v, FloatAlgorithm::elimination), FloatAlgorithm::elimination);
    EXPECT_TRUE(right.ok) << n << " wells: " << right.message;
    const auto gemm = kriging::check_estimates(
        ref, float_program(reversed(c.wells), c.grid, v, FloatAlgorithm::inverse_gemm), FloatAlgorithm::inverse_gemm);
    EXPECT_TRUE(gemm.ok) << n << " wells: " << gemm.message;
    // Inverting A in float is kappa-unstable: at 1000 wells its tolerance (~5 m) cannot fail
    // these wrong programs, and the check says so instead of passing silently.
    EXPECT_EQ(gemm.unvalidated, n == 1000) << n << " wells, tolerance " << gemm.tolerance << " spread " << ref.spread;
    if (!gemm.unvalidated) {
      EXPECT_FALSE(kriging::check_estimates(ref, misranged, FloatAlgorithm::inverse_gemm).ok) << n;
    }
  }
}

// --- the CPU programs are validated before they are timed (issue 10 item 11) ---------------

TEST(KrigingCpuCheck, CpuProgramsPassAndACorruptedOutputFails) {
  const auto c = datasets::kriging_base_case(1);
  const auto in_d = kriging::make_input<double>(c.wells, c.grid, base_variogram(c));
  const auto in_f = kriging::make_input<float>(c.wells, c.grid, base_variogram(c));
  const auto points = kriging::reference_points(in_d.points(), in_d.wells, 1024.0 * 121);
  const auto ref_d = kriging::make_check_reference(in_d, points), ref_f = kriging::make_check_reference(in_f, points);
  for (int e : {1, 2, 4}) {
    auto out = kriging::run_cpu_program(kriging::cpu_program_of(e), in_d);
    EXPECT_TRUE(kriging::check_estimates(ref_d, out, kriging::FloatAlgorithm::elimination).ok) << e;
    out[points[7]] += 1e-6;  // one checked estimate a micrometre off
    const auto bad = kriging::check_estimates(ref_d, out, kriging::FloatAlgorithm::elimination);
    EXPECT_FALSE(bad.ok) << e;
    EXPECT_NE(bad.message.find("grid point " + std::to_string(points[7])), std::string::npos) << bad.message;
  }
  auto out_f = kriging::run_cpu_program(kriging::CpuProgram::shared_weights, in_f);
  const auto good = kriging::check_estimates(ref_f, out_f, kriging::FloatAlgorithm::elimination);
  EXPECT_TRUE(good.ok) << good.message;
  EXPECT_FALSE(good.unvalidated);
  out_f[points[3]] = std::nanf("");
  EXPECT_FALSE(kriging::check_estimates(ref_f, out_f, kriging::FloatAlgorithm::elimination).ok);
}

// --- experiment 8: the dual form's CPU program (issue 13) ----------------------------------

TEST(KrigingDual, CpuProgramMatchesTheReferenceAtAnyWellCount) {
  // 100 and 1000 wells: beyond the per-point programs' 64. Double within the double
  // tolerance; float within the float-consistent one, and a 1 % wrong range fails.
  using kriging::FloatAlgorithm;
  for (std::size_t n : {10, 100, 1000}) {
    const auto c = well_count_case(n);
    const auto v = base_variogram(c);
    const auto in_d = kriging::make_input<double>(c.wells, c.grid, v);
    const auto in_f = kriging::make_input<float>(c.wells, c.grid, v);
    const auto all = every_point(in_d.points());
    const auto ref_d = kriging::make_check_reference(in_d, all);
    const auto out_d = kriging::run_cpu_program(kriging::cpu_program_of(8), in_d);
    const auto check_d = kriging::check_estimates(ref_d, out_d, FloatAlgorithm::elimination);
    EXPECT_TRUE(check_d.ok) << n << " wells: " << check_d.message;
    EXPECT_FALSE(check_d.unvalidated) << n;

    const auto ref_f = kriging::make_check_reference(in_f, all);
    const auto check_f = kriging::check_estimates(ref_f, kriging::krige_dual(in_f), FloatAlgorithm::dual);
    EXPECT_TRUE(check_f.ok) << n << " wells: " << check_f.message;
    auto wrong_range = v;
    wrong_range.range *= 1.01;
    const auto misranged = kriging::krige_dual(kriging::make_input<float>(c.wells, c.grid, wrong_range));
    const auto bad = kriging::check_estimates(ref_f, misranged, FloatAlgorithm::dual);
    ::testing::Test::RecordProperty("float_wells" + std::to_string(n) + "_max_abs_vs_tolerance_vs_wrong",
                                    std::to_string(check_f.max_abs) + " / " + std::to_string(check_f.tolerance) + " / " +
                                        std::to_string(bad.max_abs) + (bad.unvalidated ? " (unvalidated)" : ""));
    // Unlike inverting A in float (exp 7), alpha is solved in double: the float check stays
    // tight at 1000 wells (measured: tolerance 0.015 m, the wrong range 0.085 m off).
    EXPECT_FALSE(check_f.unvalidated) << n;
    EXPECT_FALSE(bad.ok) << n << " wells: a wrong program passed, tolerance " << bad.tolerance;
    EXPECT_FALSE(kriging::check_estimates(ref_d, kriging::krige_dual(kriging::make_input<double>(c.wells, c.grid, wrong_range)),
                                          FloatAlgorithm::elimination)
                     .ok)
        << n;
  }
}

TEST(KrigingDual, EveryModelIsExactAtTheWellsAndMatchesThePerPointSolver) {
  // Mesh points 0, 2, 6, 8 (x fastest) are the corner wells 0, 1, 2, 3.
  const std::size_t at_well[4] = {0, 2, 6, 8};
  for (auto model : {kriging::VariogramModel::exponential, kriging::VariogramModel::gaussian,
                     kriging::VariogramModel::spherical})
    for (double nugget : {0.0, 0.1}) {
      const auto in = kriging::make_input<double>(square_wells(), {0, 100, 3, 0, 100, 3}, {1.0, 150.0, nugget, model});
      const auto dual = kriging::krige_dual(in);
      const auto solved = kriging::krige_shared_weights(in);
      ASSERT_EQ(dual.size(), solved.size());
      for (std::size_t k = 0; k < dual.size(); ++k)
        EXPECT_NEAR(dual[k], solved[k], 1e-11 * std::abs(solved[k])) << kriging::to_string(model) << " estimate " << k;
      for (std::size_t h = 0; h < 2; ++h)
        for (std::size_t i = 0; i < 4; ++i) {
          const double value = in.values[h * in.wells + i];
          EXPECT_NEAR(dual[h * 9 + at_well[i]], value, 1e-12 * value) << kriging::to_string(model) << " well " << i;
        }
    }
}

TEST(KrigingDual, MoreSurfacesThanOnePassHolds) {
  // 2 kDualSurfacesPerPass + 3 surfaces: three passes, each surface its own coefficients.
  WellSet w = square_wells();
  const std::size_t surfaces = 2 * kriging::kDualSurfacesPerPass + 3;
  w.surface_names.clear();
  w.values.clear();
  for (std::size_t h = 0; h < surfaces; ++h) {
    w.surface_names.push_back("s" + std::to_string(h));
    for (std::size_t i = 0; i < w.x.size(); ++i) w.values.push_back(double(10 * h + i * (h % 3 + 1)));
  }
  const auto in = kriging::make_input<double>(w, {0, 100, 7, 0, 100, 5}, {1.0, 150.0});
  const auto dual = kriging::krige_dual(in);
  const auto solved = kriging::krige_shared_weights(in);
  ASSERT_EQ(dual.size(), solved.size());
  for (std::size_t k = 0; k < dual.size(); ++k) EXPECT_NEAR(dual[k], solved[k], 1e-10 * (1 + std::abs(solved[k]))) << k;
}

// The host solve's blocked LU (dense_lu.hpp) against the reference's unblocked one: sizes
// below, at and across panel boundaries (m = n + 1), every variogram model.
TEST(KrigingDual, BlockedLuSolvesAsTheReferenceLu) {
  for (std::size_t n : {2, 5, 31, 32, 63, 100, 300})
    for (auto model : {kriging::VariogramModel::exponential, kriging::VariogramModel::gaussian,
                       kriging::VariogramModel::spherical}) {
      // The gaussian's A is numerically singular beyond ~100 of these wells (kappa 3e15 at
      // 100; both LUs refuse 300).
      if (model == kriging::VariogramModel::gaussian && n > 100) continue;
      const auto c = well_count_case(n);
      auto v = base_variogram(c);
      v.model = model;
      const auto in = kriging::make_input<double>(c.wells, c.grid, v);
      const int m = static_cast<int>(n + 1);
      const kriging::DenseLu lu(kriging::kriging_matrix(in), m);
      const kriging::FactoredKriging reference(in);
      const double kappa = reference.condition_number_inf();
      ASSERT_TRUE(lu.status().ok()) << n << " wells, " << kriging::to_string(model);
      // Two right-hand sides: [z_0; 0] and a point's [B; 1].
      std::vector<double> x(2 * std::size_t(m)), expected(2 * std::size_t(m));
      for (std::size_t i = 0; i < n; ++i) x[i] = in.values[i];
      reference.solve_at(in.grid_x[1], in.grid_y[2], x.data() + m);
      std::copy(x.begin() + m, x.end(), expected.begin() + m);  // reference's B solved; rebuild B below
      for (std::size_t i = 0; i < n; ++i)
        x[m + i] = in.covariance(kriging::planar_distance(in.grid_x[1], in.grid_y[2], in.well_x[i], in.well_y[i]));
      x[m + n] = 1.0;
      std::copy(x.begin(), x.begin() + m, expected.begin());
      reference.solve(expected.data());
      lu.solve(x.data(), 2);
      for (int j = 0; j < 2; ++j) {
        double scale = 0.0;
        for (int i = 0; i < m; ++i) scale = std::max(scale, std::abs(expected[j * m + i]));
        // Both are backward stable: each within ~kappa m u of the exact solution.
        const double tolerance = 16.0 * m * kappa * kriging::kDoubleRoundoff * scale;
        for (int i = 0; i < m; ++i)
          ASSERT_NEAR(x[j * m + i], expected[j * m + i], tolerance)
              << n << " wells, " << kriging::to_string(model) << ", right-hand side " << j << ", entry " << i;
      }
    }
}

// The device solve's Cholesky path eliminates the Lagrange row (dual.hpp), by hand on
// C = [2 1; 1 2], z = (1, 3): C^-1 = [2 -1; -1 2] / 3, y = C^-1 z = (-1/3, 5/3),
// u = C^-1 1 = (1/3, 1/3), b0 = (4/3) / (2/3) = 2, b = y - 2 u = (-1, 1). Check:
// C b + b0 1 = (-2 + 1 + 2, -1 + 2 + 2) = (1, 3) = z and b_0 + b_1 = 0.
TEST(KrigingDual, LagrangeEliminationByHand) {
  const double y[] = {-1.0 / 3.0, 5.0 / 3.0}, u[] = {1.0 / 3.0, 1.0 / 3.0};
  double alpha[3] = {};
  kriging::eliminate_lagrange(y, u, 2, alpha);
  EXPECT_NEAR(alpha[0], -1.0, 1e-15);
  EXPECT_NEAR(alpha[1], 1.0, 1e-15);
  EXPECT_NEAR(alpha[2], 2.0, 1e-15);
}

// ... and on wells, with y and u solved from C (A's leading n x n block), it gives the host
// solve's alpha (the LU of the whole A, dual_coefficients): the same solution, each within
// ~kappa m u of it. Every model, every surface, the fewest wells a case has (2) and more.
TEST(KrigingDual, LagrangeEliminationGivesTheBorderedSystemsSolution) {
  for (std::size_t n : {2, 5, 40})
    for (auto model : {kriging::VariogramModel::exponential, kriging::VariogramModel::gaussian,
                       kriging::VariogramModel::spherical}) {
      const auto c = well_count_case(n);
      auto v = base_variogram(c);
      v.model = model;
      const auto in = kriging::make_input<double>(c.wells, c.grid, v);
      const std::size_t m = n + 1;
      const std::vector<double> a = kriging::kriging_matrix(in);  // row-major m x m
      std::vector<double> cov(n * n);
      for (std::size_t i = 0; i < n; ++i) std::copy_n(a.begin() + std::ptrdiff_t(i * m), n, cov.begin() + std::ptrdiff_t(i * n));
      const kriging::DenseLu factors(cov, static_cast<int>(n));
      ASSERT_TRUE(factors.status().ok()) << n;
      const std::vector<double> expected = kriging::dual_coefficients(in);
      const double kappa = kriging::FactoredKriging(in).condition_number_inf();
      for (std::size_t h = 0; h < in.surfaces; ++h) {
        std::vector<double> yu(2 * n, 1.0);  // [z_h, 1]
        std::copy_n(in.values.begin() + std::ptrdiff_t(h * n), n, yu.begin());
        factors.solve(yu.data(), 2);
        std::vector<double> alpha(m);
        kriging::eliminate_lagrange(yu.data(), yu.data() + n, static_cast<int>(n), alpha.data());
        double scale = 0.0, sum = 0.0;
        for (std::size_t i = 0; i < m; ++i) scale = std::max(scale, std::abs(alpha[i]));
        for (std::size_t i = 0; i < n; ++i) sum += alpha[i];
        const double tolerance = 16.0 * double(m) * kappa * kriging::kDoubleRoundoff * scale;
        EXPECT_LE(std::abs(sum), double(m) * tolerance) << n << " wells, surface " << h;  // 1^T b = 0
        for (std::size_t i = 0; i < m; ++i)
          ASSERT_NEAR(alpha[i], expected[kriging::dual_coefficient_index(n, h, i)], tolerance)
              << n << " wells, " << kriging::to_string(model) << ", surface " << h << ", entry " << i;
      }
    }
}

TEST(KrigingDual, BlockedLuRefusesCoincidentWellsInAnyPanel) {
  // Well 90 moved onto well 5: rows 5 and 90 of A equal, the pivot test fails in a later
  // panel than the first.
  auto c = well_count_case(100);
  c.wells.x[90] = c.wells.x[5];
  c.wells.y[90] = c.wells.y[5];
  const auto in = kriging::make_input<double>(c.wells, c.grid, base_variogram(c));
  const kriging::DenseLu lu(kriging::kriging_matrix(in), 101);
  EXPECT_FALSE(lu.status().ok());
  EXPECT_GE(lu.status().singular_column, kriging::kLuPanel);
  EXPECT_THROW(kriging::dual_coefficients(in), kriging::SingularSystem);
}

// The CUDA experiments' host work runs on the calling thread (kHostThreadsInTimedRegion):
// the same numbers as with a thread pool, to the bit (each row tile and right-hand side is
// computed the same way whichever thread computes it).
TEST(KrigingDual, OneThreadSolvesAsTheThreadPoolDoes) {
  for (std::size_t n : {10, 300}) {  // 300: the parallel regions' sizes are reached
    const auto c = well_count_case(n);
    const auto in = kriging::make_input<double>(c.wells, c.grid, base_variogram(c));
    EXPECT_EQ(kriging::kriging_matrix(in, 1), kriging::kriging_matrix(in)) << n;
    EXPECT_EQ(kriging::dual_coefficients(in, 1), kriging::dual_coefficients(in)) << n;
    const auto in_f = kriging::make_input<float>(c.wells, c.grid, base_variogram(c));
    EXPECT_EQ(kriging::dual_coefficients(in_f, 1), kriging::dual_coefficients(in_f)) << n;
  }
  EXPECT_EQ(kriging::omp_threads(1), 1);
  EXPECT_GE(kriging::omp_threads(0), 1);
}

//! Threads of this process (/proc/self/task).
int process_threads() {
  int count = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator("/proc/self/task")) ++count;
  return count;
}

// The GPU benchmarks release the OpenMP pool that validation used before they time
// (benches/kriging/ok_variants.cpp): its idle threads leave instead of busy-waiting.
TEST(KrigingHostThreads, ReleasingThePoolEndsItsThreads) {
  int team = 0;
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    team = omp_get_num_threads();
  }
  ASSERT_EQ(team, 2);
  const int with_pool = process_threads();
  EXPECT_TRUE(kriging::release_host_threads());
  EXPECT_LT(process_threads(), with_pool);
  // A later parallel region makes its threads anew.
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    team = omp_get_num_threads();
  }
  EXPECT_EQ(team, 2);
}

// The host solve of experiment 8 at 1000 wells, timed (the GPU run's host_solve_s): A's
// build, its factorisation and the 11 surfaces' substitutions, as dual_coefficients does.
TEST(KrigingDual, HostSolveAtAThousandWellsIsTimed) {
  const auto c = datasets::generate_kriging_case({.wells = 1000, .mesh_x = 10u, .mesh_y = 10u});
  const auto in = kriging::make_input<double>(c.wells, c.grid, base_variogram(c));
  const auto start = std::chrono::steady_clock::now();
  const auto alpha = kriging::dual_coefficients(in);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ::testing::Test::RecordProperty("host_solve_s_1000_wells", std::to_string(seconds));
  std::printf("experiment 8 host solve, 1000 wells x %zu surfaces: %.4f s\n", in.surfaces, seconds);
  // The constraint row: sum of each surface's alpha_0..n-1 is 0 (1^T alpha = 0); the
  // layout's padding surfaces are 0.
  ASSERT_EQ(alpha.size(), kriging::dual_coefficient_count(1000, in.surfaces));
  for (std::size_t h = 0; h < std::size_t(kriging::kDualSurfacesPerPass); ++h) {
    double sum = 0.0, size = 0.0;
    for (std::size_t i = 0; i < in.wells; ++i) {
      const double a = alpha[i * kriging::kDualSurfacesPerPass + h];
      sum += a, size += std::abs(a);
    }
    if (h < in.surfaces) {
      EXPECT_GT(size, 0.0) << "surface " << h;
      EXPECT_LE(std::abs(sum), 1e-9 * size) << "surface " << h;
    } else {
      EXPECT_EQ(size, 0.0) << "padding " << h;
    }
  }
}

TEST(KrigingCpuCheck, TooManyOrTooFewEstimatesFail) {
  const auto c = datasets::kriging_base_case(1);
  const auto in = kriging::make_input<double>(c.wells, c.grid, base_variogram(c));
  const auto ref = kriging::make_check_reference(in, kriging::reference_points(in.points(), in.wells, 1024.0 * 121));
  const auto out = kriging::run_cpu_program(kriging::cpu_program_of(4), in);
  ASSERT_TRUE(kriging::check_estimates(ref, out, kriging::FloatAlgorithm::elimination).ok);
  for (std::size_t size : {out.size() + 1, out.size() - 1, std::size_t(0)}) {
    auto wrong = out;
    wrong.resize(size, 0.0);
    const auto check = kriging::check_estimates(ref, wrong, kriging::FloatAlgorithm::elimination);
    EXPECT_FALSE(check.ok) << size << " estimates";
    EXPECT_NE(check.message.find(std::to_string(size) + " estimates, expected " + std::to_string(out.size())),
              std::string::npos)
        << check.message;
  }
}

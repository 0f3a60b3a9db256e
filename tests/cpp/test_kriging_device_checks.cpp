// The CUDA kriging experiments' host-side checks, which run before any device call and so
// are testable without a GPU: experiment numbers and precisions, the device solver's well
// capacity, experiment 3's block of 10 x 9 x H threads, experiments 5/6's 64 KiB constant
// pool (the well-count sweep's 100 and 1000 wells), and the mesh size.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <string>

#include "lb/kriging/device.hpp"

namespace {

using namespace lb;
using kriging::check_device_experiment;

std::string error_of(auto&& f) {
  try {
    f();
  } catch (const datasets::InputError& e) {
    return e.what();
  }
  return "";
}

TEST(KrigingDeviceChecks, ExperimentNumbersAndPrecisions) {
  for (int e = 1; e <= 5; ++e) {
    EXPECT_FALSE(kriging::experiment_uses_float(e));
    EXPECT_NO_THROW(check_device_experiment(e, 10, 11, sizeof(double)));
    EXPECT_NE(error_of([&] { check_device_experiment(e, 10, 11, sizeof(float)); }).find("runs in double"),
              std::string::npos);
  }
  EXPECT_TRUE(kriging::experiment_uses_float(6));
  EXPECT_NO_THROW(check_device_experiment(6, 10, 11, sizeof(float)));
  EXPECT_NE(error_of([] { check_device_experiment(6, 10, 11, sizeof(double)); }).find("runs in float"),
            std::string::npos);
  // Experiment 7 (the GEMM pair) runs in either precision, with any number of wells.
  EXPECT_FALSE(kriging::experiment_uses_float(7));
  EXPECT_NO_THROW(check_device_experiment(7, 10, 11, sizeof(double)));
  EXPECT_NO_THROW(check_device_experiment(7, 1000, 11, sizeof(float)));
  // Experiment 8 (the dual form) likewise: either precision, any number of wells.
  EXPECT_FALSE(kriging::experiment_uses_float(8));
  EXPECT_NO_THROW(check_device_experiment(8, 10, 11, sizeof(double)));
  EXPECT_NO_THROW(check_device_experiment(8, 5000, 11, sizeof(float)));
  EXPECT_EQ(kriging::device_max_wells(8), std::numeric_limits<int>::max());
  EXPECT_NE(error_of([] { check_device_experiment(9, 10, 11, sizeof(double)); }).find("no CUDA experiment 9"),
            std::string::npos);
  EXPECT_NE(error_of([] { check_device_experiment(0, 10, 11, sizeof(double)); }).find("no CUDA experiment 0"),
            std::string::npos);
}

TEST(KrigingDeviceChecks, WellCapacityOfThePerThreadSolver) {
  // Exps 1-4: 16 wells. Exps 5-6 also have a 128-well build (the sweep); exp 7 no limit.
  for (int e = 1; e <= 6; ++e) {
    const std::size_t bytes = e == 6 ? sizeof(float) : sizeof(double);
    const std::size_t cap = e <= 4 ? kriging::kDeviceMaxWells : kriging::kDeviceMaxWellsConstant;
    EXPECT_EQ(kriging::device_max_wells(e), int(cap));
    EXPECT_NO_THROW(check_device_experiment(e, std::min<std::size_t>(cap, 40), 11, bytes)) << e;
    if (e <= 4) {  // exps 5-6 run out of constant memory before 128 wells (next test)
      const auto msg = error_of([&] { check_device_experiment(e, cap + 1, 11, bytes); });
      EXPECT_NE(msg.find("experiment " + std::to_string(e) + ": " + std::to_string(cap + 1) + " wells"),
                std::string::npos)
          << msg;
      EXPECT_NE(msg.find("at most " + std::to_string(cap)), std::string::npos) << msg;
    }
  }
  EXPECT_NE(error_of([] { check_device_experiment(4, 0, 11, sizeof(double)); }).find("no wells"), std::string::npos);
  EXPECT_NE(error_of([] { check_device_experiment(4, 5, 0, sizeof(double)); }).find("no surfaces"), std::string::npos);
}

TEST(KrigingDeviceChecks, Exp3BlockHoldsAtMost11Surfaces) {
  EXPECT_NO_THROW(check_device_experiment(3, 10, 11, sizeof(double)));  // 990 threads: the paper's block
  const auto msg = error_of([] { check_device_experiment(3, 10, 12, sizeof(double)); });
  EXPECT_NE(msg.find("10 x 9 x 12 = 1080 threads"), std::string::npos) << msg;
  EXPECT_NE(msg.find("H <= 11"), std::string::npos) << msg;
  EXPECT_NO_THROW(check_device_experiment(2, 10, 12, sizeof(double)));  // only exp 3's shape
  EXPECT_NO_THROW(check_device_experiment(4, 10, 40, sizeof(double)));
}

TEST(KrigingDeviceChecks, ConstantLayoutIsAlignedAndSized) {
  // 10 wells, 11 surfaces, double: wells 160 B, A 11 x 11 x 8 = 968 B (-> 976), values 880 B.
  const auto l = kriging::constant_layout(10, 11, sizeof(double));
  EXPECT_EQ(l.wells_offset, 0u);
  EXPECT_EQ(l.matrix_offset, 160u);
  EXPECT_EQ(l.values_offset, 160u + 976u);
  EXPECT_EQ(l.bytes, 160u + 976u + 880u);
  EXPECT_TRUE(l.fits());
  EXPECT_EQ(l.matrix_offset % 16, 0u);
  EXPECT_EQ(l.values_offset % 16, 0u);
  const auto f = kriging::constant_layout(7, 3, sizeof(float));  // 56 B -> 64, 64 floats = 256 B
  EXPECT_EQ(f.matrix_offset, 64u);
  EXPECT_EQ(f.values_offset, 64u + 256u);
  EXPECT_EQ(f.bytes, 64u + 256u + 84u);
}

TEST(KrigingDeviceChecks, ConstantMemoryCapacityForTheWellSweep) {
  // 100 wells: A alone is 101^2 x 8 = 81.6 KB in double (over 64 KiB); in float 40.8 KB,
  // which with wells and 11 surfaces (46 KB) still fits. 1000 wells fit in neither.
  EXPECT_FALSE(kriging::constant_layout(100, 11, sizeof(double)).fits());
  EXPECT_TRUE(kriging::constant_layout(100, 11, sizeof(float)).fits());
  EXPECT_FALSE(kriging::constant_layout(1000, 11, sizeof(float)).fits());
  EXPECT_FALSE(kriging::constant_layout(1000, 11, sizeof(double)).fits());
  // The largest double case that fits at H = 11 is 83 wells (16 n + 8 (n+1)^2 + 88 n, aligned).
  EXPECT_TRUE(kriging::constant_layout(83, 11, sizeof(double)).fits());
  EXPECT_FALSE(kriging::constant_layout(84, 11, sizeof(double)).fits());
  EXPECT_TRUE(kriging::constant_layout(16, 11, sizeof(double)).fits());  // the device capacity fits
  // Exps 5/6 check constant memory before the device solver's 16 wells, so the sweep's
  // answer names the real limit.
  auto msg = error_of([] { check_device_experiment(5, 100, 11, sizeof(double)); });
  EXPECT_NE(msg.find("experiment 5: 100 wells x 11 surfaces need 92016 bytes of constant memory"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("above the 65536 bytes"), std::string::npos) << msg;
  msg = error_of([] { check_device_experiment(6, 1000, 11, sizeof(float)); });
  EXPECT_NE(msg.find("constant memory"), std::string::npos) << msg;
  EXPECT_NO_THROW(check_device_experiment(6, 100, 11, sizeof(float)));  // fits, and the 128-well build holds it
  msg = error_of([] { check_device_experiment(4, 1000, 11, sizeof(double)); });  // no constant memory in exp 4
  EXPECT_NE(msg.find("at most 16"), std::string::npos) << msg;
}

TEST(KrigingDeviceChecks, MeshLimits) {
  EXPECT_NE(error_of([] { kriging::check_device_mesh(4, 0, 11); }).find("empty mesh"), std::string::npos);
  EXPECT_NO_THROW(kriging::check_device_mesh(4, 500 * 900, 11));  // scale 10
  EXPECT_NE(error_of([] { kriging::check_device_mesh(4, std::size_t(1) << 28, 11); }).find("above the int range"),
            std::string::npos);
}

}  // namespace

// --- the bus bytes each experiment's timed region moves, and experiment 8's solve rule -----

TEST(KrigingDeviceChecks, BusBytesAreWhatEachProgramMoves) {
  // 50 x 90 mesh, 11 surfaces, 10 wells (m = 11): the paper's base case.
  const std::size_t mx = 50, my = 90, h = 11, n = 10;
  const double axes = double(mx + my), estimates = double(mx * my * h);
  const double wells = 2.0 * n, values = double(h * n), a = 11.0 * 11.0;
  auto bytes = [&](int e, std::size_t vb, kriging::SolvePlace solve = kriging::SolvePlace::device) {
    return kriging::bus_bytes(e, mx, my, h, n, vb, solve);
  };
  for (int e = 1; e <= 8; ++e) {  // every one downloads every estimate once
    const std::size_t vb = e == 6 ? sizeof(float) : sizeof(double);
    EXPECT_GE(bytes(e, vb).d2h, estimates * double(vb)) << e;
    EXPECT_LT(bytes(e, vb).d2h, estimates * double(vb) + 1000) << e;
  }
  EXPECT_DOUBLE_EQ(bytes(1, 8).h2d, (wells + axes + values) * 8);
  EXPECT_DOUBLE_EQ(bytes(2, 8).h2d, (a + wells + axes + values) * 8);
  EXPECT_DOUBLE_EQ(bytes(4, 8).h2d, bytes(2, 8).h2d);
  EXPECT_DOUBLE_EQ(bytes(6, 4).h2d, double(kriging::constant_layout(n, h, 4).bytes) + axes * 4);
  // exp 7: A in double, the rest in T; U's diagonal and the info come back
  EXPECT_DOUBLE_EQ(bytes(7, 4).h2d, a * 8 + (wells + axes + values) * 4);
  EXPECT_DOUBLE_EQ(bytes(7, 4).d2h, estimates * 4 + 11 * 8 + 4);
  // exp 8: alpha (16 coefficients a well and the constant, per pass) or the values uploaded
  EXPECT_DOUBLE_EQ(bytes(8, 4, kriging::SolvePlace::host).h2d, (wells + axes + 16.0 * 11) * 4);
  EXPECT_DOUBLE_EQ(bytes(8, 4, kriging::SolvePlace::host).d2h, estimates * 4);
  EXPECT_DOUBLE_EQ(bytes(8, 4, kriging::SolvePlace::device).h2d, (wells + axes + values) * 4);
  EXPECT_DOUBLE_EQ(bytes(8, 4, kriging::SolvePlace::device).d2h, estimates * 4 + 11 * 8 + 4);
  EXPECT_THROW(kriging::bus_bytes(9, mx, my, h, n, 8), datasets::InputError);
  // exp 4 with the wells as AoSoA of 32 (beyond the paper) uploads a whole tile of 32 wells
  const auto tiled = kriging::bus_bytes(4, mx, my, h, n, 8, kriging::SolvePlace::device, kriging::WellLayout::aosoa32);
  EXPECT_DOUBLE_EQ(tiled.h2d, (a + 2.0 * 32 + axes + values) * 8);
  EXPECT_DOUBLE_EQ(tiled.d2h, bytes(4, 8).d2h);
}

TEST(KrigingDeviceChecks, OnlyExperiment4TakesTheTiledWells) {
  EXPECT_EQ(kriging::parse_well_layout("aosoa32"), kriging::WellLayout::aosoa32);
  EXPECT_EQ(kriging::to_string(kriging::parse_well_layout("soa")), std::string("soa"));
  EXPECT_THROW(kriging::parse_well_layout("aos"), std::invalid_argument);
  EXPECT_NO_THROW(kriging::check_well_layout(4, kriging::WellLayout::aosoa32));
  for (int e : {1, 2, 3, 5, 6, 7, 8}) {
    EXPECT_NO_THROW(kriging::check_well_layout(e, kriging::WellLayout::soa));
    EXPECT_NE(error_of([e] { kriging::check_well_layout(e, kriging::WellLayout::aosoa32); }).find("experiment 4's"),
              std::string::npos) << e;
  }
}

TEST(KrigingDeviceChecks, Exp8SolvesOnTheDeviceOnlyWhenItsMedianIsLower) {
  using kriging::SolvePlace;
  EXPECT_EQ(kriging::faster_solve(2e-3, 1e-3), SolvePlace::device);
  EXPECT_EQ(kriging::faster_solve(1e-3, 2e-3), SolvePlace::host);
  EXPECT_EQ(kriging::faster_solve(1e-3, 1e-3), SolvePlace::host);  // a tie keeps the host
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(kriging::faster_solve(1e-3, nan), SolvePlace::host);  // not measured
  EXPECT_EQ(kriging::faster_solve(nan, 1e-3), SolvePlace::host);
  EXPECT_EQ(kriging::faster_solve(1e-3, 0.0), SolvePlace::host);  // not a time
  EXPECT_STREQ(kriging::to_string(SolvePlace::device), "device");
  EXPECT_STREQ(kriging::to_string(SolvePlace::host), "host");
  EXPECT_DOUBLE_EQ(kriging::median_of({5, 1, 3}), 3);
  EXPECT_DOUBLE_EQ(kriging::median_of({4, 1, 3, 2}), 2.5);
  EXPECT_TRUE(std::isnan(kriging::median_of({})));
}

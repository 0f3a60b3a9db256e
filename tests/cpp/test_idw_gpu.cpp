// GPU: every IDW version x layout x precision x power against the double CPU reference, at
// sizes that are and are not multiples of the block size, with poisoned outputs so an
// unwritten point fails, and at every size the harness's probes (idw_cases.hpp), so a kernel
// that skips a tile of data fails where the sample's tolerance could not see it. Without a
// GPU every test reports SKIPPED.

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "lb/common/cuda_check.hpp"
#include "lb/datasets/points.hpp"
#include "lb/idw/device.hpp"
#include "lb/idw/reference.hpp"
#include "lb/idw/validation.hpp"

#include "gpu_available.hpp"
#include "gpu_test_scope.hpp"
#include "idw_cases.hpp"

namespace {

using namespace lb;

using Case = lb::testing::IdwCase;
using lb::testing::kIdwSmallCases;
using lb::testing::kRooflineOddBlockCases;
using lb::testing::kRooflineOverflowCase;

//! Runs one variant on the case's inputs (with the probes planted) and checks every output
//! as the harness's validation does (idw::check_outputs: all finite, every probe within its
//! bound, the sample within the tolerance), and the point on a data point exactly.
void check_variant(const std::string& layout, idw::Precision prec, idw::Version version, double p, const Case& c,
                   const lb::testing::IdwCaseInputs& in) {
  auto problem = idw::make_device_problem(layout, prec, in.data, in.set.pred);
  problem->poison_output(nullptr);
  problem->launch(version, p, c.block, nullptr);
  check(cudaDeviceSynchronize(), "IDW test run");
  const auto out = problem->read_output(nullptr);
  ASSERT_EQ(problem->failed_device_launches(), 0u);
  const std::string what = std::string(idw::to_string(version)) + "/" + layout + "/" +
                           std::string(idw::to_string(prec)) + " p=" + std::to_string(p) +
                           " m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) + " block=" +
                           std::to_string(c.block);
  ASSERT_EQ(out.unwritten, 0u) << what << ": first unwritten " << out.first_unwritten;
  ASSERT_EQ(out.z.size(), c.n) << what;
  const idw::Validation v = idw::check_outputs(in.set, out.z);
  EXPECT_TRUE(v.ok) << what << ": " << v.message;
  EXPECT_EQ(v.probes, in.set.tiles) << what << ": a tile without a probe";
  EXPECT_EQ(out.z[in.on_data], in.data.z[in.data_index]) << what << ": coincident point";
}

//! The case's inputs, for every layout and version of one precision and power.
void check_case(idw::Precision prec, double p, const Case& c, const std::vector<std::string>& layouts,
                const std::vector<idw::Version>& versions) {
  const auto in = lb::testing::idw_case_inputs(c, prec, p);
  ASSERT_EQ(in.set.probes.size(), in.set.tiles) << "m=" << c.m << " block=" << c.block << ": a tile without a probe";
  for (const auto& layout : layouts)
    for (auto version : versions) check_variant(layout, prec, version, p, c, in);
}

//! The precision's layouts, or those named in LB_GPU_TEST_LAYOUTS (gpu_test_scope.hpp).
std::vector<std::string> layouts_under_test(idw::Precision prec) {
  return lb::testing::layouts_under_test(idw::layout_names(prec), [](const std::string& l) { return l; });
}

void check_all(const std::vector<Case>& cases, const std::vector<idw::Version>& versions) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  for (auto prec : {idw::Precision::f32, idw::Precision::f64})
    for (double p : {2.0, 3.0})
      for (const auto& c : cases) check_case(prec, p, c, layouts_under_test(prec), versions);
}

//! All versions, or those named in LB_GPU_TEST_VERSIONS (gpu_test_scope.hpp).
std::vector<idw::Version> versions_under_test() {
  const auto names = lb::testing::names_from_env("LB_GPU_TEST_VERSIONS");
  if (names.empty()) return idw::gpu_versions();
  std::vector<idw::Version> versions;
  for (const auto& name : names) versions.push_back(idw::parse_version(name));
  return versions;
}

TEST(IdwGpuSmall, EveryVersionMatchesTheReference) { check_all(kIdwSmallCases, versions_under_test()); }

TEST(IdwGpuLarge, EveryVersionMatchesTheReferenceAt100K) {
  // The original CDP version launches a grid of m / block blocks per prediction point, 4e7
  // blocks here: it is checked at the small sizes and at 10K below.
  check_all({{102400 + 13, 102400 - 7, 256}}, {idw::Version::naive, idw::Version::tiled,
                                               idw::Version::cdp_improved, idw::Version::roofline});
}

TEST(IdwGpuLarge, OriginalCdpMatchesTheReferenceAt10K) {
  check_all({{10240 + 5, 10240 - 3, 256}}, {idw::Version::cdp_original});
}

TEST(IdwGpuHuge, CdpVersionsMatchTheReferenceAt1000K) {
  // The paper's largest size: 10^6 child grids (improved: one 1024-thread block each;
  // original: 4000 blocks each, 4e9 child blocks in all), m and n non-multiples of 1024.
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  check_case(idw::Precision::f32, 2.0, {1024000 + 3, 1024000 - 5, 256}, {"aoas"},
             {idw::Version::cdp_improved, idw::Version::cdp_original});
}

TEST(IdwGpuHuge, ValidationCatchesASkippedTileOrSliceAt1000K) {
  // The benchmark's 1000K float case (its seeds, block 256, p = 2, AoaS). A kernel that skips
  // part of the data gives the same outputs as the right kernel on the data without that part,
  // so the faults are made that way (the kernels under test are the timed ones, unchanged):
  // the last 256-point tile for tiled and roofline, and a roofline slice (the roofline splits
  // the data into at most 16 slices of whole tiles: 1/16 of it here, from tile 1000 on).
  // Validation (validate_on_device: the sample and the probes) must fail each; for the
  // record, the sample alone with its rigorous tolerance (13 %: the validation before the
  // probes) passes a skipped tile (measured before: 1.4 %); for the slice it is only recorded.
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  const std::size_t m = 1024000, block = 256;
  const auto data = datasets::uniform_points(m, 20160104), pred = datasets::uniform_points(m, 20160105);
  const auto rd = idw::rounded_to(data, idw::Precision::f32), rp = idw::rounded_to(pred, idw::Precision::f32);
  const auto set = idw::make_validation_set(rd, rp, idw::Precision::f32, 2.0, block);
  ASSERT_EQ(set.probes.size(), set.tiles) << "a tile without a probe";
  const auto sample = idw::check_indices(m);
  const auto sample_reference = idw::reference_values(rd, rp, sample, 2.0);
  auto without = [&](std::size_t first, std::size_t last) {
    datasets::PointSet r;
    for (std::size_t i = 0; i < m; ++i)
      if (i < first || i >= last) r.x.push_back(data.x[i]), r.y.push_back(data.y[i]), r.z.push_back(data.z[i]);
    return r;
  };
  struct Fault {
    const char* what;
    idw::Version version;
    std::size_t first, last;  //!< data points [first, last) skipped
  };
  const Fault faults[] = {{"none", idw::Version::tiled, 0, 0},
                          {"none", idw::Version::roofline, 0, 0},
                          {"last tile", idw::Version::tiled, m - block, m},
                          {"last tile", idw::Version::roofline, m - block, m},
                          {"a slice", idw::Version::roofline, 1000 * block, 1000 * block + m / 16}};
  for (const Fault& f : faults) {
    const std::string what = std::string(idw::to_string(f.version)) + " skipping " + f.what;
    auto problem = idw::make_device_problem("aoas", idw::Precision::f32, without(f.first, f.last), pred);
    const idw::Validation v = idw::validate_on_device(*problem, f.version, 2.0, block, set, pred, nullptr);
    // The old validation: the timed points' sample against the reference, nothing else.
    problem->poison_output(nullptr);
    problem->launch(f.version, 2.0, block, nullptr);
    check(cudaDeviceSynchronize(), "IDW fault run");
    const auto out = problem->read_output(nullptr);
    std::vector<double> got(sample.size());
    for (std::size_t k = 0; k < sample.size(); ++k) got[k] = out.z[sample[k]];
    const idw::Validation old = idw::check_sample(sample, sample_reference, got, idw::tolerance(idw::Precision::f32, m));
    ::testing::Test::RecordProperty("sample_max_rel_err_fault" + std::to_string(&f - faults), std::to_string(old.max_rel_err));
    std::printf("%s: validation %s; the sample alone: max relative error %.3g (tolerance %.3g)\n", what.c_str(),
                v.ok ? "passed" : v.message.c_str(), old.max_rel_err, old.tolerance);
    if (f.first == f.last) {
      EXPECT_TRUE(v.ok) << what << ": " << v.message;
      EXPECT_EQ(v.probes, set.tiles) << what;
      EXPECT_TRUE(old.ok) << what << ": " << old.message;
      continue;
    }
    EXPECT_FALSE(v.ok) << what << ": validation passed it";
    EXPECT_NE(v.message.find("probe"), std::string::npos) << what << ": " << v.message;
    if (f.last - f.first == block) {
      EXPECT_TRUE(old.ok) << what << ": for the record, the sample alone was expected to miss this (max relative "
                          << "error " << old.max_rel_err << " against " << old.tolerance << "), and caught it: "
                          << old.message;
    }
  }
}

TEST(IdwGpuLarge, CdpLaunchesEveryChildAt100K) {
  // 100K children outstanding at once: beyond the default pending-launch limit (2048).
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  check_case(idw::Precision::f32, 2.0, {1024, 102400, 256}, {"soa"}, {idw::Version::cdp_improved});
}

TEST(IdwGpuSmall, RooflineDoesNotPairWhereProductsOverflow) {
  // Coordinates up to 1e10: the product of two squared distances (~1e40) overflows float, so
  // the roofline's paired p = 2 form (one reciprocal of a * b) must give way to the plain one.
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  for (auto prec : {idw::Precision::f32, idw::Precision::f64})
    check_case(prec, 2.0, kRooflineOverflowCase, {"aoas"}, {idw::Version::roofline});
}

TEST(IdwGpuSmall, RooflineTakesBlocksNotAMultipleOfFour) {
  // The roofline's full tiles go 4 data points (two pairs) per step only when the block size
  // is a multiple of 4; other sizes take the partial-tile path throughout.
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  for (auto prec : {idw::Precision::f32, idw::Precision::f64})
    for (const Case& c : kRooflineOddBlockCases) check_case(prec, 2.0, c, {"aoas"}, {idw::Version::roofline});
}

TEST(IdwGpuErrors, BadLaunchConfigurationIsReported) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  const auto data = datasets::uniform_points(100, 1), pred = datasets::uniform_points(100, 2);
  auto problem = idw::make_device_problem("aos", idw::Precision::f32, data, pred);
  EXPECT_THROW(problem->launch(idw::Version::naive, 2.0, 4096, nullptr), CudaError);
}

}  // namespace

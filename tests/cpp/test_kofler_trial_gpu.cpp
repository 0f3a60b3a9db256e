//! The extended value kdlg-tree-plus on the GPU (docs/advisor.md, "The extended value"): for
//! every Kofler program, planned as `layoutbench run` plans it (small sizes, the GPU tests'
//! tree) and run through run_case, its trial runs, the chosen candidate is validated and timed,
//! and the result's label says what was chosen among the four candidates. Without a GPU the
//! test reports SKIPPED.

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cctype>
#include <memory>
#include <regex>
#include <set>
#include <string>

#include "gpu_available.hpp"
#include "gpu_test_scope.hpp"
#include "kofler_gpu_testing.hpp"
#include "lb/common/cuda_check.hpp"
#include "lb/harness/device_context.hpp"
#include "lb/harness/gpu_timer.hpp"
#include "lb/harness/journal.hpp"
#include "lb/harness/suite.hpp"
#include "planned_runs.hpp"
#include "preset_testing.hpp"

namespace lb::benches::kofler {
namespace {

//! The process's RunEnv as `layoutbench run` sets it up: the first GPU and its timer (the
//! trial times its runs with it). Ceilings are not needed here.
void trial_test_env() {
  RunEnv& e = env();
  if (e.timer) return;
  e.device = list_devices().front();
  check(cudaSetDevice(e.device.index), "cudaSetDevice");
  e.timer = std::make_unique<GpuTimer>(e.device.uuid);
}

// Each program small, as its own GPU test runs it; LavaMD in both precisions.
constexpr const char* kTrialPreset = R"({"kofler": {
  "nbody": {"sizes": [1000], "steps": 1, "layouts": ["kdlg-tree-plus"]},
  "blackscholes": {"sizes": [100000], "layouts": ["kdlg-tree-plus"]},
  "bitonic": {"sizes": [65536], "versions": ["bitonic"], "layouts": ["kdlg-tree-plus"]},
  "lavamd": {"boxes_1d": [3], "precisions": ["float", "double"], "layouts": ["kdlg-tree-plus"]},
  "sampo": {"sizes": [1000], "warmup_hours": 336, "steps": 24, "layouts": ["kdlg-tree-plus"]}}})";

TEST(KoflerTrialGpu, EveryProgramsKdlgTreePlusRunsItsTrialAndTimesTheValidatedChoice) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  if (!testing::layout_under_test("kdlg-tree-plus")) GTEST_SKIP() << "kdlg-tree-plus not under test";
  trial_test_env();
  const auto planned = find_suite("kofler").plan(testing::preset_from(kTrialPreset), testing::with_test_tree());
  ASSERT_EQ(planned.size(), 6u);  // five programs, LavaMD twice
  const auto runs = testing::run_planned(planned, [](const std::string&) { return true; }, 2);
  // chosen=<c>;runs_as=<code>;trial_us=aos:<t>|soa:<t>|kdlg-tree:<t>|tiled-tree:<t>;tree_gpu=any
  const std::string trial = R"(([0-9.]+\[[0-9.]+,[0-9.]+\]|as (aos|soa|kdlg-tree)|invalid))";
  const std::regex label("chosen=(aos|soa|kdlg-tree|tiled-tree);runs_as=(aos|soa|tiled-ct-[0-9]+|partition);trial_us="
                         "aos:" + trial + "\\|soa:" + trial + "\\|kdlg-tree:" + trial + "\\|tiled-tree:" + trial +
                         ";tree_gpu=any");
  std::set<std::string> programs;
  for (const auto& r : runs) {
    const std::string name = r.benchmark_name();
    SCOPED_TRACE(name + " " + r.report_label);
    ASSERT_FALSE(run_failed(r)) << run_failure_message(r);
    std::smatch m;
    ASSERT_TRUE(std::regex_match(r.report_label, m, label));
    // the chosen candidate was tried, not shared, and passed validation in the trial too
    const std::string chosen = m[1];
    const std::size_t at = r.report_label.find(chosen + ":", r.report_label.find("trial_us="));
    ASSERT_NE(at, std::string::npos);
    EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(r.report_label[at + chosen.size() + 1])));
    EXPECT_EQ(r.counters.at("unvalidated").value, 0);
    programs.insert(name.substr(0, name.find("/kdlg-tree-plus/")));
  }
  EXPECT_EQ(programs, (std::set<std::string>{"kofler/nbody/gpu", "kofler/blackscholes/gpu", "kofler/bitonic/bitonic",
                                             "kofler/lavamd/gpu", "kofler/sampo/gpu"}));
}

}  // namespace
}  // namespace lb::benches::kofler

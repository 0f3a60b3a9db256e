// The traffic simulation's GPU version (kernels/traffic/gpu_layouts.cuh): every layout the
// sweep instantiates ends in the CPU reference's state (checksum, occupancy, counters) on the
// small grid city with and without controllers (the conflict rule's atomicMin decides hundreds
// of merges there), also from a snapshot restored on a stream before each run, under every
// step schedule (issue 38's levers), and a car that skips its move fails validation. The Large tests (lower
// Manhattan, or a 40 x 40 grid city where the file is absent; the bench program's variant) are
// left out of the compute-sanitizer runs. All skip without a GPU.

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "gpu_available.hpp"
#include "inner/traffic_bench.hpp"
#include "lb/datasets/street_network.hpp"
#include "traffic_test_city.hpp"

namespace {

using namespace lb::traffic;

#define REQUIRE_GPU() \
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device visible"

TEST(TrafficGpu, EveryLayoutEndsInTheReferencesStateOnTheGridCity) {
  REQUIRE_GPU();
  for (bool controllers : {true, false}) test_city::expect_every_layout_matches(test_city::city_run(controllers, 20), Device::gpu);
}

TEST(TrafficGpu, ASnapshotRestoresTheInitialStateOnEveryLayout) {
  REQUIRE_GPU();
  // On a non-blocking stream, as the harness's timer runs: the copies are ordered by it alone.
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  for (bool controllers : {true, false})
    test_city::expect_snapshot_restores_the_initial_state(test_city::city_run(controllers, 20), Device::gpu, stream);
  cudaStreamDestroy(stream);
}

TEST(TrafficGpu, TheSplitRunStepsAsRunAndTimesBothPartsWithEvents) {
  REQUIRE_GPU();
  test_city::expect_split_run_matches(test_city::city_run(true, 300), Device::gpu);  // 600 marks: events reused
}

// Issue 38's levers: lanes sharing a controller (warp shuffles), fused kernels, another block
// size and the step as a CUDA graph, each alone and all together, on every layout: from the
// initial state and after a reset, from a snapshot restored on a non-blocking stream (the graph
// launched there), and the split run (stream launches under every schedule).
TEST(TrafficGpu, EveryLeverEndsInTheReferencesStateOnEveryLayout) {
  REQUIRE_GPU();
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  const test_city::CityRun with = test_city::city_run(true, 20), without = test_city::city_run(false, 20);
  const test_city::CityRun long_run = test_city::city_run(true, 300);
  // Under compute-sanitizer (make test's quick scope: 158 s of memcheck with everything) every
  // lever's kernels still run on every layout, with controllers (the levers change the
  // controllers' and the fused kernels' code); the run without controllers, the snapshot and
  // the 300-step split run (host orchestration over the same kernels) run outside it.
  const char* tool = std::getenv("LB_UNDER_SANITIZER");
  const bool sanitizer = tool && *tool;
  if (sanitizer) std::printf("under compute-sanitizer %s: every lever on every layout, with controllers only\n", tool);
  for (const StepSchedule& s : test_city::every_lever()) {
    for (const test_city::CityRun* r : {&with, &without}) {
      if (sanitizer && r == &without) continue;
      test_city::expect_every_layout_matches(*r, Device::gpu, s);
      if (!sanitizer) test_city::expect_snapshot_restores_the_initial_state(*r, Device::gpu, stream, s);
    }
    if (!sanitizer) test_city::expect_split_run_matches(long_run, Device::gpu, s);
  }
  cudaStreamDestroy(stream);
}

TEST(TrafficGpu, ACarThatSkipsItsMoveEndsElsewhere) {
  REQUIRE_GPU();
  const test_city::CityRun r = test_city::city_run(true, 30);
  const auto sim = make_laid_out_traffic(r.net, r.initial, {InnerLayout::aos, SweptField::path, InnerStrategy::none, 0},
                                         Device::gpu, TrafficFault{3});
  sim->run(30);
  const State s = sim->state();
  EXPECT_NE(checksum(s), checksum(r.final_state));
  EXPECT_NE(s.cars[3].position, r.final_state.cars[3].position);
}

TEST(TrafficGpuLarge, EveryLayoutEndsInTheReferencesStateOnLowerManhattanFor100Steps) {
  REQUIRE_GPU();
  const std::string path = std::string(LB_SHARED_DATASETS) + "/lowermanhattan.graphml";
  const bool manhattan = std::filesystem::exists(path);
  if (!manhattan) std::fprintf(stderr, "%s absent: a 40 x 40 grid city instead\n", path.c_str());
  const test_city::CityRun r(manhattan ? build_network(lb::datasets::load_osmnx_graphml(path)) : test_city::grid_city(40, 6),
                             5000, 7, 100);
  test_city::expect_every_layout_matches(r, Device::gpu);
  // Issue 38's levers where lights have up to 6 groups (lanes 2 and 4: several a lane), on the
  // layouts the paper-scale timing compares.
  const std::vector<TrafficLayout> full{{InnerLayout::aos, SweptField::none, InnerStrategy::full, 0},
                                        {InnerLayout::soa, SweptField::none, InnerStrategy::full, 0}};
  for (const StepSchedule& s : test_city::every_lever()) test_city::expect_every_layout_matches(r, Device::gpu, s, full);
}

TEST(TrafficGpuLarge, TheBenchVariantValidatesAndCatchesASkippedMove) {
  REQUIRE_GPU();
  using namespace lb::benches::inner;
  TrafficCase c;
  c.source = find_traffic_network("lowermanhattan.graphml");
  if (!c.source.missing.empty()) GTEST_SKIP() << c.source.missing;
  c.cars = 3000;
  c.steps = 100;
  c.layout = {InnerLayout::soa, SweptField::path, InnerStrategy::partial, 6};
  // Under a graph the first run (the split's) launches kernel by kernel, the others the graph.
  for (const char* schedule : {"base", "lanes4-fused-graph"}) {
    SCOPED_TRACE(std::string("schedule ") + schedule);
    c.schedule = parse_step_schedule(schedule);
    for (bool fault : {false, true}) {
      c.fault = fault ? TrafficFault{7} : TrafficFault{};
      const auto v = make_traffic_variant(c);
      v->setup(nullptr);
      // The first run (instrumented for the split), then plain ones: prepare restores the
      // initial state before each, so each ends in the reference's checksum.
      for (int run = 0; run < 3; ++run) {
        SCOPED_TRACE("run " + std::to_string(run));
        v->poison(nullptr);
        v->prepare(nullptr);
        v->run(nullptr);
        const lb::harness::Check check = v->validate(nullptr);
        EXPECT_EQ(check.ok, !fault) << check.message;
        if (fault) {
          EXPECT_NE(check.message.find("the CPU reference's is"), std::string::npos) << check.message;
        }
      }
    }
  }
}

}  // namespace

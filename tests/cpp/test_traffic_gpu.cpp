// The traffic simulation's GPU version (kernels/traffic/gpu_layouts.cuh): every layout the
// sweep instantiates ends in the CPU reference's state (checksum, occupancy, counters) on the
// small grid city with and without controllers (the conflict rule's atomicMin decides hundreds
// of merges there), also from a snapshot restored on a stream before each run, and a car that
// skips its move fails validation. The Large tests (lower
// Manhattan, or a 40 x 40 grid city where the file is absent; the bench program's variant) are
// left out of the compute-sanitizer runs. All skip without a GPU.

#include <gtest/gtest.h>

#include <filesystem>

#include "gpu_available.hpp"
#include "inner/programs.hpp"
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
}

TEST(TrafficGpuLarge, TheBenchVariantValidatesAndCatchesASkippedMove) {
  REQUIRE_GPU();
  using namespace lb::harness::inner;
  TrafficCase c;
  c.source = find_traffic_network("lowermanhattan.graphml");
  if (!c.source.missing.empty()) GTEST_SKIP() << c.source.missing;
  c.cars = 3000;
  c.steps = 100;
  c.layout = {InnerLayout::soa, SweptField::path, InnerStrategy::partial, 6};
  for (bool fault : {false, true}) {
    c.fault = fault ? TrafficFault{7} : TrafficFault{};
    const auto v = make_traffic_variant(c);
    v->setup(nullptr);
    // The first run (instrumented for the split), then plain ones: prepare restores the initial
    // state before each, so each ends in the reference's checksum.
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

}  // namespace

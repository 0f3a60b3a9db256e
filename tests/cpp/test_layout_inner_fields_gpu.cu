// GPU: per-field inner-array strategies with writable arrays (inner_fields_cases.hpp). The
// device rebuilds every array of every case (Car::path by each strategy, Cell with mixed
// strategies; AoS and SoA) three times, writing lengths up to each record's capacity and the
// elements, and reading past the lengths; the host reads the downloaded storage back against
// the model the CPU test checks. Without a GPU the test reports SKIPPED.

// The length and element preconditions are checked on the device too (a violation traps).
#define LB_INNER_CHECKS 1

#include <gtest/gtest.h>

#include <string>

#include "gpu_available.hpp"
#include "inner_fields_cases.hpp"
#include "lb/exec/gpu_launcher.cuh"
#include "lb/layout/device_storage.hpp"

namespace {

using namespace inner_fields;

TEST(LayoutGpu, InnerFieldsRebuiltOnTheDeviceReadBackOnTheHost) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  const std::size_t n = 300;  // small: compute-sanitizer runs this
  for_each_case(n, [&]<class M>(const std::string& label, const ArrayLengths& lengths, const InnerArraySizes& sizes) {
    SCOPED_TRACE(label);
    auto host = inner_host_storage<M>(lengths, sizes);
    DeviceStorage<M> device(host.mapping());
    device.upload(host);
    const std::uint32_t steps = 3;
    for (std::uint32_t step = 1; step <= steps; ++step)
      lb::exec::launch_for_each(n, 128, nullptr, Rebuild<View<M>>{device.view(), step});
    device.download(host);
    expect_state(observe(host), expected_capacities<M>(lengths, sizes), lengths, steps);
  });
}

}  // namespace

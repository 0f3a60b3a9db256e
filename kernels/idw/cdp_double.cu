// IDW CDP versions, double layouts (relocatable device code; see lb/idw/cdp.hpp).
#include "cdp_kernels.cuh"

template struct lb::idw::CdpLaunchers<double, lb::idw::LayoutsFor<double>>;

namespace lb::idw {

void reserve_device_launches(std::size_t launches) {
  std::size_t current = 0;
  check(cudaDeviceGetLimit(&current, cudaLimitDevRuntimePendingLaunchCount), "cudaDeviceGetLimit");
  if (current < launches)
    check(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, launches), "cudaDeviceSetLimit (pending launches)");
}

}  // namespace lb::idw

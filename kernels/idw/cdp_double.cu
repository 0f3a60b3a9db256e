// IDW CDP versions, double layouts (relocatable device code; see lb/idw/cdp.hpp).
#include "cdp_kernels.cuh"

LB_IDW_CDP_INSTANTIATE(LayoutSoA, double)
LB_IDW_CDP_INSTANTIATE(LayoutAoS, double)
LB_IDW_CDP_INSTANTIATE(LayoutAoaS, double)
LB_IDW_CDP_INSTANTIATE(LayoutBuiltin, double)
LB_IDW_CDP_INSTANTIATE(LayoutSoAoS, double)
LB_IDW_CDP_INSTANTIATE(LayoutHybrid, double)

namespace lb::idw {

void reserve_device_launches(std::size_t launches) {
  std::size_t current = 0;
  check(cudaDeviceGetLimit(&current, cudaLimitDevRuntimePendingLaunchCount), "cudaDeviceGetLimit");
  if (current < launches)
    check(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, launches), "cudaDeviceSetLimit (pending launches)");
}

}  // namespace lb::idw

#pragma once
//! IDW with CUDA dynamic parallelism: Mei 2014's original CDP version and Mei & Tian's
//! improved one. These kernels need relocatable device code, so they live in their own
//! translation units (cdp_float.cu, cdp_double.cu, linked with the device runtime) and every
//! other kernel keeps whole-program compilation; from here they are plain host functions.
//!
//! Device-side launches go to cudaStreamFireAndForget (CDP2 has no per-block default-stream
//! ordering worth keeping, and no device-side synchronize): the parent grid completes when all
//! its children have, so an event after the parent launch times the whole computation.

#include <cuda_runtime_api.h>

#include <cstddef>

#include "lb/idw/device.hpp"
#include "lb/idw/layouts.hpp"

namespace lb::idw {

//! Per prediction point state of the original version: its child blocks add their partial
//! sums atomically; the last block to finish (counted in blocks_done) writes the result.
template <class T>
struct CdpAccumulator {
  T weights;
  T weighted_values;
  T coincident_value;
  unsigned coincident;
  unsigned blocks_done;
};

//! Device memory the CDP versions use besides the points.
struct CdpScratch {
  void* accumulators = nullptr;  //!< n CdpAccumulator<T> (original version)
  unsigned* launch_failures = nullptr;  //!< device-side launches that returned an error
};

//! Enqueues one CDP run (version cdp_original or cdp_improved) on `stream`. `block` is the
//! parent's block size and, in the original version, the child's.
template <class Layout, class T>
void launch_cdp(Version version, const layout::View<MappingOf<Layout, T>>& data,
                const layout::View<MappingOf<Layout, T>>& pred, double p, int block, const CdpScratch& scratch,
                cudaStream_t stream);

//! Raises the device runtime's pending-launch limit to at least `launches` (each parent
//! thread launches one child grid; beyond the limit device-side launches fail).
void reserve_device_launches(std::size_t launches);

//! Prediction points per parent grid of the CDP versions. On the H100 a single parent grid
//! of 10^6 points lost ~42 % of its child launches (counted as failed on the device) even
//! with the pending-launch limit raised to n + 1024, while 512K points in one grid launched
//! all; batches of 2^18 keep the pending launches well below that.
inline constexpr std::size_t kCdpBatchPoints = std::size_t(1) << 18;

}  // namespace lb::idw

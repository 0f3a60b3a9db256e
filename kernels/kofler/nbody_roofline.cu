//! N-body's roofline version (beyond the paper; issue 38 section 3): the sweep's arithmetic in a
//! schedule written for throughput. Each body's interactions, chunk sums, running sum, lane join
//! and step are nbody_step_kernel's, in the same order (add_interaction, kChunk bodies of a
//! kTileBodies tile per lane, kLanes lanes), so its results equal the sweep's bit for bit and
//! the reference's error bound (nbody_reference.cpp) holds as it is. What differs:
//! - register blocking: a thread sums kRooflineBodiesPerThread bodies, so one broadcast
//!   LDS.128 of a staged body feeds that many interactions (the sweep: one each);
//! - the tiles staged with cp.async into two buffers, the next tile's copy in flight while the
//!   current one is summed: one barrier a tile, no registers held for the copy;
//! - launch bounds for 4 blocks of 128 threads an SM (128 registers a thread): at 131,072
//!   bodies the 512 blocks are one wave on an H100 or H200 (132 SMs, 528 places).
//!
//! Instruction mix (sm_90 SASS, cuobjdump; tests/python/test_kofler_sass.py pins it): per staged
//! body, one LDS.128 and R interactions of 12 FP32 instructions (3 FADD, 3 FFMA for r^2 + eps^2,
//! 3 FMUL, 3 FFMA) and one MUFU.RSQ each; per tile 3 R FADD joining the chunk sums, staging, the
//! wait and the barrier. The chunk's loop is unrolled kRooflineChunkUnroll times, not fully: fully
//! unrolled (6,797 instructions a tile, 108 KB of code) the warps waited on instruction fetch 68 %
//! of the time (ncu, H200); unrolled 4 times, a tile runs 6,922 instructions a thread (the
//! chunk's loop of 427, 16 times, and 90 more). One warp instruction issues per cycle and
//! scheduler, so the bound's 6,168 FP32 instructions fill at most 89.1 % of the slots (the sweep's
//! kernel, 14 slots an interaction: 85.7 %). The FFMA ceiling the bound divides by
//! (harness/ceilings.cu) issues 32 FFMA in 35 slots, 91.4 %: the mix allows about 97 % of the
//! bound (the sweep's 94 %). The MUFU pipe (16 lanes an SM) is busy 8 cycles of every 13.5.

#include <cuda_pipeline_primitives.h>

#include "lb/common/cuda_check.hpp"
#include "lb/kofler/nbody_body.hpp"
#include "lb/kofler/nbody_device.hpp"

namespace lb::kofler {

namespace {

using RooflineView = layout::View<NBodyRooflineMapping>;

//! Blocks an SM must hold at once (launch bounds): at 8 bodies a thread 4 blocks of 128
//! threads (128 registers each), at 4 bodies 8 blocks (64 registers).
constexpr unsigned kRooflineMinBlocks = 32 / kRooflineBodiesPerThread;
//! Bodies of a tile each thread stages.
constexpr unsigned kRooflineStagedPerThread = kTileBodies / kRooflineThreads;
static_assert(kTileBodies % kRooflineThreads == 0 && kRooflineColumns == 32, "a lane is one warp");

//! Thread t's bodies of the tile at `base` copied asynchronously into `tile` (committed as one
//! group); past n, bodies of mass 0 (which add exactly 0), stored directly.
__device__ LB_FORCEINLINE void roofline_stage(const RooflineView& in, float4* tile, unsigned t, std::size_t base,
                                              std::size_t n) {
  LB_UNROLL
  for (unsigned s = 0; s < kRooflineStagedPerThread; ++s) {
    const unsigned slot = t + s * kRooflineThreads;
    if (base + slot < n)
      __pipeline_memcpy_async(tile + slot, &in.template get<Pos>(base + slot), sizeof(float4));
    else
      tile[slot] = float4{0, 0, 0, 0};
  }
  __pipeline_commit();
}

//! Block (kRooflineColumns, kLanes): thread (column, lane) sums, for bodies column + 32 r of the
//! block, lane's chunk of every tile; lane 0 joins the lanes' sums and steps the bodies.
__global__ void __launch_bounds__(kRooflineThreads, kRooflineMinBlocks)
    nbody_roofline_kernel(RooflineView in, RooflineView out, float softening2, float dt) {
  constexpr unsigned R = kRooflineBodiesPerThread;
  __shared__ __align__(16) float4 tiles[2][kTileBodies];
  __shared__ float3 partial[kLanes - 1][R][kRooflineColumns];
  const unsigned column = threadIdx.x, lane = threadIdx.y, t = lane * kRooflineColumns + column;
  const std::size_t n = in.size();
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * kRooflineBlockBodies + column;
  float4 pi[R];
  float3 acc[R];
  LB_UNROLL
  for (unsigned r = 0; r < R; ++r) {
    pi[r] = nbody_own_pos(in, first + r * kRooflineColumns, n);
    acc[r] = float3{0, 0, 0};
  }
  const std::size_t tile_count = (n + kTileBodies - 1) / kTileBodies;
  roofline_stage(in, tiles[0], t, 0, n);
  for (std::size_t k = 0; k < tile_count; ++k) {
    // Tile k has landed for every thread, and every thread is done with tile k - 1's buffer.
    __pipeline_wait_prior(0);
    __syncthreads();
    if (k + 1 < tile_count) roofline_stage(in, tiles[(k + 1) % 2], t, (k + 1) * kTileBodies, n);
    const float4* mine = tiles[k % 2] + lane * kChunk;
    float3 chunk[R];
    LB_UNROLL
    for (unsigned r = 0; r < R; ++r) chunk[r] = float3{0, 0, 0};
#pragma unroll kRooflineChunkUnroll
    for (unsigned c = 0; c < kChunk; ++c) {
      const float4 pj = mine[c];  // one broadcast load for R interactions
      LB_UNROLL
      for (unsigned r = 0; r < R; ++r) add_interaction(pi[r], pj, softening2, chunk[r]);
    }
    LB_UNROLL
    for (unsigned r = 0; r < R; ++r) acc[r].x += chunk[r].x, acc[r].y += chunk[r].y, acc[r].z += chunk[r].z;
  }
  if (lane > 0) {
    LB_UNROLL
    for (unsigned r = 0; r < R; ++r) partial[lane - 1][r][column] = acc[r];
  }
  __syncthreads();
  if (lane > 0) return;
  LB_UNROLL
  for (unsigned r = 0; r < R; ++r) {
    const std::size_t i = first + r * kRooflineColumns;
    if (i >= n) break;
    float3 a = acc[r];  // lane 0's sum, then lanes 1.. in order: nbody_finish's order
    LB_UNROLL
    for (unsigned l = 0; l + 1 < kLanes; ++l) {
      const float3& b = partial[l][r][column];
      a.x += b.x, a.y += b.y, a.z += b.z;
    }
    float4 p = in.template get<Pos>(i), v = in.template get<Vel>(i);  // read again: pi[r].w (mass) need not live
    integrate(p, v, a, dt);
    out.template get<Pos>(i) = p;
    out.template get<Vel>(i) = v;
  }
}

}  // namespace

void nbody_roofline_run(const RooflineView& initial, const RooflineView& scratch, const RooflineView& out,
                        const NBodyParams& params, cudaStream_t stream) {
  const std::size_t n = initial.size();
  const dim3 block(kRooflineColumns, kLanes),
      grid(static_cast<unsigned>((n + kRooflineBlockBodies - 1) / kRooflineBlockBodies));
  nbody_alternate(initial, scratch, out, params.steps, [&](const RooflineView& from, const RooflineView& to) {
    nbody_roofline_kernel<<<grid, block, 0, stream>>>(from, to, params.softening2, params.dt);
    check_launch("nbody_roofline_kernel");
  });
}

}  // namespace lb::kofler

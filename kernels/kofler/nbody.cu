//! N-body's kernel (the CUDA samples' integrateBodies: forces through shared-memory tiles,
//! then the step) over any mapping of Body, and its instantiations. The per-thread phases are
//! lb/kofler/nbody_body.hpp's, which the host replays under access recording.

#include <tuple>

#include "lb/common/cuda_check.hpp"
#include "lb/kofler/nbody_body.hpp"
#include "lb/kofler/nbody_device.hpp"

namespace lb::kofler {

namespace {

//! Block (kBodiesPerBlock, kLanes): thread (b, lane) sums, for body b of the block, lane's
//! chunk of every staged tile (threads of a warp share the lane: shared-memory broadcasts).
//! Bodies past n are staged with mass 0, which adds exactly 0, so every tile runs the same
//! fully unrolled chunk. Each chunk is summed on its own before joining the running sum (the
//! blocked summation the validation's error bound counts on).
//!
//! Only the staging load depends on the layout, and it is kept out of the interactions' basic
//! block: a full tile (every tile but the last) is staged in a branch of its own, uniform over
//! the block. With the load predicated inside the interactions' block instead (one `?:`),
//! ptxas scheduled the 64 interactions differently for different layouts from the same
//! interaction PTX (40 registers and the same instruction mix in every one): SoA, AoS and the
//! compile-time tiles and split got rsqrt and shared loads issued two by two, the run-time
//! tiles one by one, and the run-time tiles ran 3 % faster for that reason alone (issue 21; on
//! the H100 the tile t = n, SoA's bytes, took 4651 us against SoA's 4804 us).
//! tests/python/test_kofler_sass.py checks that the kernels the layout claims compare share one
//! interaction schedule. Run-time tiles and partitions of sizes other than powers of two (whose
//! staging calls the 64-bit division subroutine) still get another one; no preset uses them.
template <class M>
__global__ void __launch_bounds__(kTileBodies) nbody_step_kernel(layout::View<M> in, layout::View<M> out,
                                                                  float softening2, float dt) {
  __shared__ float4 tile[kTileBodies];
  __shared__ NBodyPartials partial;
  const unsigned b = threadIdx.x, lane = threadIdx.y, t = lane * kBodiesPerBlock + b;
  const std::size_t n = in.size();
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * kBodiesPerBlock + b;
  const float4 pi = nbody_own_pos(in, i, n);
  float3 acc{0, 0, 0};
  for (std::size_t base = 0; base < n; base += kTileBodies) {
    nbody_stage(in, tile, t, base, n);
    __syncthreads();
    nbody_sum_tile(tile, lane, pi, softening2, acc);
    __syncthreads();
  }
  nbody_share_partial(partial, b, lane, acc);
  __syncthreads();
  if (lane > 0 || i >= n) return;
  nbody_finish(in, out, partial, b, i, pi, acc, dt);
}

}  // namespace

template <class M>
void nbody_run(const layout::View<M>& initial, const layout::View<M>& scratch, const layout::View<M>& out,
               const NBodyParams& params, cudaStream_t stream) {
  const std::size_t n = initial.size();
  const dim3 block(kBodiesPerBlock, kLanes), grid(static_cast<unsigned>((n + kBodiesPerBlock - 1) / kBodiesPerBlock));
  nbody_alternate(initial, scratch, out, params.steps, [&](const layout::View<M>& from, const layout::View<M>& to) {
    nbody_step_kernel<M><<<grid, block, 0, stream>>>(from, to, params.softening2, params.dt);
    check_launch("nbody_step_kernel");
  });
}

//! What the benchmarks call for mapping M (instantiated for every mapping of NBodyLayouts below).
template <class M>
struct NBodyEntries {
  static constexpr auto functions = std::tuple{&nbody_run<M>};
};

}  // namespace lb::kofler

template struct lb::layout::InstantiateEach<lb::kofler::NBodyEntries, lb::kofler::NBodyLayouts::mappings>;

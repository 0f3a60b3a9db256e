#pragma once
//! N-body's per-thread body (nbody.cu's nbody_step_kernel) in the phases its __syncthreads
//! separate, over any view: the kernel calls them on the GPU, and nbody_replay_block runs a
//! whole block of them on the host in the GPU's order (every thread's phase, then the next
//! phase), over a View or a RecordingView (lb/layout/recording.hpp). Thread (b, lane) of a
//! block sums, for body i = block * kBodiesPerBlock + b, lane's chunk of every staged tile;
//! its slot in the tile is t = lane * kBodiesPerBlock + b (its linear thread index).

#include <cstddef>
#include <vector>

#include "lb/kofler/nbody.hpp"

namespace lb::kofler {

//! Phase 0: the thread's own body's position (zero past n: lanes of a partial last block).
template <class V>
LB_HD LB_FORCEINLINE float4 nbody_own_pos(const V& in, std::size_t i, std::size_t n) {
  return i < n ? in.template get<Pos>(i) : float4{0, 0, 0, 0};
}

//! Phase 1 of each tile: the thread stages body base + t of the tile. A full tile (every tile
//! but the last) is staged in a branch of its own, uniform over the block: see nbody.cu.
template <class V>
LB_HD LB_FORCEINLINE void nbody_stage(const V& in, float4* tile, unsigned t, std::size_t base, std::size_t n) {
  if (base + kTileBodies <= n)
    tile[t] = in.template get<Pos>(base + t);
  else
    tile[t] = base + t < n ? in.template get<Pos>(base + t) : float4{0, 0, 0, 0};
}

//! Phase 2 of each tile (shared memory only): lane's chunk of the staged tile, summed on its
//! own, then added into the running sum.
LB_HD LB_FORCEINLINE void nbody_sum_tile(const float4* tile, unsigned lane, const float4& pi, float softening2,
                                         float3& acc) {
  float3 chunk{0, 0, 0};
  const float4* mine = tile + lane * kChunk;
  LB_UNROLL
  for (unsigned k = 0; k < kChunk; ++k) {
    const float4 pj = mine[k];  // one 128-bit broadcast load (a reference would load w apart)
    add_interaction(pi, pj, softening2, chunk);
  }
  acc.x += chunk.x, acc.y += chunk.y, acc.z += chunk.z;
}

//! Shared memory for the lanes' partial sums.
using NBodyPartials = float3[kLanes - 1][kBodiesPerBlock];

//! Phase 3: lanes 1.. hand their sums to lane 0.
LB_HD LB_FORCEINLINE void nbody_share_partial(NBodyPartials& partial, unsigned b, unsigned lane, const float3& acc) {
  if (lane > 0) partial[lane - 1][b] = acc;
}

//! Phase 4, lane 0 of a body i < n only: the lanes' sums, the step, the stores.
template <class V>
LB_HD LB_FORCEINLINE void nbody_finish(V in, V out, const NBodyPartials& partial, unsigned b,
                                       std::size_t i, const float4& pi, float3& acc, float dt) {
  LB_UNROLL
  for (unsigned l = 0; l + 1 < kLanes; ++l) acc.x += partial[l][b].x, acc.y += partial[l][b].y, acc.z += partial[l][b].z;
  float4 p = pi, v = in.template get<Vel>(i);
  integrate(p, v, acc, dt);
  out.template get<Pos>(i) = p;
  out.template get<Vel>(i) = v;
}

//! Block `block` of one step in -> out on the host, its kTileBodies threads phase by phase in
//! linear thread order, as the kernel's __syncthreads order them.
template <class V>
void nbody_replay_block(const V& in, const V& out, unsigned block, float softening2, float dt) {
  const std::size_t n = in.size();
  std::vector<float4> tile(kTileBodies), pi(kTileBodies);
  std::vector<float3> acc(kTileBodies, float3{0, 0, 0});
  NBodyPartials partial{};
  auto body = [&](unsigned t) { return std::size_t(block) * kBodiesPerBlock + t % kBodiesPerBlock; };
  for (unsigned t = 0; t < kTileBodies; ++t) pi[t] = nbody_own_pos(in, body(t), n);
  for (std::size_t base = 0; base < n; base += kTileBodies) {
    for (unsigned t = 0; t < kTileBodies; ++t) nbody_stage(in, tile.data(), t, base, n);
    for (unsigned t = 0; t < kTileBodies; ++t) nbody_sum_tile(tile.data(), t / kBodiesPerBlock, pi[t], softening2, acc[t]);
  }
  for (unsigned t = 0; t < kTileBodies; ++t) nbody_share_partial(partial, t % kBodiesPerBlock, t / kBodiesPerBlock, acc[t]);
  for (unsigned t = 0; t < kBodiesPerBlock; ++t)  // lane 0
    if (body(t) < n) nbody_finish(in, out, partial, t, body(t), pi[t], acc[t], dt);
}

//! Blocks of one step (nbody_run's grid).
inline unsigned nbody_blocks(std::size_t n) { return unsigned((n + kBodiesPerBlock - 1) / kBodiesPerBlock); }

}  // namespace lb::kofler

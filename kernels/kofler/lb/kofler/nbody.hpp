#pragma once
//! N-body (Kofler et al. 2015, after the AMD SDK / CUDA samples' nbody): all-pairs direct
//! summation with softening, bodies staged through shared memory one tile at a time, then
//! semi-implicit Euler (vel += acc dt; pos += vel dt) for k steps. The record is the paper's:
//! {float4 pos (xyz + mass), float4 vel (xyz, w unused)}. This header is host and device code:
//! the interaction below is the kernel's, and the CPU tests run it too.

#include <cmath>
#include <cstddef>

#include <vector_types.h>

#include "lb/layout/config.hpp"
#include "lb/layout/record.hpp"

namespace lb::kofler {

struct Pos {};
struct Vel {};
using Body = layout::Record<layout::Field<Pos, float4>, layout::Field<Vel, float4>>;

struct NBodyParams {
  float softening2 = 1e-4f;  //!< epsilon^2: also keeps the self-interaction (r = 0) finite, and 0
  float dt = 1e-3f;
  int steps = 2;
};

//! Kernel shape: a block stages kTileBodies bodies' pos per tile; it integrates
//! kBodiesPerBlock bodies, each summed by kLanes threads over kChunk = tile / lanes bodies of
//! every tile (so 64K bodies still give 1024 blocks: enough warps to hide latency).
inline constexpr unsigned kTileBodies = 256;
inline constexpr unsigned kLanes = 4;
inline constexpr unsigned kChunk = kTileBodies / kLanes;
inline constexpr unsigned kBodiesPerBlock = kTileBodies / kLanes;

//! FP32 FMA-pipe instructions of one interaction (add_interaction): 3 FADD (r), 3 FFMA (r^2 +
//! eps^2), 2 FMUL (inv^3), 1 FMUL (m inv^3), 3 FFMA (acc); plus one MUFU.RSQ.
inline constexpr double kInteractionFma = 12;
inline constexpr double kInteractionSpecial = 1;

LB_HD LB_FORCEINLINE float reciprocal_sqrt(float x) {
#ifdef __CUDA_ARCH__
  float r;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));  // one MUFU.RSQ; x >= eps^2 > 0
  return r;
#else
  return 1.0f / std::sqrt(x);  // <= 1.5u: inside the kernel's 2-ulp budget
#endif
}

//! acc += m_j (p_j - p_i) / (|p_j - p_i|^2 + eps^2)^(3/2): the samples' bodyBodyInteraction.
LB_HD LB_FORCEINLINE void add_interaction(const float4& pi, const float4& pj, float softening2, float3& acc) {
  const float rx = pj.x - pi.x, ry = pj.y - pi.y, rz = pj.z - pi.z;
  const float d2 = fmaf(rx, rx, fmaf(ry, ry, fmaf(rz, rz, softening2)));
  const float inv = reciprocal_sqrt(d2);
  const float s = pj.w * (inv * inv * inv);
  acc.x = fmaf(rx, s, acc.x);
  acc.y = fmaf(ry, s, acc.y);
  acc.z = fmaf(rz, s, acc.z);
}

//! One body's step from its summed acceleration (w components kept: mass, unused).
LB_HD LB_FORCEINLINE void integrate(float4& pos, float4& vel, const float3& acc, float dt) {
  vel.x = fmaf(acc.x, dt, vel.x);
  vel.y = fmaf(acc.y, dt, vel.y);
  vel.z = fmaf(acc.z, dt, vel.z);
  pos.x = fmaf(vel.x, dt, pos.x);
  pos.y = fmaf(vel.y, dt, pos.y);
  pos.z = fmaf(vel.z, dt, pos.z);
}

}  // namespace lb::kofler

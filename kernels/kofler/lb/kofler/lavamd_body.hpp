#pragma once
//! LavaMD's per-thread body (lavamd.cu's kernel) over any view of the particle records, in the
//! phases its __syncthreads separate: the kernel calls them on the GPU for its active threads
//! (t < kParticlesPerBox), and lavamd_replay_box runs a whole block of them on the host in the
//! GPU's order (every thread's phase, then the next), over a View or a RecordingView
//! (lb/layout/recording.hpp). `Q` is the charges' array: a pointer on the GPU, anything with
//! q[i] on the host (a recorded array under recording).

#include <cmath>
#include <cstddef>
#include <vector>

#include "lb/kofler/lavamd.hpp"

namespace lb::kofler {

//! One particle staged in shared memory.
template <class T>
struct LavaStaged {
  T v, x, y, z;
};

template <class V>
LB_HD LB_FORCEINLINE LavaStaged<LavaReal<typename V::mapping_type>> lava_stage(const V& rv, std::size_t i) {
  const auto r = rv.load(i);
  return {r.template get<LavaV>(), r.template get<LavaX>(), r.template get<LavaY>(), r.template get<LavaZ>()};
}

//! Rodinia's exp(): the full-precision exponential of the precision (expf for float).
LB_HD LB_FORCEINLINE float lava_exp(float x) { return expf(x); }
LB_HD LB_FORCEINLINE double lava_exp(double x) { return exp(x); }

//! Phase 2 of each partner box: thread t stages the partner's particle t and its charge.
template <class V, class Q, class T>
LB_HD LB_FORCEINLINE void lava_stage_partner(const V& rv, const Q& qv, LavaStaged<T>* rB, T* qB, std::size_t first,
                                             unsigned t) {
  rB[t] = lava_stage(rv, first + t);
  qB[t] = qv[first + t];
}

//! Phase 3 of each partner box (shared memory only): thread t's particle `a` against every
//! staged particle, summed into its force (fv_v, fv_x, fv_y, fv_z).
template <class T>
LB_HD LB_FORCEINLINE void lava_interact(const LavaStaged<T>& a, const LavaStaged<T>* rB, const T* qB, T a2, T& fv_v,
                                        T& fv_x, T& fv_y, T& fv_z) {
  for (int j = 0; j < kParticlesPerBox; ++j) {
    const LavaStaged<T> b = rB[j];
    const T r2 = a.v + b.v - (a.x * b.x + a.y * b.y + a.z * b.z);
    const T u2 = a2 * r2;
    const T vij = lava_exp(-u2);
    const T fs = 2 * vij;
    const T q = qB[j];
    fv_v += q * vij;
    fv_x += q * (fs * (a.x - b.x));
    fv_y += q * (fs * (a.y - b.y));
    fv_z += q * (fs * (a.z - b.z));
  }
}

//! Last phase: thread t stores its particle's force, once.
template <class V, class T>
LB_HD LB_FORCEINLINE void lava_store(const V& fv, std::size_t i, T fv_v, T fv_x, T fv_y, T fv_z) {
  layout::RecordValue<typename V::mapping_type::record> f;
  f.template get<LavaV>() = fv_v;
  f.template get<LavaX>() = fv_x;
  f.template get<LavaY>() = fv_y;
  f.template get<LavaZ>() = fv_z;
  fv.store(i, f);
}

//! Box `box`'s block on the host: its active threads phase by phase in thread order.
template <class V, class Q>
void lavamd_replay_box(const V& rv, const Q& qv, const V& fv, int boxes_1d, long box) {
  using T = LavaReal<typename V::mapping_type>;
  const T a2 = static_cast<T>(2 * kLavaAlpha * kLavaAlpha);
  std::vector<LavaStaged<T>> rA(kParticlesPerBox), rB(kParticlesPerBox);
  std::vector<T> qB(kParticlesPerBox), f(4 * kParticlesPerBox, T(0));
  const std::size_t home = std::size_t(box) * kParticlesPerBox;
  for (unsigned t = 0; t < kParticlesPerBox; ++t) rA[t] = lava_stage(rv, home + t);
  for (int k = 0; k < kLavaPartners; ++k) {
    const long other = lava_partner(box, k, boxes_1d);
    if (other < 0) continue;
    const std::size_t first = std::size_t(other) * kParticlesPerBox;
    for (unsigned t = 0; t < kParticlesPerBox; ++t) lava_stage_partner(rv, qv, rB.data(), qB.data(), first, t);
    for (unsigned t = 0; t < kParticlesPerBox; ++t)
      lava_interact(rA[t], rB.data(), qB.data(), a2, f[4 * t], f[4 * t + 1], f[4 * t + 2], f[4 * t + 3]);
  }
  for (unsigned t = 0; t < kParticlesPerBox; ++t) lava_store(fv, home + t, f[4 * t], f[4 * t + 1], f[4 * t + 2], f[4 * t + 3]);
}

}  // namespace lb::kofler

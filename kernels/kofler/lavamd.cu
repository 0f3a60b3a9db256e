//! LavaMD's kernel over any layout of the particle and force records (Rodinia's
//! kernel_gpu_cuda: one block per box, the home box's particles and each partner box's
//! particles and charges staged in shared memory). Unlike Rodinia, each thread sums its
//! particle's force in registers and stores it once, instead of adding into fv in global
//! memory per pair (the sums are the same, in the same order).

#include <cmath>
#include <stdexcept>
#include <string>

#include "lb/common/cuda_check.hpp"
#include "lb/kofler/lavamd.hpp"
#include "lb/layout/aos.hpp"
#include "lb/layout/aosoa.hpp"
#include "lb/layout/soa.hpp"

namespace lb::kofler {

namespace {

struct Staged {
  double v, x, y, z;
};

template <class M>
__device__ LB_FORCEINLINE Staged stage(const layout::View<M>& rv, std::size_t i) {
  const auto r = rv.load(i);
  return {r.template get<LavaV>(), r.template get<LavaX>(), r.template get<LavaY>(), r.template get<LavaZ>()};
}

template <class M>
__global__ void __launch_bounds__(kLavaThreads)
    lavamd_kernel(layout::View<M> rv, const double* __restrict__ qv, layout::View<M> fv, int boxes_1d, double a2,
                  int partners) {
  static_assert(kLavaThreads >= kParticlesPerBox, "one thread per particle of a box");
  __shared__ Staged rA[kParticlesPerBox], rB[kParticlesPerBox];
  __shared__ double qB[kParticlesPerBox];
  const long box = blockIdx.x;
  const unsigned t = threadIdx.x;
  const bool active = t < kParticlesPerBox;
  const std::size_t home = std::size_t(box) * kParticlesPerBox;
  if (active) rA[t] = stage(rv, home + t);
  double fv_v = 0, fv_x = 0, fv_y = 0, fv_z = 0;
  for (int k = 0; k < partners; ++k) {
    const long other = lava_partner(box, k, boxes_1d);
    if (other < 0) continue;  // the same for the whole block
    const std::size_t first = std::size_t(other) * kParticlesPerBox;
    __syncthreads();  // the previous partner is done with rB
    if (active) {
      rB[t] = stage(rv, first + t);
      qB[t] = qv[first + t];
    }
    __syncthreads();
    if (active) {
      const Staged a = rA[t];
      for (int j = 0; j < kParticlesPerBox; ++j) {
        const Staged b = rB[j];
        const double r2 = a.v + b.v - (a.x * b.x + a.y * b.y + a.z * b.z);
        const double u2 = a2 * r2;
        const double vij = exp(-u2);
        const double fs = 2 * vij;
        const double q = qB[j];
        fv_v += q * vij;
        fv_x += q * (fs * (a.x - b.x));
        fv_y += q * (fs * (a.y - b.y));
        fv_z += q * (fs * (a.z - b.z));
      }
    }
  }
  if (active) {
    layout::RecordValue<FourVector> f;
    f.get<LavaV>() = fv_v;
    f.get<LavaX>() = fv_x;
    f.get<LavaY>() = fv_y;
    f.get<LavaZ>() = fv_z;
    fv.store(home + t, f);
  }
}

}  // namespace

template <class M>
void lavamd_forces(const layout::View<M>& rv, const double* qv, const layout::View<M>& fv, int boxes_1d,
                   cudaStream_t stream, LavaFault fault) {
  const std::size_t boxes = lavamd_boxes(boxes_1d);
  if (rv.size() != boxes * kParticlesPerBox || fv.size() != rv.size())
    throw std::invalid_argument("lavamd: " + std::to_string(rv.size()) + " particles for " + std::to_string(boxes) +
                                " boxes of " + std::to_string(kParticlesPerBox));
  const double a2 = 2 * kLavaAlpha * kLavaAlpha;
  const int partners = fault == LavaFault::skip_last_neighbour ? kLavaPartners - 1 : kLavaPartners;
  lavamd_kernel<<<unsigned(boxes), kLavaThreads, 0, stream>>>(rv, qv, fv, boxes_1d, a2, partners);
  check_launch("lavamd_kernel");
}

using LavaAoS = layout::AoSMapping<FourVector>;
using LavaSoA = layout::SoAMapping<FourVector>;
using LavaTiled = layout::RuntimeAoSoAMapping<FourVector>;
template <std::size_t T>
using LavaTiledCt = layout::AoSoAMapping<FourVector, T>;

template void lavamd_forces(const layout::View<LavaAoS>&, const double*, const layout::View<LavaAoS>&, int, cudaStream_t,
                            LavaFault);
template void lavamd_forces(const layout::View<LavaSoA>&, const double*, const layout::View<LavaSoA>&, int, cudaStream_t,
                            LavaFault);
template void lavamd_forces(const layout::View<LavaTiled>&, const double*, const layout::View<LavaTiled>&, int,
                            cudaStream_t, LavaFault);
template void lavamd_forces(const layout::View<LavaTiledCt<kLavaCompileTimeTiles[0]>>&, const double*,
                            const layout::View<LavaTiledCt<kLavaCompileTimeTiles[0]>>&, int, cudaStream_t, LavaFault);
template void lavamd_forces(const layout::View<LavaTiledCt<kLavaCompileTimeTiles[1]>>&, const double*,
                            const layout::View<LavaTiledCt<kLavaCompileTimeTiles[1]>>&, int, cudaStream_t, LavaFault);
template void lavamd_forces(const layout::View<LavaTiledCt<kLavaCompileTimeTiles[2]>>&, const double*,
                            const layout::View<LavaTiledCt<kLavaCompileTimeTiles[2]>>&, int, cudaStream_t, LavaFault);

}  // namespace lb::kofler

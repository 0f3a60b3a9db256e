//! LavaMD's kernel over any layout of the particle and force records (Rodinia's
//! kernel_gpu_cuda: one block per box, the home box's particles and each partner box's
//! particles and charges staged in shared memory). Unlike Rodinia, each thread sums its
//! particle's force in registers and stores it once, instead of adding into fv in global
//! memory per pair (the sums are the same, in the same order). The per-thread phases are
//! lb/kofler/lavamd_body.hpp's, which the host replays under access recording.

#include <cmath>
#include <stdexcept>
#include <string>
#include <tuple>

#include "lb/common/cuda_check.hpp"
#include "lb/kofler/lavamd_body.hpp"

namespace lb::kofler {

namespace {

template <class M, class T = LavaReal<M>>
__global__ void __launch_bounds__(kLavaThreads)
    lavamd_kernel(layout::View<M> rv, const T* __restrict__ qv, layout::View<M> fv, int boxes_1d, T a2,
                  int partners) {
  static_assert(kLavaThreads >= kParticlesPerBox, "one thread per particle of a box");
  __shared__ LavaStaged<T> rA[kParticlesPerBox], rB[kParticlesPerBox];
  __shared__ T qB[kParticlesPerBox];
  const long box = blockIdx.x;
  const unsigned t = threadIdx.x;
  const bool active = t < kParticlesPerBox;
  const std::size_t home = std::size_t(box) * kParticlesPerBox;
  if (active) rA[t] = lava_stage(rv, home + t);
  T fv_v = 0, fv_x = 0, fv_y = 0, fv_z = 0;
  for (int k = 0; k < partners; ++k) {
    const long other = lava_partner(box, k, boxes_1d);
    if (other < 0) continue;  // the same for the whole block
    const std::size_t first = std::size_t(other) * kParticlesPerBox;
    __syncthreads();  // the previous partner is done with rB
    if (active) lava_stage_partner(rv, qv, rB, qB, first, t);
    __syncthreads();
    if (active) lava_interact(rA[t], rB, qB, a2, fv_v, fv_x, fv_y, fv_z);
  }
  if (active) lava_store(fv, home + t, fv_v, fv_x, fv_y, fv_z);
}

}  // namespace

template <class M>
void lavamd_forces(const layout::View<M>& rv, const LavaReal<M>* qv, const layout::View<M>& fv, int boxes_1d,
                   cudaStream_t stream, LavaFault fault) {
  const std::size_t boxes = lavamd_boxes(boxes_1d);
  if (rv.size() != boxes * kParticlesPerBox || fv.size() != rv.size())
    throw std::invalid_argument("lavamd: " + std::to_string(rv.size()) + " particles for " + std::to_string(boxes) +
                                " boxes of " + std::to_string(kParticlesPerBox));
  const auto a2 = static_cast<LavaReal<M>>(2 * kLavaAlpha * kLavaAlpha);
  const int partners = fault == LavaFault::skip_last_neighbour ? kLavaPartners - 1 : kLavaPartners;
  lavamd_kernel<<<unsigned(boxes), kLavaThreads, 0, stream>>>(rv, qv, fv, boxes_1d, a2, partners);
  check_launch("lavamd_kernel");
}

//! What the benchmarks call for mapping M (instantiated for every mapping of LavaLayouts<float>
//! and LavaLayouts<double>).
template <class M>
struct LavaEntries {
  static constexpr auto functions = std::tuple{&lavamd_forces<M>};
};

}  // namespace lb::kofler

template struct lb::layout::InstantiateEach<lb::kofler::LavaEntries, lb::kofler::LavaLayouts<float>::mappings>;
template struct lb::layout::InstantiateEach<lb::kofler::LavaEntries, lb::kofler::LavaLayouts<double>::mappings>;

#pragma once
//! N-body on the GPU, for every mapping of NBodyLayouts (the benchmarks' dispatch reaches
//! those, nbody.cu instantiates those).

#include <cuda_runtime_api.h>

#include <cstddef>
#include <stdexcept>
#include <string_view>

#include "lb/kofler/nbody.hpp"
#include "lb/layout/aos.hpp"
#include "lb/layout/program_layouts.hpp"
#include "lb/layout/soa.hpp"
#include "lb/layout/split.hpp"
#include "lb/layout/view.hpp"

namespace lb::kofler {

//! The tiled-AoS tile sizes compiled in (tiled-ct): a sweep's small, middle and kernel-tile
//! sizes.
template <template <std::size_t...> class List>
using NBodyCompileTimeTiles = List<4, 32, 256>;

//! The paper's KDLG split: the two 16-byte fields in clusters of their own.
struct PosVelSplit {
  static constexpr std::string_view name = "pos|vel";
  template <class Rec>
  using mapping = layout::SplitMapping<Rec, layout::Cluster<layout::AoS, Pos>, layout::Cluster<layout::AoS, Vel>>;
};

//! What N-body compiles for Body: its tiles and split besides every run-time mapping.
using NBodyLayouts = layout::ProgramLayouts<Body, NBodyCompileTimeTiles<layout::Tiles>, layout::LayoutList<PosVelSplit>>;

//! params.steps (>= 1) steps from `initial` (read only), alternating between `scratch` and
//! `out` so that the last step writes `out`; one kernel launch a step.
template <class M>
void nbody_run(const layout::View<M>& initial, const layout::View<M>& scratch, const layout::View<M>& out,
               const NBodyParams& params, cudaStream_t stream);

//! The roofline version (beyond the paper; nbody_roofline.cu): the same steps, sums and results
//! bit for bit as nbody_run, in a kernel written for throughput. Compiled for SoA only.
using NBodyRooflineMapping = layout::SoAMapping<Body>;
void nbody_roofline_run(const layout::View<NBodyRooflineMapping>& initial,
                        const layout::View<NBodyRooflineMapping>& scratch,
                        const layout::View<NBodyRooflineMapping>& out, const NBodyParams& params, cudaStream_t stream);

//! The roofline kernel's shape: a block of kLanes warps (lane = warp, so each staged body's
//! load is a broadcast) integrates kRooflineColumns * kRooflineBodiesPerThread bodies, each
//! thread kRooflineBodiesPerThread of them (bodies column + 32 r of the block).
inline constexpr unsigned kRooflineBodiesPerThread = 8;
inline constexpr unsigned kRooflineColumns = 32;
//! Staged bodies of a chunk per iteration of the interaction loop (not the whole chunk): fully
//! unrolled, the tile loop was 6,797 instructions (108 KB), and ncu showed warps stalled on
//! instruction fetch 68 % of the time (H200); unrolled by 4 it is a few hundred instructions.
inline constexpr unsigned kRooflineChunkUnroll = 4;
inline constexpr unsigned kRooflineThreads = kRooflineColumns * kLanes;
inline constexpr unsigned kRooflineBlockBodies = kRooflineColumns * kRooflineBodiesPerThread;

//! The steps of nbody_run and nbody_roofline_run: `step(from, to)` params.steps times, from
//! `initial` through `scratch` and `out` so that the last step writes `out`.
template <class M, class Step>
void nbody_alternate(const layout::View<M>& initial, const layout::View<M>& scratch, const layout::View<M>& out,
                     int steps, Step&& step) {
  if (steps < 1) throw std::invalid_argument("nbody: steps must be at least 1");
  layout::View<M> from = initial;
  for (int s = 0; s < steps; ++s) {
    const layout::View<M>& to = (steps - 1 - s) % 2 == 0 ? out : scratch;
    step(from, to);
    from = to;
  }
}

}  // namespace lb::kofler

#pragma once
//! N-body on the GPU, for every mapping of NBodyLayouts (the benchmarks' dispatch reaches
//! those, nbody.cu instantiates those).

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string_view>

#include "lb/kofler/nbody.hpp"
#include "lb/layout/aos.hpp"
#include "lb/layout/program_layouts.hpp"
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

}  // namespace lb::kofler

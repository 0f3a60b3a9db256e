#pragma once
//! BlackScholes on the GPU, for every mapping of BlackScholesLayouts (the benchmarks' dispatch
//! reaches those, blackscholes.cu instantiates those).

#include <cuda_runtime_api.h>

#include <string_view>

#include "lb/kofler/blackscholes.hpp"
#include "lb/layout/aos.hpp"
#include "lb/layout/program_layouts.hpp"
#include "lb/layout/split.hpp"
#include "lb/layout/view.hpp"

namespace lb::kofler {

template <template <std::size_t...> class List>
using BlackScholesCompileTimeTiles = List<8, 32, 128, 1024>;

//! The read fields and the written fields in clusters of their own.
struct InputsOutputsSplit {
  static constexpr std::string_view name = "inputs|outputs";
  template <class Rec>
  using mapping = layout::SplitMapping<Rec, layout::Cluster<layout::AoS, Stock, Strike, Years>,
                                       layout::Cluster<layout::AoS, Call, Put>>;
};

//! What BlackScholes compiles for Option: its tiles and split besides every run-time mapping.
using BlackScholesLayouts =
    layout::ProgramLayouts<Option, BlackScholesCompileTimeTiles<layout::Tiles>, layout::LayoutList<InputsOutputsSplit>>;

//! Draws every option's inputs from params.seed (option_inputs) into the view.
template <class M>
void black_scholes_fill(const layout::View<M>& options, const BlackScholesParams& params, cudaStream_t stream);
//! Sets every call and put to NaN.
template <class M>
void black_scholes_poison(const layout::View<M>& options, cudaStream_t stream);
//! The timed kernel: call and put of every option, one option a thread.
template <class M>
void black_scholes_run(const layout::View<M>& options, const BlackScholesParams& params, cudaStream_t stream);
//! Copies the calls and puts into plain device arrays of size() floats each.
template <class M>
void black_scholes_gather(const layout::View<M>& options, float* call, float* put, cudaStream_t stream);

}  // namespace lb::kofler

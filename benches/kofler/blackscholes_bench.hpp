#pragma once
//! BlackScholes' benchmark variants (blackscholes_bench.cpp), exposed for the GPU tests.

#include <cstddef>
#include <memory>

#include "kofler/layout_choice.hpp"
#include "lb/harness/program.hpp"
#include "lb/kofler/blackscholes.hpp"

namespace lb::benches::kofler {

//! The variant of `layout` for n options run with `params` and checked against the reference
//! at `reference_params` (the same, except where a test runs a wrong kernel on purpose).
std::unique_ptr<Variant> make_blackscholes_variant(const LayoutChoice& layout, std::size_t n,
                                                    const lb::kofler::BlackScholesParams& params,
                                                    const lb::kofler::BlackScholesParams& reference_params);

}  // namespace lb::benches::kofler

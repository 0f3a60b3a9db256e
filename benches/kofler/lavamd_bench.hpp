#pragma once
//! LavaMD's variants (lavamd_bench.cpp), for the planner and the GPU tests (which inject faults).

#include <memory>
#include <string_view>

#include "kofler/layout_choice.hpp"
#include "lb/harness/program.hpp"
#include "lb/kofler/lavamd.hpp"

namespace lb::benches::kofler {

//! LavaMD over boxes_1d³ boxes in `precision` (float, double) with the particle and force
//! records in `choice`'s layout.
std::unique_ptr<Variant> make_lavamd_variant(const LayoutChoice& choice, int boxes_1d, std::string_view precision,
                                             lb::kofler::LavaFault fault);

}  // namespace lb::benches::kofler

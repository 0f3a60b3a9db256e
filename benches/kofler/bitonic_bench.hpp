#pragma once
//! The bitonic program's variants (bitonic_bench.cpp), for the planner and the GPU tests (which
//! inject faults).

#include <memory>
#include <string_view>

#include "kofler/layout_choice.hpp"
#include "lb/harness/program.hpp"
#include "lb/kofler/sort.hpp"

namespace lb::benches::kofler {

//! `version` bitonic (any layout but split), cub-radix (soa) or cub-merge (aos) sorting n records.
std::unique_ptr<Variant> make_bitonic_variant(const LayoutChoice& choice, std::string_view version, std::size_t n,
                                           lb::kofler::SortFault fault);

}  // namespace lb::benches::kofler

#pragma once
//! SAMPO's variant (sampo_bench.cpp): the Engine of kernels/kofler/sampo.hpp on the mapping of
//! a layout choice, checked against the CPU reference run from the same snapshot.

#include <memory>

#include "kofler/layout_choice.hpp"
#include "lb/harness/program.hpp"
#include "lb/kofler/sampo.hpp"

namespace lb::benches::kofler {

//! The variant of `choice`, checked against `expected` (its snapshot is the run's start).
std::unique_ptr<Variant> make_sampo_variant(const LayoutChoice& choice, const lb::kofler::sampo::Config& cfg,
                                            std::shared_ptr<const lb::kofler::sampo::ReferenceRun> expected,
                                            lb::kofler::sampo::Fault fault = lb::kofler::sampo::Fault::none);

}  // namespace lb::benches::kofler

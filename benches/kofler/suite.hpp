#pragma once
//! The Kofler suite's declaration: its programs. Each declares its axes and expansion over its
//! own object in the preset's "kofler" suite ({"nbody": {...}, "bitonic": {...}, ...});
//! benches/suites.cpp lists the programs and the one planner (lb/harness/plan.hpp) plans those
//! the preset names. What they share: kofler/layout_choice.hpp, kofler/variant_support.hpp.

#include "lb/harness/suite.hpp"

namespace lb::benches::kofler {

// A bench is written in the harness's terms (Program, Axis, Variant, ...).
using namespace harness;

//! The programs, each declared with its axes, counters, settings and expansion in its
//! benches/kofler/<program>_bench.cpp, in run order (suites.cpp lists them).
Program nbody_program();
Program blackscholes_program();
Program bitonic_program();
Program lavamd_program();
Program sampo_program();

}  // namespace lb::benches::kofler

#pragma once
//! The Kofler suite's programs. Each declares its axes and expansion over its own object in the
//! preset's "kofler" suite ({"nbody": {...}, "bitonic": {...}, ...}); benches/suites.cpp lists
//! the programs and the one planner (lb/harness/plan.hpp) plans those the preset names.

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kofler/layout_choice.hpp"
#include "lb/harness/suite.hpp"

namespace lb::harness::kofler {

//! The programs, each declared with its axes, counters, settings and expansion in its
//! benches/kofler/<program>_bench.cpp, in run order (suites.cpp lists them).
Program nbody_program();
Program black_scholes_program();
Program bitonic_program();
Program lavamd_program();
Program sampo_program();

}  // namespace lb::harness::kofler

#pragma once
//! The Kofler suite's programs. Each program plans its benchmarks from its own object in the
//! preset's "kofler" suite ({"nbody": {...}, "bitonic": {...}, ...}); benches/kofler_bench.cpp
//! lists the programs and calls the planners of those the preset names.

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "layout_choice.hpp"
#include "lb/harness/suite.hpp"

namespace lb::harness::kofler {

//! Plans one program's benchmarks from its preset object `j` (found under the key `where`).
using ProgramPlanner = std::vector<PlannedBenchmark> (*)(const Preset& preset, const nlohmann::json& j,
                                                        std::string_view where, const Overrides& overrides);

struct Program {
  std::string_view name;
  ProgramPlanner plan;
};

//! kofler/<program>/<version>/<layout>/<precision>[/<tile:t | partition:p>]/size:<n>
std::string benchmark_name(std::string_view program, std::string_view version, const LayoutChoice& layout,
                           std::string_view precision, std::size_t size);

//! Every program of the suite, in run order (defined in kofler_bench.cpp).
const std::vector<Program>& programs();

}  // namespace lb::harness::kofler

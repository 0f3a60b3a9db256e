#pragma once
//! Kriging's preset object ("kriging": scales, experiments, exp7_precisions, cpu_programs,
//! cpu_sample_estimates, well_sweep, model), read into what the planner expands.

#include <cstddef>
#include <vector>

#include <nlohmann/json.hpp>

#include "kriging/variants.hpp"
#include "lb/harness/preset.hpp"
#include "lb/harness/suite.hpp"

namespace lb::harness::kriging_bench {

struct WellSweep {
  std::vector<std::size_t> wells;
  std::vector<int> scales;
  std::vector<int> experiments;
};

struct Config {
  std::vector<int> scales;
  std::vector<int> experiments;            //!< CUDA experiments 1..8
  std::vector<Prec> exp7_precisions;       //!< experiments 7 and 8 run in either
  std::vector<Prec> precisions;            //!< --precision filter (empty = all)
  bool cpu_programs = true;
  double cpu_sample_estimates = 0x1.0p20;  //!< a CPU run above this many estimates is sampled
  WellSweep sweep;
};

//! The suite's object `j` of the preset, with the command line's overrides.
Config read_config(const Preset& preset, const nlohmann::json& j, const Overrides& overrides);

}  // namespace lb::harness::kriging_bench

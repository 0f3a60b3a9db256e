#pragma once
//! Kriging's preset object ("kriging"): its axes (scales, experiments, the well sweep's wells)
//! are the program's (ok_bench.cpp), read by the one planner; here its settings:
//! exp7_precisions, exp4_layouts, cpu_programs, cpu_sample_estimates, the well sweep's scales and
//! experiments (model is the suite's artifact step's).

#include <cstdint>
#include <vector>

#include "kriging/ok_variants.hpp"
#include "lb/harness/plan.hpp"

namespace lb::benches::kriging {

struct WellSweep {
  std::vector<std::int64_t> scales;
  std::vector<std::int64_t> experiments;
};

struct Settings {
  std::vector<Prec> exp7_precisions;  //!< experiments 7 and 8 run in either
  bool cpu_programs = true;
  double cpu_sample_estimates = 0x1.0p20;  //!< a CPU run above this many estimates is sampled
  bool sweep = false;                      //!< the preset has a well sweep
  WellSweep well_sweep;
  //! Experiment 4's well layouts: soa (the paper's), and beyond the paper aosoa32 (Kofler's
  //! method's choice for the well record, docs/advisor.md §6).
  std::vector<lb::kriging::WellLayout> exp4_layouts{lb::kriging::WellLayout::soa};
};

//! "no experiment <e> (1..8)" for an experiment out of range, else "".
std::string experiment_problem(std::int64_t e);

//! The settings of the program's object (read.object()).
Settings read_settings(const Reader& read);

}  // namespace lb::benches::kriging

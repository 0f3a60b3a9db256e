#pragma once
//! Kriging's CUDA experiments and CPU programs as program variants (lb/harness/program.hpp),
//! each validated against the double reference (lb/kriging/reference.hpp) before it is timed.

#include <cstddef>

#include "kriging/suite.hpp"
#include "lb/harness/program.hpp"
#include "lb/kriging/cpu.hpp"
#include "lb/kriging/device.hpp"

namespace lb::benches::kriging {

enum class Prec { f32, f64 };
inline const char* to_string(Prec p) { return p == Prec::f32 ? "float" : "double"; }

struct GpuCase {
  int experiment;
  Prec prec;
  int scale;
  std::size_t wells;
  lb::kriging::WellLayout well_layout = lb::kriging::WellLayout::soa;  //!< experiment 4 also runs aosoa32
};

struct CpuCase {
  lb::kriging::CpuProgram program;
  Prec prec;
  int scale;
  double sample_estimates;
};

//! How to run each (the memory it needs, the variant), for the planner.
ProgramCase gpu_case(const GpuCase& c);
ProgramCase cpu_case(const CpuCase& c);

}  // namespace lb::benches::kriging

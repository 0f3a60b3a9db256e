#pragma once
//! IDW's two kinds of benchmark as program variants (lb/harness/program.hpp): a GPU version on
//! one layout, validated against the double CPU reference before it is timed, and the paper's
//! CPU baseline (one core, or all cores with OpenMP).

#include <cstddef>
#include <string>

#include "idw/suite.hpp"
#include "lb/harness/program.hpp"
#include "lb/idw/device.hpp"

namespace lb::benches::idw {

using lb::idw::Precision;
using lb::idw::Version;

struct GpuCase {
  Version version;
  std::string layout;
  Precision prec;
  double p;
  std::size_t size;
  int block;
};

struct CpuCase {
  bool parallel;
  Precision prec;
  double p;
  std::size_t size;
};

//! How to run each (the memory it needs, the variant), for the planner.
ProgramCase gpu_case(const GpuCase& c);
ProgramCase cpu_case(const CpuCase& c);

}  // namespace lb::benches::idw

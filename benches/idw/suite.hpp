#pragma once
//! The IDW suite's declaration (Mei & Tian 2016): its one program, Shepard's interpolation,
//! whose object is the suite's section of the preset; benches/suites.cpp lists it.

#include "lb/harness/suite.hpp"

namespace lb::benches::idw {

// A bench is written in the harness's terms (Program, Axis, Variant, ...).
using namespace harness;

//! Its axes and expansion (shepard_bench.cpp), settings (shepard_config) and variants
//! (shepard_variants).
Program shepard_program();

}  // namespace lb::benches::idw

#pragma once
//! The kriging suite's declaration (Li & Dong): its one program, ordinary kriging, whose object
//! is the suite's section of the preset; benches/suites.cpp lists it with its artifact step.

#include "lb/harness/suite.hpp"

namespace lb::benches::kriging {

// A bench is written in the harness's terms (Program, Axis, Variant, ...).
using namespace harness;

//! Its axes and expansion (ok_bench.cpp), settings (ok_config) and variants (ok_variants).
Program ok_program();

}  // namespace lb::benches::kriging

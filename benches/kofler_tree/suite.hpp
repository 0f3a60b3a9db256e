#pragma once
//! The kofler-tree suite's declaration (Kofler et al. 2015, Sect. 3.2; docs/kofler-tree.md):
//! the decision tree's training, one program, "synthetic"; benches/suites.cpp lists it with the
//! tree's fit, its artifact step.

#include "lb/harness/suite.hpp"

namespace lb::benches::kofler_tree {

// A bench is written in the harness's terms (Program, Axis, Variant, ...).
using namespace harness;

//! Its axes and expansion (synthetic_bench.cpp), its object read and checked (synthetic_config).
Program synthetic_program();

}  // namespace lb::benches::kofler_tree

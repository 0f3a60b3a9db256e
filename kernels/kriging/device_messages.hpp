#pragma once
//! Messages of the CUDA experiments' host code, built in device_checks.cpp (fmt's
//! compile-time format strings do not compile under nvcc). Internal to lb_kriging.

#include <cstddef>
#include <string>

namespace lb::kriging {

//! "in CUDA experiment k at grid point (x, y) (c grid-point solves failed)".
std::string device_failure_where(int experiment, double px, double py, unsigned count);

}  // namespace lb::kriging

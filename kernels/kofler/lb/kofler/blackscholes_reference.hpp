#pragma once
//! BlackScholes' host side: the double reference of one option with its derived
//! tolerances, and the check of a run's outputs.

#include <cstddef>
#include <vector>

#include "lb/kofler/agreement.hpp"
#include "lb/kofler/blackscholes.hpp"

namespace lb::kofler {

struct OptionReference {
  double call, put;          //!< exact cumulative normal, in double
  double call_tol, put_tol;  //!< what the float kernel may be off (blackscholes_reference.cpp)
};
OptionReference black_scholes_reference(float s, float x, float t, const BlackScholesParams& params);

//! The outputs of options [0, call.size()) (inputs regenerated from params.seed) against the
//! reference; OpenMP over the options.
Agreement check_black_scholes(const std::vector<float>& call, const std::vector<float>& put,
                              const BlackScholesParams& params);

//! The references of options [0, n) at `params` (OpenMP over the options): what the check
//! above computes, kept once for every layout of a size (32 bytes an option).
std::vector<OptionReference> black_scholes_references(std::size_t n, const BlackScholesParams& params);
//! The check above against `refs` = black_scholes_references(call.size(), params): the same
//! agreement, without the reference's transcendental functions.
Agreement check_black_scholes(const std::vector<float>& call, const std::vector<float>& put,
                              const std::vector<OptionReference>& refs, const BlackScholesParams& params);

}  // namespace lb::kofler

#pragma once
//! The double-precision CPU reference every IDW variant is checked against: written
//! independently of the kernel bodies (plain loops over plain arrays), OpenMP over points.

#include <cstddef>
#include <span>
#include <vector>

#include "lb/datasets/points.hpp"
#include "lb/idw/layouts.hpp"

namespace lb::idw {

//! IDW value at (qx, qy) from every data point; coincident points (kCoincidentD2) return
//! the data point's value.
double reference_value(const datasets::PointSet& data, double qx, double qy, double p);

//! Reference values at the prediction points listed in `indices`.
std::vector<double> reference_values(const datasets::PointSet& data, const datasets::PointSet& pred,
                                     std::span<const std::size_t> indices, double p);

//! The point set with every coordinate and value rounded to precision `prec`, as a variant
//! of that precision sees it (so the reference measures only the arithmetic's error).
datasets::PointSet rounded_to(const datasets::PointSet& s, Precision prec);

//! Relative error allowed between a variant and the reference. Each output is a ratio of two
//! sums of m positive terms accumulated one after another in precision `prec` (unit
//! round-off u = 2^-24 or 2^-53). Recursive summation of positive terms has relative error
//! at most gamma_m = m u / (1 - m u) (Higham, Accuracy and Stability, 4.2), so the ratio is
//! within 2 gamma_m, plus 16 u for the per-term operations (reciprocal, pow, final division).
//! The bound is not pessimism for show: in float the far field's many small weights fall
//! below half an ulp of the running sum and are lost one-sidedly (measured: 0.54 % at
//! m = 1000K, where 2 gamma_m = 12 %; a random-walk estimate, u sqrt(m), would be 0.006 %).
double tolerance(Precision prec, std::size_t m);

//! Which prediction points to check: all of them up to `all_up_to`, else a seeded random
//! sample of `sample` points (sorted, always including the first and last).
std::vector<std::size_t> check_indices(std::size_t n, std::size_t all_up_to = 16384, std::size_t sample = 4096);

}  // namespace lb::idw

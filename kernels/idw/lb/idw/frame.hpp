#pragma once
//! The frame IDW computes in. Weights 1/d^p are invariant under translating the coordinates,
//! and scaling them by s multiplies every weight by s^-p, which cancels in the weighted
//! mean; the weighted mean of values commutes with an affine map of the values. So any finite
//! input can be computed in a frame where distances, weights and their sums stay inside the
//! precision's range, and the values mapped back afterwards.
//!
//! Coordinates: x' = (x - origin_x) / 2^scale_exp (likewise y, one scale for both axes, so
//! distances keep their ratios). An axis is translated only where all its coordinates lie
//! within a factor of 2 of the origin (|centre| >= span): then the subtraction is exact
//! (Sterbenz), and float sees offsets instead of rounding 1e20 + 500 to 1e20. The scale is a
//! power of two (exact) and 1 whenever the input's own units fit, so ordinary inputs compute
//! exactly as before. The coincidence distance (kCoincidentD2, which the kernels test in the
//! frame) keeps its meaning in input units: a frame is only taken if no data and grid points
//! at least that far apart in input units come closer than it in the frame.
//! Values: z' = (z - value_origin) / 2^value_exp with |z'| < 2, so a weighted sum of values
//! is bounded by the weight sum.

#include <string>

#include "lb/datasets/points.hpp"
#include "lb/idw/layouts.hpp"

namespace lb::idw {

struct Frame {
  double origin_x = 0, origin_y = 0, value_origin = 0;
  int scale_exp = 0, value_exp = 0;

  datasets::PointSet to_frame(const datasets::PointSet& s) const;
  double value_from_frame(double z) const;
};

//! The data and the grid in a frame where IDW of power p in precision prec stays finite.
struct FramedProblem {
  Frame frame;
  datasets::PointSet data, grid;
};

//! Chooses the frame for m = data.size() data points and the grid `grid` (points of `spec`,
//! x fastest). The frame must keep, with d' the frame's distances between a data point and
//! a grid point that are not coincident (in input units nor in the frame) and D' the largest:
//!   D'^2 below the largest T (squared distances);
//!   D'^-p at least the smallest normal T times 2^digits (every point's largest weight is
//!     normal with room for the weights that matter beside it: none of them flushes to 0);
//!   m * min(d')^-p below a quarter of the largest T (weight sums and weighted values);
//!   min(d') at least sqrt(kCoincidentD2) (the coincidence test keeps its meaning; squared
//!   distances and their pairwise products (roofline, p = 2) stay normal).
//! min(d') comes from the grid's geometry (the 3 x 3 grid points around each data point's
//! nearest; farther ones are at least half a spacing away). Throws std::invalid_argument
//! naming the power, the precision and the span of weights when no frame keeps these.
FramedProblem frame_problem(const datasets::PointSet& data, const datasets::GridSpec& spec,
                            const datasets::PointSet& grid, double p, Precision prec);

}  // namespace lb::idw

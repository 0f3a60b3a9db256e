#pragma once
//! How an IDW run is validated before it is timed: a sample of prediction points against the
//! double CPU reference (reference.hpp), plus probes that catch a kernel skipping part of the
//! data, which the sample's rigorous tolerance cannot see at large sizes (in float at 1000K it
//! is 13 %: a kernel dropping one 256-point tile is off by about 1.4 %).
//!
//! A probe is a prediction point planted 1e-3 of the data's mean spacing from one data point
//! j, the one whose value is farthest from the mean in its tile (the points a kernel stages together:
//! `tile` = the block size; roofline slices and CDP child blocks are whole tiles). Its weight
//! there dominates all others together by a factor 1/R (R = sum_{k != j} w_k / w_j, about
//! 1e-4 for p = 2, computed exactly for each probe), so the right answer is z_j within a
//! bound that holds for any summation order, while a kernel that skips j's tile returns an
//! average of the other points' values, far from that extreme one.
//!
//! The bound. Each computed weight has relative error a <= 16u (as in tolerance()), the
//! products w z one rounding more; a rounded addition is off by at most its smaller operand,
//! so every addition on the path that holds w_j errs by at most a sum of other terms, and
//! additions among other terms err by gamma_m of theirs. Then |D^ - w_j| <= a w_j + 4 S and
//! |N^ - w_j z_j| <= (a + 2u) w_j |z_j| + 4 S Z (S = sum of the other weights, Z = max |z|,
//! m u <= 1/4), so with the final division (2u):
//!   |z^ - z_j| <= B (1 + 2u) + 2u |z_j|,  B = ((2a + 2u) |z_j| + 8 R Z) / (1 - a - 4 R).

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "lb/datasets/points.hpp"
#include "lb/idw/device.hpp"
#include "lb/idw/layouts.hpp"
#include "lb/idw/reference.hpp"

namespace lb::idw {

struct Probe {
  std::size_t pred_index = 0;  //!< where it replaces a prediction point
  std::size_t data_index = 0;  //!< the data point it sits next to
  double expected = 0;         //!< that data point's value
  double bound = 0;            //!< |output - expected| allowed (see above)
};

//! The prediction points a validation launch runs on (the timed ones with the probes
//! planted: same count, so the same launch configuration) and what each output must be.
struct ValidationSet {
  datasets::PointSet pred;             //!< rounded to the precision, like the data
  std::vector<std::size_t> indices;    //!< the sample checked against the reference
  std::vector<double> reference;       //!< reference values at `indices`
  double tolerance = 0;                //!< relative, for the sample (tolerance())
  std::vector<Probe> probes;
  std::size_t tiles = 0;               //!< data tiles of `tile` points; every one has a probe
};

//! At most this many probes (a probe costs m reference interactions, as a sample point
//! does); beyond it, evenly spaced tiles get one.
inline constexpr std::size_t kMaxProbes = 8192;

//! `data` and `pred` as the variant sees them (rounded_to(prec)); `tile` = the block size.
ValidationSet make_validation_set(const datasets::PointSet& data, const datasets::PointSet& pred, Precision prec,
                                  double p, std::size_t tile);

struct Validation {
  bool ok = false;
  std::string message;      //!< the first problem found ("validation: ...")
  double max_rel_err = 0;   //!< over the sample
  std::size_t checked = 0;  //!< sample points checked
  double tolerance = 0;
  std::size_t probes = 0;   //!< probes checked
  double max_probe_share = 0;  //!< worst |output - expected| / bound over the probes
};

//! Checks outputs got[k] of points indices[k] against reference[k] within relative `tolerance`.
Validation check_sample(std::span<const std::size_t> indices, std::span<const double> reference,
                        std::span<const double> got, double tolerance);

//! The prediction points a CPU baseline's output is checked at: of those it computes
//! (index_of(k), k < count), at most `most`, evenly spread.
template <class IndexOf>
std::vector<std::size_t> cpu_check_points(std::size_t count, IndexOf index_of, std::size_t most = 256) {
  std::vector<std::size_t> points;
  const std::size_t checks = std::min(count, most);
  for (std::size_t k = 0; k < checks; ++k) points.push_back(index_of(checks == count ? k : k * (count - 1) / (checks - 1)));
  return points;
}

//! Validates a CPU baseline's run before it is timed (its outputs NaN before the run, so an
//! unwritten one fails): `output(i)` reads point i's value; the points `cpu_check_points`
//! names are checked against the double reference on `data` and `pred` (rounded to `prec`)
//! within tolerance(prec, m).
template <class OutputOf>
Validation check_cpu_run(const datasets::PointSet& data, const datasets::PointSet& pred, Precision prec, double p,
                         std::span<const std::size_t> points, OutputOf output) {
  std::vector<double> got(points.size());
  for (std::size_t k = 0; k < points.size(); ++k) got[k] = static_cast<double>(output(points[k]));
  return check_sample(points, reference_values(data, pred, points, p), got, tolerance(prec, data.size()));
}

//! Checks every output of a validation launch (z[i] for prediction point i): all finite, the
//! sample within the tolerance, each probe within its bound.
Validation check_outputs(const ValidationSet& set, std::span<const double> z);

//! A validation run in two halves around the launch: the set's prediction points go in and
//! the outputs are poisoned (so an unwritten one fails); after the launch, the outputs are
//! read, `timed_pred` put back (whatever the outcome, also when this throws) and the outputs
//! checked (failed device-side launches, unwritten outputs, check_outputs).
void start_validation_run(DeviceProblem& problem, const ValidationSet& set, cudaStream_t stream);
Validation finish_validation_run(DeviceProblem& problem, const ValidationSet& set,
                                 const datasets::PointSet& timed_pred, cudaStream_t stream);

//! Both halves around one launch of `version`; `timed_pred` is back whatever the outcome.
Validation validate_on_device(DeviceProblem& problem, Version version, double p, int block, const ValidationSet& set,
                              const datasets::PointSet& timed_pred, cudaStream_t stream);

}  // namespace lb::idw

#include "lb/idw/validation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include "lb/common/cuda_check.hpp"
#include "lb/idw/interaction.hpp"
#include "lb/idw/reference.hpp"

namespace lb::idw {

namespace {

double unit_roundoff(Precision prec) { return prec == Precision::f32 ? 0x1.0p-24 : 0x1.0p-53; }

double as_seen(Precision prec, double v) { return prec == Precision::f32 ? static_cast<double>(static_cast<float>(v)) : v; }

//! The probe's bound from its dominance (see validation.hpp), +inf when it does not dominate.
double probe_bound(const datasets::PointSet& data, std::size_t j, double qx, double qy, double p, double u,
                   double max_abs_z) {
  auto weight = [p](double d2) { return p == 2.0 ? 1.0 / d2 : std::pow(d2, -0.5 * p); };
  auto d2_of = [&](std::size_t k) {
    return (qx - data.x[k]) * (qx - data.x[k]) + (qy - data.y[k]) * (qy - data.y[k]);
  };
  const double d2_j = d2_of(j);
  if (!(d2_j > 100 * kCoincidentD2)) return INFINITY;
  double others = 0;
  for (std::size_t k = 0; k < data.size(); ++k) {
    if (k == j) continue;
    const double d2 = d2_of(k);
    if (d2 < kCoincidentD2) return INFINITY;  // another data point takes the probe
    others += weight(d2);
  }
  const double a = 16 * u, ratio = others / weight(d2_j) * (1 + 1e-9);  // 1e-9: the double sum's own error
  if (!(ratio < 0.2)) return INFINITY;
  const double z_j = std::abs(data.z[j]);
  const double b = ((2 * a + 2 * u) * z_j + 8 * ratio * max_abs_z) / (1 - a - 4 * ratio);
  return b * (1 + 2 * u) + 2 * u * z_j;
}

}  // namespace

ValidationSet make_validation_set(const datasets::PointSet& data, const datasets::PointSet& pred, Precision prec,
                                  double p, std::size_t tile) {
  ValidationSet set;
  set.pred = pred;
  const std::size_t m = data.size(), n = pred.size();
  const double u = unit_roundoff(prec);
  set.tolerance = tolerance(prec, m);
  set.tiles = tile == 0 ? 0 : (m + tile - 1) / tile;
  double lo_x = INFINITY, hi_x = -INFINITY, lo_y = INFINITY, hi_y = -INFINITY, max_abs_z = 0, mean_z = 0;
  for (std::size_t k = 0; k < m; ++k) mean_z += data.z[k] / static_cast<double>(m);
  for (std::size_t k = 0; k < m; ++k) {
    lo_x = std::min(lo_x, data.x[k]), hi_x = std::max(hi_x, data.x[k]);
    lo_y = std::min(lo_y, data.y[k]), hi_y = std::max(hi_y, data.y[k]);
    max_abs_z = std::max(max_abs_z, std::abs(data.z[k]));
  }
  const double spacing = std::sqrt((hi_x - lo_x) * (hi_y - lo_y) / static_cast<double>(std::max<std::size_t>(m, 1)));
  // The bound needs m u <= 1/4 (gamma_m <= 1/3) and a spread-out data set.
  const std::size_t count =
      static_cast<double>(m) * u <= 0.25 && spacing > 0 ? std::min({set.tiles, kMaxProbes, n}) : 0;
  const double offset = 1e-3 * spacing / std::sqrt(2.0);
  std::vector<Probe> planned(count);
  for (std::size_t t = 0; t < count; ++t) {
    const std::size_t first = t * set.tiles / count * tile, last = std::min(m, first + tile);
    std::size_t j = first;  // the tile's value farthest from the mean: what a skip would miss most
    for (std::size_t k = first; k < last; ++k)
      if (std::abs(data.z[k] - mean_z) > std::abs(data.z[j] - mean_z)) j = k;
    Probe& probe = planned[t];
    probe.pred_index = t * n / count;
    probe.data_index = j;
    probe.expected = data.z[j];
    set.pred.x[probe.pred_index] = as_seen(prec, data.x[j] + offset);
    set.pred.y[probe.pred_index] = as_seen(prec, data.y[j] + offset);
  }
#pragma omp parallel for schedule(dynamic, 4)
  for (std::int64_t t = 0; t < static_cast<std::int64_t>(count); ++t) {
    Probe& probe = planned[t];
    probe.bound = probe_bound(data, probe.data_index, set.pred.x[probe.pred_index], set.pred.y[probe.pred_index], p, u,
                              max_abs_z);
  }
  for (const Probe& probe : planned)
    if (std::isfinite(probe.bound)) set.probes.push_back(probe);
  set.indices = check_indices(n);
  set.reference = reference_values(data, set.pred, set.indices, p);
  return set;
}

Validation check_sample(std::span<const std::size_t> indices, std::span<const double> reference,
                        std::span<const double> got, double tolerance) {
  Validation v;
  v.tolerance = tolerance;
  if (reference.size() != indices.size() || got.size() != indices.size()) {
    v.message = fmt::format("validation: {} sample points, {} reference values, {} outputs", indices.size(),
                            reference.size(), got.size());
    return v;
  }
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const double rel = std::abs(got[k] - reference[k]) / std::max(std::abs(reference[k]), 1e-300);
    if (!(rel <= tolerance)) {
      v.message = fmt::format("validation: point {}: got {:.17g}, CPU reference {:.17g} (relative error {:.3g} > {:.3g})",
                              indices[k], got[k], reference[k], rel, tolerance);
      return v;
    }
    v.max_rel_err = std::max(v.max_rel_err, rel);
  }
  v.checked = indices.size();
  v.ok = true;
  return v;
}

Validation check_outputs(const ValidationSet& set, std::span<const double> z) {
  if (z.size() != set.pred.size()) {
    Validation v;
    v.message = fmt::format("validation: {} outputs for {} prediction points", z.size(), set.pred.size());
    return v;
  }
  for (std::size_t i = 0; i < z.size(); ++i)
    if (!std::isfinite(z[i])) {
      Validation v;
      v.message = fmt::format("validation: output {} is not finite ({})", i, z[i]);
      return v;
    }
  // Probes first: a skipped tile is named as such.
  Validation v;
  v.tolerance = set.tolerance;
  for (const Probe& probe : set.probes) {
    const double off = std::abs(z[probe.pred_index] - probe.expected);
    v.max_probe_share = std::max(v.max_probe_share, off / probe.bound);
    if (!(off <= probe.bound)) {
      v.message = fmt::format(
          "validation: probe {} next to data point {} (value {:.9g}) got {:.9g}: off by {:.3g} > its bound {:.3g} "
          "(that data point's contribution is missing or wrong: a skipped tile?)",
          probe.pred_index, probe.data_index, probe.expected, z[probe.pred_index], off, probe.bound);
      return v;
    }
  }
  std::vector<double> got(set.indices.size());
  for (std::size_t k = 0; k < got.size(); ++k) got[k] = z[set.indices[k]];
  const Validation sample = check_sample(set.indices, set.reference, got, set.tolerance);
  v.ok = sample.ok;
  v.message = sample.message;
  v.max_rel_err = sample.max_rel_err;
  v.checked = sample.checked;
  v.probes = set.probes.size();
  return v;
}

void start_validation_run(DeviceProblem& problem, const ValidationSet& set, cudaStream_t stream) {
  problem.set_prediction_points(set.pred, stream);
  problem.poison_output(stream);
}

Validation finish_validation_run(DeviceProblem& problem, const ValidationSet& set, const datasets::PointSet& timed_pred,
                                 cudaStream_t stream) {
  Output out;
  try {
    check(cudaStreamSynchronize(stream), "validation run");
    out = problem.read_output(stream);
  } catch (...) {
    problem.set_prediction_points(timed_pred, stream);
    throw;
  }
  problem.set_prediction_points(timed_pred, stream);
  Validation v;
  v.tolerance = set.tolerance;
  if (const std::size_t failed = problem.failed_device_launches(); failed > 0) {
    v.message = fmt::format("validation: {} device-side (CDP) launches failed", failed);
    return v;
  }
  if (out.unwritten > 0) {
    v.message = fmt::format("validation: {} of {} outputs never written (first: point {})", out.unwritten,
                            out.z.size(), out.first_unwritten);
    return v;
  }
  return check_outputs(set, out.z);
}

Validation validate_on_device(DeviceProblem& problem, Version version, double p, int block, const ValidationSet& set,
                              const datasets::PointSet& timed_pred, cudaStream_t stream) {
  try {
    start_validation_run(problem, set, stream);
    problem.launch(version, p, block, stream);
  } catch (...) {
    problem.set_prediction_points(timed_pred, stream);
    throw;
  }
  return finish_validation_run(problem, set, timed_pred, stream);
}

}  // namespace lb::idw

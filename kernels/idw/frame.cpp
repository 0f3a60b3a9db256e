#include "lb/idw/frame.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "lb/idw/interaction.hpp"

namespace lb::idw {

namespace {

struct Range {
  double lo = INFINITY, hi = -INFINITY;
  void add(const std::vector<double>& v) {
    for (double e : v) lo = std::min(lo, e), hi = std::max(hi, e);
  }
  double half_span() const { return 0.5 * hi - 0.5 * lo; }  // halves first: no overflow
  //! The centre where subtracting it is exact for every value (all within a factor of 2 of
  //! it, Sterbenz), else 0: a translation then buys no precision worth a rounding.
  double exact_origin() const {
    const double centre = 0.5 * lo + 0.5 * hi;
    return std::abs(centre) >= 2 * half_span() ? centre : 0.0;
  }
};

//! Exponent e with |v| < 2^e (0 for v = 0).
int exponent_above(double v) { return v > 0 ? std::ilogb(v) + 1 : 0; }

//! Distances in a candidate frame: the largest between any data and grid point (bounded by
//! the box's diagonal) and the smallest of at least `coincident`.
struct Distances {
  double largest = 0, smallest = INFINITY;
};

Distances distances(const datasets::PointSet& data, const datasets::GridSpec& spec, const datasets::PointSet& grid,
                    double coincident) {
  Range x, y;
  for (const auto* s : {&data, &grid}) x.add(s->x), y.add(s->y);
  Distances d;
  d.largest = std::hypot(x.hi - x.lo, y.hi - y.lo);
  // One axis of the grid: its points' coordinates and the index nearest to v (within one).
  struct Axis {
    std::vector<double> at;
    double step = 0;
    std::size_t nearest(double v) const {
      if (at.size() < 2 || step == 0) return 0;
      const double k = std::round((v - at.front()) / step);
      return k <= 0 ? 0 : std::min(at.size() - 1, static_cast<std::size_t>(k));
    }
  };
  Axis ax, ay;
  for (std::size_t i = 0; i < spec.nx; ++i) ax.at.push_back(grid.x[i]);
  for (std::size_t j = 0; j < spec.ny; ++j) ay.at.push_back(grid.y[j * spec.nx]);
  for (Axis* a : {&ax, &ay})
    if (a->at.size() >= 2) {
      a->step = (a->at.back() - a->at.front()) / static_cast<double>(a->at.size() - 1);
      // Grid points outside the 3 x 3 around a nearest index (itself within one of the true
      // nearest) are at least half a spacing away.
      if (a->step != 0) d.smallest = std::min(d.smallest, std::max(coincident, 0.5 * std::abs(a->step)));
    }
  for (std::size_t j = 0; j < data.size(); ++j) {
    const std::size_t ix = ax.nearest(data.x[j]), iy = ay.nearest(data.y[j]);
    for (std::size_t gy = iy > 0 ? iy - 1 : 0; gy <= std::min(iy + 1, ay.at.size() - 1); ++gy)
      for (std::size_t gx = ix > 0 ? ix - 1 : 0; gx <= std::min(ix + 1, ax.at.size() - 1); ++gx) {
        const double dist = std::hypot(data.x[j] - ax.at[gx], data.y[j] - ay.at[gy]);
        if (dist >= coincident) d.smallest = std::min(d.smallest, dist);
      }
  }
  return d;
}

//! The limits of frame_problem for precision T, as base-2 logarithms.
struct Limits {
  double max_exp, min_normal_exp, digits;
  template <class T>
  static Limits of() {
    return {double(std::numeric_limits<T>::max_exponent), double(std::numeric_limits<T>::min_exponent - 1),
            double(std::numeric_limits<T>::digits)};
  }
};

const double kLogCoincident = 0.5 * std::log2(kCoincidentD2);

//! Whether distances in a frame (log2 of the largest and smallest) keep frame_problem's
//! conditions for power p and m data points.
bool fits(double log_largest, double log_smallest, double p, double log_m, const Limits& t) {
  return 2 * log_largest <= t.max_exp - 3 && p * log_largest <= -t.min_normal_exp - t.digits &&
         -p * log_smallest + log_m <= t.max_exp - 2 && log_smallest >= kLogCoincident;
}

}  // namespace

datasets::PointSet Frame::to_frame(const datasets::PointSet& s) const {
  datasets::PointSet f = s;
  for (std::size_t i = 0; i < s.size(); ++i) {
    f.x[i] = std::ldexp(s.x[i] - origin_x, -scale_exp);
    f.y[i] = std::ldexp(s.y[i] - origin_y, -scale_exp);
    f.z[i] = std::ldexp(s.z[i] - value_origin, -value_exp);
  }
  return f;
}

double Frame::value_from_frame(double z) const { return std::ldexp(z, value_exp) + value_origin; }

FramedProblem frame_problem(const datasets::PointSet& data, const datasets::GridSpec& spec,
                            const datasets::PointSet& grid, double p, Precision prec) {
  for (std::size_t i = 0; i < grid.size(); ++i)
    if (!std::isfinite(grid.x[i]) || !std::isfinite(grid.y[i]))
      throw std::invalid_argument(fmt::format("--grid: point {} is ({}, {}): the grid's span overflows a double", i,
                                              grid.x[i], grid.y[i]));
  Range x, y, z;
  for (const auto* s : {&data, &grid}) x.add(s->x), y.add(s->y);
  z.add(data.z);
  Frame frame;
  frame.origin_x = x.exact_origin();
  frame.origin_y = y.exact_origin();
  frame.value_origin = z.exact_origin();
  frame.value_exp = exponent_above(std::max(std::abs(z.hi - frame.value_origin), std::abs(z.lo - frame.value_origin)));
  const Limits limits = prec == Precision::f32 ? Limits::of<float>() : Limits::of<double>();
  const double log_m = std::log2(static_cast<double>(std::max<std::size_t>(data.size(), 1)));

  auto framed = [&](int scale_exp) {
    Frame f = frame;
    f.scale_exp = scale_exp;
    return FramedProblem{f, f.to_frame(data), f.to_frame(grid)};
  };
  auto fit = [&](const FramedProblem& c, Distances* seen = nullptr) {
    // Pairs coincident in input units or in the frame (the kernels' test) are left out.
    const double coincident = std::sqrt(kCoincidentD2) * std::min(1.0, std::ldexp(1.0, -c.frame.scale_exp));
    const Distances d = distances(c.data, spec, c.grid, coincident);
    if (seen) *seen = d;
    return fits(std::log2(d.largest), std::log2(d.smallest), p, log_m, limits);
  };
  // The input's own units first: ordinary inputs compute exactly as before.
  if (FramedProblem identity = framed(0); fit(identity)) return identity;
  // Else the scale that best keeps the conditions, from the distances at unit span (their
  // dependence on the coincidence distance aside, which the final check covers).
  const int unit = exponent_above(std::max(x.half_span(), y.half_span()));
  Distances d;
  fit(framed(unit), &d);
  const double log_largest = std::log2(d.largest) + unit, log_smallest = std::log2(d.smallest) + unit;
  const double lowest =
      std::max(log_largest - (limits.max_exp - 3) / 2, log_largest + (limits.min_normal_exp + limits.digits) / p);
  const double highest = std::min(log_smallest + (limits.max_exp - 2 - log_m) / p, log_smallest - kLogCoincident);
  if (std::ceil(lowest) <= std::floor(highest)) {
    const int scale_exp = static_cast<int>(std::clamp(0.0, std::ceil(lowest), std::floor(highest)));
    if (FramedProblem best = framed(scale_exp); fit(best)) return best;
  }
  const double ratio_log10 = (log_largest - log_smallest) * std::log10(2.0);
  const double holds_log10 = (limits.max_exp - 2 - log_m - limits.min_normal_exp - limits.digits) * std::log10(2.0);
  throw std::invalid_argument(fmt::format(
      "--power {}: the weights 1/d^p of this input span 10^{:.1f} (distances between data and grid points run over "
      "10^{:.1f}, from the nearest that is not coincident to the farthest), more than {} holds for {} data points "
      "(10^{:.1f}); use a smaller power{}",
      p, p * ratio_log10, ratio_log10, to_string(prec), data.size(), holds_log10,
      prec == Precision::f32 ? " or --precision double" : ""));
}

}  // namespace lb::idw

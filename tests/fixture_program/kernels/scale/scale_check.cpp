#include <cmath>

#include <fmt/format.h>

#include "lb/scale/scale.hpp"

namespace lb::scale {

ScaleCheck check_scale(const std::vector<double>& x, const std::vector<double>& y) {
  ScaleCheck c;
  c.ok = x.size() == y.size();
  if (!c.ok) {
    c.message = fmt::format("{} outputs for {} inputs", y.size(), x.size());
    return c;
  }
  for (std::size_t i = 0; i < x.size(); ++i, ++c.checked) {
    const double err = std::abs(y[i] - kScaleFactor * x[i]);
    if (!(err <= c.max_abs_err)) c.max_abs_err = std::isnan(err) ? INFINITY : err;
    if (!(err == 0) && c.ok) {  // NaN (a poisoned output left) fails too
      c.ok = false;
      c.message = fmt::format("element {}: y = {} where {} * {} = {}", i, y[i], kScaleFactor, x[i], kScaleFactor * x[i]);
    }
  }
  return c;
}

}  // namespace lb::scale

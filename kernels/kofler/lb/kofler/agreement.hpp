#pragma once
//! How far a program's outputs are from its double reference, each output against its own
//! derived tolerance (Kofler programs: N-body, BlackScholes). Host only.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>

#include <fmt/format.h>

namespace lb::kofler {

//! Float's unit roundoff (half an ulp at 1): the error bounds are multiples of it.
inline constexpr double kFloatU = 0x1.0p-24;

struct Agreement {
  bool ok = true;
  std::string message;        //!< the first output off its tolerance
  double max_abs_err = 0;     //!< largest |got - reference|
  double max_rel_err = 0;     //!< largest |got - reference| / |reference| (where the reference is not 0)
  double worst_ratio = 0;     //!< largest |got - reference| / tolerance (< 1 passes)
  double tolerance = 0;       //!< the tolerance of the output with that largest ratio
  std::size_t checked = 0;

  //! Records one output's error |got - reference| (NaN for a NaN output) against its
  //! tolerance; `reference_magnitude` scales the relative error; `name()` (called only when
  //! it fails) names the output and its values.
  template <class Name>
  void add(double err, double reference_magnitude, double tolerance_of_it, Name&& name) {
    ++checked;
    if (!(err <= tolerance_of_it)) {  // NaN fails too
      if (ok) {
        ok = false;
        message = fmt::format("{}: error {:.3g} > tolerance {:.3g}", name(), err, tolerance_of_it);
      }
      if (!std::isfinite(err)) return;
    }
    max_abs_err = std::max(max_abs_err, err);
    if (reference_magnitude != 0) max_rel_err = std::max(max_rel_err, err / std::abs(reference_magnitude));
    if (tolerance_of_it > 0 && err / tolerance_of_it > worst_ratio) {
      worst_ratio = err / tolerance_of_it;
      tolerance = tolerance_of_it;
    }
  }

  //! Folds another part's agreement into this one (parallel checks).
  void merge(const Agreement& o) {
    if (ok && !o.ok) message = o.message;
    ok = ok && o.ok;
    max_abs_err = std::max(max_abs_err, o.max_abs_err);
    max_rel_err = std::max(max_rel_err, o.max_rel_err);
    if (o.worst_ratio > worst_ratio) worst_ratio = o.worst_ratio, tolerance = o.tolerance;
    checked += o.checked;
  }
};

}  // namespace lb::kofler

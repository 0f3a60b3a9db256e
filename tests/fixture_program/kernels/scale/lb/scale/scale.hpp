#pragma once
//! The fixture program "scale" (docs/adding-a-program.md; not shipped): y[i] = a·x[i] over a
//! record of two fields, written once against a view and so run through any mapping of the
//! layout library, with the check of its outputs.

#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include "lb/layout/config.hpp"
#include "lb/layout/record.hpp"

namespace lb::scale {

struct X {};
struct Y {};
//! One element: its input x and its output y, in float or double.
template <class T>
using Element = layout::Record<layout::Field<X, T>, layout::Field<Y, T>>;

//! The factor a: a power of two, so a·x is exact in either precision and any correct layout
//! gives the reference's bits.
inline constexpr double kScaleFactor = 4.0;

//! x of element i, exact in float and double.
template <class T>
LB_HD T scale_input(std::size_t i) {
  return T(i % 4096) * T(0.25) + T(1);
}

//! The body: element i of any view of Element<T>.
template <class View>
LB_HD void scale_body(const View& v, std::size_t i) {
  using T = std::remove_reference_t<decltype(v.template get<X>(i))>;
  v.template get<Y>(i) = T(kScaleFactor) * v.template get<X>(i);
}

//! The check of a run's outputs against a·x in double: ok when every y equals it.
struct ScaleCheck {
  bool ok = false;
  std::string message;  //!< the first wrong element, where one is
  double max_abs_err = 0;
  std::size_t checked = 0;
};
ScaleCheck check_scale(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace lb::scale

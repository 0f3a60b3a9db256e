#include "lb/idw/layouts.hpp"

#include <stdexcept>

namespace lb::idw {

std::string_view to_string(Precision p) { return p == Precision::f32 ? "float" : "double"; }

Precision parse_precision(std::string_view name) {
  if (name == "float") return Precision::f32;
  if (name == "double") return Precision::f64;
  throw std::invalid_argument("unknown precision '" + std::string(name) + "' (expected float or double)");
}

std::vector<std::string> layout_names(Precision p) {
  return p == Precision::f32 ? layout::layout_names(LayoutsFor<float>{}) : layout::layout_names(LayoutsFor<double>{});
}

void check_layout(std::string_view name, Precision p) {
  const std::string context = "for " + std::string(to_string(p));
  if (p == Precision::f32)
    layout::check_layout(name, LayoutsFor<float>{}, context);
  else
    layout::check_layout(name, LayoutsFor<double>{}, context);
}

std::size_t footprint_bytes(std::string_view layout, Precision p, std::size_t n) {
  return dispatch(layout, p, [&]<class Layout, class T>() { return layout::footprint_bytes(MappingOf<Layout, T>{n}); });
}

}  // namespace lb::idw

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
  std::vector<std::string> names;
  auto add = [&]<class T>() {
    [&]<class... Ls>(LayoutList<Ls...>) {
      ((Ls::template supports<T> ? (void)names.emplace_back(Ls::name) : void()), ...);
    }(AllLayouts{});
  };
  if (p == Precision::f32)
    add.template operator()<float>();
  else
    add.template operator()<double>();
  return names;
}

void check_layout(std::string_view name, Precision p) {
  const auto names = layout_names(p);
  for (const auto& n : names)
    if (n == name) return;
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown layout '" + std::string(name) + "' for " + std::string(to_string(p)) +
                              " (expected one of: " + list + ")");
}

std::size_t footprint_bytes(std::string_view layout, Precision p, std::size_t n) {
  return dispatch(layout, p, [&]<class Layout, class T>() { return layout::footprint_bytes(MappingOf<Layout, T>{n}); });
}

}  // namespace lb::idw

#include <cmath>

#include <fmt/format.h>

#include "lb/kriging/cpu.hpp"

namespace lb::kriging {

std::optional<VariogramModel> parse_variogram_model(const std::string& name) {
  for (VariogramModel m : {VariogramModel::exponential, VariogramModel::spherical, VariogramModel::gaussian})
    if (name == to_string(m)) return m;
  return std::nullopt;
}

const char* to_string(VariogramModel model) {
  switch (model) {
    case VariogramModel::exponential: return "exponential";
    case VariogramModel::spherical: return "spherical";
    case VariogramModel::gaussian: return "gaussian";
  }
  return "?";
}

std::string Variogram::describe() const {
  return fmt::format("{}, sill {:.6g}, range {:.6g} (practical), nugget {:.6g}", to_string(model), sill, range, nugget);
}

void check_variogram(const Variogram& v) {
  if (!(std::isfinite(v.range) && v.range > 0.0))
    throw datasets::InputError(fmt::format("kriging: the variogram's range must be positive and finite, got {}", v.range));
  if (!(std::isfinite(v.nugget) && v.nugget >= 0.0))
    throw datasets::InputError(fmt::format("kriging: the variogram's nugget must be >= 0 and finite, got {}", v.nugget));
  if (!(std::isfinite(v.sill) && v.sill > v.nugget))
    throw datasets::InputError(fmt::format("kriging: the variogram's sill (nugget included) must be finite and above "
                                           "the nugget {}, got {}",
                                           v.nugget, v.sill));
}

template <class T>
KrigingInput<T> make_input(const datasets::WellSet& wells, const datasets::GridSpec& grid, const Variogram& variogram) {
  const std::size_t n = wells.wells();
  if (n == 0) throw datasets::InputError(fmt::format("{}: no wells to krige from", wells.source));
  if (wells.surfaces() == 0) throw datasets::InputError(fmt::format("{}: no surfaces to krige", wells.source));
  if (wells.values.size() != n * wells.surfaces() || wells.y.size() != n)
    throw datasets::InputError(fmt::format("{}: inconsistent well set ({} x, {} y, {} values for {} surfaces)",
                                           wells.source, n, wells.y.size(), wells.values.size(), wells.surfaces()));
  check_variogram(variogram);
  auto convert = [](const std::vector<double>& v) { return std::vector<T>(v.begin(), v.end()); };
  KrigingInput<T> in;
  in.wells = n;
  in.surfaces = wells.surfaces();
  in.well_x = convert(wells.x);
  in.well_y = convert(wells.y);
  in.values = convert(wells.values);
  in.grid_x = convert(datasets::grid_axis(grid.x0, grid.x1, grid.nx));
  in.grid_y = convert(datasets::grid_axis(grid.y0, grid.y1, grid.ny));
  in.variogram = variogram;
  in.covariance = Covariance<T>::from(variogram);
  return in;
}

template KrigingInput<float> make_input(const datasets::WellSet&, const datasets::GridSpec&, const Variogram&);
template KrigingInput<double> make_input(const datasets::WellSet&, const datasets::GridSpec&, const Variogram&);

KrigingInput<double> widen(const KrigingInput<float>& in) {
  auto convert = [](const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); };
  KrigingInput<double> out;
  out.wells = in.wells;
  out.surfaces = in.surfaces;
  out.well_x = convert(in.well_x);
  out.well_y = convert(in.well_y);
  out.values = convert(in.values);
  out.grid_x = convert(in.grid_x);
  out.grid_y = convert(in.grid_y);
  out.variogram = in.variogram;
  out.covariance = in.covariance.as<double>();
  return out;
}

}  // namespace lb::kriging

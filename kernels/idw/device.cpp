#include "lb/idw/device.hpp"

#include <stdexcept>
#include <string>

namespace lb::idw {

std::string_view to_string(Version v) { return v == Version::naive ? "naive" : "tiled"; }

Version parse_version(std::string_view name) {
  if (name == "naive") return Version::naive;
  if (name == "tiled") return Version::tiled;
  throw std::invalid_argument("unknown IDW version '" + std::string(name) + "' (expected naive or tiled)");
}

std::vector<Version> gpu_versions() { return {Version::naive, Version::tiled}; }

std::unique_ptr<DeviceProblem> make_device_problem(std::string_view layout, Precision prec,
                                                   const datasets::PointSet& data, const datasets::PointSet& pred) {
  return dispatch(layout, prec, [&]<class Layout, class T>() { return make_device_problem_for<Layout>(prec, data, pred); });
}

}  // namespace lb::idw

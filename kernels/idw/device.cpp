#include "lb/idw/device.hpp"

#include <stdexcept>
#include <string>
#include <utility>

namespace lb::idw {

namespace {
constexpr std::pair<Version, std::string_view> kVersionNames[] = {{Version::naive, "naive"},
                                                                   {Version::tiled, "tiled"},
                                                                   {Version::cdp_original, "cdp-original"},
                                                                   {Version::cdp_improved, "cdp-improved"},
                                                                   {Version::roofline, "roofline"}};
}  // namespace

std::string_view to_string(Version v) {
  for (const auto& [version, name] : kVersionNames)
    if (version == v) return name;
  return "unknown";
}

Version parse_version(std::string_view name) {
  std::string list;
  for (const auto& [version, known] : kVersionNames) {
    if (known == name) return version;
    list += (list.empty() ? "" : ", ") + std::string(known);
  }
  throw std::invalid_argument("unknown IDW version '" + std::string(name) + "' (expected one of: " + list + ")");
}

std::vector<Version> gpu_versions() {
  std::vector<Version> all;
  for (const auto& [version, name] : kVersionNames) all.push_back(version);
  return all;
}

std::unique_ptr<DeviceProblem> make_device_problem(std::string_view layout, Precision prec,
                                                   const datasets::PointSet& data, const datasets::PointSet& pred) {
  return dispatch(layout, prec, [&]<class Layout, class T>() { return make_device_problem_for<Layout>(prec, data, pred); });
}

}  // namespace lb::idw

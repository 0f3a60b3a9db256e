#pragma once
//! IDW's preset object ("idw": sizes, versions, layouts, precisions, powers, block,
//! cpu_baselines, version_overrides), read into what the planner expands.

#include <algorithm>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lb/harness/plan.hpp"
#include "lb/harness/preset.hpp"
#include "lb/harness/suite.hpp"
#include "lb/idw/device.hpp"

namespace lb::harness::idw_bench {

using idw::Precision;
using idw::Version;

//! What one version runs, where the preset narrows it ("version_overrides"): e.g. the
//! original CDP version only at the sizes where a child grid per point is affordable.
struct VersionScope {
  std::vector<std::size_t> sizes;    //!< empty = all sizes
  std::vector<std::string> layouts;  //!< empty = all layouts
  std::vector<double> powers;        //!< empty = all powers
  std::map<double, std::size_t> max_size_by_power;  //!< e.g. p = 3 (pow) only up to 100K
};

struct Config {
  std::vector<std::size_t> sizes;
  std::vector<Version> versions;
  std::vector<std::string> layouts;  //!< empty = all layouts of each precision
  std::vector<Precision> precisions;
  std::vector<double> powers;
  int block = 256;
  bool cpu_baselines = true;
  std::map<Version, VersionScope> scopes;

  template <class V>
  static bool admits(const std::vector<V>& allowed, const V& v) {
    return allowed.empty() || std::find(allowed.begin(), allowed.end(), v) != allowed.end();
  }
  bool runs(Version version, const std::string& layout, double p, std::size_t size) const {
    const auto it = scopes.find(version);
    if (!admits(layouts, layout)) return false;
    if (it == scopes.end()) return true;
    const VersionScope& scope = it->second;
    const auto cap = scope.max_size_by_power.find(p);
    return admits(scope.sizes, size) && admits(scope.layouts, layout) && admits(scope.powers, p) &&
           (cap == scope.max_size_by_power.end() || size <= cap->second);
  }
};

//! The program's layout axis: every layout of either precision, each once.
Axis layout_axis();

//! The suite's object `j` of the preset, with the command line's overrides.
Config read_config(const Preset& preset, const nlohmann::json& j, const Overrides& overrides);

}  // namespace lb::harness::idw_bench

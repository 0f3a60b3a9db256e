#pragma once
//! IDW's preset object ("idw"): its axes (sizes, versions, layouts, precisions, powers, block)
//! are the program's (idw_bench.cpp), read by the one planner; here its settings,
//! cpu_baselines and version_overrides, and the constraint those put on a GPU version's points.

#include <algorithm>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "lb/harness/plan.hpp"
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

struct Settings {
  bool cpu_baselines = true;
  std::map<Version, VersionScope> scopes;

  template <class V>
  static bool admits(const std::vector<V>& allowed, const V& v) {
    return allowed.empty() || std::find(allowed.begin(), allowed.end(), v) != allowed.end();
  }
  //! Whether `version` runs at this point within its scope (no scope: everywhere).
  bool runs(Version version, const std::string& layout, double p, std::size_t size) const {
    const auto it = scopes.find(version);
    if (it == scopes.end()) return true;
    const VersionScope& scope = it->second;
    const auto cap = scope.max_size_by_power.find(p);
    return admits(scope.sizes, size) && admits(scope.layouts, layout) && admits(scope.powers, p) &&
           (cap == scope.max_size_by_power.end() || size <= cap->second);
  }
};

//! The program's layout axis: every layout of either precision, each once.
Axis layout_axis();

//! The settings of the program's object (read.object()).
Settings read_settings(const Reader& read);

}  // namespace lb::harness::idw_bench

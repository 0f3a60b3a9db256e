#pragma once
//! IDW's preset object ("idw"): its axes (sizes, versions, layouts, precisions, powers, block)
//! are the program's (shepard_bench.cpp), read by the one planner; here its settings,
//! cpu_baselines, version_overrides and layout_overrides, and the constraint those put on a GPU
//! version's points.

#include <algorithm>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "idw/suite.hpp"
#include "lb/harness/plan.hpp"
#include "lb/idw/device.hpp"

namespace lb::benches::idw {

using lb::idw::Precision;
using lb::idw::Version;

//! What one version runs, where the preset narrows it ("version_overrides"): e.g. the
//! original CDP version only at the sizes where a child grid per point is affordable.
struct VersionScope {
  std::vector<std::size_t> sizes;    //!< empty = all sizes
  std::vector<std::string> layouts;  //!< empty = all layouts
  std::vector<double> powers;        //!< empty = all powers
  std::map<double, std::size_t> max_size_by_power;  //!< e.g. p = 3 (pow) only up to 100K
};

//! Where one layout runs, where the preset narrows it ("layout_overrides"): e.g. a layout
//! Kofler's method chose for one version and precision (docs/advisor.md, §6) only there.
struct LayoutScope {
  std::vector<Version> versions;        //!< empty = all versions
  std::vector<Precision> precisions;  //!< empty = all precisions
};

struct Settings {
  bool cpu_baselines = true;
  std::map<Version, VersionScope> scopes;
  std::map<std::string, LayoutScope> layout_scopes;

  template <class V>
  static bool admits(const std::vector<V>& allowed, const V& v) {
    return allowed.empty() || std::find(allowed.begin(), allowed.end(), v) != allowed.end();
  }
  //! Whether `version` runs at this point within its scope and the layout's (no scope:
  //! everywhere).
  bool runs(Version version, const std::string& layout, Precision precision, double p, std::size_t size) const {
    const auto own = layout_scopes.find(layout);
    if (own != layout_scopes.end() &&
        !(admits(own->second.versions, version) && admits(own->second.precisions, precision)))
      return false;
    const auto it = scopes.find(version);
    if (it == scopes.end()) return true;
    const VersionScope& scope = it->second;
    const auto cap = scope.max_size_by_power.find(p);
    return admits(scope.sizes, size) && admits(scope.layouts, layout) && admits(scope.powers, p) &&
           (cap == scope.max_size_by_power.end() || size <= cap->second);
  }
};

//! The program's layout axis: every layout of either precision, each once, in AllLayouts' order.
Axis layout_axis();

//! The settings of the program's object (read.object()).
Settings read_settings(const Reader& read);

}  // namespace lb::benches::idw

#include "idw/shepard_config.hpp"

#include <fmt/format.h>

namespace lb::benches::idw {

Axis layout_axis() { return {"layout", layout::layout_names(lb::idw::AllLayouts{})}; }

Settings read_settings(const Reader& read) {
  const Preset& preset = read.preset();
  const nlohmann::json& j = read.object();
  Settings s;
  if (j.contains("version_overrides")) {
    preset.check_keys(j["version_overrides"], "version_overrides", {"naive", "tiled", "cdp-original", "cdp-improved", "roofline"});
    const Axis layouts = layout_axis();
    for (const auto& [name, o] : j["version_overrides"].items()) {
      preset.check_keys(o, name, {"sizes", "layouts", "powers", "max_size_by_power"});
      VersionScope scope;
      if (o.contains("sizes")) scope.sizes = preset.list_at<std::size_t>(o, "sizes", name);
      if (o.contains("layouts"))
        for (const auto& l : scope.layouts = preset.list_at<std::string>(o, "layouts", name))
          layouts.check(preset, l, "layouts");
      if (o.contains("powers")) scope.powers = preset.list_at<double>(o, "powers", name);
      if (o.contains("max_size_by_power")) {
        const auto& caps = o["max_size_by_power"];
        if (!caps.is_object()) throw preset.error_at("max_size_by_power", "'max_size_by_power' maps a power to a size");
        for (const auto& [power, size] : caps.items()) {
          double p = 0;
          try {
            p = std::stod(power);
          } catch (const std::exception&) {
            throw preset.error_at(power, fmt::format("'{}' is not a power", power));
          }
          if (!size.is_number_unsigned()) throw preset.error_at(power, "a maximum size must be a positive integer");
          scope.max_size_by_power[p] = size.get<std::size_t>();
        }
      }
      s.scopes[lb::idw::parse_version(name)] = scope;
    }
  }
  if (j.contains("layout_overrides")) {
    const Axis layouts = layout_axis();
    const auto& overrides = j["layout_overrides"];
    if (!overrides.is_object()) throw preset.error_at("layout_overrides", "'layout_overrides' maps a layout to its scope");
    for (const auto& [name, o] : overrides.items()) {
      layouts.check(preset, name, name, "layout_overrides");
      preset.check_keys(o, name, {"versions", "precisions"});
      LayoutScope scope;
      if (o.contains("versions")) scope.versions = preset.parsed_list_at(o, "versions", name, lb::idw::parse_version);
      if (o.contains("precisions"))
        scope.precisions = preset.parsed_list_at(o, "precisions", name, lb::idw::parse_precision);
      s.layout_scopes[name] = scope;
    }
  }
  if (j.contains("cpu_baselines")) {
    if (!j["cpu_baselines"].is_boolean())
      throw preset.error_at("cpu_baselines", "'cpu_baselines' must be true or false");
    s.cpu_baselines = j["cpu_baselines"].get<bool>();
  }
  return s;
}

}  // namespace lb::benches::idw

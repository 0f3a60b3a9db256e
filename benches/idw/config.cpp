#include "idw/config.hpp"

#include <fmt/format.h>

namespace lb::harness::idw_bench {
namespace {

template <class T>
std::vector<T> list_of(const Preset& preset, const nlohmann::json& j, const char* key, std::string_view where = "idw") {
  return preset.list_at<T>(j, key, where);
}

}  // namespace

Axis layout_axis() {
  Axis layouts{"layout", {}};
  for (Precision p : {Precision::f32, Precision::f64})
    for (const auto& l : idw::layout_names(p))
      if (std::find(layouts.values.begin(), layouts.values.end(), l) == layouts.values.end()) layouts.values.push_back(l);
  return layouts;
}

Config read_config(const Preset& preset, const nlohmann::json& j, const Overrides& overrides) {
  preset.check_keys(j, "idw",
                    {"sizes", "versions", "layouts", "precisions", "powers", "block", "cpu_baselines", "version_overrides"});
  Config c;
  c.sizes = overrides.sizes.empty() ? list_of<std::size_t>(preset, j, "sizes") : overrides.sizes;
  for (std::size_t s : c.sizes)
    if (s < 1) throw preset.error_at("sizes", "sizes must be positive");
  auto parse_each = [&](const std::vector<std::string>& names, const char* key, auto parse) {
    std::vector<decltype(parse(std::string{}))> out;
    for (const auto& n : names) {
      try {
        out.push_back(parse(n));
      } catch (const std::invalid_argument& e) {
        throw preset.error_at(key, e.what());
      }
    }
    return out;
  };
  c.versions = parse_each(list_of<std::string>(preset, j, "versions"), "versions", idw::parse_version);
  const auto precision_names =
      overrides.precisions.empty() ? list_of<std::string>(preset, j, "precisions") : overrides.precisions;
  c.precisions = parse_each(precision_names, "precisions", idw::parse_precision);
  c.powers = list_of<double>(preset, j, "powers");
  for (double p : c.powers)
    if (!(p > 0)) throw preset.error_at("powers", "powers must be positive");
  const Axis layouts = layout_axis();
  auto check_layouts = [&](const std::vector<std::string>& names) {
    for (const auto& l : names) layouts.check(preset, l, "layouts");
  };
  if (j.contains("layouts") && !(j["layouts"].is_string() && j["layouts"] == "all")) {
    c.layouts = list_of<std::string>(preset, j, "layouts");
    check_layouts(c.layouts);
  }
  if (j.contains("version_overrides")) {
    preset.check_keys(j["version_overrides"], "version_overrides", {"naive", "tiled", "cdp-original", "cdp-improved", "roofline"});
    for (const auto& [name, o] : j["version_overrides"].items()) {
      preset.check_keys(o, name, {"sizes", "layouts", "powers", "max_size_by_power"});
      VersionScope scope;
      if (o.contains("sizes")) scope.sizes = list_of<std::size_t>(preset, o, "sizes", name);
      if (o.contains("layouts")) check_layouts(scope.layouts = list_of<std::string>(preset, o, "layouts", name));
      if (o.contains("powers")) scope.powers = list_of<double>(preset, o, "powers", name);
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
      c.scopes[idw::parse_version(name)] = scope;
    }
  }
  if (j.contains("block")) {
    if (!j["block"].is_number_integer() || j["block"].get<int>() < 32 || j["block"].get<int>() > 1024 ||
        j["block"].get<int>() % 32 != 0)
      throw preset.error_at("block", "'block' must be a multiple of 32 in [32, 1024]");
    c.block = j["block"].get<int>();
  }
  if (j.contains("cpu_baselines")) c.cpu_baselines = j["cpu_baselines"].get<bool>();
  return c;
}

}  // namespace lb::harness::idw_bench

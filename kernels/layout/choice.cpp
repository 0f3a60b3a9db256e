#include "lb/layout/choice.hpp"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace lb::layout {

std::string LayoutChoice::param() const {
  if (layout == "tiled" || layout == "tiled-ct") return fmt::format("tile:{}", tile);
  if (layout == "split" || layout == "split-ct") return "partition:" + partition;
  return {};
}

namespace {

constexpr std::string_view kLayouts[] = {"aos", "soa", "tiled", "tiled-ct", "split", "split-ct"};

ClusterLayout cluster_layout(const std::string& text, const std::string& name) {
  using K = ClusterLayout::Kind;
  if (text == "aos") return {K::aos, 1};
  if (text == "soa") return {K::soa, 1};
  if (text.starts_with("tiled:")) {
    const std::string t = text.substr(6);
    if (!t.empty() && std::all_of(t.begin(), t.end(), [](char ch) { return ch >= '0' && ch <= '9'; }) && t.size() < 10 &&
        std::stoul(t) >= 1)
      return {K::tiled, std::stoul(t)};
  }
  throw ChoiceError(name, fmt::format("partition '{}': cluster layout '{}' is not aos, soa or tiled:<t>", name, text),
                        "partitions");
}

FieldPartition read_partition(const ChoiceLists& lists, const std::string& name, const nlohmann::json& clusters,
                              const std::vector<std::string>& fields) {
  if (!clusters.is_array() || clusters.empty())
    throw ChoiceError(name, fmt::format("partition '{}' must be a non-empty list of clusters", name), "partitions");
  FieldPartition p;
  p.cluster_of_field.assign(fields.size(), clusters.size());
  for (std::size_t c = 0; c < clusters.size(); ++c) {
    nlohmann::json members = clusters[c];
    std::string layout_text = "aos";
    if (clusters[c].is_object()) {
      lists.check_keys(clusters[c], name, {"fields", "layout"});
      members = clusters[c].value("fields", nlohmann::json());
      if (clusters[c].contains("layout")) {
        if (!clusters[c]["layout"].is_string())
          throw ChoiceError(name, fmt::format("partition '{}': a cluster's layout is a string", name), "partitions");
        layout_text = clusters[c]["layout"].get<std::string>();
      }
    }
    if (!members.is_array() || members.empty())
      throw ChoiceError(name, fmt::format("partition '{}': cluster {} lists no fields", name, c + 1), "partitions");
    for (const auto& m : members) {
      const auto it = m.is_string() ? std::find(fields.begin(), fields.end(), m.get<std::string>()) : fields.end();
      if (it == fields.end())
        throw ChoiceError(name,
                              fmt::format("partition '{}': {} is not a field (fields: {})", name, m.dump(),
                                          fmt::join(fields, ", ")),
                              "partitions");
      auto& slot = p.cluster_of_field[std::size_t(it - fields.begin())];
      if (slot != clusters.size())
        throw ChoiceError(name, fmt::format("partition '{}': field '{}' is in two clusters", name, *it), "partitions");
      slot = c;
    }
    p.clusters.push_back(cluster_layout(layout_text, name));
  }
  for (std::size_t f = 0; f < fields.size(); ++f)
    if (p.cluster_of_field[f] == clusters.size())
      throw ChoiceError(name, fmt::format("partition '{}' leaves out field '{}'", name, fields[f]), "partitions");
  return p;
}

}  // namespace

std::vector<LayoutChoice> read_choices(const nlohmann::json& j, std::string_view where, const ChoiceLists& lists,
                                       std::size_t size, const std::vector<std::string>& field_names,
                                       const std::vector<std::size_t>& compile_time_tiles,
                                       const std::vector<std::string>& compile_time_partitions) {
  const auto layouts = lists.strings("layouts");
  for (const auto& l : layouts)
    if (std::find(std::begin(kLayouts), std::end(kLayouts), l) == std::end(kLayouts))
      throw ChoiceError("layouts", fmt::format("unknown layout '{}' (aos, soa, tiled, tiled-ct, split, split-ct)", l),
                            where);
  auto wants = [&](std::string_view l) { return std::find(layouts.begin(), layouts.end(), l) != layouts.end(); };

  std::vector<LayoutChoice> out;
  for (const auto& l : layouts)
    if (l == "aos" || l == "soa") out.push_back({l, 0, {}, {}});

  if (wants("tiled")) {
    std::vector<std::size_t> tiles;
    if (j.contains("tiles") && j["tiles"] == "sweep") {
      for (std::size_t t = 2; t <= size; t *= 2) tiles.push_back(t);
    } else {
      tiles = lists.sizes("tiles");
    }
    for (std::size_t t : tiles) out.push_back({"tiled", t, {}, {}});
  }
  if (wants("tiled-ct")) {
    for (std::size_t t : lists.sizes("compile_time_tiles")) {
      if (std::find(compile_time_tiles.begin(), compile_time_tiles.end(), t) == compile_time_tiles.end())
        throw ChoiceError("compile_time_tiles",
                              fmt::format("tile {} is not compiled in (this program instantiates: {})", t,
                                          fmt::join(compile_time_tiles, ", ")),
                              where);
      out.push_back({"tiled-ct", t, {}, {}});
    }
  }
  if (wants("split") || wants("split-ct")) {
    if (!j.contains("partitions") || !j["partitions"].is_object() || j["partitions"].empty())
      throw ChoiceError(where, fmt::format("'{}' asks for split layouts but names no 'partitions'", where));
    for (const auto& [name, clusters] : j["partitions"].items()) {
      const FieldPartition p = read_partition(lists, name, clusters, field_names);
      if (wants("split")) out.push_back({"split", 0, name, p});
      if (wants("split-ct")) {
        if (std::find(compile_time_partitions.begin(), compile_time_partitions.end(), name) ==
            compile_time_partitions.end())
          throw ChoiceError(name,
                                fmt::format("partition '{}' has no compile-time split (this program has: {})", name,
                                            fmt::join(compile_time_partitions, ", ")),
                                "partitions");
        out.push_back({"split-ct", 0, name, p});
      }
    }
  }
  return out;
}

}  // namespace lb::layout

#include "lb/layout/choice.hpp"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lb/datasets/text.hpp"
#include "lb/layout/decision_tree.hpp"

namespace lb::layout {

namespace {

//! The clusters of `p` that hold several fields, in cluster order.
std::vector<std::size_t> clusters_of_several_fields(const FieldPartition& p) {
  std::vector<std::size_t> fields(p.clusters.size(), 0), out;
  for (std::size_t c : p.cluster_of_field) ++fields[c];
  for (std::size_t c = 0; c < fields.size(); ++c)
    if (fields[c] > 1) out.push_back(c);
  return out;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> LayoutChoice::params() const {
  if (layout == "tiled" || layout == "tiled-ct") return {{"tile", std::to_string(tile)}};
  if (layout == "tiled-tree") return {};  // one cluster of every field, whatever the tree
  if (layout == kKdlgTiles) {
    std::vector<std::size_t> tiles;
    for (std::size_t c : clusters_of_several_fields(fields)) tiles.push_back(fields.clusters[c].lanes);
    return {{"partition", partition}, {"tiles", fmt::format("{}", fmt::join(tiles, ","))}};
  }
  if (runs_on_partition(layout) || layout == "split-ct") return {{"partition", partition}};
  return {};
}

std::string LayoutChoice::param() const {
  std::string out;
  for (const auto& [key, value] : params()) {
    if (!out.empty()) out += '/';
    out += key + ':' + value;
  }
  return out;
}

bool runs_on_partition(std::string_view layout) {
  return layout == "split" || layout == kKdlgTiles ||
         std::find(std::begin(kMethodLayouts), std::end(kMethodLayouts), layout) != std::end(kMethodLayouts);
}

std::optional<ClusterLayout> parse_cluster_layout(std::string_view text) {
  using K = ClusterLayout::Kind;
  if (text == "aos") return ClusterLayout{K::aos, 1};
  if (text == "soa") return ClusterLayout{K::soa, 1};
  if (text.starts_with("tiled:")) {
    const std::string t(text.substr(6));
    if (!t.empty() && std::all_of(t.begin(), t.end(), [](char ch) { return ch >= '0' && ch <= '9'; }) && t.size() < 10 &&
        std::stoul(t) >= 1)
      return ClusterLayout{K::tiled, std::stoul(t)};
  }
  return std::nullopt;
}

std::string cluster_layout_text(const ClusterLayout& c) {
  if (c.kind == ClusterLayout::Kind::tiled) return fmt::format("tiled:{}", c.lanes);
  return c.kind == ClusterLayout::Kind::soa ? "soa" : "aos";
}

std::string cluster_layout_name(const ClusterLayout& c) {
  std::string text = cluster_layout_text(c);
  std::replace(text.begin(), text.end(), ':', '-');
  return text;
}

std::string needs_tree_message(std::string_view layout, std::string_view hint) {
  return fmt::format("layout '{}' needs a decision tree: {}", layout, hint);
}

std::optional<LayoutChoice> compiled_layout(const FieldPartition& p, const std::vector<std::size_t>& compile_time_tiles) {
  using K = ClusterLayout::Kind;
  std::vector<std::size_t> fields(p.clusters.size(), 0);
  for (std::size_t c : p.cluster_of_field) ++fields[c];
  bool apart = true;
  for (std::size_t c = 0; c < p.clusters.size(); ++c) apart = apart && (fields[c] == 1 || p.clusters[c].kind == K::soa);
  if (apart) return LayoutChoice{"soa"};
  if (p.clusters.size() != 1) return std::nullopt;
  const ClusterLayout& all = p.clusters[0];
  if (all.kind == K::aos || (all.kind == K::tiled && all.lanes == 1)) return LayoutChoice{"aos"};
  if (std::find(compile_time_tiles.begin(), compile_time_tiles.end(), all.lanes) == compile_time_tiles.end())
    return std::nullopt;
  return LayoutChoice{"tiled-ct", all.lanes};
}

namespace {

//! Sets what `c` runs as (compiled_layout) and returns it as the label writes it.
std::string set_runs_as(LayoutChoice& c, const std::vector<std::size_t>& compile_time_tiles) {
  const auto compiled = compiled_layout(c.fields, compile_time_tiles);
  if (!compiled) return "partition";
  c.runs_as = compiled->layout;
  c.tile = compiled->tile;
  return compiled->layout == "tiled-ct" ? fmt::format("tiled-ct-{}", compiled->tile) : compiled->layout;
}

}  // namespace

LayoutChoice method_choice(std::string_view layout, const KdlgPartition& p, const std::vector<std::string>& names,
                           const std::vector<std::size_t>& bytes, const DecisionTree* tree, std::string_view tree_hint,
                           const std::vector<std::size_t>& compile_time_tiles) {
  if (std::find(std::begin(kMethodLayouts), std::end(kMethodLayouts), layout) == std::end(kMethodLayouts))
    throw std::invalid_argument(fmt::format("'{}' is not one of the method's layouts", layout));
  if (bytes.size() != names.size())
    throw std::invalid_argument(fmt::format("{} field sizes for {} fields", bytes.size(), names.size()));
  KdlgPartition clusters = p;
  if (layout == "tiled-tree") {  // one cluster of every field
    clusters.clusters.assign(1, {});
    for (std::size_t f = 0; f < names.size(); ++f) clusters.clusters[0].push_back(f);
    clusters.merges.clear();
  }
  LayoutChoice c{std::string(layout), 0, partition_name(clusters, names), to_field_partition(clusters, names.size())};
  if (layout == "kdlg") {
    c.label = "runs_as=" + set_runs_as(c, compile_time_tiles);
    return c;
  }
  if (tree == nullptr) {
    c.unavailable = needs_tree_message(layout, tree_hint);
    return c;
  }
  std::vector<std::string> chosen;
  for (std::size_t k = 0; k < clusters.clusters.size(); ++k) {  // to_field_partition keeps the clusters' order
    std::uint64_t sigma = 0;
    for (std::size_t f : clusters.clusters[k]) sigma += bytes[f];
    c.fields.clusters[k] = tree->class_for(sigma);
    chosen.push_back(cluster_layout_name(c.fields.clusters[k]));
  }
  const std::string runs_as = set_runs_as(c, compile_time_tiles);
  c.label = fmt::format("cluster_layouts={};runs_as={};tree_gpu={}", fmt::join(chosen, "|"), runs_as, tree->gpu_name);
  return c;
}

std::vector<LayoutChoice> kdlg_tile_choices(const KdlgPartition& p, const std::vector<std::string>& names,
                                            const std::vector<std::size_t>& tiles) {
  LayoutChoice c{std::string(kKdlgTiles), 0, partition_name(p, names), to_field_partition(p, names.size())};
  const std::vector<std::size_t> tiled = clusters_of_several_fields(c.fields);
  if (tiled.empty())
    throw std::invalid_argument(fmt::format("the KDLG partition {} has no cluster of several fields to tile", c.partition));
  for (ClusterLayout& l : c.fields.clusters) l = {ClusterLayout::Kind::soa, 1};
  // tiles^clusters layouts: counted before any is made, and refused above the plan limit.
  const std::uint64_t limit = datasets::text::max_plan_benchmarks();
  std::uint64_t count = 1;
  bool beyond_64_bits = false;
  for (std::size_t k = 0; k < tiled.size(); ++k) beyond_64_bits |= __builtin_mul_overflow(count, tiles.size(), &count);
  if (beyond_64_bits || count > limit)
    throw std::invalid_argument(fmt::format(
        "{} tiles over {} clusters make {} layouts, more than the limit of {}; set {} to raise the limit", tiles.size(),
        tiled.size(), beyond_64_bits ? "over 2^64" : std::to_string(count), limit, datasets::text::kMaxPlanEnv));
  std::vector<LayoutChoice> out;
  std::vector<std::size_t> at(tiled.size(), 0);  // an odometer over the tiles, the last cluster fastest
  for (bool more = !tiles.empty(); more;) {
    for (std::size_t k = 0; k < tiled.size(); ++k) c.fields.clusters[tiled[k]] = {ClusterLayout::Kind::tiled, tiles[at[k]]};
    out.push_back(c);
    more = false;
    for (std::size_t k = tiled.size(); k-- > 0 && !more;) {
      more = ++at[k] < tiles.size();
      if (!more) at[k] = 0;
    }
  }
  return out;
}

namespace {

constexpr std::string_view kLayouts[] = {"aos",   "soa",  "tiled",      "tiled-ct",  "split",
                                         "split-ct", "kdlg", "tiled-tree", "kdlg-tree", kKdlgTiles};

ClusterLayout cluster_layout(const std::string& text, const std::string& name) {
  if (const auto c = parse_cluster_layout(text)) return *c;
  throw ChoiceError(name, fmt::format("partition '{}': cluster layout '{}' is not aos, soa or tiled:<t>", name, text),
                        "partitions");
}

//! The method's layouts the data asks for, each made from `method`'s partition and tree (the
//! tree's without a tree: unavailable, method_choice), then kdlg-tiles' sweep of the same
//! partition over the tiles of "kdlg_tiles" (kdlg_tile_choices).
void add_method_choices(std::vector<LayoutChoice>& out, std::string_view where, const ChoiceLists& lists,
                        const std::vector<std::string>& layouts, const std::vector<std::string>& field_names,
                        const std::vector<std::size_t>& compile_time_tiles, const MethodSource* method) {
  std::vector<std::string_view> planned;
  for (std::string_view l : kMethodLayouts)
    if (std::find(layouts.begin(), layouts.end(), l) != layouts.end()) planned.push_back(l);
  const bool tile_sweep = std::find(layouts.begin(), layouts.end(), kKdlgTiles) != layouts.end();
  if (tile_sweep) planned.push_back(kKdlgTiles);
  if (planned.empty()) return;
  if (method == nullptr)
    throw ChoiceError("layouts", fmt::format("layout '{}': this program records no accesses for the method", planned.front()),
                      where);
  KdlgPartition p;
  try {
    p = method->partition();
  } catch (const std::invalid_argument& e) {
    throw ChoiceError("layouts", fmt::format("layout '{}' needs the program's recorded accesses: {}", planned.front(), e.what()),
                      where);
  }
  for (std::string_view l : planned)
    if (l != kKdlgTiles) out.push_back(
          method_choice(l, p, field_names, method->field_bytes, method->tree, method->tree_hint, compile_time_tiles));
  if (!tile_sweep) return;
  const std::vector<std::size_t> tiles = lists.sizes("kdlg_tiles");  // the owner's list: positive integers
  try {
    const auto swept = kdlg_tile_choices(p, field_names, tiles);
    out.insert(out.end(), swept.begin(), swept.end());
  } catch (const std::invalid_argument& e) {
    throw ChoiceError("layouts", fmt::format("layout '{}': {}", kKdlgTiles, e.what()), where);
  }
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
                                       const std::vector<std::string>& compile_time_partitions,
                                       const MethodSource* method) {
  const auto layouts = lists.strings("layouts");
  for (const auto& l : layouts)
    if (std::find(std::begin(kLayouts), std::end(kLayouts), l) == std::end(kLayouts))
      throw ChoiceError("layouts", fmt::format("unknown layout '{}' ({})", l, fmt::join(kLayouts, ", ")), where);
  auto wants = [&](std::string_view l) { return std::find(layouts.begin(), layouts.end(), l) != layouts.end(); };

  std::vector<LayoutChoice> out;
  for (const auto& l : layouts)
    if (l == "aos" || l == "soa") out.push_back({l, 0, {}, {}});

  if (wants("tiled")) {
    std::vector<std::size_t> tiles;
    if (j.contains("tiles") && j["tiles"] == "sweep") {
      for (std::size_t t = 2; t <= size; t *= 2) {  // powers of two up to the size, never past 2^63
        tiles.push_back(t);
        if (t > size / 2) break;
      }
    } else {
      tiles = lists.sizes("tiles");
      // A tile of more records than any run holds is no tile: the run-time mapping's walk
      // over tiles would never end (a preset's 2^64 - 1 once planned).
      for (std::size_t t : tiles)
        if (t > kMaxRuntimeTile)
          throw ChoiceError("tiles", fmt::format("tile {} is not in 1..{} records", t, kMaxRuntimeTile), where);
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
  add_method_choices(out, where, lists, layouts, field_names, compile_time_tiles, method);
  return out;
}

}  // namespace lb::layout

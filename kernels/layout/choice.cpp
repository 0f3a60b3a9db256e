#include "lb/layout/choice.hpp"

#include <algorithm>
#include <iterator>
#include <type_traits>

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

template <class K>
constexpr bool kChosenByTree = std::is_base_of_v<kind::TreeValue, K>;
template <class K>
constexpr bool kLabelled = std::is_base_of_v<kind::MethodValue, K>;
template <class K>
constexpr bool kChosenByTrial = std::is_same_v<kind::KdlgTreePlus, K>;

//! The keys of a kind's label, in the order it writes them.
template <class K>
std::vector<std::string_view> label_keys() {
  if constexpr (kChosenByTree<K>) return {kClusterLayoutsKey, kRunsAsKey, kTreeGpuKey};
  else if constexpr (kLabelled<K>) return {kRunsAsKey};
  else if constexpr (kChosenByTrial<K>) return {kChosenKey, kRunsAsKey, kTrialKey, kTreeGpuKey};
  else return {};
}

constexpr std::string_view code_text(MappingCode c) {
  switch (c) {
    case MappingCode::compiled: return "compiled";
    case MappingCode::run_time_tiles: return "run-time tiles";
    case MappingCode::run_time_partition: return "run-time partition";
    case MappingCode::as_runs_as: return "runs_as";
  }
  return "";
}

constexpr std::string_view needs_text(Needs n) {
  switch (n) {
    case Needs::nothing: return "";
    case Needs::compile_time_tiles: return "compile-time tiles";
    case Needs::compile_time_splits: return "compile-time splits";
    case Needs::recorded_accesses: return "recorded accesses";
  }
  return "";
}

}  // namespace

std::array<std::string, 2> kind::KdlgTiles::values() const {
  std::vector<std::size_t> tiles;
  for (std::size_t c : clusters_of_several_fields(fields)) tiles.push_back(fields.clusters[c].lanes);
  return {partition, fmt::format("{}", fmt::join(tiles, ","))};
}

std::vector<std::string_view> kind_names() {
  std::vector<std::string_view> out;
  for_each_kind([&]<class K>() { out.push_back(K::name); });
  return out;
}

LayoutKind parse_kind(std::string_view name) {
  std::optional<LayoutKind> found;
  for_each_kind([&]<class K>() {
    if (K::name == name) found = K{};
  });
  if (!found) throw std::invalid_argument(fmt::format("unknown layout '{}' (expected one of: {})", name, fmt::join(kind_names(), ", ")));
  return *found;
}

std::string_view LayoutChoice::name() const {
  return std::visit([](const auto& k) { return std::decay_t<decltype(k)>::name; }, kind);
}

std::vector<std::pair<std::string, std::string>> LayoutChoice::params() const {
  return std::visit(
      [](const auto& k) {
        using K = std::decay_t<decltype(k)>;
        const auto values = k.values();
        std::vector<std::pair<std::string, std::string>> out;
        for (std::size_t i = 0; i < K::param_keys.size(); ++i) out.emplace_back(K::param_keys[i], values[i]);
        return out;
      },
      kind);
}

std::string LayoutChoice::param() const {
  std::string out;
  for (const auto& [key, value] : params()) {
    if (!out.empty()) out += '/';
    out += key + ':' + value;
  }
  return out;
}

std::string runs_as_text(const std::optional<Compiled>& runs_as) {
  if (!runs_as) return std::string(kRunsOnPartition);
  if (const auto* t = std::get_if<kind::TiledCt>(&*runs_as)) return fmt::format("{}-{}", kind::TiledCt::name, t->tile);
  return std::string(std::visit([](const auto& k) { return std::decay_t<decltype(k)>::name; }, *runs_as));
}

std::string LayoutChoice::label() const {
  return std::visit(
      [](const auto& k) -> std::string {
        using K = std::decay_t<decltype(k)>;
        if constexpr (kChosenByTree<K>) {
          if (!k.unavailable.empty()) return {};
          std::vector<std::string> chosen;  // each cluster's class, in the partition's order
          for (const ClusterLayout& c : k.fields.clusters) chosen.push_back(cluster_layout_name(c));
          return fmt::format("{}={};{}={};{}={}", kClusterLayoutsKey, fmt::join(chosen, "|"), kRunsAsKey,
                             runs_as_text(k.runs_as), kTreeGpuKey, k.tree_gpu);
        } else if constexpr (kLabelled<K>) {
          return fmt::format("{}={}", kRunsAsKey, runs_as_text(k.runs_as));
        } else {
          return {};
        }
      },
      kind);
}

std::string LayoutChoice::unavailable() const {
  return std::visit(
      [](const auto& k) -> std::string {
        using K = std::decay_t<decltype(k)>;
        if constexpr (kChosenByTree<K> || kChosenByTrial<K>) return k.unavailable;
        else return {};
      },
      kind);
}

std::vector<std::string> ProgramKinds::taken() const {
  std::vector<std::string> out;
  for_each_kind([&]<class K>() {
    if (takes<K>()) out.emplace_back(K::name);
  });
  return out;
}

std::string ProgramKinds::refusal(std::string_view name) const {
  LayoutKind k;
  try {
    k = parse_kind(name);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return std::visit(
      [&]<class K>(const K&) -> std::string {
        if (takes<K>()) return {};
        return fmt::format("layout '{}' needs {}, which this program has not (it takes: {})", K::name,
                           needs_text(K::needs), fmt::join(taken(), ", "));
      },
      k);
}

nlohmann::json layout_table_json() {
  nlohmann::json kinds = nlohmann::json::array();
  for_each_kind([&]<class K>() {
    nlohmann::json k{{"name", K::name},
                     {"params", std::vector<std::string_view>(K::param_keys.begin(), K::param_keys.end())},
                     {"sweeps", K::sweeps},
                     {"code", code_text(K::code)},
                     {"needs", needs_text(K::needs)},
                     {"tree", kChosenByTree<K>},
                     {"trial", kChosenByTrial<K>},
                     {"label", label_keys<K>()}};
    if constexpr (requires { typename K::compiled; }) k["compiled"] = K::compiled::name;
    kinds.push_back(std::move(k));
  });
  std::vector<std::string_view> runs_as;  // the compiled kinds a method value may run as
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (runs_as.push_back(std::variant_alternative_t<I, Compiled>::name), ...);
  }(std::make_index_sequence<std::variant_size_v<Compiled>>{});
  return {{"kinds", kinds},
          {"cluster_layouts", {kind::Aos::name, kind::Soa::name, kind::Tiled::name}},
          {"runs_as", runs_as},
          {"runs_on_partition", kRunsOnPartition}};
}

std::optional<ClusterLayout> parse_cluster_layout(std::string_view text) {
  using K = ClusterLayout::Kind;
  if (text == kind::Aos::name) return ClusterLayout{K::aos, 1};
  if (text == kind::Soa::name) return ClusterLayout{K::soa, 1};
  const std::string tiled = fmt::format("{}:", kind::Tiled::name);
  if (text.starts_with(tiled)) {
    const std::string t(text.substr(tiled.size()));
    if (!t.empty() && std::all_of(t.begin(), t.end(), [](char ch) { return ch >= '0' && ch <= '9'; }) && t.size() < 10 &&
        std::stoul(t) >= 1)
      return ClusterLayout{K::tiled, std::stoul(t)};
  }
  return std::nullopt;
}

std::string cluster_layout_text(const ClusterLayout& c) {
  if (c.kind == ClusterLayout::Kind::tiled) return fmt::format("{}:{}", kind::Tiled::name, c.lanes);
  return std::string(c.kind == ClusterLayout::Kind::soa ? kind::Soa::name : kind::Aos::name);
}

std::string cluster_layout_name(const ClusterLayout& c) {
  std::string text = cluster_layout_text(c);
  std::replace(text.begin(), text.end(), ':', '-');
  return text;
}

std::string needs_tree_message(std::string_view layout, std::string_view hint) {
  return fmt::format("layout '{}' needs a decision tree: {}", layout, hint);
}

std::optional<Compiled> compiled_layout(const FieldPartition& p, const std::vector<std::size_t>& compile_time_tiles) {
  using K = ClusterLayout::Kind;
  std::vector<std::size_t> fields(p.clusters.size(), 0);
  for (std::size_t c : p.cluster_of_field) ++fields[c];
  bool apart = true;
  for (std::size_t c = 0; c < p.clusters.size(); ++c) apart = apart && (fields[c] == 1 || p.clusters[c].kind == K::soa);
  if (apart) return kind::Soa{};
  if (p.clusters.size() != 1) return std::nullopt;
  const ClusterLayout& all = p.clusters[0];
  if (all.kind == K::aos || (all.kind == K::tiled && all.lanes == 1)) return kind::Aos{};
  if (std::find(compile_time_tiles.begin(), compile_time_tiles.end(), all.lanes) == compile_time_tiles.end())
    return std::nullopt;
  return kind::TiledCt{all.lanes};
}

template <class K>
  requires std::derived_from<K, kind::MethodValue>
K method_value(const KdlgPartition& p, const std::vector<std::string>& names, const std::vector<std::size_t>& bytes,
               const DecisionTree* tree, std::string_view tree_hint, const std::vector<std::size_t>& compile_time_tiles) {
  if (bytes.size() != names.size())
    throw std::invalid_argument(fmt::format("{} field sizes for {} fields", bytes.size(), names.size()));
  KdlgPartition clusters = p;
  if constexpr (std::is_same_v<K, kind::TiledTree>) {  // one cluster of every field
    clusters.clusters.assign(1, {});
    for (std::size_t f = 0; f < names.size(); ++f) clusters.clusters[0].push_back(f);
    clusters.merges.clear();
  }
  K k;
  k.partition = partition_name(clusters, names);
  k.fields = to_field_partition(clusters, names.size());
  if constexpr (kChosenByTree<K>) {
    if (tree == nullptr) {
      k.unavailable = needs_tree_message(K::name, tree_hint);
      return k;
    }
    for (std::size_t c = 0; c < clusters.clusters.size(); ++c) {  // to_field_partition keeps the clusters' order
      std::uint64_t sigma = 0;
      for (std::size_t f : clusters.clusters[c]) sigma += bytes[f];
      k.fields.clusters[c] = tree->class_for(sigma);
    }
    k.tree_gpu = tree->gpu_name;
  }
  k.runs_as = compiled_layout(k.fields, compile_time_tiles);
  return k;
}

#define LB_METHOD_VALUE(K)                                                                                       \
  template K method_value<K>(const KdlgPartition&, const std::vector<std::string>&, const std::vector<std::size_t>&, \
                             const DecisionTree*, std::string_view, const std::vector<std::size_t>&);
LB_METHOD_VALUE(kind::Kdlg)
LB_METHOD_VALUE(kind::TiledTree)
LB_METHOD_VALUE(kind::KdlgTree)
#undef LB_METHOD_VALUE

kind::KdlgTreePlus trial_value(const KdlgPartition& p, const std::vector<std::string>& names,
                               const std::vector<std::size_t>& bytes, const DecisionTree* tree,
                               std::string_view tree_hint, const std::vector<std::size_t>& compile_time_tiles) {
  kind::KdlgTreePlus k;
  k.paper = method_value<kind::KdlgTree>(p, names, bytes, tree, tree_hint, compile_time_tiles);
  k.tree_alone = method_value<kind::TiledTree>(p, names, bytes, tree, tree_hint, compile_time_tiles);
  k.partition = k.paper.partition;
  k.fields = k.paper.fields;
  if (tree == nullptr) k.unavailable = needs_tree_message(kind::KdlgTreePlus::name, tree_hint);
  return k;
}

std::vector<LayoutChoice> trial_candidates(const kind::KdlgTreePlus& k) {
  return {{kind::Aos{}}, {kind::Soa{}}, {k.paper}, {k.tree_alone}};
}

std::string code_of(const LayoutChoice& c) {
  return std::visit(
      [](const auto& k) -> std::string {
        using K = std::decay_t<decltype(k)>;
        if constexpr (std::is_same_v<K, kind::Aos> || std::is_same_v<K, kind::Soa> || std::is_same_v<K, kind::TiledCt>)
          return runs_as_text(Compiled{k});
        else if constexpr (kLabelled<K>) return runs_as_text(k.runs_as);
        else return {};
      },
      c.kind);
}

bool same_code(const LayoutChoice& a, const LayoutChoice& b) {
  const std::string code = code_of(a);
  if (code.empty() || code != code_of(b)) return false;
  if (code != kRunsOnPartition) return true;
  // Both on the run-time partition: the same only for the same clusters, laid out alike.
  const auto fields = [](const LayoutChoice& c) {
    return std::visit(
        [](const auto& k) -> FieldPartition {
          if constexpr (kLabelled<std::decay_t<decltype(k)>>) return k.fields;
          else return {};
        },
        c.kind);
  };
  const FieldPartition pa = fields(a), pb = fields(b);
  const auto same_layout = [](const ClusterLayout& x, const ClusterLayout& y) {
    return x.kind == y.kind && (x.kind != ClusterLayout::Kind::tiled || x.lanes == y.lanes);
  };
  return pa.cluster_of_field == pb.cluster_of_field &&
         std::equal(pa.clusters.begin(), pa.clusters.end(), pb.clusters.begin(), pb.clusters.end(), same_layout);
}

std::vector<LayoutChoice> method_choices(const KdlgPartition& p, const std::vector<std::string>& names,
                                         const std::vector<std::size_t>& bytes, const DecisionTree* tree,
                                         std::string_view tree_hint, const std::vector<std::size_t>& compile_time_tiles) {
  std::vector<LayoutChoice> out;
  for_each_kind([&]<class K>() {
    if constexpr (std::derived_from<K, kind::MethodValue>)
      out.push_back({method_value<K>(p, names, bytes, tree, tree_hint, compile_time_tiles)});
  });
  return out;
}

std::vector<LayoutChoice> kdlg_tile_choices(const KdlgPartition& p, const std::vector<std::string>& names,
                                            const std::vector<std::size_t>& tiles) {
  kind::KdlgTiles k{{partition_name(p, names), to_field_partition(p, names.size())}};
  const std::vector<std::size_t> tiled = clusters_of_several_fields(k.fields);
  if (tiled.empty())
    throw std::invalid_argument(fmt::format("the KDLG partition {} has no cluster of several fields to tile", k.partition));
  for (ClusterLayout& l : k.fields.clusters) l = {ClusterLayout::Kind::soa, 1};
  // tiles^clusters layouts: counted before any is made, and refused above the plan limit.
  const std::uint64_t limit = datasets::text::max_plan_benchmarks();
  std::uint64_t count = 1;
  bool beyond_64_bits = false;
  for (std::size_t c = 0; c < tiled.size(); ++c) beyond_64_bits |= __builtin_mul_overflow(count, tiles.size(), &count);
  if (beyond_64_bits || count > limit)
    throw std::invalid_argument(fmt::format(
        "{} tiles over {} clusters make {} layouts, more than the limit of {}; set {} to raise the limit", tiles.size(),
        tiled.size(), beyond_64_bits ? "over 2^64" : std::to_string(count), limit, datasets::text::kMaxPlanEnv));
  std::vector<LayoutChoice> out;
  std::vector<std::size_t> at(tiled.size(), 0);  // an odometer over the tiles, the last cluster fastest
  for (bool more = !tiles.empty(); more;) {
    for (std::size_t c = 0; c < tiled.size(); ++c) k.fields.clusters[tiled[c]] = {ClusterLayout::Kind::tiled, tiles[at[c]]};
    out.push_back({k});
    more = false;
    for (std::size_t c = tiled.size(); c-- > 0 && !more;) {
      more = ++at[c] < tiles.size();
      if (!more) at[c] = 0;
    }
  }
  return out;
}

namespace {

ClusterLayout cluster_layout(const std::string& text, const std::string& name) {
  if (const auto c = parse_cluster_layout(text)) return *c;
  throw ChoiceError(name,
                    fmt::format("partition '{}': cluster layout '{}' is not {}, {} or {}:<t>", name, text, kind::Aos::name,
                                kind::Soa::name, kind::Tiled::name),
                    "partitions");
}

//! The kinds a program's object asks for, as listed.
struct Asked {
  std::vector<LayoutKind> listed;
  template <class K>
  bool wants() const {
    return std::any_of(listed.begin(), listed.end(), [](const LayoutKind& k) { return std::holds_alternative<K>(k); });
  }
};

//! The method's values the data asks for, each made from `method`'s partition and tree (the
//! tree's without a tree: unavailable, method_value), kdlg-tree-plus beside them in the
//! table's order (trial_value), then kdlg-tiles' sweep of the same
//! partition over the tiles of "kdlg_tiles" (kdlg_tile_choices).
void add_method_choices(std::vector<LayoutChoice>& out, std::string_view where, const ChoiceLists& lists,
                        const Asked& asked, const std::vector<std::string>& field_names,
                        const std::vector<std::size_t>& compile_time_tiles, const MethodSource& method) {
  std::optional<std::string_view> first;  // the first value asked for, for the errors
  for_each_kind([&]<class K>() {
    if (K::needs == Needs::recorded_accesses && asked.wants<K>() && !first) first = K::name;
  });
  if (!first) return;
  KdlgPartition p;
  try {
    p = method.partition();
  } catch (const std::invalid_argument& e) {
    throw ChoiceError("layouts", fmt::format("layout '{}' needs the program's recorded accesses: {}", *first, e.what()),
                      where);
  }
  for_each_kind([&]<class K>() {
    if constexpr (std::derived_from<K, kind::MethodValue>) {
      if (asked.wants<K>())
        out.push_back(
            {method_value<K>(p, field_names, method.field_bytes, method.tree, method.tree_hint, compile_time_tiles)});
    } else if constexpr (kChosenByTrial<K>) {
      if (asked.wants<K>())
        out.push_back(
            {trial_value(p, field_names, method.field_bytes, method.tree, method.tree_hint, compile_time_tiles)});
    }
  });
  if (!asked.wants<kind::KdlgTiles>()) return;
  const std::vector<std::size_t> tiles = lists.sizes("kdlg_tiles");  // the owner's list: positive integers
  try {
    const auto swept = kdlg_tile_choices(p, field_names, tiles);
    out.insert(out.end(), swept.begin(), swept.end());
  } catch (const std::invalid_argument& e) {
    throw ChoiceError("layouts", fmt::format("layout '{}': {}", kind::KdlgTiles::name, e.what()), where);
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
    std::string layout_text(kind::Aos::name);
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
  const ProgramKinds program{compile_time_tiles, compile_time_partitions, method != nullptr};
  Asked asked;
  for (const auto& l : lists.strings("layouts")) {
    if (std::string why = program.refusal(l); !why.empty()) throw ChoiceError("layouts", why, where);
    asked.listed.push_back(parse_kind(l));
  }

  std::vector<LayoutChoice> out;
  for (const LayoutKind& k : asked.listed)  // in the order listed
    if (std::holds_alternative<kind::Aos>(k) || std::holds_alternative<kind::Soa>(k)) out.push_back({k});

  if (asked.wants<kind::Tiled>()) {
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
    for (std::size_t t : tiles) out.push_back({kind::Tiled{t}});
  }
  if (asked.wants<kind::TiledCt>()) {
    for (std::size_t t : lists.sizes("compile_time_tiles")) {
      if (std::find(compile_time_tiles.begin(), compile_time_tiles.end(), t) == compile_time_tiles.end())
        throw ChoiceError("compile_time_tiles",
                          fmt::format("tile {} is not compiled in (this program instantiates: {})", t,
                                      fmt::join(compile_time_tiles, ", ")),
                          where);
      out.push_back({kind::TiledCt{t}});
    }
  }
  if (asked.wants<kind::Split>() || asked.wants<kind::SplitCt>()) {
    if (!j.contains("partitions") || !j["partitions"].is_object() || j["partitions"].empty())
      throw ChoiceError(where, fmt::format("'{}' asks for split layouts but names no 'partitions'", where));
    for (const auto& [name, clusters] : j["partitions"].items()) {
      const FieldPartition p = read_partition(lists, name, clusters, field_names);
      if (asked.wants<kind::Split>()) out.push_back({kind::Split{{name, p}}});
      if (asked.wants<kind::SplitCt>()) {
        if (std::find(compile_time_partitions.begin(), compile_time_partitions.end(), name) ==
            compile_time_partitions.end())
          throw ChoiceError(name,
                            fmt::format("partition '{}' has no compile-time split (this program has: {})", name,
                                        fmt::join(compile_time_partitions, ", ")),
                            "partitions");
        out.push_back({kind::SplitCt{{name, p}}});
      }
    }
  }
  if (method != nullptr) add_method_choices(out, where, lists, asked, field_names, compile_time_tiles, *method);
  return out;
}

}  // namespace lb::layout

#pragma once
//! A layout chosen as data: a program's list of layouts read from a JSON object (a preset's),
//! each a LayoutChoice (one value of the kinds below, each its own type) that
//! choice_mapping.hpp's with_mapping turns into a mapping value by the value's type. The kinds'
//! names are one table (each kind's `name`, LayoutKind's order), which parses the presets,
//! names the benchmarks and labels, and is exported to Python through the registry
//! (layout_table_json). Every program records its fields by name so the data can give a field
//! partition:
//!
//!   "layouts": [<kind names>]           any the program takes (ProgramKinds)
//!   "tiles": "sweep" | [2, 4, ...]      run-time tile sizes; "sweep" = powers of two 2 .. size
//!   "compile_time_tiles": [32, 128]     tiled-ct: only tiles the program instantiates
//!   "kdlg_tiles": [1, 2, 4, ...]        kdlg-tiles: each KDLG cluster of several fields's tiles
//!   "partitions": {"pos|vel": [["pos"], ["vel"]],
//!                  "hot-soa": [{"fields": ["a", "b"], "layout": "soa"}, ["c"]]}
//!
//! A cluster is a list of field names (laid out AoS) or {"fields": [...], "layout": "aos" |
//! "soa" | "tiled:<t>"}; every field in exactly one cluster. `split` runs a partition through
//! the run-time PartitionMapping, `split-ct` through the compile-time Split of the same
//! clusters, which a program provides for the partitions it names.
//!
//! The method's values (Kofler et al. 2015, docs/advisor.md: kdlg, tiled-tree, kdlg-tree) are
//! partitions made from the program's recorded accesses and the GPU's decision tree
//! (MethodSource), each run by the compiled layout it is where the program compiles one (the
//! paper applies its layout at compile time), else by the run-time PartitionMapping. Their
//! names do not depend on the tree (so runs on GPUs with different trees pair up); without a
//! tree the tree's values are planned all the same, each `unavailable`: making one fails with
//! the error naming how to give a tree. `kdlg-tiles` sweeps the tiles of the KDLG clusters
//! and needs no tree. `kdlg-tree-plus` (beyond the paper) is the candidate a trial on the GPU
//! picks when its benchmark runs (trial_candidates; the trial: benches/kofler/layout_choice.hpp).

#include <array>
#include <concepts>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "lb/layout/field_partition.hpp"
#include "lb/layout/kdlg.hpp"

namespace lb::layout {

struct DecisionTree;

//! The largest run-time tile a preset's "tiles" may name (records): 2^30, above every program's
//! size (SAMPO's largest population is 2,000,000 agents).
inline constexpr std::size_t kMaxRuntimeTile = std::size_t{1} << 30;

// --- The name table (namespace kind) ----------------------------------------------------
// One value type per kind. Each carries its row of the table: its preset and benchmark
// `name`, the parameters its benchmark name writes (`param_keys`, the values from values()),
// the one it sweeps (several values per size), the code that lays it out, and what a program
// needs to take it. LayoutKind lists the kinds in the order the registry exports them.

//! A benchmark name's parameters, and the words of the method's labels (docs/advisor.md).
inline constexpr std::string_view kTileParam = "tile", kPartitionParam = "partition", kTilesParam = "tiles";
inline constexpr std::string_view kClusterLayoutsKey = "cluster_layouts", kRunsAsKey = "runs_as",
                                  kTreeGpuKey = "tree_gpu";
//! The trial value's label (kind::KdlgTreePlus): the candidate chosen and each one's trial.
inline constexpr std::string_view kChosenKey = "chosen", kTrialKey = "trial_us";
//! runs_as of a method value that no compiled layout runs: the run-time PartitionMapping.
inline constexpr std::string_view kRunsOnPartition = "partition";

//! The code that lays out a kind's records: a compiled mapping, the run-time tile mapping, the
//! run-time PartitionMapping, or what the method value's runs_as says (compiled_layout).
enum class MappingCode { compiled, run_time_tiles, run_time_partition, as_runs_as };
//! What a program must have to take a kind: nothing (every program compiles the run-time
//! mappings), compile-time tiles, compile-time splits, or its recorded accesses (MethodSource).
enum class Needs { nothing, compile_time_tiles, compile_time_splits, recorded_accesses };

namespace kind {

struct Aos {
  static constexpr std::string_view name = "aos";
  static constexpr std::array<std::string_view, 0> param_keys{};
  static constexpr std::string_view sweeps{};
  static constexpr MappingCode code = MappingCode::compiled;
  static constexpr Needs needs = Needs::nothing;
  std::array<std::string, 0> values() const { return {}; }
};

struct Soa {
  static constexpr std::string_view name = "soa";
  static constexpr std::array<std::string_view, 0> param_keys{};
  static constexpr std::string_view sweeps{};
  static constexpr MappingCode code = MappingCode::compiled;
  static constexpr Needs needs = Needs::nothing;
  std::array<std::string, 0> values() const { return {}; }
};

//! Tiled AoS (AoSoA) of a compile-time tile: one instantiation per tile a program compiles.
struct TiledCt {
  static constexpr std::string_view name = "tiled-ct";
  static constexpr std::array param_keys{kTileParam};
  static constexpr std::string_view sweeps = kTileParam;
  static constexpr MappingCode code = MappingCode::compiled;
  static constexpr Needs needs = Needs::compile_time_tiles;
  std::size_t tile = 0;  //!< records per tile
  std::array<std::string, 1> values() const { return {std::to_string(tile)}; }
};

//! Tiled AoS of a run-time tile: one instantiation serves every tile.
struct Tiled {
  static constexpr std::string_view name = "tiled";
  static constexpr std::array param_keys{kTileParam};
  static constexpr std::string_view sweeps = kTileParam;
  static constexpr MappingCode code = MappingCode::run_time_tiles;
  static constexpr Needs needs = Needs::nothing;
  using compiled = TiledCt;  //!< the same layout compiled
  std::size_t tile = 0;      //!< records per tile
  std::array<std::string, 1> values() const { return {std::to_string(tile)}; }
};

//! A named partition of the fields into clusters, each with its layout.
struct PartitionValue {
  std::string partition;  //!< its name: a preset's, or partition_name's (a+b|c)
  FieldPartition fields;  //!< the partition as data
};

//! A preset's partition through a compile-time split the program provides (the same clusters).
struct SplitCt : PartitionValue {
  static constexpr std::string_view name = "split-ct";
  static constexpr std::array param_keys{kPartitionParam};
  static constexpr std::string_view sweeps = kPartitionParam;
  static constexpr MappingCode code = MappingCode::compiled;
  static constexpr Needs needs = Needs::compile_time_splits;
  std::array<std::string, 1> values() const { return {partition}; }
};

//! A preset's partition through the run-time PartitionMapping.
struct Split : PartitionValue {
  static constexpr std::string_view name = "split";
  static constexpr std::array param_keys{kPartitionParam};
  static constexpr std::string_view sweeps = kPartitionParam;
  static constexpr MappingCode code = MappingCode::run_time_partition;
  static constexpr Needs needs = Needs::nothing;
  using compiled = SplitCt;
  std::array<std::string, 1> values() const { return {partition}; }
};

//! The method's values (Kofler et al. 2015, docs/advisor.md): a partition from the program's
//! recorded accesses, run as the compiled layout it is (`runs_as`), else (nullopt) through the
//! run-time PartitionMapping. Labelled "runs_as=<runs_as_text>".
struct MethodValue : PartitionValue {
  static constexpr MappingCode code = MappingCode::as_runs_as;
  static constexpr Needs needs = Needs::recorded_accesses;
  std::optional<std::variant<Aos, Soa, TiledCt>> runs_as = std::nullopt;
};

//! A method value whose clusters' layouts the GPU's decision tree chose. Made without a tree it
//! is `unavailable` (its clusters AoS): making it fails with that message. Labelled
//! "cluster_layouts=tiled-64|soa;runs_as=<r>;tree_gpu=<the tree's GPU name>".
struct TreeValue : MethodValue {
  std::string tree_gpu = {};     //!< the tree's GPU name
  std::string unavailable = {};  //!< non-empty: why it cannot be made here
};

//! The KDLG clusters, each AoS.
struct Kdlg : MethodValue {
  static constexpr std::string_view name = "kdlg";
  static constexpr std::array param_keys{kPartitionParam};
  static constexpr std::string_view sweeps{};
  std::array<std::string, 1> values() const { return {partition}; }
};

//! One cluster of every field, laid out as the tree's class for the record's bytes. Its name
//! has no partition (the same on every GPU, so runs of different trees pair up).
struct TiledTree : TreeValue {
  static constexpr std::string_view name = "tiled-tree";
  static constexpr std::array<std::string_view, 0> param_keys{};
  static constexpr std::string_view sweeps{};
  std::array<std::string, 0> values() const { return {}; }
};

//! The KDLG clusters, each laid out as the tree's class for its bytes.
struct KdlgTree : TreeValue {
  static constexpr std::string_view name = "kdlg-tree";
  static constexpr std::array param_keys{kPartitionParam};
  static constexpr std::string_view sweeps{};
  std::array<std::string, 1> values() const { return {partition}; }
};

//! Beyond the paper (issue 39 §4, docs/advisor.md "The extended value"): the layout a short
//! trial on the GPU picks, when its benchmark runs, among trial_candidates (aos, soa, the
//! paper's kdlg-tree and tiled-tree), AoS unless one beats it beyond the trial's extremes.
//! Named by the KDLG partition (its `fields`: kdlg-tree's), like kdlg-tree. Its label (what
//! was chosen and the trial's times) is written by the trial, none before; made without a
//! tree it is `unavailable`, as kdlg-tree is. No mapping of its own: the chosen candidate's.
struct KdlgTreePlus : PartitionValue {
  static constexpr std::string_view name = "kdlg-tree-plus";
  static constexpr std::array param_keys{kPartitionParam};
  static constexpr std::string_view sweeps{};
  static constexpr MappingCode code = MappingCode::as_runs_as;
  static constexpr Needs needs = Needs::recorded_accesses;
  KdlgTree paper = {};        //!< the paper's choice, a candidate
  TiledTree tree_alone = {};  //!< the tree's class for the whole record, a candidate
  std::string unavailable = {};  //!< non-empty: why it cannot be made here (no tree)
  std::array<std::string, 1> values() const { return {partition}; }
};

//! The KDLG clusters' tile sweep (the lower map of the paper's Fig. 1): each cluster of several
//! fields tiled, each of one field SoA, through the run-time PartitionMapping; named
//! partition:<KDLG>/tiles:<t1>,<t2>,... (the clusters of several fields' tiles, in order).
struct KdlgTiles : PartitionValue {
  static constexpr std::string_view name = "kdlg-tiles";
  static constexpr std::array param_keys{kPartitionParam, kTilesParam};
  static constexpr std::string_view sweeps = kTilesParam;
  static constexpr MappingCode code = MappingCode::run_time_partition;
  static constexpr Needs needs = Needs::recorded_accesses;
  std::array<std::string, 2> values() const;
};

}  // namespace kind

//! The compiled layouts a method value may run as (compiled_layout).
using Compiled = std::variant<kind::Aos, kind::Soa, kind::TiledCt>;

//! Every kind, in the table's order.
using LayoutKind = std::variant<kind::Aos, kind::Soa, kind::Tiled, kind::TiledCt, kind::Split, kind::SplitCt, kind::Kdlg,
                                kind::TiledTree, kind::KdlgTree, kind::KdlgTreePlus, kind::KdlgTiles>;

//! The table's names, in its order.
std::vector<std::string_view> kind_names();
//! The kind named `name`, default valued; unknown: std::invalid_argument "unknown layout
//! '<name>' (expected one of: aos, soa, ...)".
LayoutKind parse_kind(std::string_view name);

//! Calls f.template operator()<K>() for every kind K, in the table's order.
template <class F>
void for_each_kind(F&& f) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (f.template operator()<std::variant_alternative_t<I, LayoutKind>>(), ...);
  }(std::make_index_sequence<std::variant_size_v<LayoutKind>>{});
}

//! A layout chosen as data: one value of the table's kinds.
struct LayoutChoice {
  LayoutKind kind;

  //! The kind's name: aos, soa, tiled, tiled-ct, split, split-ct, kdlg, tiled-tree, kdlg-tree, kdlg-tree-plus,
  //! kdlg-tiles.
  std::string_view name() const;
  //! The name's parameters after the layout: tile:64 (tiled, tiled-ct); partition:pos|vel
  //! (split, split-ct, kdlg, kdlg-tree, kdlg-tree-plus); partition:a+b|c|d+e/tiles:16,2 (kdlg-tiles); none
  //! for aos, soa, tiled-tree.
  std::vector<std::pair<std::string, std::string>> params() const;
  //! params() as the name writes them, '/'-joined ("tile:64"; empty for aos/soa).
  std::string param() const;
  //! The method's values' label (MethodValue, TreeValue); empty otherwise, for a tree's
  //! value made without a tree and for kdlg-tree-plus (its trial writes its label: trial_label).
  std::string label() const;
  //! Non-empty: why this value cannot be made here (a tree's value or kdlg-tree-plus planned
  //! without a tree).
  std::string unavailable() const;
  //! Whether the value is of kind K.
  template <class K>
  bool is() const {
    return std::holds_alternative<K>(kind);
  }
};

//! What a program compiles, from which the kinds it takes follow (Needs): its compile-time
//! tiles and splits, and whether it has recorded accesses for the method.
struct ProgramKinds {
  std::vector<std::size_t> compile_time_tiles;
  std::vector<std::string> compile_time_partitions;
  bool recorded = true;

  //! Whether the program takes kind K.
  template <class K>
  bool takes() const {
    switch (K::needs) {
      case Needs::nothing: return true;
      case Needs::compile_time_tiles: return !compile_time_tiles.empty();
      case Needs::compile_time_splits: return !compile_time_partitions.empty();
      case Needs::recorded_accesses: return recorded;
    }
    return false;
  }
  //! The names of the kinds it takes, in the table's order.
  std::vector<std::string> taken() const;
  //! "" where it takes the kind named `name`; else why not: "unknown layout '<name>' (expected
  //! one of: <the table>)", or "layout '<name>' needs <what>, which this program has not (it
  //! takes: <taken>)". A preset's "layouts" gets this error (read_choices, a program's axis).
  std::string refusal(std::string_view name) const;
};

//! The table as the registry exports it (layoutbench suites --json, "layouts"): each kind's
//! name, params, sweeps, code, needs, compile-time twin ("compiled"), whether the tree chooses
//! it and its label's keys; the kinds a cluster of a partition may be laid out as
//! ("cluster_layouts": "aos", "soa", "tiled" written "tiled-<t>"), those a method value may run
//! as ("runs_as": "aos", "soa", "tiled-ct" written "tiled-ct-<t>") and kRunsOnPartition.
nlohmann::json layout_table_json();

//! What a method value runs as, as its label writes it: "aos", "soa", "tiled-ct-32", or
//! kRunsOnPartition.
std::string runs_as_text(const std::optional<Compiled>& runs_as);

//! A cluster layout as data gives it: "aos", "soa", "tiled:<t>" (t ≥ 1); nullopt otherwise.
std::optional<ClusterLayout> parse_cluster_layout(std::string_view text);
//! The inverse: "aos", "soa", "tiled:32".
std::string cluster_layout_text(const ClusterLayout& c);
//! As a benchmark name's value writes it (no ':'): "aos", "soa", "tiled-32".
std::string cluster_layout_name(const ClusterLayout& c);

//! What the method's layouts are made from; read_choices asks for it only when the data
//! names one of them.
struct MethodSource {
  //! The program's KDLG partition (clusters of field indices, in read_choices' field order),
  //! from its recorded accesses; throws std::invalid_argument when it cannot be recorded.
  std::function<KdlgPartition()> partition;
  std::vector<std::size_t> field_bytes;  //!< σ of each field of the record laid out
  const DecisionTree* tree = nullptr;    //!< the GPU's decision tree; none given: nullptr
  //! How to give one, for the error of a tree's value made without it ("give --kofler-tree FILE")
  std::string tree_hint;
};

//! The message of a tree's layout `layout` made without a tree:
//! "layout '<layout>' needs a decision tree: <hint>".
std::string needs_tree_message(std::string_view layout, std::string_view hint);

//! The method's value of kind K (Kdlg, TiledTree or KdlgTree) from the KDLG partition `p` of
//! a record with fields `names` of `bytes` bytes each, with the tree's classes for the tree's
//! values. Exactly: Kdlg = p's clusters, each AoS; TiledTree = one cluster of every field, of
//! the tree's class for the record's bytes; KdlgTree = p's clusters, each of the tree's class
//! for its bytes. Each runs as the compiled layout its partition is, if any (compiled_layout
//! over the program's `compile_time_tiles`). A tree's value without a tree (`tree` null) is
//! `unavailable` with needs_tree_message(K::name, tree_hint), its clusters AoS.
template <class K>
  requires std::derived_from<K, kind::MethodValue>
K method_value(const KdlgPartition& p, const std::vector<std::string>& names, const std::vector<std::size_t>& bytes,
               const DecisionTree* tree, std::string_view tree_hint = "give a decision tree",
               const std::vector<std::size_t>& compile_time_tiles = {});

//! Every method value (method_value of each kind derived from kind::MethodValue, in the table's order).
std::vector<LayoutChoice> method_choices(const KdlgPartition& p, const std::vector<std::string>& names,
                                         const std::vector<std::size_t>& bytes, const DecisionTree* tree,
                                         std::string_view tree_hint = "give a decision tree",
                                         const std::vector<std::size_t>& compile_time_tiles = {});

//! kdlg-tree-plus of the KDLG partition `p` (the arguments as method_value's): named and
//! partitioned as kdlg-tree, its candidates kdlg-tree and tiled-tree exactly as method_value
//! makes them; without a tree `unavailable` with needs_tree_message("kdlg-tree-plus", tree_hint).
kind::KdlgTreePlus trial_value(const KdlgPartition& p, const std::vector<std::string>& names,
                               const std::vector<std::size_t>& bytes, const DecisionTree* tree,
                               std::string_view tree_hint = "give a decision tree",
                               const std::vector<std::size_t>& compile_time_tiles = {});

//! kdlg-tree-plus' candidates in the trial's order: aos, soa, kdlg-tree, tiled-tree.
std::vector<LayoutChoice> trial_candidates(const kind::KdlgTreePlus& k);

//! The code that lays out a candidate, as runs_as writes it: "aos", "soa", "tiled-ct-<t>" (a
//! compiled kind, or a method value its runs_as), "partition" (a method value on the run-time
//! PartitionMapping); "" for the other kinds.
std::string code_of(const LayoutChoice& c);

//! Whether two values run the same code on the same addresses: the same compiled layout, or
//! the run-time partition of the same clusters and cluster layouts (kdlg-tree and tiled-tree
//! where the KDLG is one cluster). A trial times such candidates once.
bool same_code(const LayoutChoice& a, const LayoutChoice& b);

//! The compile-time layout whose code lays out a partition's fields at the addresses the
//! partition gives them, among those every program compiles (AoS, SoA) and its tiles
//! `compile_time_tiles`: Soa when every field is alone (a cluster of one field, whatever its
//! layout, holds record i at i · its bytes) or in a SoA cluster; Aos for one AoS cluster of
//! every field (or tiled with one record per tile); TiledCt for one tiled cluster of every
//! field whose tile is compiled. nullopt otherwise: several clusters, one of several fields
//! not SoA, or a tile not compiled (the run-time PartitionMapping runs those).
std::optional<Compiled> compiled_layout(const FieldPartition& p, const std::vector<std::size_t>& compile_time_tiles);

//! kdlg-tiles' values of the KDLG partition `p` of fields `names`: one per combination of
//! `tiles` over p's clusters of several fields (the first such cluster's tile varying
//! slowest), those clusters tiled, every cluster of one field SoA. Throws
//! std::invalid_argument when p has no cluster of several fields (nothing to tile).
std::vector<LayoutChoice> kdlg_tile_choices(const KdlgPartition& p, const std::vector<std::string>& names,
                                            const std::vector<std::size_t>& tiles);

//! A mistake in the data, for its owner to point at: `key` is the key it is at, `within` the
//! object holding that key (empty: the first `key` anywhere), what() the problem.
class ChoiceError : public std::invalid_argument {
 public:
  ChoiceError(std::string_view key, const std::string& problem, std::string_view within = {})
      : std::invalid_argument(problem), key(key), within(within) {}
  std::string key, within;
};

//! What reading choices needs from the data's owner: the program object's lists (its key
//! `key`, non-empty and of the type asked, else the owner's error) and its check of an object's
//! keys (a cluster's).
struct ChoiceLists {
  std::function<std::vector<std::string>(const char* key)> strings;
  std::function<std::vector<std::size_t>(const char* key)> sizes;
  std::function<void(const nlohmann::json& object, std::string_view where,
                     std::initializer_list<std::string_view> allowed)>
      check_keys;
};

//! Reads "layouts", "tiles", "compile_time_tiles", "partitions" and "kdlg_tiles" of a program's object `j`
//! (found under `where`) for one size; `field_names` in record order. Each layout is a name of
//! the table (parse_kind) the program takes (ProgramKinds of `compile_time_tiles`,
//! `compile_time_partitions` and `method`, which are what it instantiates and records): data
//! asking for another kind, tile or split is an error naming what it has. The method's values
//! come from `method`, the same list with or without its tree (method_value).
//! Throws ChoiceError (and whatever `lists` throws).
std::vector<LayoutChoice> read_choices(const nlohmann::json& j, std::string_view where, const ChoiceLists& lists,
                                       std::size_t size, const std::vector<std::string>& field_names,
                                       const std::vector<std::size_t>& compile_time_tiles,
                                       const std::vector<std::string>& compile_time_partitions,
                                       const MethodSource* method = nullptr);

}  // namespace lb::layout

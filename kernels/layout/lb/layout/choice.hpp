#pragma once
//! A layout chosen as data: a program's list of layouts read from a JSON object (a preset's),
//! each a LayoutChoice that choice_mapping.hpp's with_mapping turns into a mapping value.
//! Every program records its fields by name so the data can give a field partition:
//!
//!   "layouts": ["aos", "soa", "tiled", "tiled-ct", "split", "split-ct", "kdlg", "tiled-tree", "kdlg-tree",
//!               "kdlg-tiles"],
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
//! The method's layouts (Kofler et al. 2015, docs/advisor.md) are partitions made from the
//! program's recorded accesses and the GPU's decision tree (MethodSource), each run by the
//! compiled layout it is where the program compiles one (AoS, SoA, a compile-time tile: the
//! paper applies its layout at compile time), else by the run-time PartitionMapping: `kdlg` the KDLG clusters each AoS, `tiled-tree` one
//! cluster of all fields laid out as the tree's class for its bytes, `kdlg-tree` the KDLG
//! clusters each laid out as the tree's class for its bytes. Their names do not depend on the
//! tree (so runs on GPUs with different trees pair up): tiled-tree has no parameter, kdlg and
//! kdlg-tree the KDLG partition's name. Without a tree the tree's values are planned all the
//! same, each `unavailable`: making one fails with the error naming how to give a tree.
//!
//! `kdlg-tiles` sweeps the tiles of the KDLG clusters (the lower map of the paper's Fig. 1):
//! the KDLG partition, each cluster of several fields tiled with a tile of "kdlg_tiles" (every
//! combination over those clusters), each cluster of one field SoA; named
//! partition:<KDLG>/tiles:<t1>,<t2>,... (the clusters of several fields' tiles in the
//! partition's order). It runs through the run-time PartitionMapping and needs no tree.

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "lb/layout/field_partition.hpp"
#include "lb/layout/kdlg.hpp"

namespace lb::layout {

struct DecisionTree;

//! The method's layout values, in the order read_choices plans them.
inline constexpr std::string_view kMethodLayouts[] = {"kdlg", "tiled-tree", "kdlg-tree"};
//! The sweep of the KDLG clusters' tiles, planned after the method's values.
inline constexpr std::string_view kKdlgTiles = "kdlg-tiles";
//! The largest run-time tile a preset's "tiles" may name (records): 2^30, above every program's
//! size (SAMPO's largest population is 2,000,000 agents).
inline constexpr std::size_t kMaxRuntimeTile = std::size_t{1} << 30;

struct LayoutChoice {
  std::string layout;          //!< aos, soa, tiled, tiled-ct, split, split-ct, kdlg, tiled-tree, kdlg-tree
  std::size_t tile = 0;        //!< tiled, tiled-ct: records per tile; the method's: runs_as tiled-ct's
  std::string partition;       //!< split, split-ct: the partition's name; the method's: partition_name's
  FieldPartition fields = {};  //!< split, split-ct and the method's: the partition as data
  //! The method's layouts, for the result's label: the tree's made with a tree
  //! "cluster_layouts=tiled-64|soa;runs_as=<r>;tree_gpu=<the tree's GPU name>" (each
  //! cluster's cluster_layout_name in the partition's order), kdlg "runs_as=<r>"; <r> is
  //! runs_as ("tiled-ct-32" for a tile) or "partition" (the run-time mapping). Empty otherwise.
  std::string label = {};
  //! Non-empty: why this value cannot be made here (a tree's layout planned without a tree;
  //! `fields` then holds its clusters, each AoS). Making it fails with this message.
  std::string unavailable = {};
  //! The method's layouts whose partition is a layout the program compiles
  //! (compiled_layout): "aos", "soa" or "tiled-ct" (its tile in `tile`), whose code runs them,
  //! as the paper applies the chosen layout at compile time. Empty: the run-time
  //! PartitionMapping runs `fields` (every other partition, and split, kdlg-tiles).
  std::string runs_as = {};

  //! The name's parameters after the layout: tile:64 (tiled, tiled-ct); partition:pos|vel
  //! (split, split-ct, kdlg, kdlg-tree); partition:a+b|c|d+e/tiles:16,2 (kdlg-tiles: the
  //! tiles of the clusters of several fields, in order); none for aos, soa, tiled-tree.
  std::vector<std::pair<std::string, std::string>> params() const;
  //! params() as the name writes them, '/'-joined ("tile:64"; empty for aos/soa).
  std::string param() const;
};

//! Whether `layout` runs through the run-time PartitionMapping (split and the method's).
bool runs_on_partition(std::string_view layout);

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

//! The method's layout `layout` (one of kMethodLayouts) from the KDLG partition `p` of a
//! record with fields `names` of `bytes` bytes each, with the tree's classes for the tree's
//! layouts. Exactly: kdlg = p's clusters, each AoS; tiled-tree = one cluster of every field,
//! of the tree's class for the record's bytes; kdlg-tree = p's clusters, each of the tree's
//! class for its bytes, and `label` what the tree chose. Each runs as the compiled layout its
//! partition is, if any (compiled_layout over the program's `compile_time_tiles`; runs_as and
//! the label say which). A tree's layout without a tree (`tree` null) is `unavailable` with
//! needs_tree_message(layout, tree_hint), its clusters AoS.
LayoutChoice method_choice(std::string_view layout, const KdlgPartition& p, const std::vector<std::string>& names,
                           const std::vector<std::size_t>& bytes, const DecisionTree* tree,
                           std::string_view tree_hint = "give a decision tree",
                           const std::vector<std::size_t>& compile_time_tiles = {});

//! The compile-time layout whose code lays out a partition's fields at the addresses the
//! partition gives them, among those every program compiles (AoS, SoA) and its tiles
//! `compile_time_tiles`: "soa" when every field is alone (a cluster of one field, whatever its
//! layout, holds record i at i · its bytes) or in a SoA cluster; "aos" for one AoS cluster of
//! every field (or tiled with one record per tile); "tiled-ct" with the tile for one tiled
//! cluster of every field whose tile is compiled. nullopt otherwise: several clusters, one of
//! several fields not SoA, or a tile not compiled (the run-time PartitionMapping runs those).
std::optional<LayoutChoice> compiled_layout(const FieldPartition& p, const std::vector<std::size_t>& compile_time_tiles);

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
//! (found under `where`) for one size; `field_names` in record order. `compile_time_tiles`
//! and `compile_time_partitions` are what the program instantiates: data asking for others
//! is an error naming them. The method's layouts come from `method` (nullptr: the program has
//! none, an error naming the layout), the same list with or without its tree (method_choice).
//! Throws ChoiceError (and whatever `lists` throws).
std::vector<LayoutChoice> read_choices(const nlohmann::json& j, std::string_view where, const ChoiceLists& lists,
                                       std::size_t size, const std::vector<std::string>& field_names,
                                       const std::vector<std::size_t>& compile_time_tiles,
                                       const std::vector<std::string>& compile_time_partitions,
                                       const MethodSource* method = nullptr);

}  // namespace lb::layout

#pragma once
//! The per-GPU decision tree of Kofler et al. 2015's second step, as the tree-training suite
//! writes it (docs/advisor.md): the layout class of a cluster by its bytes σ, as contiguous
//! σ intervals from 1 B to ∞. Host only. The file:
//!
//!   {"format": "layoutbench-kofler-tree/1", "gpu": {"name": ..., "uuid": ...},
//!    "feature": "cluster_bytes", "tile_unit": "records",
//!    "intervals": [{"from_bytes": 1, "to_bytes": 12, "class": "tiled:32"},
//!                  {"from_bytes": 13, "to_bytes": null, "class": "soa"}], ...}
//!
//! Classes are "aos", "soa" and "tiled:<t>" (t records per tile, the AoSoA lanes); other keys
//! ("classes", "training", "sklearn") are the trainer's and are not read here.

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "lb/layout/field_partition.hpp"

namespace lb::layout {

//! The format string a tree file must carry.
inline constexpr const char* kTreeFormat = "layoutbench-kofler-tree/1";

//! The largest tile a class may name: the training's largest (the kofler-tree suite's tiles,
//! 2 to 32768 records). A class beyond it (or "tiled:0") is refused as the file is read, so no
//! tile beyond the training's range reaches a plan.
inline constexpr std::size_t kMaxTreeTile = std::size_t{1} << 15;

struct DecisionTree {
  //! The last interval's to_bytes (null in the file).
  static constexpr std::uint64_t kUnbounded = std::numeric_limits<std::uint64_t>::max();
  struct Interval {
    std::uint64_t from_bytes, to_bytes;  //!< inclusive
    ClusterLayout layout;
  };
  std::string source;  //!< the file it was read from (messages name it)
  std::string gpu_name, gpu_uuid;
  std::vector<Interval> intervals;  //!< contiguous from 1 to kUnbounded

  //! The class of a cluster of `cluster_bytes` bytes (σ ≥ 1; 0 is std::invalid_argument).
  const ClusterLayout& class_for(std::uint64_t cluster_bytes) const;
};

//! Checks and reads a tree from its JSON `j`, found in `source`. Throws std::invalid_argument
//! "<source>: <problem>": the wrong format string or feature or tile unit, a missing key,
//! intervals with a gap or an overlap (each named by its from_bytes), not ending at null, an
//! unknown class, a class "tiled:<t>" whose tile is not from 1 to kMaxTreeTile.
DecisionTree decision_tree_from_json(const nlohmann::json& j, const std::string& source);

//! Reads the tree file at `path` as presets are read (lb::datasets::text::read_bounded,
//! LB_MAX_INPUT_BYTES, else 4 MiB; lb::datasets::parse_json_text): decision_tree_from_json's
//! errors, and std::invalid_argument "<path>: cannot open file ...", "<path>: larger than the
//! input size limit ...", "<path>:<line>: malformed JSON: ..." or a key given twice.
DecisionTree read_decision_tree(const std::string& path);

}  // namespace lb::layout

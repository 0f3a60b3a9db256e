#pragma once
//! Kofler et al. 2015's advisor, end to end from recorded traces (docs/advisor.md): the KDLG
//! (kdlg.hpp), its partition at ε, each cluster's bytes σ and diameter, and, given the GPU's
//! decision tree (decision_tree.hpp), each cluster's layout and the one-cluster layout. Host
//! only; `layoutbench advise` prints it and the method's layout values are made from it.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "lb/layout/access_trace.hpp"
#include "lb/layout/decision_tree.hpp"
#include "lb/layout/field_partition.hpp"
#include "lb/layout/kdlg.hpp"

namespace lb::layout {

struct ClusterAdvice {
  std::vector<std::size_t> fields;     //!< record order
  std::uint64_t bytes = 0;             //!< σ: the cluster's field bytes
  std::uint64_t diameter = 0;          //!< the largest δ inside it (cluster_diameter)
  std::optional<ClusterLayout> layout;  //!< the tree's class for σ (with a tree)
};

struct Advice {
  std::vector<std::string> field_names;
  std::vector<std::size_t> field_bytes;
  std::uint64_t epsilon = kNvidiaL1LineBytes;
  Kdlg kdlg;
  KdlgPartition partition;
  std::vector<ClusterAdvice> clusters;  //!< the partition's, in its order
  std::optional<ClusterLayout> whole;   //!< the tree's class for the whole record (tiled-tree)
  std::string tree;                     //!< the tree's file, "" without one
};

//! The advice for a record of `names` (σ `bytes`) from its kernels' traces, at `epsilon`,
//! with `tree`'s classes where given. Throws std::invalid_argument for names and sizes of
//! different lengths (and what kdlg.hpp throws).
Advice advise(const std::vector<std::string>& names, const std::vector<std::size_t>& bytes,
              const std::vector<KernelTrace>& kernels, std::uint64_t epsilon, const DecisionTree* tree);

//! As text: the fields and σ, the δ table ("inf" for ∞), the clusters with σ, diameter and
//! layout, the merges, the one-cluster layout; without a tree, "no tree given: clusters only".
std::string advice_text(const Advice& a);

//! The same as a JSON object: fields [{name, bytes}], epsilon, delta (rows, "inf" for ∞),
//! clusters [{fields, bytes, diameter, layout?}], partition (its name), merges [{a, b,
//! delta}], and with a tree: tree, whole_record_layout.
nlohmann::json advice_json(const Advice& a);

}  // namespace lb::layout

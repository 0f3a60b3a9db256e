#pragma once
//! The decision tree's training suite's preset object ("kofler-tree", docs/kofler-tree.md)
//! read and checked, apart from its expansion (synthetic_bench.cpp, CUDA) so the preset fuzz
//! target (fuzz/targets/fuzz_preset.cpp) runs the same checks without a GPU build: hence
//! without kofler_tree/suite.hpp (the harness's names qualified).

#include <bit>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "lb/harness/preset.hpp"

namespace lb::benches::kofler_tree {

//! The training's tiles and iteration counts are powers of two.
inline bool power_of_two(std::size_t x) { return std::has_single_bit(x); }

//! The layout classes the training times (a tiled class once per tile).
inline const std::vector<std::string> kTreeLayouts{"aos", "soa", "tiled"};

//! The section's values, each checked: whole tiles of `records`, a usable loop geometry per n.
struct TreeSection {
  std::size_t records = 0;
  std::size_t threads = 0;  //!< 0: records / n for each n
  int block = 256;
  std::vector<std::size_t> iterations, fields, tiles;  //!< tiles: only with the layout "tiled"
  std::vector<std::string> layouts;
  int repetitions = 0;    //!< 0: the preset's
  double min_time_s = 0;  //!< 0: the preset's
};

//! The section `j` (found under `where`), or a PresetError at the line of the key at fault.
TreeSection read_tree_section(const harness::Preset& preset, const nlohmann::json& j, std::string_view where);

}  // namespace lb::benches::kofler_tree

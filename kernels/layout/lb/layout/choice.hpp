#pragma once
//! A layout chosen as data: a program's list of layouts read from a JSON object (a preset's),
//! each a LayoutChoice that choice_mapping.hpp's with_mapping turns into a mapping value.
//! Every program records its fields by name so the data can give a field partition:
//!
//!   "layouts": ["aos", "soa", "tiled", "tiled-ct", "split", "split-ct"],
//!   "tiles": "sweep" | [2, 4, ...]      run-time tile sizes; "sweep" = powers of two 2 .. size
//!   "compile_time_tiles": [32, 128]     tiled-ct: only tiles the program instantiates
//!   "partitions": {"pos|vel": [["pos"], ["vel"]],
//!                  "hot-soa": [{"fields": ["a", "b"], "layout": "soa"}, ["c"]]}
//!
//! A cluster is a list of field names (laid out AoS) or {"fields": [...], "layout": "aos" |
//! "soa" | "tiled:<t>"}; every field in exactly one cluster. `split` runs a partition through
//! the run-time PartitionMapping, `split-ct` through the compile-time Split of the same
//! clusters, which a program provides for the partitions it names.

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "lb/layout/field_partition.hpp"

namespace lb::layout {

struct LayoutChoice {
  std::string layout;          //!< aos, soa, tiled, tiled-ct, split, split-ct
  std::size_t tile = 0;        //!< tiled, tiled-ct: records per tile
  std::string partition;       //!< split, split-ct: the partition's name
  FieldPartition fields = {};  //!< split, split-ct: the partition as data

  //! The name's layout field and its parameters, e.g. "tiled", "tile:64" (empty for aos/soa).
  std::string param() const;
};

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

//! Reads "layouts", "tiles", "compile_time_tiles" and "partitions" of a program's object `j`
//! (found under `where`) for one size; `field_names` in record order. `compile_time_tiles`
//! and `compile_time_partitions` are what the program instantiates: data asking for others
//! is an error naming them. Throws ChoiceError (and whatever `lists` throws).
std::vector<LayoutChoice> read_choices(const nlohmann::json& j, std::string_view where, const ChoiceLists& lists,
                                       std::size_t size, const std::vector<std::string>& field_names,
                                       const std::vector<std::size_t>& compile_time_tiles,
                                       const std::vector<std::string>& compile_time_partitions);

}  // namespace lb::layout

#pragma once
//! The layouts a Kofler program runs over, read from its preset object, and the one dispatch
//! from a choice to a mapping value. Every program records its fields by name so a preset can
//! give a field partition as data:
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
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "lb/harness/preset.hpp"
#include "lb/harness/suite.hpp"
#include "lb/layout/aos.hpp"
#include "lb/layout/aosoa.hpp"
#include "lb/layout/dispatch.hpp"
#include "lb/layout/partition.hpp"
#include "lb/layout/soa.hpp"
#include "lb/layout/split.hpp"

namespace lb::harness::kofler {

struct LayoutChoice {
  std::string layout;                  //!< aos, soa, tiled, tiled-ct, split, split-ct
  std::size_t tile = 0;                //!< tiled, tiled-ct: records per tile
  std::string partition;               //!< split, split-ct: the partition's name
  layout::FieldPartition fields = {};  //!< split, split-ct: the partition as data

  //! The name's layout field and its parameters, e.g. "tiled", "tile:64" (empty for aos/soa).
  std::string param() const;
};

//! Reads "layouts", "tiles", "compile_time_tiles" and "partitions" of a program's object `j`
//! (at `where`, for errors) for one size; `field_names` in record order. `compile_time_tiles`
//! and `compile_time_partitions` are what the program instantiates: a preset asking for
//! others is an error naming them.
std::vector<LayoutChoice> layout_choices(const Preset& preset, const nlohmann::json& j, std::string_view where,
                                         std::size_t size, const std::vector<std::string>& field_names,
                                         const std::vector<std::size_t>& compile_time_tiles,
                                         const std::vector<std::string>& compile_time_partitions);

//! A program's sizes: `key` of its preset object `j`, or the --sizes override where given;
//! each must pass `ok`, else an error at the preset's line (or naming --sizes) that says
//! "<key> must be <requirement>; <size> is not".
std::vector<std::size_t> program_sizes(const Preset& preset, const nlohmann::json& j, const char* key,
                                       std::string_view where, const Overrides& overrides,
                                       const std::function<bool(std::size_t)>& ok, std::string_view requirement);

//! Whether a program of one precision runs under --precision (none given: it runs).
bool precision_wanted(const Overrides& overrides, std::string_view precision);

//! A PresetError at "layouts" when `j` asks for split or split-ct, for a program without
//! field partitions (`program` names it in the message).
void refuse_split_layouts(const Preset& preset, const nlohmann::json& j, std::string_view where,
                          std::string_view program);

//! layout_choices reads the keys "layouts", "tiles", "compile_time_tiles" and "partitions":
//! a program lists them among its keys for Preset::check_keys.

//! Compile-time tiles a program instantiates, e.g. Tiles<32, 128>.
template <std::size_t... T>
struct Tiles {};

//! Calls f(mapping) with the mapping value of `c` for `n` records of Rec. CtTiles is the
//! program's Tiles<...>; CtSplits a layout::LayoutList of split families, each with a
//! `static constexpr std::string_view name` and `template <class Rec> using mapping`.
template <class Rec, std::size_t... T, class... Splits, class F>
void with_mapping(const LayoutChoice& c, std::size_t n, Tiles<T...>, layout::LayoutList<Splits...> splits, F&& f) {
  if (c.layout == "aos") return f(layout::AoSMapping<Rec>{n});
  if (c.layout == "soa") return f(layout::SoAMapping<Rec>{n});
  // Power-of-two tiles (every sweep) go through the mappings with no division in their code.
  if (c.layout == "tiled" && layout::detail::Pow2Tiles::accepts(c.tile))
    return f(layout::Pow2AoSoAMapping<Rec>(n, c.tile));
  if (c.layout == "tiled") return f(layout::RuntimeAoSoAMapping<Rec>(n, c.tile));
  if (c.layout == "split" && layout::power_of_two_tiles(c.fields)) return f(layout::Pow2PartitionMapping<Rec>(n, c.fields));
  if (c.layout == "split") return f(layout::PartitionMapping<Rec>(n, c.fields));
  if (c.layout == "tiled-ct") {
    bool found = false;
    ((c.tile == T ? (found = true, f(layout::AoSoAMapping<Rec, T>{n})) : void()), ...);
    if (!found) throw std::invalid_argument("tiled-ct: tile " + std::to_string(c.tile) + " is not instantiated");
    return;
  }
  if (c.layout == "split-ct") {
    if constexpr (sizeof...(Splits) > 0)
      return layout::dispatch(c.partition, splits,
                              [&]<class S>() { f(typename S::template mapping<Rec>{n}); });
    throw std::invalid_argument("split-ct: this program instantiates no compile-time split");
  }
  throw std::invalid_argument("unknown layout '" + c.layout + "'");
}

//! Tiles<A[0], A[1], ...> from a program's constexpr array of compile-time tiles, so the
//! dispatch and the planner read one list.
template <const auto& A>
constexpr auto tiles_of() {
  return []<std::size_t... I>(std::index_sequence<I...>) { return Tiles<A[I]...>{}; }(
      std::make_index_sequence<std::size(A)>{});
}

//! with_mapping for a program without field partitions: returns make(mapping); a split
//! choice is an error naming `program`.
template <class Rec, class CtTiles, class Make>
auto make_for_layout(const LayoutChoice& c, std::size_t n, CtTiles tiles, std::string_view program, Make&& make) {
  std::invoke_result_t<Make&, layout::AoSMapping<Rec>> out{};
  with_mapping<Rec>(c, n, tiles, layout::LayoutList<>{}, [&](auto mapping) {
    if constexpr (std::is_same_v<decltype(mapping), layout::PartitionMapping<Rec>> ||
                  std::is_same_v<decltype(mapping), layout::Pow2PartitionMapping<Rec>>)
      throw std::invalid_argument(std::string(program) + " has no split layouts");
    else
      out = make(mapping);
  });
  return out;
}

}  // namespace lb::harness::kofler

#pragma once
//! The one dispatch from a layout chosen as data (choice.hpp's LayoutChoice) to a mapping
//! value: with_mapping calls a program's code with the mapping the choice names, so the code
//! is instantiated for every mapping a program's choices can reach (a .cu that includes this
//! header instantiates them all; include it only where a variant is made).

#include <cstddef>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "lb/layout/aos.hpp"
#include "lb/layout/aosoa.hpp"
#include "lb/layout/choice.hpp"
#include "lb/layout/dispatch.hpp"
#include "lb/layout/partition.hpp"
#include "lb/layout/soa.hpp"
#include "lb/layout/split.hpp"

namespace lb::layout {

//! Compile-time tiles a program instantiates, e.g. Tiles<32, 128>.
template <std::size_t... T>
struct Tiles {};

//! A program's compile-time tiles as values, for read_choices.
template <std::size_t... T>
std::vector<std::size_t> tile_values(Tiles<T...>) {
  return {T...};
}

//! Calls f(mapping) with the mapping value of `c` for `n` records of Rec. CtTiles is the
//! program's Tiles<...>; CtSplits a LayoutList of split families, each with a
//! `static constexpr std::string_view name` and `template <class Rec> using mapping`.
template <class Rec, std::size_t... T, class... Splits, class F>
void with_mapping(const LayoutChoice& c, std::size_t n, Tiles<T...>, LayoutList<Splits...> splits, F&& f) {
  if (!c.unavailable.empty()) throw std::invalid_argument(c.unavailable);  // a tree's layout without a tree
  if (!c.runs_as.empty())  // the method's layout as the compiled layout its partition is (choice.hpp)
    return with_mapping<Rec>(LayoutChoice{c.runs_as, c.tile}, n, Tiles<T...>{}, splits, std::forward<F>(f));
  if (c.layout == "aos") return f(AoSMapping<Rec>{n});
  if (c.layout == "soa") return f(SoAMapping<Rec>{n});
  // Power-of-two tiles (every sweep) go through the mappings with no division in their code.
  if (c.layout == "tiled" && detail::Pow2Tiles::accepts(c.tile)) return f(Pow2AoSoAMapping<Rec>(n, c.tile));
  if (c.layout == "tiled") return f(RuntimeAoSoAMapping<Rec>(n, c.tile));
  // split, kdlg-tiles and the method's layouts (kdlg, tiled-tree, kdlg-tree) whose partition
  // no compiled layout is: a field partition as data
  if (runs_on_partition(c.layout) && power_of_two_tiles(c.fields)) return f(Pow2PartitionMapping<Rec>(n, c.fields));
  if (runs_on_partition(c.layout)) return f(PartitionMapping<Rec>(n, c.fields));
  if (c.layout == "tiled-ct") {
    bool found = false;
    ((c.tile == T ? (found = true, f(AoSoAMapping<Rec, T>{n})) : void()), ...);
    if (!found) throw std::invalid_argument("tiled-ct: tile " + std::to_string(c.tile) + " is not instantiated");
    return;
  }
  if (c.layout == "split-ct") {
    if constexpr (sizeof...(Splits) > 0)
      return dispatch(c.partition, splits, [&]<class S>() { f(typename S::template mapping<Rec>{n}); });
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

//! with_mapping for a program without partitions of its own (no preset names one): returns
//! make(mapping); a split choice is an error naming `program`. The method's layouts, whose
//! partition comes from the program's recorded accesses, run as the compiled layout their
//! partition is, else through PartitionMapping.
template <class Rec, class CtTiles, class Make>
auto make_for_layout(const LayoutChoice& c, std::size_t n, CtTiles tiles, std::string_view program, Make&& make) {
  if (c.layout == "split" || c.layout == "split-ct")
    throw std::invalid_argument(std::string(program) + " has no split layouts");
  std::invoke_result_t<Make&, AoSMapping<Rec>> out{};
  with_mapping<Rec>(c, n, tiles, LayoutList<>{}, [&](auto mapping) { out = make(mapping); });
  return out;
}

}  // namespace lb::layout

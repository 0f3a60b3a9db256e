#pragma once
//! The one dispatch from a layout chosen as data (choice.hpp's LayoutChoice) to a mapping
//! value: with_mapping calls a program's code with the mapping the choice's kind names, chosen
//! by the kind's type (std::visit), among the mappings of the program's ProgramLayouts
//! (program_layouts.hpp), which its .cu instantiates. Include it only where a variant is made.

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "lb/layout/choice.hpp"
#include "lb/layout/program_layouts.hpp"
#include "lb/layout/split.hpp"

namespace lb::layout {

namespace detail {

//! The visitor of a choice's kind: one overload per kind (a kind without one does not compile).
template <class P, class F>
struct MakeMapping {
  using Rec = typename P::record;
  std::size_t n;
  F& f;

  template <class M>
  void call(M mapping) const {
    static_assert(kInList<M, typename P::mappings>, "a mapping the program's .cu does not instantiate");
    f(mapping);
  }

  void operator()(const kind::Aos&) const { call(AoSMapping<Rec>{n}); }
  void operator()(const kind::Soa&) const { call(SoAMapping<Rec>{n}); }
  void operator()(const kind::Tiled& k) const {
    // Power-of-two tiles (every sweep) go through the mapping with no division in its code.
    if (Pow2Tiles::accepts(k.tile)) return call(Pow2AoSoAMapping<Rec>(n, k.tile));
    call(RuntimeAoSoAMapping<Rec>(n, k.tile));
  }
  void operator()(const kind::TiledCt& k) const { tiled_ct(k.tile, typename P::tiles{}); }
  void operator()(const kind::Split& k) const { partition(k.fields); }
  void operator()(const kind::SplitCt& k) const { split_ct(k.partition, typename P::splits{}); }
  void operator()(const kind::Kdlg& k) const { method(k); }
  void operator()(const kind::TiledTree& k) const { tree(k); }
  void operator()(const kind::KdlgTree& k) const { tree(k); }
  void operator()(const kind::KdlgTiles& k) const { partition(k.fields); }
  // No mapping of its own: its trial makes each candidate (trial_candidates) and the chosen one.
  void operator()(const kind::KdlgTreePlus& k) const {
    if (!k.unavailable.empty()) throw std::invalid_argument(k.unavailable);
    throw std::invalid_argument(std::string(kind::KdlgTreePlus::name) +
                                " is made by its trial, when its benchmark runs: make one of its candidates");
  }

  template <std::size_t... T>
  void tiled_ct(std::size_t tile, Tiles<T...>) const {
    bool found = false;
    ((tile == T ? (found = true, call(AoSoAMapping<Rec, T>{n})) : void()), ...);
    if (!found) throw std::invalid_argument("tiled-ct: tile " + std::to_string(tile) + " is not instantiated");
  }
  template <class... S>
  void split_ct(const std::string& name, LayoutList<S...> splits) const {
    if constexpr (sizeof...(S) > 0)
      dispatch(name, splits, [&]<class Split>() { call(typename Split::template mapping<Rec>{n}); });
    else
      throw std::invalid_argument("split-ct: this program instantiates no compile-time split");
  }
  void partition(const FieldPartition& p) const {
    if (power_of_two_tiles(p)) return call(Pow2PartitionMapping<Rec>(n, p));
    call(PartitionMapping<Rec>(n, p));
  }
  //! A method value as the compiled layout its partition is (compiled_layout), else its partition.
  void method(const kind::MethodValue& k) const {
    if (k.runs_as) return std::visit(*this, *k.runs_as);
    partition(k.fields);
  }
  void tree(const kind::TreeValue& k) const {
    if (!k.unavailable.empty()) throw std::invalid_argument(k.unavailable);  // a tree's value without a tree
    method(k);
  }
};

}  // namespace detail

//! Calls f(mapping) with the mapping value of `c` for `n` records of P::record; P is the
//! program's ProgramLayouts (its compile-time tiles and splits). A tree's value made without a
//! tree, a tile or split P does not compile: std::invalid_argument.
template <class P, class F>
void with_mapping(const LayoutChoice& c, std::size_t n, F&& f) {
  std::visit(detail::MakeMapping<P, std::remove_reference_t<F>>{n, f}, c.kind);
}

}  // namespace lb::layout

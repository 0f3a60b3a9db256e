#pragma once
//! What a program compiles for its record, as one type: ProgramLayouts<Rec, Tiles<...>,
//! LayoutList<Splits...>>. The dispatch from a layout choice (choice_mapping.hpp's
//! with_mapping) reaches exactly its `mappings`, and the program's .cu instantiates its code
//! for those same mappings (InstantiateEach), so nothing is matched by hand. Light: no JSON,
//! for the .cu files.

#include <array>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "lb/layout/aos.hpp"
#include "lb/layout/aosoa.hpp"
#include "lb/layout/dispatch.hpp"
#include "lb/layout/partition.hpp"
#include "lb/layout/soa.hpp"

namespace lb::layout {

//! Compile-time tiles a program instantiates, e.g. Tiles<32, 128>.
template <std::size_t... T>
struct Tiles {};

//! A program's compile-time tiles as values.
template <std::size_t... T>
std::vector<std::size_t> tile_values(Tiles<T...>) {
  return {T...};
}

//! Tiles<A[0], A[1], ...> from a program's constexpr array of compile-time tiles, so the
//! dispatch and the planner read one list.
template <const auto& A>
constexpr auto tiles_of() {
  return []<std::size_t... I>(std::index_sequence<I...>) { return Tiles<A[I]...>{}; }(
      std::make_index_sequence<std::size(A)>{});
}

//! A list of mapping types.
template <class... M>
struct MappingList {};

template <class M, class List>
inline constexpr bool kInList = false;
template <class M, class... Ms>
inline constexpr bool kInList<M, MappingList<Ms...>> = (std::is_same_v<M, Ms> || ...);

template <class Rec, class CtTiles, class CtSplits>
struct ProgramLayouts;

//! Rec laid out by every run-time mapping (AoS, SoA, run-time tiles, run-time partitions: every
//! program takes those kinds), the compile-time tiles T... and the compile-time splits
//! Splits... (each a family with `static constexpr std::string_view name` and `template <class
//! Rec> using mapping`).
template <class Rec, std::size_t... T, class... Splits>
struct ProgramLayouts<Rec, Tiles<T...>, LayoutList<Splits...>> {
  using record = Rec;
  using tiles = Tiles<T...>;
  using splits = LayoutList<Splits...>;
  //! Every mapping with_mapping may call its function with.
  using mappings = MappingList<AoSMapping<Rec>, SoAMapping<Rec>, RuntimeAoSoAMapping<Rec>, Pow2AoSoAMapping<Rec>,
                               AoSoAMapping<Rec, T>..., typename Splits::template mapping<Rec>..., PartitionMapping<Rec>,
                               Pow2PartitionMapping<Rec>>;

  static std::vector<std::size_t> compile_time_tiles() { return {T...}; }
  static std::vector<std::string> compile_time_partitions() { return {std::string(Splits::name)...}; }
};

template <template <class> class Entry, class List>
struct InstantiateEach;

//! Instantiates a program's code for every mapping of a list: Entry<M> names what the rest of
//! the build calls for mapping M, as `static constexpr auto functions = std::tuple{&f<M>, ...}`
//! (member functions included). Explicitly instantiating this class in the .cu that defines
//! them (`template struct lb::layout::InstantiateEach<Entry, P::mappings>;` at global scope)
//! takes each address in a table that is emitted, so each function is instantiated and
//! emitted there, its kernels with it. A function missing from Entry is a link error.
template <template <class> class Entry, class... M>
struct InstantiateEach<Entry, MappingList<M...>> {
  [[gnu::used]] static const std::tuple<std::remove_cvref_t<decltype(Entry<M>::functions)>...> functions;
};

template <template <class> class Entry, class... M>
const std::tuple<std::remove_cvref_t<decltype(Entry<M>::functions)>...>
    InstantiateEach<Entry, MappingList<M...>>::functions{Entry<M>::functions...};

}  // namespace lb::layout

#pragma once
//! The IDW point record and the paper's layout matrix (Mei & Tian 2016, Table "layouts"),
//! each expressed with the layout library, and the choice of one by name and precision; beyond
//! the paper, the AoSoA layouts Kofler's method chooses for the point (docs/advisor.md, §6).

#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "lb/layout/dispatch.hpp"
#include "lb/layout/view.hpp"

namespace lb::idw {

struct X {};
struct Y {};
struct Z {};

//! One data or prediction point: (x, y) position and the value z.
template <class T>
using Point = layout::Record<layout::Field<X, T>, layout::Field<Y, T>, layout::Field<Z, T>>;

namespace L = layout;

struct LayoutSoA {
  static constexpr std::string_view name = "soa";
  using family = L::SoA;
  template <class T> static constexpr bool supports = true;
};
struct LayoutAoS {  //! plain struct {T x, y, z;}: 12 / 24 bytes, no alignment
  static constexpr std::string_view name = "aos";
  using family = L::AoS;
  template <class T> static constexpr bool supports = true;
};
struct LayoutAoaS {  //! the same struct __align__(16): 16 / 32 bytes, 128-bit accesses
  static constexpr std::string_view name = "aoas";
  using family = L::AlignedAoS<16>;
  template <class T> static constexpr bool supports = true;
};
struct LayoutBuiltin {  //! float4 / double4 (16-byte aligned), w as padding
  static constexpr std::string_view name = "builtin";
  using family = L::BuiltinVec4;
  template <class T> static constexpr bool supports = true;
};
struct LayoutSoAoS {  //! aligned {x, y} array + aligned {z, pad} array (double only)
  static constexpr std::string_view name = "soaos";
  using family = L::Split<L::Cluster<L::AlignedAoS<16>, X, Y>, L::Cluster<L::AlignedAoS<16>, Z>>;
  template <class T> static constexpr bool supports = std::is_same_v<T, double>;
};
struct LayoutHybrid {  //! aligned {x, y} array + plain z[] (double only)
  static constexpr std::string_view name = "hybrid";
  using family = L::Split<L::Cluster<L::AlignedAoS<16>, X, Y>, L::Cluster<L::SoA, Z>>;
  template <class T> static constexpr bool supports = std::is_same_v<T, double>;
};

//! Beyond the paper: the layouts Kofler's method chooses for the point (issue 39 §2), each a
//! layout-library family like the paper's. AoSoA of 32 points: the naive version's x+y+z
//! tiled:32 (float, on the H100 and H200 trees).
struct LayoutAoSoA32 {
  static constexpr std::string_view name = "aosoa32";
  using family = L::AoSoA<32>;
  template <class T> static constexpr bool supports = true;
};
//! {x, y} as AoSoA of 32 points + plain z[]: the tiled version's x+y tiled:32 | z (a cluster of
//! one field is that field alone whatever its class, so z aos and z tiled:32 are both z[]).
struct LayoutXYAoSoA32 {
  static constexpr std::string_view name = "xy-aosoa32";
  using family = L::Split<L::Cluster<L::AoSoA<32>, X, Y>, L::Cluster<L::SoA, Z>>;
  template <class T> static constexpr bool supports = true;
};

using layout::LayoutList;
using AllLayouts = LayoutList<LayoutSoA, LayoutAoS, LayoutAoaS, LayoutBuiltin, LayoutSoAoS, LayoutHybrid, LayoutAoSoA32,
                              LayoutXYAoSoA32>;

template <class Layout, class T>
using MappingOf = typename Layout::family::template mapping<Point<T>>;

//! The layouts of the matrix that exist in precision T.
template <class T>
struct SupportedIn {
  template <class Layout>
  using keep = std::bool_constant<Layout::template supports<T>>;
};
template <class T>
using LayoutsFor = decltype(layout::filter<SupportedIn<T>::template keep>(AllLayouts{}));

enum class Precision { f32, f64 };
std::string_view to_string(Precision p);
//! "float" or "double"; throws std::invalid_argument naming the accepted values otherwise.
Precision parse_precision(std::string_view name);

//! Names of the layouts that exist for a precision, in the paper's order.
std::vector<std::string> layout_names(Precision p);
//! Throws std::invalid_argument if `name` is not a layout of the matrix for that precision.
void check_layout(std::string_view name, Precision p);

//! Bytes that n points take in the named layout and precision (one host or device copy).
std::size_t footprint_bytes(std::string_view layout, Precision p, std::size_t n);

//! Calls f.template operator()<Layout, T>() for the layout named `name` in precision p.
template <class F>
decltype(auto) dispatch(std::string_view name, Precision p, F&& f) {
  const std::string context = "for " + std::string(to_string(p));
  auto in = [&]<class T>() -> decltype(auto) {
    return layout::dispatch(name, LayoutsFor<T>{}, [&]<class Layout>() -> decltype(auto) {
      return f.template operator()<Layout, T>();
    }, context);
  };
  if (p == Precision::f32) return in.template operator()<float>();
  return in.template operator()<double>();
}

}  // namespace lb::idw

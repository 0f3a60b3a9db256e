// The IDW paper's layouts built with the layout library: golden offsets and sizes, round
// trips in both precisions, footprints, and the layout names per precision. The library's
// own rules are tested over generic records in test_layout_mappings.cpp and
// test_layout_properties.cpp.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "lb/idw/layouts.hpp"
#include "lb/layout/host_storage.hpp"

namespace {

using namespace lb::layout;
using lb::idw::MappingOf;
using lb::idw::Point;
using lb::idw::X;
using lb::idw::Y;
using lb::idw::Z;

template <class M, class Tag>
Location loc(std::size_t n, std::size_t i) {
  return M{n}.template locate<Tag>(i);
}

TEST(LayoutGolden, AoSIsPlainStruct) {
  using Mf = MappingOf<lb::idw::LayoutAoS, float>;
  using Md = MappingOf<lb::idw::LayoutAoS, double>;
  EXPECT_EQ(Mf::stride, 12u);
  EXPECT_EQ(Md::stride, 24u);
  EXPECT_EQ((loc<Mf, Z>(10, 3).offset), 3 * 12 + 8u);
  EXPECT_EQ((loc<Md, Y>(10, 2).offset), 2 * 24 + 8u);
  EXPECT_EQ(footprint_bytes(Mf{100}), 1200u);
}

TEST(LayoutGolden, AoaSIsAlignedTo16) {
  using Mf = MappingOf<lb::idw::LayoutAoaS, float>;
  using Md = MappingOf<lb::idw::LayoutAoaS, double>;
  EXPECT_EQ(Mf::stride, 16u);  // one 128-bit access
  EXPECT_EQ(Md::stride, 32u);  // two 128-bit accesses
  EXPECT_EQ(Mf::blob_alignment(0), 16u);
  EXPECT_EQ((loc<Mf, Z>(10, 5).offset), 5 * 16 + 8u);
  EXPECT_EQ((loc<Md, Z>(10, 5).offset), 5 * 32 + 16u);
  EXPECT_EQ((lb::layout::detail::word_bytes(Mf::stride, Mf::alignment)), 16u);
}

TEST(LayoutGolden, BuiltinIsVector4) {
  using Mf = MappingOf<lb::idw::LayoutBuiltin, float>;
  using Md = MappingOf<lb::idw::LayoutBuiltin, double>;
  EXPECT_EQ(Mf::stride, sizeof(float4));
  EXPECT_EQ(Md::stride, 32u);
  EXPECT_EQ(Md::blob_alignment(0), 16u);  // double4 as the paper's CUDA aligned it
  EXPECT_EQ((loc<Md, Y>(4, 1).offset), 32 + 8u);
}

TEST(LayoutGolden, SoAHasOneArrayPerField) {
  using M = MappingOf<lb::idw::LayoutSoA, float>;
  EXPECT_EQ(M::blob_count, 3u);
  EXPECT_EQ((loc<M, Y>(10, 7).blob), 1u);
  EXPECT_EQ((loc<M, Y>(10, 7).offset), 28u);
  EXPECT_EQ(footprint_bytes(M{10}), 120u);
}

TEST(LayoutGolden, SoAoSAndHybrid) {
  using S = MappingOf<lb::idw::LayoutSoAoS, double>;
  using H = MappingOf<lb::idw::LayoutHybrid, double>;
  EXPECT_EQ(S::blob_count, 2u);
  EXPECT_EQ(H::blob_count, 2u);
  // {x, y} aligned pairs: 16 bytes per record in both.
  EXPECT_EQ((loc<S, Y>(8, 3).blob), 0u);
  EXPECT_EQ((loc<S, Y>(8, 3).offset), 3 * 16 + 8u);
  EXPECT_EQ((loc<H, Y>(8, 3).offset), 3 * 16 + 8u);
  // z: padded to 16 bytes in SoAoS, plain 8-byte array in Hybrid.
  EXPECT_EQ((loc<S, Z>(8, 3).blob), 1u);
  EXPECT_EQ((loc<S, Z>(8, 3).offset), 48u);
  EXPECT_EQ((loc<H, Z>(8, 3).offset), 24u);
  EXPECT_EQ(footprint_bytes(S{8}), 8 * 32u);
  EXPECT_EQ(footprint_bytes(H{8}), 8 * 24u);
}

// Round trip: store distinct values through each layout, read them back by load() and by
// get<Tag>(); a write through get<Tag>() must change exactly that field.
template <class M>
void round_trip(std::size_t n) {
  using T = typename M::record::template field_type<0>;
  HostStorage<M> s(M{n});
  const auto v = s.view();
  fill(v, [](std::size_t i) {
    RecordValue<typename M::record> r;
    r.template get<X>() = static_cast<T>(i) + T(0.25);
    r.template get<Y>() = static_cast<T>(2 * i) + T(0.5);
    r.template get<Z>() = -static_cast<T>(i);
    return r;
  });
  for (std::size_t i = 0; i < n; ++i) {
    const auto r = v.load(i);
    ASSERT_EQ(r.template get<X>(), static_cast<T>(i) + T(0.25)) << i;
    ASSERT_EQ(r.template get<Y>(), static_cast<T>(2 * i) + T(0.5)) << i;
    ASSERT_EQ(r.template get<Z>(), -static_cast<T>(i)) << i;
    ASSERT_EQ(v.template get<Z>(i), -static_cast<T>(i)) << i;
  }
  v.template get<Y>(n / 2) = T(42);  // a real reference
  EXPECT_EQ(v.load(n / 2).template get<Y>(), T(42));
  EXPECT_EQ(v.load(n / 2).template get<X>(), static_cast<T>(n / 2) + T(0.25));
}

//! Beyond the paper (Kofler's method's choices): x+y+z in tiles of 32 points (each field a run
//! of 32 values), and x+y so tiled beside a plain z[]. Record i at tile i / 32, lane i % 32.
TEST(LayoutGolden, AoSoA32TilesThirtyTwoPoints) {
  using Mf = MappingOf<lb::idw::LayoutAoSoA32, float>;
  using Md = MappingOf<lb::idw::LayoutAoSoA32, double>;
  EXPECT_EQ(Mf::blob_count, 1u);
  EXPECT_EQ(Mf::tile_bytes, 32 * 12u);
  EXPECT_EQ(Md::tile_bytes, 32 * 24u);
  EXPECT_EQ((loc<Mf, X>(100, 5).offset), 5 * 4u);
  EXPECT_EQ((loc<Mf, Y>(100, 37).offset), 384 + 32 * 4 + 5 * 4u);
  EXPECT_EQ((loc<Mf, Z>(100, 70).offset), 2 * 384 + 64 * 4 + 6 * 4u);
  EXPECT_EQ((loc<Md, Z>(100, 33).offset), 768 + 64 * 8 + 1 * 8u);
  EXPECT_EQ(footprint_bytes(Mf{100}), 4 * 384u);  // a whole last tile
  EXPECT_EQ(footprint_bytes(Mf{64}), 2 * 384u);
}

TEST(LayoutGolden, XYAoSoA32BesideAPlainZ) {
  using Mf = MappingOf<lb::idw::LayoutXYAoSoA32, float>;
  using Md = MappingOf<lb::idw::LayoutXYAoSoA32, double>;
  EXPECT_EQ(Mf::blob_count, 2u);
  EXPECT_EQ((loc<Mf, X>(100, 40).blob), 0u);
  EXPECT_EQ((loc<Mf, X>(100, 40).offset), 256 + 8 * 4u);
  EXPECT_EQ((loc<Mf, Y>(100, 40).offset), 256 + 128 + 8 * 4u);
  EXPECT_EQ((loc<Md, Y>(100, 40).offset), 512 + 256 + 8 * 8u);
  EXPECT_EQ((loc<Mf, Z>(100, 40).blob), 1u);
  EXPECT_EQ((loc<Mf, Z>(100, 40).offset), 40 * 4u);
  EXPECT_EQ((loc<Md, Z>(100, 40).offset), 40 * 8u);
  EXPECT_EQ(footprint_bytes(Mf{100}), 4 * 256 + 400u);
  EXPECT_EQ(footprint_bytes(Md{32}), 512 + 256u);
}

template <class Layout, class T>
void round_trip_if_supported() {
  if constexpr (Layout::template supports<T>) round_trip<MappingOf<Layout, T>>(37);
}

TEST(LayoutRoundTrip, EveryIdwLayoutAndPrecision) {
  [&]<class... Ls>(lb::idw::LayoutList<Ls...>) {
    (round_trip_if_supported<Ls, float>(), ...);
    (round_trip_if_supported<Ls, double>(), ...);
  }(lb::idw::AllLayouts{});
}

TEST(LayoutNames, MatrixPerPrecision) {
  EXPECT_EQ(lb::idw::layout_names(lb::idw::Precision::f32),
            (std::vector<std::string>{"soa", "aos", "aoas", "builtin", "aosoa32", "xy-aosoa32"}));
  EXPECT_EQ(lb::idw::layout_names(lb::idw::Precision::f64),
            (std::vector<std::string>{"soa", "aos", "aoas", "builtin", "soaos", "hybrid", "aosoa32", "xy-aosoa32"}));
  try {
    lb::idw::check_layout("soaos", lb::idw::Precision::f32);
    FAIL() << "soaos accepted in float";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown layout 'soaos' for float (expected one of: soa, aos, aoas, builtin, aosoa32, xy-aosoa32)");
  }
  EXPECT_THROW(lb::idw::check_layout("aosoa", lb::idw::Precision::f64), std::invalid_argument);
  EXPECT_THROW(lb::idw::parse_precision("half"), std::invalid_argument);
}

TEST(LayoutNames, DispatchPicksLayoutAndPrecision) {
  const auto name_and_size = []<class Layout, class T>() { return std::string(Layout::name) + std::to_string(sizeof(T)); };
  EXPECT_EQ(lb::idw::dispatch("hybrid", lb::idw::Precision::f64, name_and_size), "hybrid8");
  EXPECT_EQ(lb::idw::dispatch("aoas", lb::idw::Precision::f32, name_and_size), "aoas4");
  EXPECT_THROW(lb::idw::dispatch("hybrid", lb::idw::Precision::f32, name_and_size), std::invalid_argument);
}

}  // namespace

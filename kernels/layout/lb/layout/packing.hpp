#pragma once
//! Where fields go inside a record or a tile, shared by every mapping that packs fields
//! together (AoS, AoSoA, the run-time tiled and partition mappings), so the compile-time and
//! run-time mappings compute one byte layout.
//!
//! Packing rule: the fields follow each other in record order, each as a run of `lanes`
//! values that starts at the next multiple of the field's alignment; the whole is padded to a
//! multiple of the largest field alignment, so the next record or tile starts aligned too.
//! `lanes` = 1 is exactly C's struct layout. Example, {char c; double d;} with 3 lanes:
//! c c c, 5 padding bytes, d d d: 32 bytes a tile, d at offset 8.

#include <cstddef>
#include <cstdint>

#include "lb/layout/access.hpp"
#include "lb/layout/config.hpp"

namespace lb::layout::detail {

struct FieldShape {
  std::size_t size;
  std::size_t align;
};

//! Packs `count` fields with `lanes` values each: writes each field's run offset to `offsets`
//! and returns the padded bytes of the whole (one record for lanes = 1, else one tile).
constexpr std::size_t pack_runs(const FieldShape* fields, std::size_t count, std::size_t lanes,
                                std::size_t* offsets) {
  std::size_t end = 0, align = 1;
  for (std::size_t k = 0; k < count; ++k) {
    offsets[k] = round_up(end, fields[k].align);
    end = offsets[k] + lanes * fields[k].size;
    align = fields[k].align > align ? fields[k].align : align;
  }
  return round_up(end, align);
}

//! The largest alignment among `count` fields (the alignment a blob packing them needs).
constexpr std::size_t max_align(const FieldShape* fields, std::size_t count) {
  std::size_t align = 1;
  for (std::size_t k = 0; k < count; ++k) align = fields[k].align > align ? fields[k].align : align;
  return align;
}

template <class Rec>
struct RecordShapes {
  FieldShape field[Rec::field_count];
};
template <class Rec>
constexpr RecordShapes<Rec> shapes_of() {
  RecordShapes<Rec> s{};
  for (std::size_t k = 0; k < Rec::field_count; ++k) s.field[k] = {Rec::size_of(k), Rec::align_of(k)};
  return s;
}

//! A whole record packed with `lanes` values a field: run offsets and padded bytes.
template <class Rec>
struct Packing {
  std::size_t offset[Rec::field_count];
  std::size_t bytes;
  std::size_t align;
};
template <class Rec>
constexpr Packing<Rec> pack_record(std::size_t lanes) {
  const RecordShapes<Rec> s = shapes_of<Rec>();
  Packing<Rec> p{};
  p.bytes = pack_runs(s.field, Rec::field_count, lanes, p.offset);
  p.align = max_align(s.field, Rec::field_count);
  return p;
}

//! Byte offset of lane `lane` of tile `tile` in a field whose run starts at `run_offset`.
LB_HD LB_FORCEINLINE constexpr std::size_t tiled_offset(std::size_t tile, std::size_t lane, std::size_t tile_bytes,
                                                        std::size_t run_offset, std::size_t field_size) {
  return tile * tile_bytes + run_offset + lane * field_size;
}

//! Splits a record index into (tile, lane) for a tile size chosen at run time: a shift and a
//! mask when the tile size is a power of two (the papers' sweeps), a division otherwise. Both
//! paths stay in the code: where every tile size is a power of two, Pow2Tiles is cheaper.
class RuntimeTiles {
 public:
  RuntimeTiles() = default;
  constexpr explicit RuntimeTiles(std::size_t lanes) : lanes_(lanes) {
    while (std::size_t{1} << shift_ < lanes) ++shift_;
    power_of_two_ = std::size_t{1} << shift_ == lanes;
  }
  LB_HD constexpr std::size_t lanes() const { return lanes_; }
  LB_HD LB_FORCEINLINE constexpr std::size_t tile(std::size_t i) const {
    return power_of_two_ ? i >> shift_ : i / lanes_;
  }
  LB_HD LB_FORCEINLINE constexpr std::size_t lane(std::size_t i) const {
    return power_of_two_ ? i & (lanes_ - 1) : i % lanes_;
  }
  //! Tiles needed for n records (the last one may be partly used).
  LB_HD constexpr std::size_t tiles_for(std::size_t n) const { return (n + lanes_ - 1) / lanes_; }
  //! Byte offset of record i's field whose run starts at `run_offset`.
  LB_HD LB_FORCEINLINE constexpr std::size_t offset(std::size_t i, std::size_t tile_bytes, std::size_t run_offset,
                                                   std::size_t field_size) const {
    return tiled_offset(tile(i), lane(i), tile_bytes, run_offset, field_size);
  }
  static constexpr bool accepts(std::size_t lanes) { return lanes >= 1; }
  static constexpr bool holds(std::size_t, std::size_t) { return true; }

 private:
  std::size_t lanes_ = 1;
  unsigned shift_ = 0;
  bool power_of_two_ = true;
};

//! RuntimeTiles for power-of-two tile sizes only: a shift and a mask, with no division left in
//! the code, and 32-bit index arithmetic (a mapping using it holds fewer than 2^32 records and
//! tiles under 4 GiB: `holds`). On the H100 the division path alone (never taken) made
//! BlackScholes' run-time tiles 13 % slower than compile-time ones (64-bit division is a
//! called subroutine in SASS); 64-bit index products cost a run-time split another few %.
class Pow2Tiles {
 public:
  Pow2Tiles() = default;
  constexpr explicit Pow2Tiles(std::size_t lanes) {
    while (std::size_t{1} << shift_ < lanes) ++shift_;
  }
  LB_HD constexpr std::size_t lanes() const { return std::size_t{1} << shift_; }
  LB_HD LB_FORCEINLINE constexpr std::size_t tile(std::size_t i) const { return i >> shift_; }
  LB_HD LB_FORCEINLINE constexpr std::size_t lane(std::size_t i) const { return i & (lanes() - 1); }
  LB_HD constexpr std::size_t tiles_for(std::size_t n) const { return (n + lanes() - 1) >> shift_; }
  LB_HD LB_FORCEINLINE constexpr std::size_t offset(std::size_t i, std::size_t tile_bytes, std::size_t run_offset,
                                                   std::size_t field_size) const {
    const auto j = static_cast<std::uint32_t>(i);
    const std::uint32_t lane = j & ((std::uint32_t{1} << shift_) - 1);
    return std::uint64_t{j >> shift_} * static_cast<std::uint32_t>(tile_bytes) + run_offset +
           lane * static_cast<std::uint32_t>(field_size);
  }
  static constexpr bool accepts(std::size_t lanes) { return lanes >= 1 && (lanes & (lanes - 1)) == 0; }
  //! Whether n records in tiles of tile_bytes stay within its 32-bit index arithmetic.
  static constexpr bool holds(std::size_t n, std::size_t tile_bytes) {
    return n <= std::size_t{0xffffffff} && tile_bytes <= std::size_t{0xffffffff};
  }

 private:
  unsigned shift_ = 0;
};

}  // namespace lb::layout::detail

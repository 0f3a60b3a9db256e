#pragma once
//! Tiled AoS (AoSoA, "array of structures of arrays"): records are grouped into tiles of
//! `lanes` records; inside a tile each field is a contiguous run of `lanes` values, each run
//! starting at a multiple of its field's alignment (packing.hpp: a tile of {char, double} with
//! 3 lanes is c c c, 5 padding bytes, d d d). One lane is AoS; lanes >= n is SoA in one blob
//! (with padding between the runs). The tile size is a compile-time parameter (AoSoA<L>) or a
//! run-time value (RuntimeAoSoA, for sweeps and tile sizes chosen at run time); both give the
//! same bytes for the same tile size.

#include <cstddef>
#include <stdexcept>
#include <string>

#include "lb/layout/mapping.hpp"
#include "lb/layout/packing.hpp"

namespace lb::layout {

template <class Rec, std::size_t Lanes>
struct AoSoAMapping {
  static_assert(Lanes >= 1, "a tile holds at least one record");
  using record = Rec;
  static constexpr std::size_t blob_count = 1;
  static constexpr std::size_t lanes = Lanes;
  static constexpr std::size_t tile_bytes = detail::pack_record<Rec>(Lanes).bytes;
  template <std::size_t I>
  static constexpr std::size_t run_offset = detail::pack_record<Rec>(Lanes).offset[I];

  std::size_t n;

  LB_HD constexpr std::size_t size() const { return n; }
  LB_HD static constexpr std::size_t blob_alignment(std::size_t) { return detail::pack_record<Rec>(1).align; }
  LB_HD constexpr std::size_t blob_bytes(std::size_t) const { return (n + Lanes - 1) / Lanes * tile_bytes; }

  template <class Tag>
  LB_HD constexpr Location locate(std::size_t i) const {
    constexpr std::size_t I = Rec::template index_of<Tag>;
    return {0, detail::tiled_offset(i / Lanes, i % Lanes, tile_bytes, run_offset<I>, Rec::size_of(I))};
  }

  LB_HD LB_FORCEINLINE RecordValue<Rec> load(std::byte* const* blobs, std::size_t i) const {
    return detail::load_fieldwise(*this, blobs, i);
  }
  LB_HD LB_FORCEINLINE void store(std::byte* const* blobs, std::size_t i, const RecordValue<Rec>& v) const {
    detail::store_fieldwise(*this, blobs, i, v);
  }
};

//! AoSoA with the tile size held in the mapping (set at run time). Tiles = detail::Pow2Tiles
//! (Pow2AoSoAMapping) takes powers of two only and leaves no division in the code.
template <class Rec, class Tiles = detail::RuntimeTiles>
class RuntimeAoSoAMapping {
 public:
  using record = Rec;
  static constexpr std::size_t blob_count = 1;

  //! Throws std::invalid_argument for lanes = 0 (or not a power of two, for Pow2Tiles).
  RuntimeAoSoAMapping(std::size_t n, std::size_t lanes) : n_(n) {
    if (lanes == 0) throw std::invalid_argument("tiled AoS: the tile size must be at least 1 record");
    if (!Tiles::accepts(lanes))
      throw std::invalid_argument("tiled AoS: this mapping takes tile sizes that are powers of two, not " +
                                  std::to_string(lanes));
    tiles_ = Tiles(lanes);
    const detail::RecordShapes<Rec> shapes = detail::shapes_of<Rec>();
    tile_bytes_ = detail::pack_runs(shapes.field, Rec::field_count, lanes, run_offset_);
    if (!Tiles::holds(n, tile_bytes_))
      throw std::invalid_argument("tiled AoS: this mapping holds fewer than 2^32 records (" + std::to_string(n) + " asked)");
  }

  LB_HD constexpr std::size_t size() const { return n_; }
  LB_HD constexpr std::size_t lanes() const { return tiles_.lanes(); }
  LB_HD constexpr std::size_t tile_bytes() const { return tile_bytes_; }
  LB_HD static constexpr std::size_t blob_alignment(std::size_t) { return detail::pack_record<Rec>(1).align; }
  LB_HD constexpr std::size_t blob_bytes(std::size_t) const { return tiles_.tiles_for(n_) * tile_bytes_; }

  template <class Tag>
  LB_HD LB_FORCEINLINE constexpr Location locate(std::size_t i) const {
    constexpr std::size_t I = Rec::template index_of<Tag>;
    return {0, tiles_.offset(i, tile_bytes_, run_offset_[I], Rec::size_of(I))};
  }

  LB_HD LB_FORCEINLINE RecordValue<Rec> load(std::byte* const* blobs, std::size_t i) const {
    return detail::load_fieldwise(*this, blobs, i);
  }
  LB_HD LB_FORCEINLINE void store(std::byte* const* blobs, std::size_t i, const RecordValue<Rec>& v) const {
    detail::store_fieldwise(*this, blobs, i, v);
  }

 private:
  std::size_t n_;
  Tiles tiles_;
  std::size_t tile_bytes_ = 0;
  std::size_t run_offset_[Rec::field_count] = {};
};

template <std::size_t Lanes>
struct AoSoA {
  template <class Rec> using mapping = AoSoAMapping<Rec, Lanes>;
};
template <class Rec>
using Pow2AoSoAMapping = RuntimeAoSoAMapping<Rec, detail::Pow2Tiles>;

//! Build its mappings as RuntimeAoSoAMapping<Rec>(n, lanes).
struct RuntimeAoSoA {
  template <class Rec> using mapping = RuntimeAoSoAMapping<Rec>;
};

}  // namespace lb::layout

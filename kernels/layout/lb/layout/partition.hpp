#pragma once
//! A split whose field partition is chosen at run time (Kofler's KDLG computes one per
//! kernel): each field names a cluster, each cluster is AoS, SoA or tiled AoS with a tile size,
//! all given as data, so a new partition needs no recompile. The bytes are those of the
//! compile-time Split with the same clusters (listed in record order) and the same layouts,
//! region for region: where the Split has blobs (an AoS or tiled cluster one blob packed as
//! packing.hpp says, a SoA cluster one blob per field, in cluster order), the partition has
//! regions of its one blob, each starting at a multiple of kRegionAlignment as a cudaMalloc'ed
//! blob would. One blob because a field's blob chosen at run time costs a selection among the
//! view's pointers at every access: on the H100 that made BlackScholes' run-time split 23 %
//! slower than the compile-time one; an offset from one pointer costs one add.

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "lb/layout/field_partition.hpp"
#include "lb/layout/mapping.hpp"
#include "lb/layout/packing.hpp"

namespace lb::layout {

//! Tiles = detail::Pow2Tiles takes tiled clusters of power-of-two tile sizes only and leaves
//! no division in the code (see packing.hpp).
template <class Rec, class Tiles = detail::RuntimeTiles>
class PartitionMapping {
 public:
  using record = Rec;
  static constexpr std::size_t blob_count = 1;
  //! Where each region starts in the blob (cudaMalloc's alignment).
  static constexpr std::size_t kRegionAlignment = 256;
  //! The most regions a partition can have (every field in a SoA cluster).
  static constexpr std::size_t max_regions = Rec::field_count;

  //! Throws std::invalid_argument naming what is wrong with the partition.
  PartitionMapping(std::size_t n, const FieldPartition& partition) : n_(n) {
    check(partition);
    std::size_t region = 0;
    for (std::size_t c = 0; c < partition.clusters.size(); ++c) {
      std::size_t fields[Rec::field_count], count = 0;
      detail::FieldShape shapes[Rec::field_count];
      for (std::size_t f = 0; f < Rec::field_count; ++f)
        if (partition.cluster_of_field[f] == c) {
          fields[count] = f;
          shapes[count++] = {Rec::size_of(f), Rec::align_of(f)};
        }
      const ClusterLayout& layout = partition.clusters[c];
      if (layout.kind == ClusterLayout::Kind::soa) {
        for (std::size_t k = 0; k < count; ++k) {  // each field: a one-field AoS in its own region
          place_[fields[k]] = {Tiles(1), shapes[k].size, start_region(region, n * shapes[k].size, shapes[k].align)};
          ++region;
        }
        continue;
      }
      const std::size_t lanes = layout.kind == ClusterLayout::Kind::tiled ? layout.lanes : 1;
      std::size_t offsets[Rec::field_count];
      const Tiles tiles(lanes);
      const std::size_t tile_bytes = detail::pack_runs(shapes, count, lanes, offsets);
      const std::size_t start = start_region(region++, tiles.tiles_for(n) * tile_bytes, detail::max_align(shapes, count));
      for (std::size_t k = 0; k < count; ++k) place_[fields[k]] = {tiles, tile_bytes, start + offsets[k]};
    }
    regions_ = region;
    for (const Place& p : place_)
      if (!Tiles::holds(n, p.tile_bytes))
        throw std::invalid_argument("field partition: this mapping holds fewer than 2^32 records (" + std::to_string(n) +
                                    " asked)");
  }

  LB_HD constexpr std::size_t size() const { return n_; }
  static constexpr std::size_t blob_alignment(std::size_t) { return kRegionAlignment; }
  constexpr std::size_t blob_bytes(std::size_t) const { return bytes_; }
  //! The regions, in the order of the compile-time Split's blobs: where each starts, its bytes
  //! and the alignment its fields need.
  constexpr std::size_t region_count() const { return regions_; }
  constexpr std::size_t region_offset(std::size_t r) const { return region_offset_[r]; }
  constexpr std::size_t region_bytes(std::size_t r) const { return region_bytes_[r]; }
  constexpr std::size_t region_alignment(std::size_t r) const { return region_alignment_[r]; }

  template <class Tag>
  LB_HD LB_FORCEINLINE constexpr Location locate(std::size_t i) const {
    constexpr std::size_t I = Rec::template index_of<Tag>;
    const Place& p = place_[I];  // constant index: no table walk in device code
    return {0, p.tiles.offset(i, p.tile_bytes, p.offset, Rec::size_of(I))};
  }

  LB_HD LB_FORCEINLINE RecordValue<Rec> load(std::byte* const* blobs, std::size_t i) const {
    return detail::load_fieldwise(*this, blobs, i);
  }
  LB_HD LB_FORCEINLINE void store(std::byte* const* blobs, std::size_t i, const RecordValue<Rec>& v) const {
    detail::store_fieldwise(*this, blobs, i, v);
  }

 private:
  //! Where a field lives: AoS and SoA fields are tiles of one record (a SoA field packs alone);
  //! `offset` is its run's offset in the first tile, from the start of the blob.
  struct Place {
    Tiles tiles;
    std::size_t tile_bytes;
    std::size_t offset;
  };

  //! Appends region r of `bytes` (its fields need `align`) and returns where it starts.
  std::size_t start_region(std::size_t r, std::size_t bytes, std::size_t align) {
    const std::size_t start = detail::round_up(bytes_, kRegionAlignment);
    region_offset_[r] = start;
    region_bytes_[r] = bytes;
    region_alignment_[r] = align;
    bytes_ = start + bytes;
    return start;
  }

  static void check(const FieldPartition& p) {
    auto fail = [](const std::string& why) { throw std::invalid_argument("field partition: " + why); };
    if (p.cluster_of_field.size() != Rec::field_count)
      fail(std::to_string(p.cluster_of_field.size()) + " cluster ids for a record of " +
           std::to_string(Rec::field_count) + " fields");
    std::vector<bool> used(p.clusters.size());
    for (std::size_t f = 0; f < Rec::field_count; ++f) {
      if (p.cluster_of_field[f] >= p.clusters.size())
        fail("field " + std::to_string(f) + " names cluster " + std::to_string(p.cluster_of_field[f]) + " of " +
             std::to_string(p.clusters.size()));
      used[p.cluster_of_field[f]] = true;
    }
    for (std::size_t c = 0; c < p.clusters.size(); ++c) {
      if (!used[c]) fail("cluster " + std::to_string(c) + " holds no field");
      if (p.clusters[c].kind == ClusterLayout::Kind::tiled && p.clusters[c].lanes == 0)
        fail("cluster " + std::to_string(c) + " is tiled with 0 records per tile");
      if (p.clusters[c].kind == ClusterLayout::Kind::tiled && !Tiles::accepts(p.clusters[c].lanes))
        fail("cluster " + std::to_string(c) + " is tiled with " + std::to_string(p.clusters[c].lanes) +
             " records per tile; this mapping takes powers of two");
    }
  }

  std::size_t n_;
  Place place_[Rec::field_count] = {};
  std::size_t bytes_ = 0, regions_ = 0;
  std::size_t region_offset_[max_regions] = {}, region_bytes_[max_regions] = {}, region_alignment_[max_regions] = {};
};

template <class Rec>
using Pow2PartitionMapping = PartitionMapping<Rec, detail::Pow2Tiles>;

//! Whether every tiled cluster of `p` has a power-of-two tile size (Pow2PartitionMapping holds it).
inline bool power_of_two_tiles(const FieldPartition& p) {
  for (const auto& c : p.clusters)
    if (c.kind == ClusterLayout::Kind::tiled && !detail::Pow2Tiles::accepts(c.lanes)) return false;
  return true;
}

//! Build its mappings as PartitionMapping<Rec>(n, partition).
struct Partitioned {
  template <class Rec> using mapping = PartitionMapping<Rec>;
};

}  // namespace lb::layout

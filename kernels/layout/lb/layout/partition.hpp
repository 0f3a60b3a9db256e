#pragma once
//! A split whose field partition is chosen at run time (Kofler's KDLG computes one per
//! kernel): each field names a cluster, each cluster is AoS, SoA or tiled AoS with a tile size,
//! all given as data, so a new partition needs no recompile. The bytes are those of the
//! compile-time Split with the same clusters (listed in record order) and the same layouts:
//! clusters' blobs follow each other in cluster order, an AoS or tiled cluster is one blob
//! packed as packing.hpp says, a SoA cluster one blob per field.

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "lb/layout/mapping.hpp"
#include "lb/layout/packing.hpp"

namespace lb::layout {

//! How one cluster of a run-time partition is laid out.
struct ClusterLayout {
  enum class Kind { aos, soa, tiled };
  Kind kind = Kind::aos;
  std::size_t lanes = 1;  //!< records per tile (tiled only)
};

//! A partition of a record's fields into clusters, with each cluster's layout.
struct FieldPartition {
  std::vector<std::size_t> cluster_of_field;  //!< per field, in record order: its cluster id
  std::vector<ClusterLayout> clusters;        //!< per cluster id: its layout
};

//! Tiles = detail::Pow2Tiles takes tiled clusters of power-of-two tile sizes only and leaves
//! no division in the code (see packing.hpp).
template <class Rec, class Tiles = detail::RuntimeTiles>
class PartitionMapping {
 public:
  using record = Rec;
  //! The most blobs a partition can need (every field in a SoA cluster); blobs past the
  //! partition's own are empty.
  static constexpr std::size_t blob_count = Rec::field_count;
  static constexpr bool blob_chosen_at_run_time = true;

  //! Throws std::invalid_argument naming what is wrong with the partition.
  PartitionMapping(std::size_t n, const FieldPartition& partition) : n_(n) {
    check(partition);
    std::size_t blob = 0;
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
        for (std::size_t k = 0; k < count; ++k) {  // each field: a one-field AoS in its own blob
          place_[fields[k]] = {blob, Tiles(1), shapes[k].size, 0};
          blob_bytes_[blob] = n * shapes[k].size;
          blob_alignment_[blob++] = shapes[k].align;
        }
        continue;
      }
      const std::size_t lanes = layout.kind == ClusterLayout::Kind::tiled ? layout.lanes : 1;
      std::size_t offsets[Rec::field_count];
      const Tiles tiles(lanes);
      const std::size_t tile_bytes = detail::pack_runs(shapes, count, lanes, offsets);
      for (std::size_t k = 0; k < count; ++k) place_[fields[k]] = {blob, tiles, tile_bytes, offsets[k]};
      blob_bytes_[blob] = tiles.tiles_for(n) * tile_bytes;
      blob_alignment_[blob++] = detail::max_align(shapes, count);
    }
    for (; blob < blob_count; ++blob) blob_alignment_[blob] = 1;  // unused: empty
  }

  LB_HD constexpr std::size_t size() const { return n_; }
  constexpr std::size_t blob_alignment(std::size_t b) const { return blob_alignment_[b]; }
  constexpr std::size_t blob_bytes(std::size_t b) const { return blob_bytes_[b]; }

  template <class Tag>
  LB_HD LB_FORCEINLINE constexpr Location locate(std::size_t i) const {
    constexpr std::size_t I = Rec::template index_of<Tag>;
    const Place& p = place_[I];  // constant index: no table walk in device code
    return {p.blob, detail::tiled_offset(p.tiles.tile(i), p.tiles.lane(i), p.tile_bytes, p.offset, Rec::size_of(I))};
  }

  LB_HD LB_FORCEINLINE RecordValue<Rec> load(std::byte* const* blobs, std::size_t i) const {
    return detail::load_fieldwise(*this, blobs, i);
  }
  LB_HD LB_FORCEINLINE void store(std::byte* const* blobs, std::size_t i, const RecordValue<Rec>& v) const {
    detail::store_fieldwise(*this, blobs, i, v);
  }

 private:
  //! Where a field lives: AoS and SoA fields are tiles of one record (a SoA field packs alone).
  struct Place {
    std::size_t blob;
    Tiles tiles;
    std::size_t tile_bytes;
    std::size_t offset;
  };

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
  std::size_t blob_bytes_[blob_count] = {};
  std::size_t blob_alignment_[blob_count] = {};
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

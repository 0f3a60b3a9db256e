#pragma once
//! A field partition as data (partition.hpp's PartitionMapping is built from one): each
//! field's cluster and each cluster's layout. Light, for code that only reads or passes one.

#include <cstddef>
#include <vector>

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

}  // namespace lb::layout

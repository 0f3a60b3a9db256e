#pragma once
//! Kofler, Cosenza & Fahringer 2015's kernel data layout graph (KDLG) and its partition, from
//! recorded access traces (access_trace.hpp, recording.hpp). docs/kdlg.md states the
//! definitions and the decisions the paper leaves open; in short:
//!  - dist(p, q), p before q in a trace: the distinct global bytes touched by the accesses
//!    after p up to and including q;
//!  - δ(f, g) in one kernel: the maximum, over every access x to f or g, of the distance
//!    between x and the other field's nearest access, before or after x, whichever is nearer
//!    (so δ < ε says: every access to either field has one to the other within ε bytes; it
//!    gives the paper's worked example, l.71: δ(a,b) = 4, δ(c,b) = 252, δ(c,a) = 256); ∞
//!    when either field is never accessed;
//!  - δ over a program's kernels: the maximum over the kernels that access f or g, so ∞ when
//!    one of them accesses only one of the two;
//!  - partition: one cluster per field, then the edges with δ < ε taken in increasing order,
//!    each joining its ends' clusters (Kruskal with an ε cut-off); ε = the L1 line.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "lb/layout/access_trace.hpp"
#include "lb/layout/field_partition.hpp"

namespace lb::layout {

//! δ = ∞ (a field never accessed).
inline constexpr std::uint64_t kInfiniteDistance = std::numeric_limits<std::uint64_t>::max();
//! ε's default: the L1 cache line of NVIDIA GPUs, in bytes.
inline constexpr std::uint64_t kNvidiaL1LineBytes = 128;

//! The KDLG: fields as vertices weighted by their bytes (σ), δ on every pair.
struct Kdlg {
  std::vector<std::size_t> field_bytes;  //!< σ(f), record order
  std::vector<std::uint64_t> distances;  //!< δ, row-major field × field; 0 on the diagonal

  std::size_t field_count() const { return field_bytes.size(); }
  std::uint64_t delta(std::size_t f, std::size_t g) const { return distances[f * field_count() + g]; }
};

//! The KDLG of one kernel's trace. `field_bytes`: σ per field (recording.hpp's
//! field_bytes<Rec>()). Throws std::invalid_argument for an access to a field past the record.
Kdlg kernel_kdlg(const std::vector<std::size_t>& field_bytes, const std::vector<Access>& trace);

//! The KDLG of a program of several kernels: per pair, the maximum of the kernels' δ over the
//! kernels that access either field (docs/kdlg.md says why).
Kdlg program_kdlg(const std::vector<std::size_t>& field_bytes, const std::vector<KernelTrace>& kernels);

//! One edge the partition took: it joined the clusters of `a` and `b` (a < b).
struct KdlgMerge {
  std::size_t a, b;
  std::uint64_t delta;
  bool operator==(const KdlgMerge&) const = default;
};

//! The partition: clusters of field indices, each in record order, the clusters ordered by
//! their first field (the order PartitionMapping lists regions in), and the edges that joined
//! them in the order taken (a spanning forest of the clusters).
struct KdlgPartition {
  std::vector<std::vector<std::size_t>> clusters;
  std::vector<KdlgMerge> merges;
};

//! Kruskal-style: singletons, then every edge with δ < epsilon in increasing (δ, a, b) order
//! joins its ends' clusters. The result does not depend on the order (it is the connected
//! components of the graph of edges below epsilon); the order only fixes `merges`.
KdlgPartition kdlg_partition(const Kdlg& kdlg, std::uint64_t epsilon = kNvidiaL1LineBytes);

//! The largest δ between two fields of one cluster (chained merges can exceed epsilon).
std::uint64_t cluster_diameter(const Kdlg& kdlg, const std::vector<std::size_t>& cluster);

//! The partition as the run-time PartitionMapping takes it, every cluster AoS (the `kdlg`
//! layout: the clusters, each AoS).
FieldPartition to_field_partition(const KdlgPartition& partition, std::size_t field_count);

//! The partition's clusters as field names (a preset's "partitions" entry lists these).
std::vector<std::vector<std::string>> cluster_names(const KdlgPartition& partition,
                                                    const std::vector<std::string>& field_names);

//! The partition's name, as split partitions are named: clusters joined by '|', the fields of
//! a cluster by '+' ("pos|vel", "a+b|c|d"). No ':' or '/', so it fits a benchmark name.
std::string partition_name(const KdlgPartition& partition, const std::vector<std::string>& field_names);

//! δ as text: the number of bytes, or "inf".
std::string distance_text(std::uint64_t delta);

}  // namespace lb::layout

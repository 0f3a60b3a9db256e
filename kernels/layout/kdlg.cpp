#include "lb/layout/kdlg.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

namespace lb::layout {

namespace {

//! dist(p, q) for p < q: the distinct bytes of accesses p+1 .. q, for many (p, q) at once.
//! Offline, by q: sweeping the trace, a Fenwick tree over positions holds, for each byte seen
//! so far, a 1 at its latest access; the bytes in (p, q] are then prefix(q) - prefix(p).
//! O((B + Q) log N) for B recorded bytes and Q queries.
class DistinctBytes {
 public:
  struct Query {
    std::size_t p, q;
  };

  //! A query whose p or q is kNoAccess has no such access: its answer is kInfiniteDistance.
  static constexpr std::size_t kNoAccess = std::numeric_limits<std::size_t>::max();

  static std::vector<std::uint64_t> answer(const std::vector<Access>& trace, const std::vector<Query>& queries) {
    std::vector<std::uint64_t> out(queries.size(), kInfiniteDistance);
    std::vector<std::size_t> order;
    for (std::size_t k = 0; k < queries.size(); ++k)
      if (queries[k].p != kNoAccess && queries[k].q != kNoAccess) order.push_back(k);
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return queries[x].q < queries[y].q; });
    DistinctBytes tree(trace.size());
    std::unordered_map<std::uintptr_t, std::size_t> latest;
    std::size_t next = 0;
    for (std::size_t r = 0; r < trace.size() && next < order.size(); ++r) {
      for (std::size_t k = 0; k < trace[r].bytes; ++k) {
        const auto [it, fresh] = latest.try_emplace(trace[r].address + k, r);
        if (!fresh) {
          tree.add(it->second, -1);
          it->second = r;
        }
        tree.add(r, +1);
      }
      for (; next < order.size() && queries[order[next]].q == r; ++next)
        out[order[next]] = std::uint64_t(tree.prefix(r) - tree.prefix(queries[order[next]].p));
    }
    return out;
  }

 private:
  explicit DistinctBytes(std::size_t n) : sums_(n + 1, 0) {}
  void add(std::size_t position, std::int64_t delta) {
    for (std::size_t k = position + 1; k < sums_.size(); k += k & (~k + 1)) sums_[k] += delta;
  }
  std::int64_t prefix(std::size_t position) const {  // positions 0 .. position
    std::int64_t s = 0;
    for (std::size_t k = position + 1; k > 0; k -= k & (~k + 1)) s += sums_[k];
    return s;
  }
  std::vector<std::int64_t> sums_;
};

//! Each field's access positions, in trace order; throws for a field past the record.
std::vector<std::vector<std::size_t>> positions_of_fields(std::size_t field_count, const std::vector<Access>& trace) {
  std::vector<std::vector<std::size_t>> positions(field_count);
  for (std::size_t r = 0; r < trace.size(); ++r) {
    if (trace[r].field == kOtherMemory) continue;
    if (trace[r].field >= field_count)
      throw std::invalid_argument(fmt::format("access {} of the trace is to field {}, but the record has {} fields", r,
                                              trace[r].field, field_count));
    positions[trace[r].field].push_back(r);
  }
  return positions;
}

Kdlg empty_kdlg(const std::vector<std::size_t>& field_bytes) {
  const std::size_t n = field_bytes.size();
  Kdlg g{field_bytes, std::vector<std::uint64_t>(n * n, kInfiniteDistance)};
  for (std::size_t f = 0; f < n; ++f) g.distances[f * n + f] = 0;
  return g;
}

void set_delta(Kdlg& g, std::size_t f, std::size_t h, std::uint64_t delta) {
  g.distances[f * g.field_count() + h] = g.distances[h * g.field_count() + f] = delta;
}

}  // namespace

// For a pair (f, g): every access x to either field, with its nearest access to the other field
// before it and after it (two distance queries); x's distance is the nearer of the two, δ the
// largest over all x.
Kdlg kernel_kdlg(const std::vector<std::size_t>& field_bytes, const std::vector<Access>& trace) {
  constexpr std::size_t kNone = DistinctBytes::kNoAccess;
  const std::size_t n = field_bytes.size();
  const auto positions = positions_of_fields(n, trace);
  struct Pair {
    std::size_t f, h;
    std::size_t first_query, end_query;  // queries [first, end) in (before, after) twos
  };
  std::vector<Pair> pairs;
  std::vector<DistinctBytes::Query> queries;
  std::vector<std::size_t> merged, before, after;
  for (std::size_t f = 0; f < n; ++f)
    for (std::size_t h = f + 1; h < n; ++h) {
      if (positions[f].empty() || positions[h].empty()) continue;
      merged.clear();
      std::merge(positions[f].begin(), positions[f].end(), positions[h].begin(), positions[h].end(),
                 std::back_inserter(merged));
      before.assign(merged.size(), kNone);
      after.assign(merged.size(), kNone);
      std::size_t latest[2] = {kNone, kNone};  // latest access to f, to h
      for (std::size_t k = 0; k < merged.size(); ++k) {
        const bool is_f = trace[merged[k]].field == f;
        before[k] = latest[is_f ? 1 : 0];
        latest[is_f ? 0 : 1] = merged[k];
      }
      latest[0] = latest[1] = kNone;
      for (std::size_t k = merged.size(); k-- > 0;) {
        const bool is_f = trace[merged[k]].field == f;
        after[k] = latest[is_f ? 1 : 0];
        latest[is_f ? 0 : 1] = merged[k];
      }
      pairs.push_back({f, h, queries.size(), 0});
      for (std::size_t k = 0; k < merged.size(); ++k) {
        queries.push_back({before[k], merged[k]});  // p = kNone: no such access
        queries.push_back({merged[k], after[k]});
      }
      pairs.back().end_query = queries.size();
    }
  const std::vector<std::uint64_t> dist = DistinctBytes::answer(trace, queries);
  Kdlg g = empty_kdlg(field_bytes);
  for (const Pair& pair : pairs) {
    std::uint64_t delta = 0;
    for (std::size_t k = pair.first_query; k < pair.end_query; k += 2)
      delta = std::max(delta, std::min(dist[k], dist[k + 1]));
    set_delta(g, pair.f, pair.h, delta);
  }
  return g;
}

// A kernel boundary ends every reuse in L1 (docs/kdlg.md), so each kernel is a constraint of
// its own, and the paper's conservative maximum is taken over them: a kernel that accesses
// one field of a pair but not the other makes the pair ∞.
Kdlg program_kdlg(const std::vector<std::size_t>& field_bytes, const std::vector<KernelTrace>& kernels) {
  const std::size_t n = field_bytes.size();
  Kdlg g = empty_kdlg(field_bytes);
  std::vector<bool> constrained(n * n, false);  // some kernel accesses one of the pair
  for (const KernelTrace& kernel : kernels) {
    const Kdlg k = kernel_kdlg(field_bytes, kernel.accesses);
    std::vector<bool> here(n, false);
    for (const Access& a : kernel.accesses)
      if (a.field != kOtherMemory) here[a.field] = true;
    for (std::size_t f = 0; f < n; ++f)
      for (std::size_t h = f + 1; h < n; ++h) {
        if (!here[f] && !here[h]) continue;
        const bool first = !constrained[f * n + h];
        constrained[f * n + h] = true;
        set_delta(g, f, h, first ? k.delta(f, h) : std::max(g.delta(f, h), k.delta(f, h)));
      }
  }
  return g;
}

KdlgPartition kdlg_partition(const Kdlg& kdlg, std::uint64_t epsilon) {
  const std::size_t n = kdlg.field_count();
  std::vector<std::tuple<std::uint64_t, std::size_t, std::size_t>> edges;
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = a + 1; b < n; ++b)
      if (kdlg.delta(a, b) < epsilon) edges.emplace_back(kdlg.delta(a, b), a, b);
  std::sort(edges.begin(), edges.end());
  std::vector<std::size_t> parent(n);
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  auto root = [&](std::size_t f) {
    while (parent[f] != f) f = parent[f] = parent[parent[f]];
    return f;
  };
  KdlgPartition p;
  for (const auto& [delta, a, b] : edges) {
    const std::size_t ra = root(a), rb = root(b);
    if (ra == rb) continue;  // already one cluster: the edge is discarded
    parent[std::max(ra, rb)] = std::min(ra, rb);
    p.merges.push_back({a, b, delta});
  }
  std::vector<std::size_t> cluster_of_root(n, n);
  for (std::size_t f = 0; f < n; ++f) {  // the smallest field of a cluster comes first
    std::size_t& c = cluster_of_root[root(f)];
    if (c == n) {
      c = p.clusters.size();
      p.clusters.emplace_back();
    }
    p.clusters[c].push_back(f);
  }
  return p;
}

std::uint64_t cluster_diameter(const Kdlg& kdlg, const std::vector<std::size_t>& cluster) {
  std::uint64_t d = 0;
  for (std::size_t a : cluster)
    for (std::size_t b : cluster) d = std::max(d, kdlg.delta(a, b));
  return d;
}

FieldPartition to_field_partition(const KdlgPartition& partition, std::size_t field_count) {
  FieldPartition p;
  p.cluster_of_field.assign(field_count, partition.clusters.size());
  for (std::size_t c = 0; c < partition.clusters.size(); ++c)
    for (std::size_t f : partition.clusters[c]) p.cluster_of_field.at(f) = c;
  p.clusters.assign(partition.clusters.size(), ClusterLayout{ClusterLayout::Kind::aos, 1});
  return p;
}

std::vector<std::vector<std::string>> cluster_names(const KdlgPartition& partition,
                                                    const std::vector<std::string>& field_names) {
  std::vector<std::vector<std::string>> names;
  for (const auto& cluster : partition.clusters) {
    names.emplace_back();
    for (std::size_t f : cluster) names.back().push_back(field_names.at(f));
  }
  return names;
}

std::string partition_name(const KdlgPartition& partition, const std::vector<std::string>& field_names) {
  std::vector<std::string> clusters;
  for (const auto& names : cluster_names(partition, field_names)) {
    for (const std::string& name : names)
      if (name.empty() || name.find_first_of("|+:/") != std::string::npos)
        throw std::invalid_argument(fmt::format("field name '{}' cannot be part of a partition name", name));
    clusters.push_back(fmt::format("{}", fmt::join(names, "+")));
  }
  return fmt::format("{}", fmt::join(clusters, "|"));
}

std::string distance_text(std::uint64_t delta) {
  return delta == kInfiniteDistance ? std::string("inf") : std::to_string(delta);
}

}  // namespace lb::layout

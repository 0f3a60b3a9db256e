#include "lb/datasets/graph.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <random>

#include <fmt/format.h>

#include "lb/datasets/text.hpp"

namespace lb::datasets {
namespace {

constexpr std::uint64_t kMaxIndex = std::numeric_limits<std::uint32_t>::max();

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

//! The whitespace-separated fields of a line (tabs or spaces, any number).
std::vector<std::string_view> fields_of(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_blank(line[i])) ++i;
    const std::size_t start = i;
    while (i < line.size() && !is_blank(line[i])) ++i;
    if (i > start) fields.push_back(line.substr(start, i - start));
  }
  return fields;
}

std::uint64_t parse_id(std::string_view field, const std::string& path, std::size_t line_no) {
  std::uint64_t id = 0;
  const bool negative = field.starts_with('-');
  const std::string_view digits = negative ? field.substr(1) : field;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
  const bool integer = !digits.empty() && ptr == digits.data() + digits.size() &&
                       (ec == std::errc{} || ec == std::errc::result_out_of_range);
  if (!integer)
    throw InputError(fmt::format("{}:{}: vertex id {} is not an integer", path, line_no, text::quote(field)));
  if (negative)
    throw InputError(fmt::format("{}:{}: vertex id {} is negative (ids are non-negative integers)", path, line_no,
                                 text::quote(field)));
  if (ec == std::errc::result_out_of_range)
    throw InputError(fmt::format("{}:{}: vertex id {} is too large (ids must be at most {})", path, line_no,
                                 text::quote(field), std::numeric_limits<std::uint64_t>::max()));
  return id;
}

//! Deterministic on every platform (std::shuffle's algorithm is not specified).
template <class T>
void shuffle(std::vector<T>& items, std::mt19937_64& rng) {
  for (std::size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[rng() % i]);
}

}  // namespace

std::uint32_t Graph::dense_id(std::uint64_t original) const {
  const auto it = std::lower_bound(original_id.begin(), original_id.end(), original);
  if (it == original_id.end() || *it != original)
    throw InputError(fmt::format("{}: vertex id {} does not occur in any edge", source, original));
  return static_cast<std::uint32_t>(it - original_id.begin());
}

EdgeListLoad graph_from_edges(std::size_t vertices, std::vector<std::pair<std::uint32_t, std::uint32_t>> edges) {
  EdgeListLoad load;
  load.edge_lines = edges.size();
  if (vertices > kMaxIndex || edges.size() > kMaxIndex)
    throw InputError(
        fmt::format("{} vertices and {} edges: more than the 32-bit CSR indices hold", vertices, edges.size()));
  // Counting sort by source (linear: no global sort of millions of pairs), then each
  // adjacency list sorted and its repeats dropped.
  Graph& g = load.graph;
  g.offsets.assign(vertices + 1, 0);
  for (const auto& [from, to] : edges) ++g.offsets[from + 1];
  for (std::size_t v = 0; v < vertices; ++v) g.offsets[v + 1] += g.offsets[v];
  std::vector<std::uint32_t> fill(g.offsets.begin(), g.offsets.end() - 1);
  g.targets.resize(edges.size());
  for (const auto& [from, to] : edges) g.targets[fill[from]++] = to;
  edges = {};
  std::size_t kept = 0;
  for (std::size_t v = 0; v < vertices; ++v) {
    const auto first = g.targets.begin() + g.offsets[v], last = g.targets.begin() + g.offsets[v + 1];
    std::sort(first, last);
    g.offsets[v] = static_cast<std::uint32_t>(kept);
    for (auto it = first; it != last; ++it) {
      if (*it == v)
        ++load.self_loops;
      else if (it != first && *it == *(it - 1))
        ++load.duplicate_edges;
      else
        g.targets[kept++] = *it;
    }
  }
  g.offsets[vertices] = static_cast<std::uint32_t>(kept);
  g.targets.resize(kept);
  return load;
}

EdgeListLoad load_snap_edge_list(const std::string& path) {
  text::TextLines lines(path);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> raw;
  std::string_view line;
  while (lines.next(line)) {
    const std::size_t line_no = lines.line_no();
    const auto fields = fields_of(line);
    if (fields.size() != 2)
      throw InputError(
          fmt::format("{}:{}: expected two vertex ids \"from to\" (tab or space separated), found {} "
                      "field{}: {}",
                      path, line_no, fields.size(), fields.size() == 1 ? "" : "s", text::quote(line)));
    raw.emplace_back(parse_id(fields[0], path, line_no), parse_id(fields[1], path, line_no));
  }
  if (raw.empty()) throw InputError(fmt::format("{}: no edges (the file is empty or holds only comments)", path));

  std::vector<std::uint64_t> ids;
  ids.reserve(2 * raw.size());
  for (const auto& [from, to] : raw) {
    ids.push_back(from);
    ids.push_back(to);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  if (ids.size() > kMaxIndex)
    throw InputError(fmt::format("{}: {} distinct vertex ids; at most {} are supported", path, ids.size(), kMaxIndex));
  auto dense = [&](std::uint64_t id) {
    return static_cast<std::uint32_t>(std::lower_bound(ids.begin(), ids.end(), id) - ids.begin());
  };
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges(raw.size());
  for (std::size_t e = 0; e < raw.size(); ++e) edges[e] = {dense(raw[e].first), dense(raw[e].second)};
  raw = {};

  EdgeListLoad load = graph_from_edges(ids.size(), std::move(edges));
  load.graph.original_id = std::move(ids);
  load.graph.source = path;
  return load;
}

std::vector<int> bfs_levels(const Graph& g, std::uint32_t source) {
  std::vector<int> level(g.vertices(), kUnreachable);
  std::vector<std::uint32_t> queue{source};
  queue.reserve(g.vertices());
  level[source] = 0;
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const std::uint32_t v = queue[head];
    for (std::uint32_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e)
      if (const std::uint32_t w = g.targets[e]; level[w] == kUnreachable) {
        level[w] = level[v] + 1;
        queue.push_back(w);
      }
  }
  return level;
}

// --- statistics ---------------------------------------------------------------------------

GraphStats graph_stats(const Graph& g, int sweeps) {
  GraphStats s;
  const std::size_t n = g.vertices();
  s.vertices = n;
  s.directed_edges = g.edges();
  s.max_original_id = g.original_id.empty() ? (n == 0 ? 0 : n - 1) : g.original_id.back();
  if (n == 0) return s;
  s.mean_degree = static_cast<double>(g.edges()) / static_cast<double>(n);
  for (std::size_t v = 0; v < n; ++v) s.max_degree = std::max(s.max_degree, g.degree(v));

  // Weak components: union-find over the edges, ignoring their direction.
  std::vector<std::uint32_t> parent(n);
  for (std::size_t v = 0; v < n; ++v) parent[v] = static_cast<std::uint32_t>(v);
  auto find = [&](std::uint32_t v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  };
  for (std::size_t v = 0; v < n; ++v)
    for (std::uint32_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
      const std::uint32_t a = find(static_cast<std::uint32_t>(v)), b = find(g.targets[e]);
      if (a != b) parent[std::max(a, b)] = std::min(a, b);
    }
  std::vector<std::uint32_t> size(n, 0);
  for (std::size_t v = 0; v < n; ++v) ++size[find(static_cast<std::uint32_t>(v))];
  std::uint32_t largest_root = 0;
  for (std::size_t v = 0; v < n; ++v) {
    if (size[v] == 0) continue;
    ++s.components;
    if (size[v] > size[largest_root]) largest_root = static_cast<std::uint32_t>(v);
  }
  s.largest_component = size[largest_root];

  // Double sweeps from the largest component's first vertex (its root: the smallest id).
  std::uint32_t start = largest_root;
  for (int sweep = 0; sweep < 2 * sweeps; ++sweep) {
    const std::vector<int> level = bfs_levels(g, start);
    const auto far = std::max_element(level.begin(), level.end());
    s.diameter_lower_bound = std::max(s.diameter_lower_bound, static_cast<std::uint32_t>(*far));
    start = static_cast<std::uint32_t>(far - level.begin());
  }
  return s;
}

GraphStats roadnet_pa_reference() {
  GraphStats s;
  s.vertices = 1'088'092;
  s.max_original_id = 1'090'919;
  s.directed_edges = 3'083'796;
  s.components = 206;
  s.largest_component = 1'087'562;
  s.mean_degree = 3'083'796.0 / 1'088'092.0;
  s.max_degree = 9;
  s.diameter_lower_bound = 786;  // SNAP: diameter (longest shortest path)
  return s;
}

std::vector<std::string> stats_differences(const GraphStats& got, const GraphStats& expected,
                                           double diameter_tolerance) {
  std::vector<std::string> out;
  auto check = [&](const char* name, auto a, auto b) {
    if (a != b) out.push_back(fmt::format("{}: {} (expected {})", name, a, b));
  };
  check("vertices", got.vertices, expected.vertices);
  check("max id", got.max_original_id, expected.max_original_id);
  check("directed edges", got.directed_edges, expected.directed_edges);
  check("weak components", got.components, expected.components);
  check("largest component", got.largest_component, expected.largest_component);
  check("max degree", got.max_degree, expected.max_degree);
  const double d = got.diameter_lower_bound, want = expected.diameter_lower_bound;
  if (d < want * (1 - diameter_tolerance) || d > want * (1 + diameter_tolerance))
    out.push_back(fmt::format("diameter (lower bound) {}: more than {:.0f} % from {}", got.diameter_lower_bound,
                              100 * diameter_tolerance, expected.diameter_lower_bound));
  return out;
}

std::string describe(const GraphStats& s) {
  return fmt::format(
      "vertices {}, max id {}, directed edges {}, weak components {} (largest {} vertices), mean degree {:.3f}, "
      "max degree {}, diameter >= {}",
      s.vertices, s.max_original_id, s.directed_edges, s.components, s.largest_component, s.mean_degree, s.max_degree,
      s.diameter_lower_bound);
}

// --- road-like generator ----------------------------------------------------------------
//
// Vertices on a near-square grid (row-major, the last row partial); a road may join two
// vertices at most sqrt(reach_squared) grid steps apart (at the default 10: the 36 offsets
// (dx, dy) with dx^2 + dy^2 <= 10). Short local roads give hundreds of BFS levels, as on a
// real road network (a random graph of roadNet-PA's degree has a diameter of about 20); the
// reach sets how many. Each vertex is given a target degree, drawn without replacement from
// roadNet-PA's degree counts (kRoadNetPaDegrees) scaled to the vertex count, and roads are
// chosen within the targets:
//   1. a spanning tree: each vertex's offsets in a seeded random order of its own, tried
//      round by round (round j: every vertex, row by row, its j-th offset), a road kept when
//      it joins two components, both ends are below their targets and the joined component
//      keeps a free slot (so no dead end closes a component off);
//   2. should components remain: roads joining them past a target (not reached at the
//      sizes tested);
//   3. more roads up to the count, the vertices with the most missing first, each trying its
//      whole neighbourhood for a neighbour below its target;
//   4. what is still missing: roads with one end below its target, then any (a few thousand
//      of 1.5 M at full size: the histogram is within 1 percentage point of the target).
// No degree exceeds 9 (roadNet-PA's maximum, and the BFS layouts' kMaxDegree).
namespace {

//! Vertices of each degree (index = degree) of roadNet-PA as the generator targets it at
//! full size: 1,088,092 vertices (SNAP) whose degrees sum to 3,083,796 (SNAP's directed edge
//! count: 1,541,898 roads listed both ways). Derived by datasets/roadnet_pa_degrees.py (run
//! on the head: `python3 datasets/roadnet_pa_degrees.py ../shared/datasets/roadNet-PA.head.txt`)
//! from:
//!  - the shipped head of SNAP's file (shared/datasets/roadNet-PA.head.txt): it lists each
//!    vertex's neighbours on consecutive lines, so the 5,496 vertices whose lists it holds
//!    entirely (all but the last) have their exact degrees: 825 of degree 1, 351 of 2,
//!    2,640 of 3, 1,627 of 4, 46 of 5, 6 of 6, 1 of 7 (mean 2.953). Caveat: the head is the
//!    start of the file, a crawl-ordered neighbourhood of vertex 0, not a uniform sample, and
//!    its mean degree is above the whole graph's 2.834;
//!  - the degree-9 and degree-8 vertices: the Network Repository report of roadNet-PA (as
//!    rendered by the ensmallen graph library, 2021) names the five highest-degree vertices:
//!    four of degree 9 and one of 8 (its median and mode degree, 3, agree with the head's);
//!  - the head's distribution tilted to SNAP's mean (q_d proportional to p_d exp(lambda d),
//!    lambda = -0.1135: the distribution closest to the head's in relative entropy with that
//!    mean) for the other 1,088,087 vertices, rounded by largest remainder, one degree-3
//!    vertex moved to 4 for the exact sum.
//! Fractions: 18.61 % of degree 1, 7.07 % of 2, 47.46 % of 3, 26.11 % of 4, 0.75 % of 5 or
//! more; partial inlining with N = 3 holds 90.2 % of the neighbour elements (the paper, l.137:
//! "more than 80%"; the head itself: 89.3 %).
constexpr std::array<std::size_t, 10> kRoadNetPaDegrees = {0, 202'520, 76'915, 516'418, 284'105, 7'170, 835, 124, 1, 4};
constexpr std::size_t kRoadNetPaVertices = 1'088'092;
constexpr std::uint32_t kMaxRoadDegree = kRoadNetPaDegrees.size() - 1;

//! The target vertex count per degree for n vertices and `roads` roads: roadNet-PA's counts
//! scaled to n (largest remainder), then degree-3 vertices moved to 4 (or 2) until the
//! degrees sum to 2 * roads. Throws InputError when that cannot reach the sum.
std::array<std::size_t, 10> degree_targets(std::size_t n, std::size_t roads) {
  std::array<std::size_t, 10> count{}, remainder{};
  std::size_t assigned = 0, sum = 0;
  for (std::size_t d = 0; d < count.size(); ++d) {
    count[d] = kRoadNetPaDegrees[d] * n / kRoadNetPaVertices;
    remainder[d] = kRoadNetPaDegrees[d] * n % kRoadNetPaVertices;
    assigned += count[d];
  }
  for (; assigned < n; ++assigned) {
    const auto most = std::max_element(remainder.begin(), remainder.end());
    ++count[static_cast<std::size_t>(most - remainder.begin())];
    *most = 0;
  }
  for (std::size_t d = 0; d < count.size(); ++d) sum += d * count[d];
  // Even bounds: every road adds 2 to the sum.
  const std::size_t low = (std::max(sum - count[3], 2 * (n - 1)) + 1) / 2 * 2, high = (sum + count[3]) / 2 * 2;
  if (2 * roads < low || 2 * roads > high)
    throw InputError(fmt::format("road-like graph: {} vertices take {} to {} directed edges (roadNet-PA's degree "
                                 "distribution, degree-3 vertices moved to 2 or 4; at least a spanning tree); got {}",
                                 n, low, high, 2 * roads));
  const std::size_t moved = 2 * roads > sum ? 2 * roads - sum : sum - 2 * roads;
  count[3] -= moved;
  count[2 * roads > sum ? 4 : 2] += moved;
  return count;
}

}  // namespace

Graph generate_road_like(const RoadLikeSpec& spec) {
  const std::size_t n = spec.vertices;
  if (n < 4) throw InputError(fmt::format("road-like graph: {} vertices; needs at least 4", n));
  if (spec.directed_edges % 2 != 0)
    throw InputError(fmt::format("road-like graph: {} directed edges; roads are listed both ways, so it must be even",
                                 spec.directed_edges));
  if (spec.reach_squared < 5 || spec.reach_squared > 18)
    throw InputError(fmt::format("road-like graph: reach_squared {}; must be 5 to 18", spec.reach_squared));
  if (n > kMaxIndex) throw InputError(fmt::format("road-like graph: {} vertices; at most {}", n, kMaxIndex));
  const std::size_t roads = spec.directed_edges / 2;
  const std::array<std::size_t, 10> count = degree_targets(n, roads);
  std::size_t width = 1;
  while (width * width < n) ++width;
  const std::size_t height = (n + width - 1) / width;
  std::mt19937_64 rng(spec.seed);

  std::vector<std::uint8_t> want;  // target degree per vertex
  want.reserve(n);
  for (std::size_t d = 0; d < count.size(); ++d) want.insert(want.end(), count[d], static_cast<std::uint8_t>(d));
  shuffle(want, rng);

  // The offsets to the later half of the neighbourhood (dy > 0, or dy == 0 and dx > 0): the
  // road from v at offset j is v's (taken[v] bit j), so each road is considered once.
  struct Offset {
    int dx, dy;
  };
  std::vector<Offset> offsets;
  constexpr int kMaxReach = 4;  // floor(sqrt(18))
  for (int dy = 0; dy <= kMaxReach; ++dy)
    for (int dx = -kMaxReach; dx <= kMaxReach; ++dx)
      if ((dy > 0 || dx > 0) && dx * dx + dy * dy <= static_cast<int>(spec.reach_squared)) offsets.push_back({dx, dy});
  const std::size_t k = offsets.size();  // at most 30 (reach_squared 18): the bits of taken
  // Each vertex tries its offsets in one of 256 seeded random orders.
  constexpr std::size_t kOrders = 256;
  std::vector<std::uint8_t> order(kOrders * k);
  for (std::size_t o = 0; o < kOrders; ++o) {
    std::vector<std::uint8_t> p(k);
    for (std::size_t j = 0; j < k; ++j) p[j] = static_cast<std::uint8_t>(j);
    shuffle(p, rng);
    std::copy(p.begin(), p.end(), order.begin() + static_cast<std::ptrdiff_t>(o * k));
  }
  std::vector<std::uint8_t> order_of(n);
  for (auto& o : order_of) o = static_cast<std::uint8_t>(rng() % kOrders);
  //! The vertex at offset j from (x, y) (sign -1: the mirrored offset), or n where there is none.
  auto at = [&](std::size_t x, std::size_t y, std::size_t j, int sign) -> std::size_t {
    const std::ptrdiff_t nx = static_cast<std::ptrdiff_t>(x) + sign * offsets[j].dx,
                         ny = static_cast<std::ptrdiff_t>(y) + sign * offsets[j].dy;
    if (nx < 0 || nx >= static_cast<std::ptrdiff_t>(width) || ny < 0 || ny >= static_cast<std::ptrdiff_t>(height))
      return n;
    return std::min(n, static_cast<std::size_t>(ny) * width + static_cast<std::size_t>(nx));
  };

  using Edge = std::pair<std::uint32_t, std::uint32_t>;
  std::vector<Edge> chosen;
  chosen.reserve(roads);
  std::vector<std::uint32_t> taken(n, 0), parent(n), free_slots(want.begin(), want.end());
  std::vector<std::uint8_t> deg(n, 0);
  for (std::size_t v = 0; v < n; ++v) parent[v] = static_cast<std::uint32_t>(v);
  auto find = [&](std::uint32_t v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  };
  std::size_t components = n;
  auto add = [&](std::size_t owner, std::size_t j, std::size_t w) {
    taken[owner] |= 1u << j;
    ++deg[owner];
    ++deg[w];
    chosen.emplace_back(static_cast<std::uint32_t>(owner), static_cast<std::uint32_t>(w));
  };
  // Round j: every vertex, row by row, tries its j-th offset; `keep(a, b)` decides.
  auto sweep = [&](auto&& done, auto&& keep) {
    for (std::size_t round = 0; round < k && !done(); ++round)
      for (std::size_t v = 0, x = 0, y = 0; v < n; ++v, x = x + 1 == width ? 0 : x + 1, y += x == 0) {
        const std::size_t j = order[order_of[v] * k + round], w = at(x, y, j, 1);
        if (w < n && !(taken[v] >> j & 1) && keep(static_cast<std::uint32_t>(v), static_cast<std::uint32_t>(w)))
          add(v, j, w);
      }
  };
  auto joined = [&] { return components == 1; };
  auto full = [&] { return chosen.size() == roads; };
  auto join = [&](std::uint32_t a, std::uint32_t b) {
    const std::uint32_t ra = find(a), rb = find(b);
    if (ra == rb) return false;
    parent[ra] = rb;
    free_slots[rb] += free_slots[ra] - 2;
    --components;
    return true;
  };
  // 1. The spanning tree within the targets, never closing a component off.
  sweep(joined, [&](std::uint32_t a, std::uint32_t b) {
    if (joined() || deg[a] >= want[a] || deg[b] >= want[b]) return false;
    const std::uint32_t ra = find(a), rb = find(b);
    if (ra == rb || (free_slots[ra] + free_slots[rb] == 2 && components > 2)) return false;
    return join(a, b);
  });
  // 2. Components still apart: joined past a target.
  sweep(joined, [&](std::uint32_t a, std::uint32_t b) {
    return !joined() && chosen.size() < roads && deg[a] < kMaxRoadDegree && deg[b] < kMaxRoadDegree && join(a, b);
  });
  // 3. More roads within the targets, the vertices with the most missing first.
  std::array<std::vector<std::uint32_t>, 10> missing;
  for (std::size_t v = 0; v < n; ++v)
    if (deg[v] < want[v]) missing[want[v] - deg[v]].push_back(static_cast<std::uint32_t>(v));
  for (std::size_t m = missing.size() - 1; m >= 1 && !full(); --m)
    for (const std::uint32_t v : missing[m])
      for (std::size_t i = 0; i < 2 * k && deg[v] < want[v] && !full(); ++i) {
        const std::size_t j = order[order_of[v] * k + i % k], w = at(v % width, v / width, j, i < k ? 1 : -1);
        const std::size_t owner = i < k ? v : w;  // the mirrored offset's road is w's
        if (w < n && !(taken[owner] >> j & 1) && deg[w] < want[w]) add(owner, j, owner == v ? w : v);
      }
  // 4. The rest: one end below its target, then any (never past degree 9).
  for (const bool one_below : {true, false})
    sweep(full, [&](std::uint32_t a, std::uint32_t b) {
      return !full() && deg[a] < kMaxRoadDegree && deg[b] < kMaxRoadDegree &&
             (!one_below || deg[a] < want[a] || deg[b] < want[b]);
    });
  if (!joined() || !full())
    throw InputError(fmt::format("road-like graph: {} vertices: placed {} of {} roads in {} components (reach_squared "
                                 "{}); try more vertices or a larger reach",
                                 n, chosen.size(), roads, components, spec.reach_squared));

  std::vector<Edge> both;
  both.reserve(2 * roads);
  for (const auto& [a, b] : chosen) {
    both.emplace_back(a, b);
    both.emplace_back(b, a);
  }
  Graph g = graph_from_edges(n, std::move(both)).graph;
  g.original_id.resize(n);
  for (std::size_t v = 0; v < n; ++v) g.original_id[v] = v;
  g.source = fmt::format("road-like graph: {} vertices, {} directed edges, reach^2 {}, seed {}", n,
                         spec.directed_edges, spec.reach_squared, spec.seed);
  return g;
}

}  // namespace lb::datasets

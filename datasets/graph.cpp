#include "lb/datasets/graph.hpp"

#include <algorithm>
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
// A random graph of roadNet-PA's degree has a diameter of about 20; roads have hundreds of
// BFS levels, and the level count is what drives BFS time. So: vertices on a near-square
// grid (row-major, the last row partial), and
//   - highways: every `highway_spacing`-th vertex of every `highway_spacing`-th row is an
//     interchange, linked to the next interchange right and down (this sets the diameter:
//     about (width + height) / spacing levels); every interchange in an even row and even
//     column of the interchange lattice also gets a diagonal link (a junction of degree up
//     to 4 + 4 + 1 = 9, and no interchange gets two);
//   - local streets: grid edges (right, down) in a seeded random order; first those that
//     join two components (a random spanning forest, so the graph is connected), then more
//     until the edge count is reached. The street edges left out make the dead ends and
//     detours of a real network.
Graph generate_road_like(const RoadLikeSpec& spec) {
  const std::size_t n = spec.vertices, s = spec.highway_spacing;
  if (n < 4) throw InputError(fmt::format("road-like graph: {} vertices; needs at least 4", n));
  if (spec.directed_edges % 2 != 0)
    throw InputError(fmt::format("road-like graph: {} directed edges; roads are listed both ways, so it must be even",
                                 spec.directed_edges));
  if (s < 2) throw InputError("road-like graph: the highway spacing must be at least 2");
  if (n > kMaxIndex) throw InputError(fmt::format("road-like graph: {} vertices; at most {}", n, kMaxIndex));
  std::size_t width = 1;
  while (width * width < n) ++width;
  const std::size_t roads = spec.directed_edges / 2;

  using Edge = std::pair<std::uint32_t, std::uint32_t>;
  std::vector<Edge> chosen, streets;
  auto id = [&](std::size_t x, std::size_t y) { return static_cast<std::uint32_t>(y * width + x); };
  for (std::size_t v = 0; v < n; ++v) {
    const std::size_t x = v % width, y = v / width;
    if (x + 1 < width && v + 1 < n) streets.emplace_back(id(x, y), id(x + 1, y));
    if (v + width < n) streets.emplace_back(id(x, y), id(x, y + 1));
    if (x % s != 0 || y % s != 0) continue;
    if (x + s < width && id(x + s, y) < n) chosen.emplace_back(id(x, y), id(x + s, y));
    if (id(x, y + s) < n) chosen.emplace_back(id(x, y), id(x, y + s));
    if ((x / s) % 2 == 0 && (y / s) % 2 == 0 && x + s < width && id(x + s, y + s) < n)
      chosen.emplace_back(id(x, y), id(x + s, y + s));
  }

  std::vector<std::uint32_t> parent(n);
  for (std::size_t v = 0; v < n; ++v) parent[v] = static_cast<std::uint32_t>(v);
  auto find = [&](std::uint32_t v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  };
  auto join = [&](const Edge& e) {
    const std::uint32_t a = find(e.first), b = find(e.second);
    if (a != b) parent[a] = b;
    return a != b;
  };
  for (const Edge& e : chosen) join(e);
  std::mt19937_64 rng(spec.seed);
  shuffle(streets, rng);
  std::vector<Edge> spare;
  for (const Edge& e : streets) (join(e) ? chosen : spare).push_back(e);
  if (chosen.size() > roads || chosen.size() + spare.size() < roads)
    throw InputError(fmt::format("road-like graph: {} vertices need between {} and {} directed edges (got {})", n,
                                 2 * chosen.size(), 2 * (chosen.size() + spare.size()), spec.directed_edges));
  chosen.insert(chosen.end(), spare.begin(), spare.begin() + static_cast<std::ptrdiff_t>(roads - chosen.size()));

  std::vector<Edge> both;
  both.reserve(2 * roads);
  for (const auto& [a, b] : chosen) {
    both.emplace_back(a, b);
    both.emplace_back(b, a);
  }
  Graph g = graph_from_edges(n, std::move(both)).graph;
  g.original_id.resize(n);
  for (std::size_t v = 0; v < n; ++v) g.original_id[v] = v;
  g.source = fmt::format("road-like graph: {} vertices, {} directed edges, highway spacing {}, seed {}", n,
                         spec.directed_edges, s, spec.seed);
  return g;
}

}  // namespace lb::datasets

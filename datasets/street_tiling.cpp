// A city of copies of one street network (tile_street_network, docs/street-networks.md "Paper
// scale"): copies side by side, joined by two-way streets between core nodes at their borders;
// the cell graph, sinks and controllers recomputed by the loader's own code.

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "lb/datasets/street_network.hpp"
#include "lb/datasets/text.hpp"
#include "street_network_build.hpp"

namespace lb::datasets {
namespace {

constexpr std::uint32_t kNoNode = std::numeric_limits<std::uint32_t>::max();

struct Box {
  double x0 = HUGE_VAL, y0 = HUGE_VAL, x1 = -HUGE_VAL, y1 = -HUGE_VAL;
  void add(double x, double y) {
    x0 = std::min(x0, x), y0 = std::min(y0, y), x1 = std::max(x1, x), y1 = std::max(y1, y);
  }
};

//! The nodes that join one side of a border to the other, per band: `low[b]` the core node of
//! smallest coordinate `along` in band b (across the other coordinate), `high[b]` the largest;
//! kNoNode for a band without core nodes.
struct BorderNodes {
  std::array<std::uint32_t, kJointBands> low, high;
};

//! axis 0: bands over y, extremes of x (borders between columns); axis 1: the other way round.
BorderNodes border_nodes(const StreetNetwork& net, const std::vector<bool>& core, const Box& box, int axis) {
  BorderNodes out;
  out.low.fill(kNoNode);
  out.high.fill(kNoNode);
  const double lo = axis == 0 ? box.y0 : box.x0, span = axis == 0 ? box.y1 - box.y0 : box.x1 - box.x0;
  for (std::uint32_t v = 0; v < net.nodes.size(); ++v) {
    if (!core[v]) continue;
    const auto& n = net.nodes[v];
    const double across = axis == 0 ? n.y : n.x;
    const auto along = [&](std::uint32_t w) { return axis == 0 ? net.nodes[w].x : net.nodes[w].y; };
    const auto band = span > 0 ? std::min<std::size_t>(kJointBands - 1, static_cast<std::size_t>(
                                                                             (across - lo) / span * kJointBands))
                               : 0;
    if (out.low[band] == kNoNode || along(v) < along(out.low[band])) out.low[band] = v;
    if (out.high[band] == kNoNode || along(v) > along(out.high[band])) out.high[band] = v;
  }
  return out;
}

//! The base's largest strongly connected component (the first in node order among equals).
std::vector<bool> core_nodes(const StreetNetwork& net) {
  std::vector<std::uint32_t> component;
  const std::uint32_t count = detail::strong_components(net, component);
  std::vector<std::size_t> size(count, 0);
  for (std::uint32_t c : component) ++size[c];
  std::uint32_t best = 0;
  for (std::uint32_t c : component)
    if (size[c] > size[best]) best = c;
  std::vector<bool> core(net.nodes.size());
  for (std::size_t v = 0; v < core.size(); ++v) core[v] = !component.empty() && component[v] == best;
  return core;
}

//! A joint street's cells: as the loader's rule for an edge of that length.
std::uint32_t joint_cells(double length) {
  return static_cast<std::uint32_t>(std::max(1.0, std::round(length / kCellMetres)));
}

void check_tiling(Tiling tiling) {
  if (tiling.x == 0 || tiling.y == 0 || tiling.x > kMaxTiles || tiling.y > kMaxTiles)
    throw std::invalid_argument(fmt::format("tiling {}x{}: from 1 to {} copies along each axis", tiling.x, tiling.y,
                                            kMaxTiles));
}

}  // namespace

Tiling parse_tiling(std::string_view text) {
  const auto digits = [](std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
  };
  const std::size_t x = text.find('x');
  if (x == std::string_view::npos || !digits(text.substr(0, x)) || !digits(text.substr(x + 1)))
    throw std::invalid_argument(
        fmt::format("{} is not KxL with K and L positive integers (e.g. 8x8)", text::quote(text)));
  Tiling t{0, 0};
  if (!text::parse_size(text.substr(0, x), t.x) || !text::parse_size(text.substr(x + 1), t.y) || t.x == 0 ||
      t.y == 0 || t.x > kMaxTiles || t.y > kMaxTiles)
    throw std::invalid_argument(fmt::format("{}: K and L must lie between 1 and {}", text::quote(text), kMaxTiles));
  return t;
}

StreetNetwork tile_street_network(const StreetNetwork& base, Tiling tiling, const StreetNetworkOptions& options) {
  check_tiling(tiling);
  if (tiling.x == 1 && tiling.y == 1) return base;
  const std::size_t copies = tiling.x * tiling.y, n = base.nodes.size(), m = base.streets.size(),
                    c = base.cells.size();

  Box box;
  for (const auto& v : base.nodes) box.add(v.x, v.y);
  for (const auto& cell : base.cells) box.add(cell.x, cell.y);
  const double px = box.x1 - box.x0 + kTileGapMetres, py = box.y1 - box.y0 + kTileGapMetres;
  const auto shift = [&](std::size_t t) { return std::array<double, 2>{(t % tiling.x) * px, (t / tiling.x) * py}; };

  // The joints of one border of each kind (every border of a kind has the same ones).
  struct Joint {
    std::uint32_t a, b;  //!< base nodes: a in the lower copy, b in the upper (right or above)
    double length;
  };
  const std::vector<bool> core = core_nodes(base);
  std::array<std::vector<Joint>, 2> joints;  // [0]: between columns, [1]: between rows
  for (int axis = 0; axis < 2; ++axis) {
    const BorderNodes ends = border_nodes(base, core, box, axis);
    for (std::size_t band = 0; band < kJointBands; ++band) {
      if (ends.high[band] == kNoNode) continue;
      const auto& a = base.nodes[ends.high[band]];
      const auto& b = base.nodes[ends.low[band]];
      const double dx = b.x + (axis == 0 ? px : 0) - a.x, dy = b.y + (axis == 1 ? py : 0) - a.y;
      joints[axis].push_back({ends.high[band], ends.low[band], std::hypot(dx, dy)});
    }
  }
  const std::uint64_t borders[2] = {(tiling.x - 1) * tiling.y, tiling.x * (tiling.y - 1)};

  // The city's size, checked before anything is allocated.
  unsigned __int128 cells = static_cast<unsigned __int128>(copies) * c, streets = static_cast<unsigned __int128>(copies) * m;
  for (int axis = 0; axis < 2; ++axis)
    for (const Joint& j : joints[axis]) {
      cells += static_cast<unsigned __int128>(borders[axis]) * 2 * joint_cells(j.length);
      streets += static_cast<unsigned __int128>(borders[axis]) * 2;
    }
  const auto big = [](unsigned __int128 v) { return fmt::format("{:.4g}", static_cast<double>(v)); };
  if (cells > options.max_cells)
    throw InputError(fmt::format("{}: tiled {}x{}: {} cells, over the limit of {} cells in all", base.source,
                                 tiling.x, tiling.y, big(cells), options.max_cells));
  constexpr std::uint32_t kMaxIndex = std::numeric_limits<std::uint32_t>::max();
  if (static_cast<unsigned __int128>(copies) * n > kMaxIndex || streets > kMaxIndex)
    throw InputError(fmt::format("{}: tiled {}x{}: {} nodes and {} streets, more than 32-bit indices hold",
                                 base.source, tiling.x, tiling.y, big(static_cast<unsigned __int128>(copies) * n),
                                 big(streets)));

  StreetNetwork net;
  net.source = base.source;
  net.directed = base.directed;
  net.tiles_x = base.tiles_x * tiling.x;
  net.tiles_y = base.tiles_y * tiling.y;
  net.nodes.reserve(copies * n);
  net.streets.reserve(static_cast<std::size_t>(streets));
  net.cells.reserve(static_cast<std::size_t>(cells));
  for (std::size_t t = 0; t < copies; ++t) {
    const auto [dx, dy] = shift(t);
    const std::string suffix = fmt::format("@{},{}", t % tiling.x, t / tiling.x);
    for (const auto& v : base.nodes) net.nodes.push_back({v.id + suffix, v.osmid, v.x + dx, v.y + dy, v.line});
    for (const auto& s : base.streets) {
      StreetNetwork::Street copy = s;
      copy.from += static_cast<std::uint32_t>(t * n);
      copy.to += static_cast<std::uint32_t>(t * n);
      copy.first_cell += static_cast<std::uint32_t>(t * c);
      copy.edge += static_cast<std::uint32_t>(t * base.edges);
      net.streets.push_back(copy);
    }
    for (const auto& cell : base.cells) {
      StreetNetwork::Cell copy = cell;
      copy.x += dx;
      copy.y += dy;
      copy.street += static_cast<std::uint32_t>(t * m);
      net.cells.push_back(copy);
    }
  }
  net.edges = copies * base.edges;
  net.self_loops = copies * base.self_loops;
  net.parallel_edges = copies * base.parallel_edges;

  const std::uint8_t limit = cells_per_step(kJointSpeedMs);
  const auto add_street = [&](std::uint32_t from, std::uint32_t to, double length) {
    const auto street = static_cast<std::uint32_t>(net.streets.size());
    const std::uint32_t count = joint_cells(length);
    net.streets.push_back({from, to, static_cast<std::uint32_t>(net.cells.size()), count,
                           static_cast<std::uint32_t>(net.edges++), length, limit, kJointStreetType, SpeedSource::fallback, true, true});
    const auto& a = net.nodes[from];
    const auto& b = net.nodes[to];
    detail::place_cells({{a.x, a.y}, {b.x, b.y}}, count, street, limit, kJointStreetType, net.cells);
  };
  for (int axis = 0; axis < 2; ++axis)
    for (std::size_t j = 0; j + (axis == 1) < tiling.y; ++j)
      for (std::size_t i = 0; i + (axis == 0) < tiling.x; ++i) {
        const std::size_t lower = j * tiling.x + i, upper = axis == 0 ? lower + 1 : lower + tiling.x;
        for (const Joint& joint : joints[axis]) {
          const auto a = static_cast<std::uint32_t>(lower * n + joint.a), b = static_cast<std::uint32_t>(upper * n + joint.b);
          add_street(a, b, joint.length);
          add_street(b, a, joint.length);
        }
      }
  detail::connect_streets(net, options);
  return net;
}

StreetNetwork load_street_network(const std::string& path, Tiling tiling, const StreetNetworkOptions& options) {
  check_tiling(tiling);
  StreetNetwork base = load_osmnx_graphml(path, options);
  if (tiling.x == 1 && tiling.y == 1) return base;
  return tile_street_network(base, tiling, options);
}

}  // namespace lb::datasets

// A city of copies of one street network (datasets/street_tiling.cpp, docs/street-networks.md
// "Paper scale"): a hand-made network tiled 2 × 2 with every count, joint, id, coordinate and
// controller worked out by hand, connectivity checked by a search of our own, 1 × 1 as the
// identity, the tiling's text form and limits, lower Manhattan 2 × 2, load_network, and the
// CPU reference on a tiled network.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

#include "lb/datasets/street_network.hpp"
#include "lb/traffic/load_network.hpp"
#include "lb/traffic/simulation.hpp"
#include "temp_files.hpp"

namespace {

using namespace lb::datasets;

// A square of two-way streets, 100 m a side (nodes 1 (0, 0), 2 (100, 0), 3 (100, 100),
// 4 (0, 100); the bottom 1-2 primary, the others residential), and a one-way street of 64 m from
// 2 to the dead end 5 (140, 50). Streets (edge order, each edge's two directions): 1>2, 2>1,
// 2>3, 3>2, 3>4, 4>3, 4>1, 1>4 (25 cells each), 2>5 (16 cells, a sink): 216 cells. Controllers:
// yield at 1 (2>1 primary first) and at 2 (1>2 first), lights at 3 and 4, none at 5: 8 groups.
// The core (largest strong component) is 1-4. Bounding box x 0..140, y 0..100, so a copy is
// 240 m right of or 200 m above its neighbour. Joints between columns (y bands of 25 m): band 0
// joins 2 (largest x) to the right copy's 1 (smallest x), band 3 joins 3 to the right copy's 4,
// each 140 m (35 cells); between rows (x bands of 35 m): band 0 joins 4 (largest y) to the copy
// above's 1, band 2 joins 3 to the copy above's 2, each 100 m (25 cells).
constexpr const char* kSquare = R"(<?xml version='1.0' encoding='utf-8'?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="crs" for="graph" attr.name="crs" attr.type="string"/>
  <key id="x" for="node" attr.name="x" attr.type="double"/>
  <key id="y" for="node" attr.name="y" attr.type="double"/>
  <key id="len" for="edge" attr.name="length" attr.type="double"/>
  <key id="hw" for="edge" attr.name="highway" attr.type="string"/>
  <key id="ow" for="edge" attr.name="oneway" attr.type="boolean"/>
  <graph edgedefault="undirected">
    <data key="crs">epsg:32618</data>
    <node id="1"><data key="x">0</data><data key="y">0</data></node>
    <node id="2"><data key="x">100</data><data key="y">0</data></node>
    <node id="3"><data key="x">100</data><data key="y">100</data></node>
    <node id="4"><data key="x">0</data><data key="y">100</data></node>
    <node id="5"><data key="x">140</data><data key="y">50</data></node>
    <edge source="1" target="2"><data key="len">100</data><data key="hw">primary</data></edge>
    <edge source="2" target="3"><data key="len">100</data><data key="hw">residential</data></edge>
    <edge source="3" target="4"><data key="len">100</data><data key="hw">residential</data></edge>
    <edge source="4" target="1"><data key="len">100</data><data key="hw">residential</data></edge>
    <edge source="2" target="5"><data key="len">64</data><data key="hw">residential</data><data key="ow">true</data></edge>
  </graph>
</graphml>
)";

class StreetTiling : public TempFilesTest {
 protected:
  StreetNetwork square() { return load_osmnx_graphml(write("square.graphml", kSquare)); }
};

std::uint32_t node_named(const StreetNetwork& net, const std::string& id) {
  for (std::uint32_t v = 0; v < net.nodes.size(); ++v)
    if (net.nodes[v].id == id) return v;
  ADD_FAILURE() << "no node " << id;
  return 0;
}

//! The nodes reached from `from` along streets (backward: against them), by a search of our own.
std::size_t reached(const StreetNetwork& net, std::uint32_t from, bool backward) {
  std::vector<bool> seen(net.nodes.size(), false);
  std::vector<std::uint32_t> todo{from};
  seen[from] = true;
  std::size_t count = 1;
  while (!todo.empty()) {
    const std::uint32_t v = todo.back();
    todo.pop_back();
    for (const auto& s : net.streets) {
      const std::uint32_t a = backward ? s.to : s.from, b = backward ? s.from : s.to;
      if (a == v && !seen[b]) seen[b] = true, ++count, todo.push_back(b);
    }
  }
  return count;
}

//! The controller at a node: its kind and the street types of its groups in order ("" if none).
std::string controller_at(const StreetNetwork& net, std::uint32_t node) {
  for (const auto& c : net.controllers) {
    if (c.node != node) continue;
    std::string text = c.kind == ControllerKind::yield ? "yield" : "light";
    for (std::uint32_t g = c.first_group; g < c.first_group + c.groups; ++g)
      text += fmt::format(" {}{}", to_string(net.streets[net.groups[g].street].type),
                          net.streets[net.groups[g].street].joint ? "*" : "");
    return text;
  }
  return "";
}

TEST_F(StreetTiling, TwoByTwoOfAHandMadeNetwork) {
  const StreetNetwork base = square();
  ASSERT_EQ(base.cells.size(), 216u);
  ASSERT_EQ(base.controllers.size(), 4u);
  const StreetNetwork city = tile_street_network(base, {2, 2});

  // Counts: 4 copies, 8 joints (2 per border, 4 borders) of two streets each.
  ASSERT_EQ(city.nodes.size(), 20u);
  ASSERT_EQ(city.streets.size(), 4 * 9 + 16u);
  EXPECT_EQ(city.edges, 4 * 5 + 16u);  // the file's 5 undirected edges a copy, and one per joint street
  ASSERT_EQ(city.cells.size(), 4 * 216 + 2 * 2 * 2 * 35 + 2 * 2 * 2 * 25u);
  EXPECT_EQ(city.tiles_x, 2u);
  EXPECT_EQ(city.tiles_y, 2u);
  const StreetNetworkStats s = street_network_stats(city);
  EXPECT_EQ(s.joint_streets, 16u);
  EXPECT_EQ(s.sink_cells, 4u);
  EXPECT_EQ(s.components, 1u);
  EXPECT_EQ(s.largest_component, 20u);
  EXPECT_EQ(s.strong_components, 5u);  // the core of every copy together, and each copy's dead end
  EXPECT_EQ(s.largest_strong_component, 16u);
  // Connectivity by our own search: every node is reached from a core node, and every node but
  // the four dead ends reaches it.
  EXPECT_EQ(reached(city, node_named(city, "1@0,0"), false), 20u);
  EXPECT_EQ(reached(city, node_named(city, "1@0,0"), true), 16u);

  // Ids: unique, "<id>@i,j"; coordinates shifted by (240 i, 200 j).
  std::set<std::string> ids;
  for (const auto& n : city.nodes) ids.insert(n.id);
  EXPECT_EQ(ids.size(), 20u);
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 2; ++j)
      for (std::uint32_t v = 0; v < 5; ++v) {
        const auto& n = city.nodes[(j * 2 + i) * 5 + v];
        EXPECT_EQ(n.id, fmt::format("{}@{},{}", v + 1, i, j));
        EXPECT_DOUBLE_EQ(n.x, base.nodes[v].x + 240.0 * i);
        EXPECT_DOUBLE_EQ(n.y, base.nodes[v].y + 200.0 * j);
      }
  for (std::size_t c = 0; c < base.cells.size(); ++c) {  // copy (1, 1)'s cells
    const auto& a = base.cells[c];
    const auto& b = city.cells[3 * 216 + c];
    EXPECT_DOUBLE_EQ(b.x, a.x + 240);
    EXPECT_DOUBLE_EQ(b.y, a.y + 200);
    EXPECT_EQ(b.street, a.street + 3 * 9);
    EXPECT_EQ(b.sink, a.sink);
  }

  // The joint streets, in border order: columns row by row, then rows; each two-way.
  const auto joint = [&](std::size_t k) { return city.streets[36 + k]; };
  const auto name = [&](std::uint32_t v) { return city.nodes[v].id; };
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"2@0,0", "1@1,0"}, {"3@0,0", "4@1,0"}, {"2@0,1", "1@1,1"}, {"3@0,1", "4@1,1"},
      {"4@0,0", "1@0,1"}, {"3@0,0", "2@0,1"}, {"4@1,0", "1@1,1"}, {"3@1,0", "2@1,1"}};
  for (std::size_t k = 0; k < expected.size(); ++k) {
    const auto there = joint(2 * k), back = joint(2 * k + 1);
    EXPECT_EQ(name(there.from), expected[k].first) << k;
    EXPECT_EQ(name(there.to), expected[k].second) << k;
    EXPECT_EQ(back.from, there.to);
    EXPECT_EQ(back.to, there.from);
    const double length = k < 4 ? 140 : 100;
    for (const auto& st : {there, back}) {
      EXPECT_TRUE(st.joint);
      EXPECT_DOUBLE_EQ(st.length, length);
      EXPECT_EQ(st.cells, static_cast<std::uint32_t>(length / 4));
      EXPECT_EQ(st.speed_limit, 6);
      EXPECT_EQ(st.type, StreetType::residential);
      EXPECT_FALSE(city.cells[st.first_cell + st.cells - 1].sink);
    }
  }

  // Controllers, recomputed for the city: where joints arrive, yields become lights.
  const std::map<std::string, std::string> controllers = {
      {"1@0,0", "yield primary residential"},
      {"1@1,0", "light primary residential residential*"},
      {"1@0,1", "light primary residential residential*"},
      {"1@1,1", "light primary residential residential* residential*"},
      {"2@0,0", "light primary residential residential*"},
      {"2@1,0", "yield primary residential"},
      {"2@1,1", "light primary residential residential*"},
      {"3@0,0", "light residential residential residential* residential*"},
      {"3@1,1", "light residential residential"},
      {"4@1,0", "light residential residential residential* residential*"},
      {"5@0,0", ""}};
  for (const auto& [node, text] : controllers) EXPECT_EQ(controller_at(city, node_named(city, node)), text) << node;
  EXPECT_EQ(s.yield_controllers, 2u);
  EXPECT_EQ(s.lights, 14u);
  EXPECT_EQ(s.signal_groups, 48u);  // every street but those into the dead ends
  EXPECT_NE(describe(s).find("tiled: 2 x 2 copies of the file's network, joined by 16 joint streets"),
            std::string::npos)
      << describe(s);
}

TEST_F(StreetTiling, OneByOneIsTheIdentity) {
  const StreetNetwork base = square();
  const StreetNetwork same = tile_street_network(base, {1, 1});
  ASSERT_EQ(same.nodes.size(), base.nodes.size());
  for (std::size_t v = 0; v < base.nodes.size(); ++v) {
    EXPECT_EQ(same.nodes[v].id, base.nodes[v].id);
    EXPECT_EQ(same.nodes[v].x, base.nodes[v].x);
    EXPECT_EQ(same.nodes[v].y, base.nodes[v].y);
  }
  ASSERT_EQ(same.cells.size(), base.cells.size());
  for (std::size_t c = 0; c < base.cells.size(); ++c) {
    EXPECT_EQ(same.cells[c].x, base.cells[c].x);
    EXPECT_EQ(same.cells[c].y, base.cells[c].y);
    EXPECT_EQ(same.cells[c].sink, base.cells[c].sink);
  }
  EXPECT_EQ(same.out_cells, base.out_cells);
  EXPECT_EQ(same.in_cells, base.in_cells);
  EXPECT_EQ(same.streets.size(), base.streets.size());
  EXPECT_EQ(same.groups.size(), base.groups.size());
  EXPECT_EQ(describe(street_network_stats(same)), describe(street_network_stats(base)));
}

TEST_F(StreetTiling, TwoByOneRunsTheCpuReferenceWithItsInvariants) {
  const std::string path = write("square.graphml", kSquare);
  lb::traffic::NetworkInfo info;
  const lb::traffic::Network net = lb::traffic::load_network(path, 2, 1, &info);
  // 2 copies and one border of 2 joints (35 cells each way).
  EXPECT_EQ(net.cells.size(), 2 * 216 + 2 * 2 * 35u);
  EXPECT_EQ(info.streets.cells, net.cells.size());
  EXPECT_EQ(info.streets.joint_streets, 4u);
  EXPECT_EQ(info.streets.components, 1u);
  lb::traffic::State ascending = lb::traffic::initial_state(net, 60, 7), descending = ascending, parallel = ascending;
  for (int step = 0; step < 20; ++step) {
    lb::traffic::reference_step(net, ascending);
    lb::traffic::reference_step(net, descending, lb::traffic::Order::descending);
    lb::traffic::reference_step_parallel(net, parallel, 4, 1);
    ASSERT_EQ(lb::traffic::check_invariants(net, ascending), "") << "after step " << step + 1;
  }
  EXPECT_EQ(lb::traffic::checksum(ascending), lb::traffic::checksum(descending));
  EXPECT_EQ(lb::traffic::checksum(ascending), lb::traffic::checksum(parallel));
  // Cars moved: some cell of the second copy or a joint is occupied at the end, or was passed.
  std::size_t moving = 0;
  for (const auto& car : ascending.cars) moving += car.velocity > 0;
  EXPECT_GT(moving, 0u);
}

TEST(StreetTilingText, KxL) {
  const Tiling t = parse_tiling("9x8");
  EXPECT_EQ(t.x, 9u);
  EXPECT_EQ(t.y, 8u);
  EXPECT_EQ(parse_tiling("1x65536").y, 65536u);
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"3x", "'3x' is not KxL with K and L positive integers (e.g. 8x8)"},
      {"x3", "'x3' is not KxL with K and L positive integers (e.g. 8x8)"},
      {"3", "'3' is not KxL with K and L positive integers (e.g. 8x8)"},
      {"3X3", "'3X3' is not KxL with K and L positive integers (e.g. 8x8)"},
      {"3x3x3", "'3x3x3' is not KxL with K and L positive integers (e.g. 8x8)"},
      {"-1x3", "'-1x3' is not KxL with K and L positive integers (e.g. 8x8)"},
      {" 3x3", "' 3x3' is not KxL with K and L positive integers (e.g. 8x8)"},
      {"0x3", "'0x3': K and L must lie between 1 and 65536"},
      {"3x0", "'3x0': K and L must lie between 1 and 65536"},
      {"65537x1", "'65537x1': K and L must lie between 1 and 65536"},
      {"99999999999999999999999x1", "'99999999999999999999999x1': K and L must lie between 1 and 65536"}};
  for (const auto& [text, message] : bad) {
    try {
      parse_tiling(text);
      ADD_FAILURE() << text << " parsed";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(e.what(), message);
    }
  }
}

TEST_F(StreetTiling, ZeroCopiesAndTooLargeCitiesAreRefused) {
  const StreetNetwork base = square();
  EXPECT_THROW(tile_street_network(base, {0, 2}), std::invalid_argument);
  EXPECT_THROW(tile_street_network(base, {2, 0}), std::invalid_argument);
  EXPECT_THROW(tile_street_network(base, {kMaxTiles + 1, 1}), std::invalid_argument);
  EXPECT_THROW(tile_street_network(base, {std::size_t{1} << 33, std::size_t{1} << 33}), std::invalid_argument);
  StreetNetworkOptions small;
  small.max_cells = 4 * 216 + 479;  // one cell short of the 2 × 2 city
  try {
    tile_street_network(base, {2, 2}, small);
    ADD_FAILURE() << "a city over the limit was built";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), base.source + ": tiled 2x2: 1344 cells, over the limit of 1343 cells in all");
  }
  small.max_cells = 4 * 216 + 480;
  EXPECT_EQ(tile_street_network(base, {2, 2}, small).cells.size(), 1344u);
  // The largest tiling is refused by its size, before anything is allocated.
  EXPECT_THROW(tile_street_network(base, {kMaxTiles, kMaxTiles}), InputError);
}

// Lower Manhattan's strong components and its core's nodes, and the cells of the 32 joint
// streets of its 2 × 2 city (each max(1, round(length / 4 m)), checked street by street below).
constexpr std::size_t kManhattanStrong = 82, kManhattanCore = 2113, kManhattanJointCells = 8660;

TEST(SharedDatasets, LowerManhattanTwoByTwo) {
  const std::string path = std::string(LB_SHARED_DATASETS) + "/lowermanhattan.graphml";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "shared datasets not present: " << path;
  const StreetNetwork base = load_osmnx_graphml(path);
  const StreetNetwork city = tile_street_network(base, {2, 2});
  const StreetNetworkStats b = street_network_stats(base), s = street_network_stats(city);
  // The base: one weak component; its core (largest strong component) and the nodes outside it.
  EXPECT_EQ(b.components, 1u);
  EXPECT_EQ(b.strong_components, kManhattanStrong);
  EXPECT_EQ(b.largest_strong_component, kManhattanCore);
  // 4 copies, and 4 joints on each of the 2 borders between columns and 4 on each of the 2
  // between rows: 16 joints, 32 streets.
  EXPECT_EQ(s.nodes, 4 * b.nodes);
  EXPECT_EQ(s.joint_streets, 32u);
  EXPECT_EQ(s.streets, 4 * b.streets + 32);
  EXPECT_EQ(s.edges, 4 * b.edges + 32);
  std::size_t joint_cells = 0;
  for (const auto& st : city.streets) {
    if (!st.joint) continue;
    joint_cells += st.cells;
    EXPECT_EQ(st.cells, std::max<long>(1, std::lround(st.length / 4)));
  }
  EXPECT_EQ(joint_cells, kManhattanJointCells);
  EXPECT_EQ(s.cells, 4 * b.cells + joint_cells);
  EXPECT_EQ(s.sink_cells, 4 * b.sink_cells);
  EXPECT_EQ(s.components, 1u);
  EXPECT_EQ(s.strong_components, 4 * (b.strong_components - 1) + 1);
  EXPECT_EQ(s.largest_strong_component, 4 * b.largest_strong_component);
  // A joint adds a signal group where it arrives; a node that had one incoming street (no
  // controller) gains a controller of 2 groups, its old street's among them.
  std::size_t had_one = 0;
  std::vector<std::uint32_t> incoming(base.nodes.size(), 0);
  for (const auto& st : base.streets) ++incoming[st.to];
  for (const auto& st : city.streets) had_one += st.joint && incoming[st.to % base.nodes.size()] == 1;
  EXPECT_EQ(had_one, 16u);
  EXPECT_EQ(s.signal_groups, 4 * b.signal_groups + 32 + had_one);
  EXPECT_EQ(s.signal_groups, 16652u);
  EXPECT_EQ(s.lights + s.yield_controllers, 4 * (b.lights + b.yield_controllers) + had_one);
}

}  // namespace

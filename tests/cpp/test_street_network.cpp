// The OSMnx GraphML loader (datasets/street_network.cpp, docs/street-networks.md): the shared
// lower Manhattan file against statistics computed independently, small hand-written networks
// in both key styles (speed limits, street types, one-way and two-way, controllers, sinks,
// self-loops, parallel edges, several components, no dead ends) and one exact error per
// malformed file.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "lb/datasets/street_network.hpp"
#include "temp_files.hpp"

namespace {

using namespace lb::datasets;
namespace fs = std::filesystem;
using Network = StreetNetwork;

std::map<int, std::size_t> streets_per_speed_limit(const Network& net) {
  std::map<int, std::size_t> out;
  for (const auto& s : net.streets) ++out[s.speed_limit];
  return out;
}

TEST(SharedDatasets, LowerManhattanGraphmlLoadsWithItsStatistics) {
  const std::string path = std::string(LB_SHARED_DATASETS) + "/lowermanhattan.graphml";
  if (!fs::exists(path)) GTEST_SKIP() << "shared datasets not present: " << path;
  const Network net = load_osmnx_graphml(path);
  const StreetNetworkStats s = street_network_stats(net);
  // Computed independently (xml.etree and the rules written again in Python):
  //   python3 datasets/street_network_stats.py ../shared/datasets/lowermanhattan.graphml
  // The dataset README's counts: 2,196 nodes, 4,536 edges; the authors' rules give ~124k cells.
  EXPECT_EQ(s.nodes, 2196u);
  EXPECT_EQ(s.edges, 4536u);
  EXPECT_EQ(s.self_loops, 9u);
  EXPECT_EQ(s.parallel_edges, 88u);
  EXPECT_EQ(s.streets, 4536u);  // a directed graph: one street an edge (two-way streets are two edges)
  EXPECT_EQ(s.cells, 123696u);
  EXPECT_NEAR(s.length_m, 494685.482, 0.01);
  EXPECT_EQ(s.lights, 992u);
  EXPECT_EQ(s.yield_controllers, 806u);
  EXPECT_EQ(s.signal_groups, 4151u);
  EXPECT_EQ(s.sink_cells, 29u);
  EXPECT_EQ(s.sink_nodes, 15u);
  EXPECT_EQ(s.components, 1u);
  EXPECT_EQ(s.largest_component, 2196u);
  EXPECT_EQ(s.isolated_nodes, 0u);
  EXPECT_EQ(s.max_cell_in, 6u);
  EXPECT_EQ(s.max_cell_out, 6u);
  EXPECT_EQ(s.speed_from_file, 3490u);
  EXPECT_EQ(s.speed_from_highway, 1044u);  // kHighwaySpeeds
  EXPECT_EQ(s.speed_default, 2u);          // highway "elevator", no maxspeed
  EXPECT_EQ(s.unknown_highway, 4u);
  EXPECT_EQ(streets_per_speed_limit(net), (std::map<int, std::size_t>{
                                              {1, 1}, {2, 4}, {4, 227}, {5, 3614}, {6, 316}, {7, 321}, {8, 33}, {12, 20}}));
  // Cells lie within the bounding box of the nodes and geometry points, projected as the loader
  // does (computed in Python: x -18.1 to 5033.5 m, y -42.1 to 6412.7 m).
  for (const auto& c : net.cells) {
    ASSERT_GE(c.x, -18.2);
    ASSERT_LE(c.x, 5033.6);
    ASSERT_GE(c.y, -42.1);
    ASSERT_LE(c.y, 6412.7);
  }
  EXPECT_NE(describe(s).find("992 traffic lights, 806 yield controllers, 4151 signal groups"), std::string::npos)
      << describe(s);
}

TEST(StreetNetworkRules, MaxspeedForms) {
  EXPECT_NEAR(parse_maxspeed("25 mph"), 25 * 0.44704, 1e-9);
  EXPECT_NEAR(parse_maxspeed("50"), 50 / 3.6, 1e-9);  // bare numbers: km/h
  EXPECT_NEAR(parse_maxspeed("50 km/h"), 50 / 3.6, 1e-9);
  EXPECT_NEAR(parse_maxspeed("30 kph"), 30 / 3.6, 1e-9);
  EXPECT_NEAR(parse_maxspeed("10 knots"), 18.52 / 3.6, 1e-9);
  EXPECT_NEAR(parse_maxspeed("['40 mph', '35 mph']"), 40 * 0.44704, 1e-9);  // a list: the largest
  EXPECT_NEAR(parse_maxspeed("['25 mph', 'signals']"), 25 * 0.44704, 1e-9);
  EXPECT_NEAR(parse_maxspeed("30;50"), 50 / 3.6, 1e-9);
  for (const char* none : {"", "signals", "none", "RU:urban", "0", "301", "50 furlongs", "-30", "mph"})
    EXPECT_EQ(parse_maxspeed(none), 0.0) << none;
  EXPECT_EQ(cells_per_step(kDefaultSpeedMs), 6);
  EXPECT_EQ(cells_per_step(parse_maxspeed("25 mph")), 5);
  EXPECT_EQ(cells_per_step(parse_maxspeed("36")), 5);  // exactly 10 m/s
  EXPECT_EQ(cells_per_step(parse_maxspeed("5 mph")), 1);
  EXPECT_EQ(cells_per_step(0.5), 1);  // at least one cell a step
}

TEST(StreetNetworkRules, HighwaySpeeds) {
  const double mph = kMetresPerSecondPerMph;
  EXPECT_NEAR(highway_speed("residential"), 25 * mph, 1e-9);
  EXPECT_NEAR(highway_speed("Motorway"), 55 * mph, 1e-9);        // compared without case
  EXPECT_NEAR(highway_speed("primary_link"), 25 * mph, 1e-9);    // the whole value: not primary's
  EXPECT_NEAR(highway_speed("['residential', 'primary']"), 35 * mph, 1e-9);  // a list: the fastest
  EXPECT_NEAR(highway_speed("['elevator', 'service']"), 15 * mph, 1e-9);     // entries it lacks are skipped
  for (const char* none : {"", "elevator", "road", "['busway', 'road']", "residential_link"})
    EXPECT_EQ(highway_speed(none), 0.0) << none;
  EXPECT_EQ(cells_per_step(highway_speed("motorway")), 12);
  EXPECT_EQ(cells_per_step(highway_speed("living_street")), 2);
}

TEST(StreetNetworkRules, HighwayTypes) {
  bool known = false;
  EXPECT_EQ(parse_highway("residential", known), StreetType::residential);
  EXPECT_TRUE(known);
  EXPECT_EQ(parse_highway("primary_link", known), StreetType::primary);
  EXPECT_EQ(parse_highway("['residential', 'unclassified']", known), StreetType::unclassified);
  EXPECT_EQ(parse_highway("['motorway_link', 'secondary_link']", known), StreetType::motorway);
  EXPECT_EQ(parse_highway("['service', 'elevator']", known), StreetType::service);
  EXPECT_TRUE(known);
  for (const char* unknown : {"living_street", "elevator", "", "['road', 'busway']"}) {
    EXPECT_EQ(parse_highway(unknown, known), kDefaultStreetType) << unknown;
    EXPECT_FALSE(known) << unknown;
  }
}

//! How a GraphML file declares its keys and writes an edge's multigraph key.
struct KeyStyle {
  const char* name;
  std::string header;  //!< up to and including <graph ...>
  bool key_as_data;    //!< the multigraph key in <data> (else the edge's id attribute)
};

//! OSMnx 0.x (networkx 2.1): attributes sorted, keys listed last to first, all strings.
const KeyStyle kOldStyle{"old", R"(<?xml version='1.0' encoding='utf-8'?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <key attr.name="geometry" attr.type="string" for="edge" id="d15" />
  <key attr.name="length" attr.type="string" for="edge" id="d14" />
  <key attr.name="maxspeed" attr.type="string" for="edge" id="d13" />
  <key attr.name="highway" attr.type="string" for="edge" id="d12" />
  <key attr.name="oneway" attr.type="string" for="edge" id="d10" />
  <key attr.name="osmid" attr.type="string" for="node" id="d6" />
  <key attr.name="x" attr.type="string" for="node" id="d5" />
  <key attr.name="y" attr.type="string" for="node" id="d4" />
  <key attr.name="crs" attr.type="string" for="graph" id="d1" />
  <graph edgedefault="directed">
    <data key="d1">{'init': 'epsg:4326'}</data>
)",
                         false};

//! Later networkx (OSMnx 1.x and 2.x): keys in declaration order with typed values, the
//! multigraph key and u, v as edge data, ids of other names.
const KeyStyle kNewStyle{"new", R"(<?xml version='1.0' encoding='utf-8'?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
<key id="crs" for="graph" attr.name="crs" attr.type="string"/>
<key id="n_y" for="node" attr.name="y" attr.type="double"/>
<key id="n_x" for="node" attr.name="x" attr.type="double"/>
<key id="n_osmid" for="node" attr.name="osmid" attr.type="long"/>
<key id="e_u" for="edge" attr.name="u" attr.type="long"/>
<key id="e_v" for="edge" attr.name="v" attr.type="long"/>
<key id="e_key" for="edge" attr.name="key" attr.type="long"/>
<key id="e_oneway" for="edge" attr.name="oneway" attr.type="boolean"/>
<key id="e_highway" for="edge" attr.name="highway" attr.type="string"/>
<key id="e_maxspeed" for="edge" attr.name="maxspeed" attr.type="string"/>
<key id="e_length" for="edge" attr.name="length" attr.type="double"/>
<key id="e_geometry" for="edge" attr.name="geometry" attr.type="string"/>
<graph edgedefault="directed"><data key="crs">epsg:4326</data>
)",
                         true};

//! A small network in one key style, written element by element.
class Fixture {
 public:
  explicit Fixture(const KeyStyle& style) : style_(style), text_(style.header) {}
  Fixture& node(const std::string& id, double lon, double lat) {
    const bool old = !style_.key_as_data;
    text_ += fmt::format(
                 R"(    <node id="{}"><data key="{}">{}</data><data key="{}">{}</data><data key="{}">{}</data></node>)",
                 id, old ? "d4" : "n_y", lat, old ? "d5" : "n_x", lon, old ? "d6" : "n_osmid", 1000 + nodes_++) +
             "\n";
    return *this;
  }
  //! An edge; fields named oneway, length, highway, maxspeed, geometry are written when given.
  Fixture& edge(const std::string& u, const std::string& v, int key, const std::map<std::string, std::string>& fields) {
    static const std::map<std::string, std::pair<const char*, const char*>> ids = {{"oneway", {"d10", "e_oneway"}},
                                                                                   {"length", {"d14", "e_length"}},
                                                                                   {"highway", {"d12", "e_highway"}},
                                                                                   {"maxspeed", {"d13", "e_maxspeed"}},
                                                                                   {"geometry", {"d15", "e_geometry"}}};
    const bool data_key = style_.key_as_data;
    text_ +=
        data_key
            ? fmt::format(
                  R"(    <edge source="{0}" target="{1}"><data key="e_u">{0}</data><data key="e_v">{1}</data><data key="e_key">{2}</data>)",
                  u, v, key)
            : fmt::format(R"(    <edge id="{}" source="{}" target="{}">)", key, u, v);
    for (const auto& [name, value] : fields) {
      std::string v2 = value;
      if (data_key && name == "oneway") v2 = value == "True" ? "true" : "false";  // networkx's booleans
      text_ += fmt::format(R"(<data key="{}">{}</data>)", data_key ? ids.at(name).second : ids.at(name).first, v2);
    }
    text_ += "</edge>\n";
    return *this;
  }
  std::string text() const { return text_ + "  </graph>\n</graphml>\n"; }

 private:
  const KeyStyle& style_;
  std::string text_;
  int nodes_ = 0;
};

class StreetNetworkFile : public TempFilesTest, public ::testing::WithParamInterface<const KeyStyle*> {
 protected:
  Network load(const Fixture& f, const StreetNetworkOptions& o = {}) {
    return load_osmnx_graphml(write(std::string(GetParam()->name) + ".graphml", f.text()), o);
  }
  Fixture fixture() const { return Fixture(*GetParam()); }
};

//! The street index of the edge u -> v (node ids) with `cells` cells, or -1.
int street(const Network& net, const std::string& u, const std::string& v) {
  for (std::size_t s = 0; s < net.streets.size(); ++s)
    if (net.nodes[net.streets[s].from].id == u && net.nodes[net.streets[s].to].id == v) return static_cast<int>(s);
  return -1;
}

// A: (0, 0); B 0.001 degrees east (~111 m); C 0.002 east; D north of B; E south of B; G north-east.
// Edges: A->B residential 25 mph; D->B primary ['40 mph', '35 mph']; B->C, C->B secondary 50 (km/h)
// and "50 km/h"; G->C tertiary without maxspeed; B->E without length, highway, maxspeed, geometry.
// B: 3 incoming streets -> a traffic light; C: 2 incoming of different types -> a yield controller
// (B->C, secondary, first); E: no outgoing street -> a sink; A, D, G: no incoming -> nothing.
Fixture intersection(Fixture f) {
  return f.node("A", 0, 0)
      .node("B", 0.001, 0)
      .node("C", 0.002, 0)
      .node("D", 0.001, 0.001)
      .node("E", 0.001, -0.001)
      .node("G", 0.003, 0.001)
      .edge("A", "B", 0,
            {{"oneway", "True"},
             {"length", "100.0"},
             {"highway", "residential"},
             {"maxspeed", "25 mph"},
             {"geometry", "LINESTRING (0 0, 0.0005 0, 0.001 0)"}})
      .edge("D", "B", 0,
            {{"oneway", "True"}, {"length", "111.2"}, {"highway", "primary"}, {"maxspeed", "['40 mph', '35 mph']"}})
      .edge("B", "C", 0, {{"oneway", "False"}, {"length", "10"}, {"highway", "secondary"}, {"maxspeed", "50"}})
      .edge("C", "B", 0, {{"oneway", "False"}, {"length", "9.9"}, {"highway", "secondary"}, {"maxspeed", "50 km/h"}})
      .edge("G", "C", 0, {{"length", "20"}, {"highway", "['tertiary', 'residential']"}})
      .edge("B", "E", 0, {});
}

TEST_P(StreetNetworkFile, StreetsCellsAndControllers) {
  const Network net = load(intersection(fixture()));
  ASSERT_EQ(net.nodes.size(), 6u);
  ASSERT_EQ(net.streets.size(), 6u);  // directed: one street an edge, oneway or not
  const auto& ab = net.streets[street(net, "A", "B")];
  EXPECT_EQ(ab.cells, 25u);  // 100 m / 4 m
  EXPECT_EQ(ab.speed_limit, 5);
  EXPECT_EQ(ab.type, StreetType::residential);
  const auto& db = net.streets[street(net, "D", "B")];
  EXPECT_EQ(db.cells, 28u);                                 // 27.8 rounded
  EXPECT_EQ(db.speed_limit, 8);                             // 40 mph: 17.9 m/s
  EXPECT_EQ(net.streets[street(net, "B", "C")].cells, 3u);  // 2.5 rounds up
  EXPECT_EQ(net.streets[street(net, "B", "C")].speed_limit, 6);
  EXPECT_EQ(net.streets[street(net, "C", "B")].cells, 2u);  // 2.475
  EXPECT_EQ(net.streets[street(net, "C", "B")].speed_limit, 6);
  const auto& gc = net.streets[street(net, "G", "C")];
  EXPECT_EQ(gc.type, StreetType::tertiary);
  EXPECT_EQ(gc.speed_source, SpeedSource::highway);
  EXPECT_EQ(gc.speed_limit, 5);                         // tertiary and residential: 25 mph
  EXPECT_EQ(ab.speed_source, SpeedSource::maxspeed);
  const auto& be = net.streets[street(net, "B", "E")];  // no fields: from the coordinates
  EXPECT_EQ(be.speed_source, SpeedSource::fallback);
  EXPECT_EQ(be.speed_limit, 6);  // no highway: the default, 13.8 m/s
  EXPECT_NEAR(be.length, 111.19, 0.05);
  EXPECT_EQ(be.cells, 28u);
  EXPECT_EQ(be.type, kDefaultStreetType);
  EXPECT_FALSE(be.type_known);

  // Cells: centres along the geometry, metres from the south-west corner (E is at y = 0).
  const auto& first = net.cells[ab.first_cell];
  EXPECT_NEAR(first.x, 2.22, 0.01);  // 111.19 m / 25 cells / 2
  EXPECT_NEAR(first.y, 111.19, 0.05);
  EXPECT_EQ(first.street, static_cast<std::uint32_t>(street(net, "A", "B")));
  EXPECT_EQ(net.out_cells[net.out_offsets[ab.first_cell]], ab.first_cell + 1);
  // The last cell of A->B leads to the first cells of B->C and B->E.
  const std::uint32_t last_ab = ab.first_cell + ab.cells - 1;
  ASSERT_EQ(net.out_offsets[last_ab + 1] - net.out_offsets[last_ab], 2u);
  EXPECT_EQ(net.out_cells[net.out_offsets[last_ab]], net.streets[street(net, "B", "C")].first_cell);
  EXPECT_EQ(net.out_cells[net.out_offsets[last_ab] + 1], be.first_cell);
  EXPECT_TRUE(net.cells[be.first_cell + be.cells - 1].sink);
  EXPECT_EQ(net.out_offsets[be.first_cell + be.cells] - net.out_offsets[be.first_cell + be.cells - 1], 0u);

  ASSERT_EQ(net.controllers.size(), 2u);
  const auto& light = net.controllers[0];
  EXPECT_EQ(net.nodes[light.node].id, "B");
  EXPECT_EQ(light.kind, ControllerKind::traffic_light);
  ASSERT_EQ(light.groups, 3u);
  EXPECT_EQ(net.groups[light.first_group].street, static_cast<std::uint32_t>(street(net, "A", "B")));
  EXPECT_EQ(net.groups[light.first_group].cell, last_ab);
  const auto& yield = net.controllers[1];
  EXPECT_EQ(net.nodes[yield.node].id, "C");
  EXPECT_EQ(yield.kind, ControllerKind::yield);
  ASSERT_EQ(yield.groups, 2u);
  EXPECT_EQ(net.groups[yield.first_group].street,
            static_cast<std::uint32_t>(street(net, "B", "C")));  // secondary first
  EXPECT_EQ(net.groups[yield.first_group + 1].street, static_cast<std::uint32_t>(street(net, "G", "C")));

  const StreetNetworkStats s = street_network_stats(net);
  EXPECT_EQ(s.lights, 1u);
  EXPECT_EQ(s.yield_controllers, 1u);
  EXPECT_EQ(s.signal_groups, 5u);
  EXPECT_EQ(s.sink_nodes, 1u);
  EXPECT_EQ(s.sink_cells, 1u);
  EXPECT_EQ(s.components, 1u);
  EXPECT_EQ(s.cells, 25u + 28 + 3 + 2 + 5 + 28);
  EXPECT_EQ(s.max_cell_out, 2u);
  EXPECT_EQ(s.max_cell_in, 3u);  // the first cells of B->C and B->E
  EXPECT_EQ(s.speed_from_file, 4u);
  EXPECT_EQ(s.speed_from_highway, 1u);
  EXPECT_EQ(s.speed_default, 1u);
  EXPECT_EQ(s.unknown_highway, 1u);
}

// One street of each kHighwaySpeeds class without maxspeed gets the table's speed; maxspeed,
// where usable, wins over it; a value the table lacks, or none, gets kDefaultSpeedMs; a list
// takes its fastest entry the table has.
TEST_P(StreetNetworkFile, SpeedLimitsFromTheHighwayTable) {
  Fixture f = fixture();
  f.node("O", 0, 0);
  std::vector<std::pair<std::string, std::map<std::string, std::string>>> edges;
  for (const HighwaySpeed& h : kHighwaySpeeds) edges.push_back({std::string(h.highway), {{"highway", std::string(h.highway)}}});
  edges.push_back({"maxspeed wins", {{"highway", "motorway"}, {"maxspeed", "20 mph"}}});
  edges.push_back({"maxspeed unusable", {{"highway", "motorway"}, {"maxspeed", "signals"}}});
  edges.push_back({"unknown", {{"highway", "elevator"}}});
  edges.push_back({"no highway", {}});
  edges.push_back({"list", {{"highway", "['residential', 'trunk_link', 'unclassified']"}}});
  edges.push_back({"list unknown", {{"highway", "['elevator', 'busway']"}}});
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const std::string to = "N" + std::to_string(i);
    f.node(to, 0.001 * static_cast<double>(i + 1), 0.001);
    auto fields = edges[i].second;
    fields["length"] = "100";
    f.edge("O", to, 0, fields);
  }
  const Network net = load(f);
  ASSERT_EQ(net.streets.size(), edges.size());
  const auto limit = [&](std::size_t i) { return net.streets[i].speed_limit; };
  const auto source = [&](std::size_t i) { return net.streets[i].speed_source; };
  std::size_t i = 0;
  for (const HighwaySpeed& h : kHighwaySpeeds) {
    EXPECT_EQ(limit(i), cells_per_step(h.mph * kMetresPerSecondPerMph)) << h.highway;
    EXPECT_EQ(source(i), SpeedSource::highway) << h.highway;
    ++i;
  }
  EXPECT_EQ(limit(i), 4);  // 20 mph, not the motorway's 55 (12 cells)
  EXPECT_EQ(source(i++), SpeedSource::maxspeed);
  EXPECT_EQ(limit(i), 12);  // the motorway's 55 mph
  EXPECT_EQ(source(i++), SpeedSource::highway);
  for (const char* fallback : {"unknown", "no highway"}) {
    EXPECT_EQ(limit(i), cells_per_step(kDefaultSpeedMs)) << fallback;
    EXPECT_EQ(source(i++), SpeedSource::fallback) << fallback;
  }
  EXPECT_EQ(limit(i), 6);  // trunk_link's 30 mph, the fastest entry (residential and unclassified: 5)
  EXPECT_EQ(source(i++), SpeedSource::highway);
  EXPECT_EQ(limit(i), cells_per_step(kDefaultSpeedMs));
  EXPECT_EQ(source(i++), SpeedSource::fallback);
  const StreetNetworkStats s = street_network_stats(net);
  EXPECT_EQ(s.speed_from_file, 1u);
  EXPECT_EQ(s.speed_from_highway, std::size(kHighwaySpeeds) + 2);
  EXPECT_EQ(s.speed_default, 3u);
}

// P->Q twice (keys 0 and 1: parallel), Q->P, Q->Q (a self-loop around the block), and an island
// R <-> S: every node has an outgoing street, so there is no sink.
TEST_P(StreetNetworkFile, SelfLoopsParallelEdgesComponentsAndNoDeadEnds) {
  const Network net =
      load(fixture()
               .node("P", 0, 0)
               .node("Q", 0.001, 0)
               .node("R", 0.01, 0.01)
               .node("S", 0.011, 0.01)
               .edge("P", "Q", 0, {{"length", "111"}})
               .edge("P", "Q", 1, {{"length", "150"}, {"geometry", "LINESTRING (0 0, 0.0005 0.0003, 0.001 0)"}})
               .edge("Q", "P", 0, {{"length", "111"}})
               .edge("Q", "Q", 0,
                     {{"length", "60"}, {"geometry", "LINESTRING (0.001 0, 0.0012 0.0001, 0.001 0.0002, 0.001 0)"}})
               .edge("R", "S", 0, {{"length", "85"}})
               .edge("S", "R", 0, {{"length", "85"}}));
  const StreetNetworkStats s = street_network_stats(net);
  EXPECT_EQ(s.streets, 6u);
  EXPECT_EQ(s.self_loops, 1u);
  EXPECT_EQ(s.parallel_edges, 1u);
  EXPECT_EQ(s.components, 2u);
  EXPECT_EQ(s.largest_component, 2u);
  EXPECT_EQ(s.sink_cells, 0u);
  EXPECT_EQ(s.sink_nodes, 0u);
  EXPECT_EQ(s.lights, 1u);  // Q: P->Q twice and Q->Q come in
  EXPECT_EQ(s.signal_groups, 3u);
  // The self-loop's last cell leads to its own first cell (and to Q->P's).
  const auto& loop = net.streets[street(net, "Q", "Q")];
  EXPECT_EQ(loop.cells, 15u);
  const std::uint32_t last = loop.first_cell + loop.cells - 1;
  std::vector<std::uint32_t> next(net.out_cells.begin() + net.out_offsets[last],
                                  net.out_cells.begin() + net.out_offsets[last + 1]);
  EXPECT_EQ(next, (std::vector<std::uint32_t>{net.streets[street(net, "Q", "P")].first_cell, loop.first_cell}));
  // Every cell's incoming list is the reverse of the outgoing lists.
  std::size_t links = 0;
  for (std::uint32_t c = 0; c < net.cells.size(); ++c)
    for (std::uint32_t k = net.in_offsets[c]; k < net.in_offsets[c + 1]; ++k) {
      const std::uint32_t from = net.in_cells[k];
      const auto begin = net.out_cells.begin() + net.out_offsets[from],
                 end = net.out_cells.begin() + net.out_offsets[from + 1];
      EXPECT_NE(std::find(begin, end, c), end);
      ++links;
    }
  EXPECT_EQ(links, net.out_cells.size());
}

// Both key styles describe the same network the same way.
TEST_P(StreetNetworkFile, KeyStylesAgree) {
  const Network net = load(intersection(fixture()));
  const Network old = load_osmnx_graphml(write("reference.graphml", intersection(Fixture(kOldStyle)).text()));
  ASSERT_EQ(net.cells.size(), old.cells.size());
  for (std::size_t c = 0; c < net.cells.size(); ++c) {
    EXPECT_DOUBLE_EQ(net.cells[c].x, old.cells[c].x);
    EXPECT_DOUBLE_EQ(net.cells[c].y, old.cells[c].y);
    EXPECT_EQ(net.cells[c].speed_limit, old.cells[c].speed_limit);
  }
  EXPECT_EQ(net.out_cells, old.out_cells);
  EXPECT_EQ(street_network_stats(net).signal_groups, street_network_stats(old).signal_groups);
}

INSTANTIATE_TEST_SUITE_P(KeyStyles, StreetNetworkFile, ::testing::Values(&kOldStyle, &kNewStyle),
                         [](const auto& info) { return std::string(info.param->name); });

class StreetNetworkErrors : public TempFilesTest {};

// An undirected graph: a two-way edge is two streets (the second with its cells in reverse), a
// one-way edge one (oneway True in any entry of a list); Z, with no outgoing street, is a sink.
TEST_F(StreetNetworkErrors, UndirectedGraphsMakeTwoStreetsOfATwoWayEdge) {
  Fixture f(kOldStyle);
  f.node("X", 0, 0)
      .node("Y", 0.001, 0)
      .node("Z", 0.002, 0)
      .edge("X", "Y", 0, {{"oneway", "False"}, {"length", "111"}})
      .edge("Y", "Z", 0, {{"oneway", "['False', 'True']"}, {"length", "111"}});
  std::string text = f.text();
  text.replace(text.find("edgedefault=\"directed\""), 22, "edgedefault=\"undirected\"");
  const Network net = load_osmnx_graphml(write("u.graphml", text));
  ASSERT_EQ(net.streets.size(), 3u);
  const auto& xy = net.streets[street(net, "X", "Y")];
  const auto& yx = net.streets[street(net, "Y", "X")];
  ASSERT_EQ(xy.cells, 28u);
  ASSERT_EQ(yx.cells, 28u);
  EXPECT_NEAR(net.cells[xy.first_cell].x, net.cells[yx.first_cell + yx.cells - 1].x, 1e-9);
  EXPECT_LT(net.cells[xy.first_cell].x, net.cells[yx.first_cell].x);
  EXPECT_EQ(street(net, "Z", "Y"), -1);
  const StreetNetworkStats s = street_network_stats(net);
  EXPECT_EQ(s.sink_nodes, 1u);
  EXPECT_EQ(s.lights, 0u);  // one street comes into X (Y->X) and one into Y (X->Y)
  EXPECT_EQ(s.edges, 2u);
}

// The smallest valid file; each malformed case below changes one piece of it.
const char* const kBase = R"(<?xml version='1.0' encoding='utf-8'?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key attr.name="length" attr.type="string" for="edge" id="d1" />
  <key attr.name="x" attr.type="string" for="node" id="d2" />
  <key attr.name="y" attr.type="string" for="node" id="d3" />
  <graph edgedefault="directed">
    <node id="1"><data key="d2">-74.0</data><data key="d3">40.7</data></node>
    <node id="2"><data key="d2">-74.001</data><data key="d3">40.7</data></node>
    <edge id="0" source="1" target="2"><data key="d1">84.3</data></edge>
  </graph>
</graphml>
)";

TEST_F(StreetNetworkErrors, TheBaseFileLoads) {
  const Network net = load_osmnx_graphml(write("base.graphml", kBase));
  EXPECT_EQ(net.cells.size(), 21u);
  EXPECT_EQ(net.streets[0].speed_limit, 6);
}

TEST_F(StreetNetworkErrors, EachMalformedFileGetsItsError) {
  struct Case {
    const char* find;  //!< replaced in kBase (nullptr: `with` is the whole file)
    const char* with;
    const char* problem;  //!< the message after "<file>:"
  };
  const Case cases[] = {
      {nullptr, "hello, world\n", "1: not an XML file: it starts with 'hello, world\\x0a'"},
      {nullptr, "", "1: no XML element: not a GraphML file"},
      {nullptr, "\n<?xml version='1.0'?>\n<root/>\n",
       "3: the root element is <root>, not <graphml>: not a GraphML file"},
      {"<node id=\"1\">", "<node>", "7: <node> without an id attribute"},
      {"<node id=\"2\">", "<node id=\"1\">", "8: node id '1' given twice (first at line 7)"},
      {"<data key=\"d2\">-74.001</data>", "", "8: node '2' has no x coordinate"},
      {"-74.001", "west", "8: node '2': x is not a number: 'west'"},
      {"40.7</data></node>\n    <node id=\"2\">", "97.5</data></node>\n    <node id=\"2\">",
       "7: node '1': (-74, 97.5) is not a longitude, latitude (the graph's crs is not given: WGS 84 assumed)"},
      {"target=\"2\"", "target=\"3\"", "9: edge '1' -> '3': no node has the id '3'"},
      {" source=\"1\"", "", "9: <edge> without a source attribute"},
      {"84.3", "abc", "9: edge '1' -> '2': length is not a number: 'abc'"},
      {"84.3", "-5", "9: edge '1' -> '2': length '-5' is negative"},
      {"84.3", "1e308", "9: edge '1' -> '2': 1e+308 m makes 2.5e+307 cells, over the limit of 2147483648 cells in all"},
      {"<data key=\"d1\">84.3</data>", "<data key=\"d9\">84.3</data>", "9: <data> key 'd9' is not declared by a <key>"},
      {"<data key=\"d1\">84.3</data></edge>", "<data key=\"d1\">84.3</data><data key=\"d1\">8</data></edge>",
       "9: length given twice in one <edge> (first at line 9)"},
      {"</edge>\n", "</edge>\n    <edge id=\"0\" source=\"1\" target=\"2\" />\n",
       "10: edge '1' -> '2': key '0' given twice"},
      {"</edge>\n  </graph>", "</node>\n  </graph>", "9: </node> where <edge> (opened at line 9) should close"},
      {"  </graph>\n</graphml>\n", "", "10: the file ends inside <graph> (opened at line 6): truncated?"},
      {"<edge id=\"0\" source=\"1\" target=\"2\"><data key=\"d1\">84.3</data></edge>\n  </graph>\n</graphml>\n",
       "<edge id=\"0\" source=",
       "9: the file ends inside a tag (a quoted value of attribute source of <edge>): truncated?"},
      {"<?xml version='1.0' encoding='utf-8'?>", "<!DOCTYPE graphml [<!ENTITY a \"b\">]>",
       "1: a <!DOCTYPE> or other declaration: not supported in GraphML"},
      {"84.3", "8&bogus;4", "9: unknown entity '&bogus;'"},
      {"84.3", "8&;4", "9: unknown entity '&;'"},  // found by the fuzz target
      {"<edge id=\"0\" source=\"1\" target=\"2\"><data key=\"d1\">84.3</data></edge>\n", "", ""},
      {"<node id=\"1\"><data key=\"d2\">-74.0</data><data key=\"d3\">40.7</data></node>\n    "
       "<node id=\"2\"><data key=\"d2\">-74.001</data><data key=\"d3\">40.7</data></node>\n    "
       "<edge id=\"0\" source=\"1\" target=\"2\"><data key=\"d1\">84.3</data></edge>\n",
       "", ""},
      {"</graphml>\n", "</graphml>\n<graphml/>\n", "12: a second root element <graphml>"},
      {"edgedefault=\"directed\"", "edgedefault=\"sideways\"",
       "6: edgedefault 'sideways' is neither directed nor undirected"},
  };
  for (const Case& c : cases) {
    std::string text = c.with;
    if (c.find != nullptr) {
      text = kBase;
      const auto at = text.find(c.find);
      ASSERT_NE(at, std::string::npos) << c.find;
      text.replace(at, std::string(c.find).size(), c.with);
    }
    const std::string path = write("bad.graphml", text);
    std::string expected = path + ":" + c.problem;
    if (*c.problem == '\0')  // no edges, or no nodes: the file alone is named
      expected = path + (text.find("<node") == std::string::npos ? ": no <node> elements: no street network"
                                                                 : ": no <edge> elements: no streets to build");
    try {
      load_osmnx_graphml(path);
      ADD_FAILURE() << "accepted:\n" << text;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), expected) << "file:\n" << text;
    }
  }
}

TEST_F(StreetNetworkErrors, EdgeFieldsOfOsmnxAreChecked) {
  const std::string head = R"(<graphml>
  <key attr.name="oneway" for="edge" id="o" />
  <key attr.name="geometry" for="edge" id="g" />
  <key attr.name="u" for="edge" id="u" />
  <key attr.name="x" for="node" id="x" /><key attr.name="y" for="node" id="y" /><key attr.name="osmid" for="node" id="i" /><key attr.name="length" for="edge" id="l"><default>40</default></key>
  <graph edgedefault="directed">
    <node id="1"><data key="x">0</data><data key="y">0</data></node>
    <node id="2"><data key="x">0.001</data><data key="y">0</data></node>
)";
  const std::pair<const char*, const char*> cases[] = {
      {R"(<edge source="1" target="2"><data key="o">maybe</data></edge>)",
       "9: edge '1' -> '2': oneway 'maybe' is not True or False"},
      {R"(<edge source="1" target="2"><data key="g">POINT (0 0)</data></edge>)",
       "9: edge '1' -> '2': geometry is not a LINESTRING of 'x y' points (no LINESTRING): 'POINT (0 0)'"},
      {R"(<edge source="1" target="2"><data key="g">LINESTRING (0 0, 1 x)</data></edge>)",
       "9: edge '1' -> '2': geometry is not a LINESTRING of 'x y' points (point '1 x'): 'LINESTRING (0 0, 1 x)'"},
      {R"(<edge source="1" target="2"><data key="g">LINESTRING (0 0)</data></edge>)",
       "9: edge '1' -> '2': geometry is not a LINESTRING of 'x y' points (fewer than 2 points): 'LINESTRING (0 0)'"},
      {R"(<edge source="1" target="2"><data key="u">7</data></edge>)", "9: edge '1' -> '2': u '7' is not its source '1'"},
      {R"(<edge source="1" target="2" /><node id="3"><data key="x">0</data><data key="y">0</data><data key="i">n3</data></node>)",
       "9: node '3': osmid 'n3' is not a non-negative integer"},
  };
  for (const auto& [edge, problem] : cases) {
    const std::string path = write("edge.graphml", head + "    " + edge + "\n  </graph>\n</graphml>\n");
    try {
      load_osmnx_graphml(path);
      ADD_FAILURE() << "accepted: " << edge;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), path + ":" + problem);
    }
  }
  // A field the edge does not give takes its key's default (length 40 m: 10 cells).
  const std::string path = write("ok.graphml", head + R"(    <edge source="1" target="2" />
  </graph>
</graphml>
)");
  EXPECT_EQ(load_osmnx_graphml(path).cells.size(), 10u);
}

TEST_F(StreetNetworkErrors, TheCellLimitBoundsMemory) {
  const std::string path = write("long.graphml", kBase);
  try {
    load_osmnx_graphml(path, {.max_cells = 20});
    FAIL() << "21 cells accepted under a limit of 20";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              path + ":9: edge '1' -> '2': 84.3 m makes 21 cells, over the limit of 20 cells in all");
  }
  EXPECT_EQ(load_osmnx_graphml(path, {.max_cells = 21}).cells.size(), 21u);
}

}  // namespace

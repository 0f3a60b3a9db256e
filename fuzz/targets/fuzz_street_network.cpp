// OSMnx GraphML street networks through load_osmnx_graphml, then what the traffic simulation
// relies on: streets as contiguous chains of cells, the cell graph's CSR and its reverse,
// controllers whose signal groups name the last cells of incoming streets, the statistics.

#include <algorithm>
#include <cmath>

#include "fuzz_support.hpp"
#include "lb/datasets/street_network.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static lb::fuzz::InputFile file;
  const std::string& path = file.write(data, size);
  lb::fuzz::expect_clean<lb::datasets::InputError>(path, [&] {
    // A small cell limit: a length of 1e9 m in a few bytes must be refused, not allocated.
    const lb::datasets::StreetNetwork net = lb::datasets::load_osmnx_graphml(path, {.max_cells = 100'000});
    const std::size_t cells = net.cells.size();
    LB_FUZZ_CHECK(!net.nodes.empty() && !net.streets.empty() && net.edges >= 1);
    std::size_t next = 0;
    for (std::uint32_t s = 0; s < net.streets.size(); ++s) {
      const auto& st = net.streets[s];
      LB_FUZZ_CHECK(st.from < net.nodes.size() && st.to < net.nodes.size() && st.edge < net.edges);
      LB_FUZZ_CHECK(st.cells >= 1 && st.first_cell == next && st.speed_limit >= 1);
      next += st.cells;
      for (std::uint32_t c = st.first_cell; c < st.first_cell + st.cells; ++c)
        LB_FUZZ_CHECK(net.cells[c].street == s && net.cells[c].speed_limit == st.speed_limit);
    }
    LB_FUZZ_CHECK(next == cells && cells <= 100'000);
    LB_FUZZ_CHECK(net.out_offsets.size() == cells + 1 && net.in_offsets.size() == cells + 1);
    LB_FUZZ_CHECK(net.out_offsets.back() == net.out_cells.size() && net.in_cells.size() == net.out_cells.size());
    for (std::size_t c = 0; c < cells; ++c) {
      LB_FUZZ_CHECK(net.out_offsets[c] <= net.out_offsets[c + 1] && net.in_offsets[c] <= net.in_offsets[c + 1]);
      LB_FUZZ_CHECK(net.cells[c].sink == (net.out_offsets[c] == net.out_offsets[c + 1]));
      LB_FUZZ_CHECK(std::isfinite(net.cells[c].x) && std::isfinite(net.cells[c].y));
    }
    for (std::uint32_t t : net.out_cells) LB_FUZZ_CHECK(t < cells);
    for (std::uint32_t t : net.in_cells) LB_FUZZ_CHECK(t < cells);
    for (std::uint32_t k = 0; k < net.controllers.size(); ++k) {
      const auto& c = net.controllers[k];
      LB_FUZZ_CHECK(c.node < net.nodes.size() && c.groups >= 2 && c.first_group + c.groups <= net.groups.size());
      LB_FUZZ_CHECK(c.kind != lb::datasets::ControllerKind::yield || c.groups == 2);
      for (std::uint32_t g = c.first_group; g < c.first_group + c.groups; ++g) {
        const auto& st = net.streets[net.groups[g].street];
        LB_FUZZ_CHECK(net.groups[g].controller == k && st.to == c.node);
        LB_FUZZ_CHECK(net.groups[g].cell == st.first_cell + st.cells - 1);
      }
    }
    const lb::datasets::StreetNetworkStats s = lb::datasets::street_network_stats(net);
    LB_FUZZ_CHECK(s.cells == cells && s.components >= 1 && s.largest_component <= s.nodes);
    LB_FUZZ_CHECK(s.lights + s.yield_controllers == net.controllers.size());
    LB_FUZZ_CHECK(!lb::datasets::describe(s).empty());
  });
  return 0;
}

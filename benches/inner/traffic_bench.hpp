#pragma once
//! Fig. 11's traffic variant and its networks (traffic_bench.cpp), for the planner and the
//! tests.

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "inner/suite.hpp"
#include "lb/traffic/layouts.hpp"

namespace lb::benches::inner {

//! A traffic benchmark's network: a GraphML file name, found in the data folders
//! ($LB_DATA_DIR, data/, ../shared/datasets); `missing` says why not (the case is skipped).
struct TrafficSource {
  std::string name;
  std::array<std::uint32_t, 2> tile{1, 1};  //!< K x L copies (only [1, 1] until the tiling lands)
  std::string path;                         //!< where it was found
  std::string missing;                      //!< empty when found
};
TrafficSource find_traffic_network(const std::string& name, std::array<std::uint32_t, 2> tile = {1, 1});
//! The name's network part: the file's stem (plus "-tiled-KxL" for a tiling).
std::string traffic_network_name(const TrafficSource& s);

//! One traffic variant, for the planner and the GPU tests.
struct TrafficCase {
  TrafficSource source;
  std::size_t cars = 5000;
  std::uint32_t steps = 100;
  std::uint64_t seed = 7;
  traffic::TrafficLayout layout;
  traffic::StepSchedule schedule;  //!< how the GPU runs a step (the same state under each)
  traffic::TrafficFault fault;  //!< tests: one car skips its move (validation must fail)
};
std::unique_ptr<Variant> make_traffic_variant(const TrafficCase& c);

}  // namespace lb::benches::inner

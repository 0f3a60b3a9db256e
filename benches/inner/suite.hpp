#pragma once
//! The inner suite's programs (Springer, Sun & Masuhara 2018). Each declares its axes and
//! expansion over its own object in the preset's "inner" suite ({"synthetic": {...}, "bfs":
//! {...}, "traffic": {...}}); benches/suites.cpp lists them and the one planner
//! (lb/harness/plan.hpp) plans those the preset names. Names: inner/<app>/<strategy>/<aos|soa|aosoa32>/int/inline:<N>/
//! <objects:<n> | graph:<name>[/search:persistent] | field:<f>/network:<name>/cars:<n>/steps:<k>[/schedule:<s>]>.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "lb/bfs/bfs.hpp"
#include "lb/harness/program.hpp"
#include "lb/harness/suite.hpp"
#include "lb/inner/strategies.hpp"
#include "lb/traffic/layouts.hpp"

namespace lb::harness::inner {

using lb::inner::InnerLayout;
using lb::inner::InnerStrategy;

//! The axes the programs share, in name order: "strategy" ("strategies"), "layout"
//! ("layouts": `layouts`, the program's), "precision" (int) and "inline" ("inline_sizes":
//! partial's N, from 0 to `max_inline`; named by the count each strategy runs, inline_steps),
//! then `more` (objects, graph, ...). Names: inner/<app>/<strategy>/<layout>/int/inline:<N>/...
std::vector<Axis> inner_axes(
    std::size_t max_inline, bool inline_required, std::vector<Axis> more,
    std::vector<std::string> layouts = lb::inner::layout_names(lb::inner::PaperInnerLayouts{}));

//! The inline counts a strategy runs for the preset's `inline_sizes` (partial: those up to
//! `max`; none: 0; full and object: max), in order.
std::vector<std::size_t> inline_counts(InnerStrategy s, const std::vector<std::size_t>& inline_sizes, std::size_t max);

//! A loop's "inline" steps at a point: inline_counts of the point's strategy over `inline_sizes`
//! (an "inline" axis's values) up to `max`.
std::vector<Step> inline_steps(const Point& at, const std::vector<AxisValue>& inline_sizes, std::size_t max);

//! The point's strategy and layout.
InnerStrategy strategy_of(const Point& at);
InnerLayout layout_of(const Point& at);

//! Fig. 10a (benches/inner/synthetic_bench.cpp).
Program synthetic_program();
//! Fig. 10b: defined with the BFS benchmark (benches/inner/bfs_bench.cpp).
Program bfs_program();
//! Fig. 11: the traffic simulation (benches/inner/traffic_bench.cpp).
Program traffic_program();

//! One BFS variant (benches/inner/bfs_bench.cpp) on graph "road-like" or "roadnet-pa" from
//! the vertex with file id `source`, for the planner and the tests (the CPU runs the same
//! search serially), searched as `search` says. Its validation names a vertex whose level
//! differs from the queue BFS.
std::unique_ptr<Variant> make_bfs_variant(const std::string& graph, std::uint64_t source, const bfs::Variant& v,
                                          bfs::Device device, bfs::Search search = bfs::Search::per_level);

//! One synthetic variant, for the planner and the GPU tests.
struct SyntheticCase {
  InnerLayout layout = InnerLayout::soa;
  InnerStrategy strategy = InnerStrategy::full;
  std::size_t inline_count = 0;  //!< partial's N (0 for the other strategies)
  std::size_t objects = 262144;
  int block = 256;
};

//! Test hooks: after a run, change one element on the device (the validation must name it) or
//! one byte outside the arrays' elements (a stray write).
enum class SyntheticFault { wrong_element, stray_write };

class SyntheticVariant : public Variant {
 public:
  virtual layout::InnerFootprint inner_footprint() const = 0;
  virtual void inject_fault(SyntheticFault fault) = 0;
};
std::unique_ptr<SyntheticVariant> make_synthetic_variant(const SyntheticCase& c);
//! Host and device bytes one case needs (inputs, two host images: the input and the run's copy;
//! the device copy).
MemoryNeed synthetic_memory_need(const SyntheticCase& c);

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

}  // namespace lb::harness::inner

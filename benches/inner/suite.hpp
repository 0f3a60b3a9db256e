#pragma once
//! The inner suite's declaration (Springer, Sun & Masuhara 2018): its programs and what they
//! share. Each declares its axes and expansion over its own object in the preset's "inner" suite
//! ({"synthetic": {...}, "bfs": {...}, "traffic": {...}}); benches/suites.cpp lists them and the
//! one planner (lb/harness/plan.hpp) plans those the preset names. Names: inner/<app>/<strategy>/<aos|soa|aosoa32>/int/inline:<N>/
//! <objects:<n> | graph:<name>[/search:<persistent|queue>] | field:<f>/network:<name>/cars:<n>/steps:<k>[/schedule:<s>]>.

#include <cstddef>
#include <string>
#include <vector>

#include "lb/harness/suite.hpp"
#include "lb/inner/strategies.hpp"

namespace lb::benches::inner {

// A bench is written in the harness's terms (Program, Axis, Variant, ...).
using namespace harness;

using lb::inner::InnerLayout;
using lb::inner::InnerStrategy;

//! What the programs share (suite.cpp). The axes, in name order: "strategy" ("strategies"), "layout"
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

}  // namespace lb::benches::inner

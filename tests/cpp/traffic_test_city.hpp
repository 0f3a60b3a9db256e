#pragma once
// A small built city for the traffic tests (host layouts, GPU): a k x k grid of intersections
// joined by one-way streets of `length` cells in both directions, a street in from and one out
// to the outside at every boundary node (the outgoing ones end in sinks), a smart light at
// every node with i + j even (one group per incoming street) and a yield controller at the
// others (the horizontal incoming streets' last cells as one group of priority, the vertical
// ones as the second: groups of two cells, where cars meet and the conflict rule decides).
// Streets are shorter than the largest limit, so the controllers' search upstream crosses
// intersections (every incoming entry of a street's first cell is read).
// Horizontal streets are larger (type and limit) than vertical ones (the biased walk).

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "lb/traffic/layouts.hpp"
#include "lb/traffic/simulation.hpp"

namespace lb::traffic::test_city {

inline Network grid_city(std::uint32_t k = 4, std::uint32_t length = 4) {
  Network net;
  struct Street {
    std::uint32_t from, to, first;  // nodes (k * k: the outside), first cell
    bool horizontal;
  };
  std::vector<Street> streets;
  const std::uint32_t outside = k * k;
  auto add = [&](std::uint32_t from, std::uint32_t to, bool horizontal) {
    const auto first = static_cast<std::uint32_t>(net.cells.size());
    streets.push_back({from, to, first, horizontal});
    for (std::uint32_t c = 0; c < length; ++c) {
      Network::Cell cell{};
      cell.x = 4.0 * c;
      cell.speed_limit = horizontal ? 5 : 3;
      cell.type = horizontal ? 4 : 1;
      cell.sink = to == outside && c + 1 == length;
      cell.incoming.fill(kNone);
      cell.outgoing.fill(kNone);
      net.cells.push_back(cell);
    }
  };
  for (std::uint32_t i = 0; i < k; ++i)
    for (std::uint32_t j = 0; j < k; ++j) {
      const std::uint32_t n = i * k + j;
      if (j + 1 < k) add(n, n + 1, true), add(n + 1, n, true);
      if (i + 1 < k) add(n, n + k, false), add(n + k, n, false);
      if (i == 0 || i + 1 == k || j == 0 || j + 1 == k) add(outside, n, j == 0 || j + 1 == k), add(n, outside, j == 0 || j + 1 == k);
    }
  auto link = [&](std::uint32_t a, std::uint32_t b) {
    net.cells[a].outgoing[net.cells[a].outgoing_count++] = b;
    net.cells[b].incoming[net.cells[b].incoming_count++] = a;
  };
  for (const Street& s : streets)
    for (std::uint32_t c = 0; c + 1 < length; ++c) link(s.first + c, s.first + c + 1);
  for (std::uint32_t n = 0; n < outside; ++n) {
    std::vector<const Street*> in, out;
    for (const Street& s : streets) {
      if (s.to == n) in.push_back(&s);
      if (s.from == n) out.push_back(&s);
    }
    for (const Street* a : in)
      for (const Street* b : out) link(a->first + length - 1, b->first);
    const auto group = [&](std::vector<std::uint32_t> cells) {
      Network::SignalGroup g{};
      g.cells.fill(kNone);
      for (std::uint32_t c : cells) g.cells[g.cell_count++] = c;
      net.groups.push_back(g);
      return static_cast<std::uint32_t>(net.groups.size() - 1);
    };
    if ((n / k + n % k) % 2 == 0) {
      Network::TrafficLight light{};
      light.groups.fill(kNone);
      for (const Street* a : in) light.groups[light.group_count++] = group({a->first + length - 1});
      net.lights.push_back(light);
    } else {
      std::vector<std::uint32_t> horizontal, vertical;
      for (const Street* a : in) (a->horizontal ? horizontal : vertical).push_back(a->first + length - 1);
      net.yields.push_back({{group(horizontal), group(vertical)}});
    }
  }
  return net;
}

//! Every layout of the sweep: per (layout: aos, soa and the method's aosoa32; field) none,
//! partial (N = 2 for the cell arrays, which then hold some elements in the arena, N = 6 for
//! paths; N = 0 once), full, object; both cell arrays at once where built (cells_apart_runs);
//! and every array full.
inline std::vector<TrafficLayout> every_layout() {
  std::vector<TrafficLayout> out;
  for (InnerLayout l : {InnerLayout::aos, InnerLayout::soa, InnerLayout::aosoa32}) {
    out.push_back({l, SweptField::none, InnerStrategy::full, 0});
    for (SweptField f : {SweptField::incoming, SweptField::outgoing, SweptField::path, SweptField::cells})
      for (InnerStrategy s : {InnerStrategy::none, InnerStrategy::partial, InnerStrategy::full, InnerStrategy::object}) {
        if (f == SweptField::cells && !cells_apart_runs(l, s)) continue;
        const std::size_t n = s != InnerStrategy::partial ? 0u : f == SweptField::path ? 6u : 2u;
        out.push_back({l, f, s, n});
      }
    out.push_back({l, SweptField::path, InnerStrategy::partial, 0});
  }
  return out;
}

//! Issue 38's levers (StepSchedule) one at a time and all together (the default, base, is
//! every other test's); the host runs lanes, split and fused (block and graph are the GPU's).
//! lanes 2 gives the grid city's lights (3 or 4 groups) two groups a lane, lanes 8 idle lanes,
//! lanes 8 split 2 or 3 lanes a group (the horizontal streets' searches fork within their limit).
inline std::vector<StepSchedule> every_lever() {
  std::vector<StepSchedule> out;
  for (const char* s :
       {"lanes2", "lanes4", "lanes8", "lanes8-split", "block64", "fused", "graph", "lanes8-split-block64-fused-graph"})
    out.push_back(parse_step_schedule(s));
  return out;
}

//! A network, its initial state and the reference after `steps` steps.
struct CityRun {
  CityRun(Network n, std::size_t cars, std::uint64_t seed, std::uint32_t steps)
      : net(std::move(n)), initial(initial_state(net, cars, seed)), final_state(initial) {
    for (std::uint32_t t = 0; t < steps; ++t) reference_step(net, final_state);
  }
  Network net;
  State initial, final_state;
};

//! 100 cars (seed 11) on grid_city(5); without controllers cars meet at every merge (hundreds
//! of conflicts in 50 steps).
inline CityRun city_run(bool controllers, std::uint32_t steps) {
  Network net = grid_city(5);
  if (!controllers) {
    net.lights.clear();
    net.yields.clear();
    net.groups.clear();
  }
  return CityRun(std::move(net), 100, 11, steps);
}

//! Every layout (or those given) on `device` under `schedule` from r.initial for as many steps
//! as r ran, in two runs (20 steps, then the rest), ends in r.final_state: checksum,
//! invariants, occupancy and counters; read back before a step it is r.initial; after a reset
//! the same run gives the same checksum.
inline void expect_every_layout_matches(const CityRun& r, Device device, const StepSchedule& schedule = {},
                                        const std::vector<TrafficLayout>& layouts = every_layout()) {
  const std::uint64_t want = checksum(r.final_state);
  const std::uint32_t steps = r.final_state.step, first = steps < 20 ? steps : 20;
  for (const TrafficLayout& t : layouts) {
    SCOPED_TRACE(describe(t) + (r.net.lights.empty() ? ", without controllers" : "") + ", schedule " +
                 to_string(schedule));
    const auto sim = make_laid_out_traffic(r.net, r.initial, t, device, {}, schedule);
    EXPECT_EQ(checksum(sim->state()), checksum(r.initial)) << "laid out and read back";
    sim->run(first);
    sim->run(steps - first);
    const State s = sim->state();
    EXPECT_EQ(check_invariants(r.net, s), "");
    EXPECT_EQ(checksum(s), want);
    EXPECT_EQ(s.occupant, r.final_state.occupant);
    EXPECT_EQ(s.left, r.final_state.left);
    EXPECT_EQ(s.reactivated, r.final_state.reactivated);
    EXPECT_EQ(s.conflicts, r.final_state.conflicts);
    sim->reset(r.initial);
    sim->run(steps);
    EXPECT_EQ(checksum(sim->state()), want) << "after reset";
  }
}

//! keep_snapshot right after laying r.initial out, then on every layout: restore_snapshot before
//! each of three runs of r's steps (on `stream`; the GPU's copies are enqueued there), each
//! ending in r.final_state (checksum, occupancy, counters): the copy holds everything a step
//! writes (cells, cars, lights) and the step and counters. A restore after reset(another state)
//! reads back r.initial itself. Without a snapshot, restore_snapshot throws.
inline void expect_snapshot_restores_the_initial_state(const CityRun& r, Device device, cudaStream_t stream = nullptr,
                                                       const StepSchedule& schedule = {}) {
  const std::uint64_t want = checksum(r.final_state);
  for (const TrafficLayout& t : every_layout()) {
    SCOPED_TRACE(describe(t) + (r.net.lights.empty() ? ", without controllers" : "") + ", schedule " +
                 to_string(schedule));
    const auto sim = make_laid_out_traffic(r.net, r.initial, t, device, {}, schedule);
    EXPECT_THROW(sim->restore_snapshot(stream), std::logic_error);
    sim->keep_snapshot();
    for (int run = 0; run < 3; ++run) {
      SCOPED_TRACE("run " + std::to_string(run));
      sim->restore_snapshot(stream);
      sim->run(r.final_state.step, stream);
      sim->wait(stream);
      const State s = sim->state();
      EXPECT_EQ(checksum(s), want);
      EXPECT_EQ(s.step, r.final_state.step);
      EXPECT_EQ(s.occupant, r.final_state.occupant);
      EXPECT_EQ(s.left, r.final_state.left);
      EXPECT_EQ(s.reactivated, r.final_state.reactivated);
      EXPECT_EQ(s.conflicts, r.final_state.conflicts);
    }
    sim->reset(r.final_state);
    sim->restore_snapshot(stream);
    sim->wait(stream);
    const State back = sim->state();
    EXPECT_EQ(checksum(back), checksum(r.initial)) << "restored after a reset to another state";
    EXPECT_EQ(back.step, r.initial.step);
    EXPECT_EQ(back.left, r.initial.left);
  }
}

//! run_split (Fig. 11's instrumented run) on two layouts ends in r.final_state as run() does;
//! its parts are positive (the controllers' where r has controllers) and lie within the call's
//! wall time, covering at least half of it (the marks are the first and last things it does).
//! r of more than 255 steps: the GPU reads its events back and reuses them on the way.
inline void expect_split_run_matches(const CityRun& r, Device device, const StepSchedule& schedule = {}) {
  for (const TrafficLayout& t : {TrafficLayout{InnerLayout::soa, SweptField::none, InnerStrategy::full, 0},
                                 TrafficLayout{InnerLayout::aos, SweptField::path, InnerStrategy::partial, 6}}) {
    SCOPED_TRACE(describe(t) + ", schedule " + to_string(schedule));
    const auto sim = make_laid_out_traffic(r.net, r.initial, t, device, {}, schedule);
    const auto start = std::chrono::steady_clock::now();
    const StepSplit split = sim->run_split(r.final_state.step);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const State s = sim->state();
    EXPECT_EQ(checksum(s), checksum(r.final_state));
    EXPECT_EQ(check_invariants(r.net, s), "");
    EXPECT_GT(split.cars_s, 0.0);
    if (!r.net.lights.empty()) {
      EXPECT_GT(split.controllers_s, 0.0);
    }
    EXPECT_LE(split.cars_s + split.controllers_s, wall + 1e-5);  // events: 0.5 us resolution
    EXPECT_GE(split.cars_s + split.controllers_s, 0.5 * wall);
  }
}

}  // namespace lb::traffic::test_city

// The traffic simulation (kernels/traffic, docs/traffic.md): the rules on tiny hand-made
// networks (a ring road without dawdling, exactly predictable; two streets merging into one
// cell, where the lower car id wins; a red light that blocks; a smart light and a yield
// controller; a sink and the reactivation), the network building step (fan-in and fan-out
// above 8, lights of more than 6 groups, the lower Manhattan graph kept as loaded), and on
// lower Manhattan the invariants over 200 steps and determinism (same seed, same checksum;
// another seed, another; the phases' objects in reverse order, the same state); the parallel
// step against the sequential one, field by field, on those networks.

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <set>
#include <sstream>
#include <utility>

#include "lb/datasets/street_network.hpp"
#include "lb/traffic/load_network.hpp"
#include "lb/traffic/simulation.hpp"
#include "traffic_test_city.hpp"

namespace {

using namespace lb::traffic;
namespace ds = lb::datasets;

constexpr std::uint8_t kLimit = 5;

//! A network of `cells` cells of limit kLimit joined by `links` (from, to); `sinks` are sinks.
Network make_network(std::uint32_t cells, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& links,
                     const std::vector<std::uint32_t>& sinks = {}) {
  Network net;
  for (std::uint32_t c = 0; c < cells; ++c) {
    Network::Cell cell{4.0 * c, 0, kLimit, static_cast<std::uint8_t>(ds::StreetType::residential), false, 0, 0, {}, {}};
    cell.incoming.fill(kNone);
    cell.outgoing.fill(kNone);
    net.cells.push_back(cell);
  }
  for (auto [a, b] : links) {
    net.cells[a].outgoing[net.cells[a].outgoing_count++] = b;
    net.cells[b].incoming[net.cells[b].incoming_count++] = a;
  }
  for (auto c : sinks) net.cells[c].sink = true;
  return net;
}

Network ring(std::uint32_t n) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> links;
  for (std::uint32_t c = 0; c < n; ++c) links.emplace_back(c, (c + 1) % n);
  return make_network(n, links);
}

//! A state without dawdling and with cars (max velocity 20) at the given cells, in id order.
State with_cars(const Network& net, const std::vector<std::uint32_t>& cells, std::uint64_t seed = 1) {
  State s = initial_state(net, 0, seed);
  s.dawdle = 0;
  for (std::uint32_t c : cells) {
    Car car{};
    car.position = c;
    car.max_velocity = 20;
    car.active = true;
    car.path.fill(kNone);
    s.occupant[c] = static_cast<std::uint32_t>(s.cars.size());
    s.cars.push_back(car);
  }
  return s;
}

void step_checked(const Network& net, State& s) {
  reference_step(net, s);
  const std::string broken = check_invariants(net, s);
  ASSERT_EQ(broken, "") << "after step " << s.step;
}

TEST(TrafficRules, OneCarOnARingReachesTheLimitAndThenMovesExactlyThatFar) {
  const Network net = ring(100);
  State s = with_cars(net, {0});
  std::uint32_t position = 0, velocity = 0;
  for (int t = 1; t <= 30; ++t) {
    step_checked(net, s);
    const Car& car = s.cars[0];
    // Accelerating by 1 or 2, capped by the street's limit; nothing in the way, no dawdling.
    EXPECT_TRUE(car.velocity == std::min<std::uint32_t>(kLimit, velocity + 1) ||
                car.velocity == std::min<std::uint32_t>(kLimit, velocity + 2))
        << "step " << t << ": velocity " << int(car.velocity) << " after " << velocity;
    if (t >= kLimit) {
      EXPECT_EQ(car.velocity, kLimit) << "step " << t;
    }
    velocity = car.velocity;
    position = (position + velocity) % 100;
    ASSERT_EQ(car.position, position) << "step " << t;
  }
}

TEST(TrafficRules, AJammedRingMovesOneCarAStepAndTheGapTravelsBackwards) {
  // 10 cars on 11 cells: only the car behind the gap can move, one cell.
  const Network net = ring(11);
  State s = with_cars(net, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  for (std::uint32_t t = 1; t <= 10; ++t) {
    step_checked(net, s);
    for (std::uint32_t k = 0; k < 10; ++k)
      ASSERT_EQ(s.cars[k].position, k < 10 - t ? k : k + 1) << "car " << k << " after step " << t;
  }
}

// Two streets a0 a1 and b0 b1 merge into m0 m1 m2, m3 a sink.
constexpr std::uint32_t a0 = 0, a1 = 1, b0 = 2, b1 = 3, m0 = 4, m1 = 5;
Network merge() { return make_network(8, {{a0, a1}, {a1, m0}, {b0, b1}, {b1, m0}, {m0, m1}, {m1, 6}, {6, 7}}, {7}); }

TEST(TrafficRules, WhereStreetsMergeTheLowerCarIdTakesTheCell) {
  const Network net = merge();
  for (bool a_first : {true, false}) {
    // Both cars want m0 in their first step; car 0 gets it, car 1 stays (velocity 0).
    State s = with_cars(net, a_first ? std::vector<std::uint32_t>{a1, b1} : std::vector<std::uint32_t>{b1, a1});
    step_checked(net, s);
    EXPECT_TRUE(s.cars[0].position == m0 || s.cars[0].position == m1) << s.cars[0].position;
    EXPECT_EQ(s.cars[1].position, a_first ? b1 : a1);
    EXPECT_EQ(s.cars[1].velocity, 0);
  }
}

TEST(TrafficRules, TheLoserKeepsTheCellsBeforeTheOneItLost) {
  // Car 1 (at b0) wants b1 and perhaps m0; car 0 (at a1) wants m0: car 1 ends on b1 either way.
  const Network net = merge();
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    State s = with_cars(net, {a1, b0}, seed);
    step_checked(net, s);
    EXPECT_EQ(s.cars[1].position, b1) << "seed " << seed;
    EXPECT_EQ(s.cars[1].velocity, 1) << "seed " << seed;
  }
}

//! Signal groups of one cell each, at `cells`, under one traffic light or (two cells, the
//! first with priority) one yield controller.
void add_controller(Network& net, std::initializer_list<std::uint32_t> cells, bool yield) {
  const auto first = static_cast<std::uint32_t>(net.groups.size());
  for (std::uint32_t cell : cells) {
    Network::SignalGroup g{1, {}};
    g.cells.fill(kNone);
    g.cells[0] = cell;
    net.groups.push_back(g);
  }
  if (yield) {
    net.yields.push_back({{first, first + 1}});
  } else {
    Network::TrafficLight light{static_cast<std::uint8_t>(cells.size()), {}};
    light.groups.fill(kNone);
    for (std::uint32_t g = 0; g < cells.size(); ++g) light.groups[g] = first + g;
    net.lights.push_back(light);
  }
}

// Streets a (0, 1) and b (2, 3) into an intersection with a light, out along c (4 .. 7), 8 a sink.
Network lit_crossing(bool yield) {
  Network net = make_network(9, {{0, 1}, {1, 4}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 7}, {7, 8}}, {8});
  add_controller(net, {1, 3}, yield);
  return net;
}

TEST(TrafficRules, ARedLightBlocksUntilItsPhaseComes) {
  const Network net = lit_crossing(false);
  State s = with_cars(net, {1, 3});  // a car at each group's cell: two groups with traffic
  s.lights[0] = {0, 5, 1};           // timer 0 of 5, phase 1; every group starts stopped
  for (int t = 1; t <= 4; ++t) {
    step_checked(net, s);
    EXPECT_EQ(s.cars[0].position, 1u) << "step " << t;
    EXPECT_EQ(s.cars[1].position, 3u) << "step " << t;
    EXPECT_EQ(s.controller_limit[1], 0);
    EXPECT_EQ(s.controller_limit[3], 0);
  }
  step_checked(net, s);  // the timer wraps: phase 0 (street a) goes
  EXPECT_EQ(s.lights[0].phase, 0u);
  EXPECT_EQ(s.controller_limit[1], kNoControllerLimit);
  EXPECT_TRUE(s.cars[0].position == 4 || s.cars[0].position == 5) << s.cars[0].position;
  EXPECT_EQ(s.cars[1].position, 3u);
  step_checked(net, s);  // street b alone has traffic now: it goes at once
  EXPECT_EQ(s.lights[0].phase, 1u);
  EXPECT_EQ(s.lights[0].timer, 0u);
  EXPECT_EQ(s.controller_limit[1], 0);
  EXPECT_EQ(s.controller_limit[3], kNoControllerLimit);
}

TEST(TrafficRules, ASmartLightLetsTheOnlyStreetWithTrafficGoAtOnce) {
  const Network net = lit_crossing(false);
  State s = with_cars(net, {0});  // one car upstream of group 0's cell, within the lookahead
  s.lights[0] = {7, 50, 1};
  step_checked(net, s);
  EXPECT_EQ(s.lights[0].phase, 0u);
  EXPECT_EQ(s.lights[0].timer, 0u);
  EXPECT_EQ(s.controller_limit[1], kNoControllerLimit);
  EXPECT_GT(s.cars[0].position, 0u);
}

TEST(TrafficRules, AYieldControllerLetsTheFirstGroupWithTrafficGo) {
  const Network net = lit_crossing(true);
  State s = with_cars(net, {1, 3});
  step_checked(net, s);
  EXPECT_EQ(s.controller_limit[1], kNoControllerLimit);  // group 0 has priority
  EXPECT_EQ(s.controller_limit[3], 0);
  EXPECT_EQ(s.cars[1].position, 3u);
  State alone = with_cars(net, {3});  // the lower group alone goes
  step_checked(net, alone);
  EXPECT_EQ(alone.controller_limit[3], kNoControllerLimit);
  EXPECT_EQ(alone.controller_limit[1], 0);  // no traffic: it keeps its signal
}

TEST(TrafficRules, ACarLeavesAtASinkAndIsReactivatedOnAFreeCell) {
  const Network net = make_network(5, {{0, 1}, {1, 2}, {2, 3}, {3, 4}}, {4});
  State s = with_cars(net, {3});
  step_checked(net, s);
  EXPECT_EQ(s.left, 1u);
  EXPECT_EQ(s.reactivated, 1u);
  // One car: its slice is the whole cell array from cell 0, whose first free non-sink cell is 0.
  EXPECT_TRUE(s.cars[0].active);
  EXPECT_EQ(s.cars[0].position, 0u);
  EXPECT_EQ(s.cars[0].velocity, 0);
  EXPECT_EQ(s.occupant[0], 0u);
  EXPECT_EQ(s.occupant[4], kNone);
}

TEST(TrafficRules, InvariantsCatchTwoCarsInOneCell) {
  const Network net = ring(10);
  State s = with_cars(net, {2, 5});
  EXPECT_EQ(check_invariants(net, s), "");
  s.cars[1].position = 2;  // both claim cell 2, which names car 0
  EXPECT_EQ(check_invariants(net, s), "car 1 is at cell 2, which names car 0");
  State lost = with_cars(net, {2, 5});
  lost.cars[1].active = false;  // a car gone without a sink
  lost.occupant[5] = kNone;
  EXPECT_EQ(check_invariants(net, lost), "cars not conserved: 1 active, 2 cars, 0 left at sinks, 0 reactivated");
}

// The split schedule's search (has_incoming_traffic_part): its parts ORed find what the whole
// search finds, for every cell of the grid city, every lookahead and 1 to 8 parts, at sparse and
// dense occupancies; and the parts do split (some part alone misses a car another finds).
TEST(TrafficRules, ASearchSplitAtItsFirstForkFindsWhatTheWholeSearchFinds) {
  const Network net = test_city::grid_city(5);
  struct World {
    const Network& net;
    std::vector<std::uint32_t> cars;  // per cell: the car in it, or kNone
    std::uint32_t occupant(std::uint32_t c) const { return cars[c]; }
    std::uint32_t incoming_count(std::uint32_t c) const { return net.cells[c].incoming_count; }
    std::uint32_t incoming(std::uint32_t c, std::uint32_t i) const { return net.cells[c].incoming[i]; }
  };
  std::size_t split_apart = 0;
  for (const std::uint32_t one_in : {50u, 8u, 3u}) {
    World world{net, std::vector<std::uint32_t>(net.cells.size(), kNone)};
    for (std::uint32_t c = 0; c < net.cells.size(); ++c)
      if (random_below(random_bits(5, Purpose::place, c, one_in), one_in) == 0) world.cars[c] = c;
    for (std::uint32_t c = 0; c < net.cells.size(); ++c)
      for (std::uint32_t lookahead = 0; lookahead <= 12; ++lookahead) {
        const bool whole = has_incoming_traffic(world, c, lookahead);
        for (std::uint32_t parts = 1; parts <= 8; ++parts) {
          bool any = false, all = true;
          for (std::uint32_t part = 0; part < parts; ++part) {
            const bool found = has_incoming_traffic_part(world, c, lookahead, part, parts);
            any = any || found;
            all = all && found;
          }
          ASSERT_EQ(any, whole) << "cell " << c << ", lookahead " << lookahead << ", " << parts << " parts";
          split_apart += any && !all;
        }
      }
  }
  EXPECT_GT(split_apart, 100u);
}

TEST(TrafficRules, TooManyCarsIsRefused) {
  const Network net = make_network(5, {{0, 1}, {1, 2}, {2, 3}, {3, 4}}, {4});
  EXPECT_EQ(initial_state(net, 4, 1).cars.size(), 4u);
  try {
    initial_state(net, 5, 1);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "--cars 5: the network has 4 cells a car can start on (5 cells, 1 sinks)");
  }
}

// --- steps worked out by hand ---------------------------------------------------------------
// The expected states below come from the rules as docs/traffic.md states them, reasoned step
// by step in the comments, not from the model's code (issue 42: the CPU reference, the host
// layouts and the GPU kernels share lb/traffic/model.hpp, so only an outside oracle can catch
// a wrong rule). Without dawdling, and with cars whose max velocity or cell limit leaves no
// choice between accelerating by 1 or 2, every step is determined.

//! `links` of a chain of cells from `first` to `last`.
std::vector<std::pair<std::uint32_t, std::uint32_t>> chain(std::uint32_t first, std::uint32_t last) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> links;
  for (std::uint32_t c = first; c < last; ++c) links.emplace_back(c, c + 1);
  return links;
}

template <class... Chains>
Network network_of(std::uint32_t cells, std::vector<std::pair<std::uint32_t, std::uint32_t>> extra,
                   std::vector<std::uint32_t> sinks, const Chains&... chains) {
  for (const auto& c : {chains...}) extra.insert(extra.end(), c.begin(), c.end());
  return make_network(cells, extra, sinks);
}

struct Expected {
  std::uint32_t cell, velocity;
};

void expect_cars(const State& s, std::initializer_list<Expected> cars, int step) {
  std::uint32_t k = 0;
  for (const Expected& e : cars) {
    EXPECT_EQ(s.cars[k].position, e.cell) << "car " << k << " after step " << step;
    EXPECT_EQ(s.cars[k].velocity, e.velocity) << "car " << k << " after step " << step;
    ++k;
  }
}

TEST(TrafficByHand, ACarApproachingARedLightStopsBeforeItAndGoesInItsPhase) {
  // Street A: cells 0 .. 7 (limit 6; cell 6 limit 1), its last cell 7 is group 0 of a light.
  // Street B: 8, 9; cell 9 is group 1. Out: 10 .. 13, 13 a sink. 7 and 9 lead to 10.
  Network net = network_of(14, {{7, 10}, {9, 10}}, {13}, chain(0, 7), chain(8, 9), chain(10, 13));
  for (auto& cell : net.cells) cell.speed_limit = 6;
  net.cells[6].speed_limit = 1;
  add_controller(net, {7, 9}, false);
  // Car 0 (X) at cell 1 at its max velocity 2; car 1 (Z) waits on the red cell 9.
  State s = with_cars(net, {1, 9});
  s.cars[0].max_velocity = s.cars[1].max_velocity = 2;
  s.cars[0].velocity = 2;
  s.lights[0] = {2, 8, 1};  // timer 2 of 8, phase 1; both groups start stopped
  ASSERT_EQ(s.controller_limit[7], 0);
  ASSERT_EQ(s.controller_limit[9], 0);
  struct Light {
    std::uint32_t timer, phase;
    std::uint8_t limit_7, limit_9;
  };
  constexpr std::uint8_t red = 0, green = kNoControllerLimit;
  // Both groups have traffic from the start (X is 6 cells up from cell 7, whose street limit
  // is 6: just within the light's look upstream), so no group goes at once: the timer counts.
  // X drives 2 cells a step (1 -> 3 -> 5); from 5 its path is 6, 7 and cell 6's limit 1 lets
  // it pass one cell: it slows to 1 and stops on 6. From 6 (limit 1) the next cell 7 is red
  // (limit 0): velocity 0, however it accelerates. Z on its red cell cannot leave.
  const std::vector<std::pair<Expected, Light>> steps = {
      {{3, 2}, {3, 1, red, red}},
      {{5, 2}, {4, 1, red, red}},
      {{6, 1}, {5, 1, red, red}},
      {{6, 0}, {6, 1, red, red}},
      {{6, 0}, {7, 1, red, red}},
      // The timer wraps: phase 1 stops, phase 0 goes. X, held to 1 by cell 6's limit, enters 7.
      {{7, 1}, {0, 0, green, red}},
      // Both still have traffic: the timer counts on. X accelerates to its max 2: 7 -> 11.
      {{11, 2}, {1, 0, green, red}},
  };
  int t = 0;
  for (const auto& [x, light] : steps) {
    step_checked(net, s);
    ++t;
    expect_cars(s, {x, {9, 0}}, t);
    EXPECT_EQ(s.lights[0].timer, light.timer) << "after step " << t;
    EXPECT_EQ(s.lights[0].phase, light.phase) << "after step " << t;
    EXPECT_EQ(s.controller_limit[7], light.limit_7) << "after step " << t;
    EXPECT_EQ(s.controller_limit[9], light.limit_9) << "after step " << t;
  }
  // Step 8: A has no car within 6 cells of cell 7 now, B has Z: B alone has traffic and goes
  // at once (timer 0, phase 1, A stops). X drives 11 -> 13, the sink, and leaves; it comes
  // back in its slice (cells 0 .. 6 or 7 .. 13 of 14, by the step's shift: cell 0 or 7, both
  // free). Z, now green, wants 10 and maybe 11, where X was at the step's start: it moves 1.
  step_checked(net, s);
  EXPECT_EQ(s.lights[0].timer, 0u);
  EXPECT_EQ(s.lights[0].phase, 1u);
  EXPECT_EQ(s.controller_limit[7], red);
  EXPECT_EQ(s.controller_limit[9], green);
  EXPECT_EQ(s.left, 1u);
  EXPECT_EQ(s.reactivated, 1u);
  EXPECT_TRUE(s.cars[0].active);
  EXPECT_TRUE(s.cars[0].position == 0 || s.cars[0].position == 7) << s.cars[0].position;
  EXPECT_EQ(s.cars[0].velocity, 0);
  EXPECT_EQ(s.cars[0].path_length, 0);
  expect_cars(s, {{s.cars[0].position, 0}, {10, 1}}, 8);
}

TEST(TrafficByHand, ALightSeesACarExactlyItsStreetLimitUpstreamAndNotOneCellFurther) {
  // Street A: 0 .. 6 (limit 5), cell 6 group 0; street B: 7, 8, cell 8 group 1; out 9, 10 (sink).
  Network lit = network_of(11, {{6, 9}, {8, 9}}, {10}, chain(0, 6), chain(7, 8), chain(9, 10));
  add_controller(lit, {6, 8}, false);
  for (const auto& [cell, seen] : {std::pair{1u, true}, std::pair{0u, false}}) {
    // A car 5 cells up from cell 6 (cell 1) is within the limit: group 0 alone has traffic
    // and goes at once. One cell further (cell 0) nothing has traffic: the timer counts.
    State s = with_cars(lit, {cell});
    s.lights[0] = {10, 50, 1};
    step_checked(lit, s);
    EXPECT_EQ(s.lights[0].timer, seen ? 0u : 11u) << "car at cell " << cell;
    EXPECT_EQ(s.lights[0].phase, seen ? 0u : 1u) << "car at cell " << cell;
    EXPECT_EQ(s.controller_limit[6], seen ? kNoControllerLimit : 0) << "car at cell " << cell;
    EXPECT_EQ(s.controller_limit[8], 0) << "car at cell " << cell;
  }
}

TEST(TrafficByHand, AMergeUnderAYieldControllerLetsThePriorityStreetGoFirst) {
  // Street P: 0 .. 3, cell 3 the priority group 0; street Q: 4 .. 6, cell 6 group 1; both into
  // 7 .. 11, 11 a sink. Every cell limit 2 (so each group looks 2 cells upstream).
  Network net = network_of(12, {{3, 7}, {6, 7}}, {11}, chain(0, 3), chain(4, 6), chain(7, 11));
  for (auto& cell : net.cells) cell.speed_limit = 2;
  add_controller(net, {3, 6}, true);
  // Car 0 on Q at 5, car 1 on P at 0: the lower id on the lower street, so the controller,
  // not the conflict rule, decides. Max velocity 1: each moves one cell a step when it can.
  State s = with_cars(net, {5, 0});
  s.cars[0].max_velocity = s.cars[1].max_velocity = 1;
  constexpr std::uint8_t red = 0, green = kNoControllerLimit;
  struct Step {
    Expected q_car, p_car;
    std::uint8_t limit_3, limit_6;
  };
  const std::vector<Step> steps = {
      // P's group sees nothing within 2 cells of 3 (car 1 is 3 away): it keeps its signal
      // (stopped). Q's has car 0: it goes. Car 0 enters 6, car 1 moves to 1.
      {{6, 1}, {1, 1}, red, green},
      // Car 1 is 2 cells up from 3: P goes first, Q (traffic: car 0 on 6) stops. Car 0 on a
      // red cell cannot leave it.
      {{6, 0}, {2, 1}, green, red},
      {{6, 0}, {3, 1}, green, red},
      {{6, 0}, {7, 1}, green, red},
      // P has no traffic (it keeps its signal: green), Q has: it goes. Car 0 wants 7, occupied
      // at the step's start by car 1: it waits.
      {{6, 0}, {8, 1}, green, green},
      {{7, 1}, {9, 1}, green, green},
      {{8, 1}, {10, 1}, green, green},
  };
  int t = 0;
  for (const Step& e : steps) {
    step_checked(net, s);
    ++t;
    expect_cars(s, {e.q_car, e.p_car}, t);
    EXPECT_EQ(s.controller_limit[3], e.limit_3) << "after step " << t;
    EXPECT_EQ(s.controller_limit[6], e.limit_6) << "after step " << t;
  }
  EXPECT_EQ(s.conflicts, 0u);
}

TEST(TrafficByHand, ACarLeavesAtASinkAndWaitsUntilItsSliceHasAFreeCell) {
  // Cells 0 .. 3 (3 a sink) and 4 .. 9 (9 a sink). Cars 1 and 2 stand on cells 4 and 5, red for
  // good (a controller limit 0 that no controller lifts). Car 0 at 7, max velocity 2.
  const Network net = network_of(10, {}, {3, 9}, chain(0, 3), chain(4, 9));
  State s = with_cars(net, {7, 4, 5}, /*seed=*/9);
  s.controller_limit[4] = s.controller_limit[5] = 0;
  s.cars[0].max_velocity = 2;
  s.cars[0].velocity = 2;
  // Step 1: car 0 draws 8, 9 and stops after the sink 9; it moves 2 and leaves there (inactive,
  // its cell kept as 9). Reactivation: 3 cars, 10 cells: slices of 3 cells from 0, 3, 6;
  // car 0's is r = (0 + shift) mod 3. Seed 9's shifts (SplitMix64 as docs/traffic.md states,
  // computed in Python, tests/python/traffic_oracle.py's bits): step 0: 702796258 (r = 1),
  // step 1: 1481538034 (r = 1), step 2: r = 0. Slice 1 is cells 3 (a sink), 4, 5 (cars):
  // full, so car 0 stays out for two steps and comes back in the third on cell 0.
  for (int t = 1; t <= 2; ++t) {
    step_checked(net, s);
    EXPECT_FALSE(s.cars[0].active) << "after step " << t;
    EXPECT_EQ(s.cars[0].position, 9u) << "after step " << t;
    EXPECT_EQ(s.cars[0].velocity, 0) << "after step " << t;
    EXPECT_EQ(s.cars[0].path_length, 0) << "after step " << t;
    EXPECT_EQ(s.occupant[7], kNone);
    EXPECT_EQ(s.occupant[9], kNone);
    EXPECT_EQ(s.left, 1u);
    EXPECT_EQ(s.reactivated, 0u);
  }
  step_checked(net, s);
  EXPECT_TRUE(s.cars[0].active);
  EXPECT_EQ(s.cars[0].position, 0u);
  EXPECT_EQ(s.occupant[0], 0u);
  EXPECT_EQ(s.reactivated, 1u);
  expect_cars(s, {{0, 0}, {4, 0}, {5, 0}}, 3);  // the red cells held cars 1 and 2 throughout
}

// --- the network building step ----------------------------------------------------------

//! A street network by hand: node 0 with `in` streets into it (2 cells each, from nodes 1..in)
//! and `out` streets out of it (2 cells each, to nodes without outgoing streets: sinks), and
//! a traffic light at node 0 with a group per incoming street.
ds::StreetNetwork star(std::uint32_t in, std::uint32_t out) {
  ds::StreetNetwork net;
  net.source = "star";
  for (std::uint32_t n = 0; n <= in + out; ++n) net.nodes.push_back({std::to_string(n), n, 0.0, 0.0, 1});
  auto street = [&](std::uint32_t from, std::uint32_t to, bool sink_end) {
    const auto s = static_cast<std::uint32_t>(net.streets.size());
    const auto first = static_cast<std::uint32_t>(net.cells.size());
    net.streets.push_back({from, to, first, 2, s, 8.0, kLimit, ds::StreetType::residential, ds::SpeedSource::fallback, true});
    net.cells.push_back({0, 0, s, kLimit, ds::StreetType::residential, false});
    net.cells.push_back({0, 0, s, kLimit, ds::StreetType::residential, sink_end});
  };
  for (std::uint32_t i = 0; i < in; ++i) street(1 + i, 0, false);
  for (std::uint32_t j = 0; j < out; ++j) street(0, 1 + in + j, true);
  net.controllers.push_back({0, ds::ControllerKind::traffic_light, 0, in});
  for (std::uint32_t i = 0; i < in; ++i) net.groups.push_back({0, i, 2 * i + 1});
  return net;
}

std::uint32_t last_cell(std::uint32_t in_street) { return 2 * in_street + 1; }
std::uint32_t first_out_cell(std::uint32_t in, std::uint32_t j) { return 2 * (in + j); }

TEST(TrafficBuild, SmallIntersectionsKeepEveryTurn) {
  BuildReport r;
  const Network net = build_network(star(3, 3), &r);
  EXPECT_EQ(r.turns, 9u);
  EXPECT_EQ(r.dropped_turns, 0u);
  EXPECT_EQ(r.crowded_nodes, 0u);
  for (std::uint32_t i = 0; i < 3; ++i) EXPECT_EQ(net.cells[last_cell(i)].outgoing_count, 3);
  ASSERT_EQ(net.lights.size(), 1u);
  EXPECT_EQ(net.lights[0].group_count, 3);
  EXPECT_EQ(describe(r), "simulation: 9 turns, 3 sink cells; cell fan-in at most 3, fan-out at most 3");
}

TEST(TrafficBuild, NineStreetsIntoOneKeepEightAndTheNinthEndsInASink) {
  BuildReport r;
  const Network net = build_network(star(9, 1), &r);
  EXPECT_EQ(r.turns, 8u);
  EXPECT_EQ(r.dropped_turns, 1u);
  EXPECT_EQ(r.crowded_nodes, 1u);
  EXPECT_EQ(r.dead_end_sinks, 1u);
  EXPECT_EQ(net.cells[first_out_cell(9, 0)].incoming_count, 8);
  for (std::uint32_t i = 0; i < 8; ++i) EXPECT_EQ(net.cells[last_cell(i)].outgoing_count, 1) << i;
  EXPECT_TRUE(net.cells[last_cell(8)].sink);
  EXPECT_EQ(net.cells[last_cell(8)].outgoing_count, 0);
  // 9 groups onto 6: group k holds the streets k and k + 6.
  EXPECT_EQ(r.merged_lights, 1u);
  ASSERT_EQ(net.lights.size(), 1u);
  EXPECT_EQ(net.lights[0].group_count, 6);
  EXPECT_EQ(net.groups[0].cell_count, 2);
  EXPECT_EQ(net.groups[0].cells[1], last_cell(6));
  EXPECT_EQ(net.groups[5].cell_count, 1);
  EXPECT_EQ(describe(r),
            "simulation: 8 turns, 2 sink cells; cell fan-in at most 8, fan-out at most 1; 1 intersections of more "
            "than 8 streets in or out: 1 turns dropped, 1 dead ends made sinks; 1 lights of more than 6 incoming "
            "streets share signal groups");
}

TEST(TrafficBuild, TenByTenKeepsEveryStreetConnectedWithinEight) {
  BuildReport r;
  const Network net = build_network(star(10, 10), &r);
  EXPECT_EQ(r.turns + r.dropped_turns, 100u);
  EXPECT_EQ(r.dead_end_sinks, 0u);
  EXPECT_LE(r.max_incoming, 8u);
  EXPECT_LE(r.max_outgoing, 8u);
  for (std::uint32_t i = 0; i < 10; ++i) {
    EXPECT_GE(net.cells[last_cell(i)].outgoing_count, 1) << i;
    EXPECT_GE(net.cells[first_out_cell(10, i)].incoming_count, 1) << i;
  }
  // The arrays agree: every outgoing link has its incoming twin.
  std::size_t out_links = 0, in_links = 0;
  for (const auto& c : net.cells) {
    out_links += c.outgoing_count;
    in_links += c.incoming_count;
  }
  EXPECT_EQ(out_links, in_links);
  EXPECT_EQ(out_links, r.turns + 20u);  // 20 streets of 2 cells: one link inside each
}

//! Each in-street's turns at node 0 of star(p, q): the out-streets its last cell leads to.
std::vector<std::vector<std::uint32_t>> turns_of(const Network& net, std::uint32_t p, std::uint32_t q) {
  std::vector<std::vector<std::uint32_t>> turns(p);
  for (std::uint32_t i = 0; i < p; ++i) {
    const auto& cell = net.cells[last_cell(i)];
    for (std::uint32_t k = 0; k < cell.outgoing_count; ++k) {
      const std::uint32_t j = (cell.outgoing[k] - first_out_cell(p, 0)) / 2;
      EXPECT_EQ(cell.outgoing[k], first_out_cell(p, j));
      EXPECT_LT(j, q);
      turns[i].push_back(j);
    }
  }
  return turns;
}

TEST(TrafficBuild, AHubOf3In10OutGivesEveryOutStreetATurnByHand) {
  // docs/traffic.md, "Fan-in and fan-out above 8", worked by hand for p = 3 in, q = 10 out:
  // (1) in-street i takes out-street i mod 10: 0-0, 1-1, 2-2.
  // (2) out-streets 3 .. 9 have none: each takes in-street j mod 3 (all have room):
  //     3-0, 4-1, 5-2, 6-0, 7-1, 8-2, 9-0. In-street 0 has 4 turns, 1 and 2 three each.
  // (3) in-street 0 takes further out-streets from 0 on while it has fewer than 8: 1, 2, 4, 5
  //     (3 it has) -> 8 turns. In-street 1 from 1 on: 2, 3, 5, 6, 8 -> 8. In-street 2 from 2 on:
  //     3, 4, 6, 7, 9 -> 8. No out-street reaches 8 (at most 3 in-streets).
  BuildReport r;
  const Network net = build_network(star(3, 10), &r);
  using Turns = std::vector<std::vector<std::uint32_t>>;
  EXPECT_EQ(turns_of(net, 3, 10), (Turns{{0, 1, 2, 3, 4, 5, 6, 9}, {1, 2, 3, 4, 5, 6, 7, 8}, {2, 3, 4, 5, 6, 7, 8, 9}}));
  EXPECT_EQ(r.turns, 24u);
  EXPECT_EQ(r.dropped_turns, 6u);
  EXPECT_EQ(r.dead_end_sinks, 0u);
  const std::uint8_t fan_in[10] = {1, 2, 3, 3, 3, 3, 3, 2, 2, 2};
  for (std::uint32_t j = 0; j < 10; ++j) EXPECT_EQ(net.cells[first_out_cell(3, j)].incoming_count, fan_in[j]) << j;
}

TEST(TrafficBuild, AHubOf9In10OutKeepsEightTurnsAStreetByHand) {
  // p = 9, q = 10. (1) in-street i takes out-street i: 0-0 .. 8-8. (2) out-street 9 has none:
  // in-street 9 mod 9 = 0 takes it. (3) in-street 0 (2 turns) adds 1 .. 6 (8: full); in-street
  // 1 adds 2 .. 8; 2 adds 3 .. 9; 3 adds 4 .. 9, 0; ...; each in-street i from i on until it
  // has 8, an out-street taking at most 8: out-street 8 fills with in-street 7 (8-8, then 1 .. 7),
  // out-street 9 with in-street 8 (0-9, then 2 .. 8), so in-street 8 goes on to 0 .. 5.
  BuildReport r;
  const Network net = build_network(star(9, 10), &r);
  using Turns = std::vector<std::vector<std::uint32_t>>;
  EXPECT_EQ(turns_of(net, 9, 10), (Turns{{0, 1, 2, 3, 4, 5, 6, 9},
                                         {1, 2, 3, 4, 5, 6, 7, 8},
                                         {2, 3, 4, 5, 6, 7, 8, 9},
                                         {0, 3, 4, 5, 6, 7, 8, 9},
                                         {0, 1, 4, 5, 6, 7, 8, 9},
                                         {0, 1, 2, 5, 6, 7, 8, 9},
                                         {0, 1, 2, 3, 6, 7, 8, 9},
                                         {0, 1, 2, 3, 4, 7, 8, 9},
                                         {0, 1, 2, 3, 4, 5, 8, 9}}));
  EXPECT_EQ(r.turns, 72u);
  EXPECT_EQ(r.dropped_turns, 18u);
}

TEST(TrafficBuild, ALightOfMoreThan48StreetsIsRefused) {
  try {
    build_network(star(49, 1));
    FAIL() << "no error";
  } catch (const ds::InputError& e) {
    EXPECT_STREQ(e.what(),
                 "star: the traffic light at node '0' has 49 incoming streets; at most 48 fit its 6 signal groups of 8 "
                 "cells");
  }
}

// --- lower Manhattan ---------------------------------------------------------------------

const ds::StreetNetwork* manhattan() {
  static const auto net = [] {
    const std::string path = std::string(LB_SHARED_DATASETS) + "/lowermanhattan.graphml";
    return std::filesystem::exists(path) ? std::make_unique<ds::StreetNetwork>(ds::load_osmnx_graphml(path)) : nullptr;
  }();
  return net.get();
}

#define NEEDS_MANHATTAN()                                           \
  if (!manhattan()) GTEST_SKIP() << "shared datasets not present: " \
                                 << LB_SHARED_DATASETS "/lowermanhattan.graphml"

TEST(TrafficBuild, LowerManhattanKeepsTheLoadedCellGraph) {
  NEEDS_MANHATTAN();
  const ds::StreetNetwork& streets = *manhattan();
  BuildReport r;
  const Network net = build_network(streets, &r);
  EXPECT_EQ(r.dropped_turns, 0u);
  EXPECT_EQ(r.sink_cells, 29u);
  EXPECT_EQ(net.lights.size(), 992u);
  EXPECT_EQ(net.yields.size(), 806u);
  EXPECT_EQ(net.groups.size(), 4151u);
  for (std::uint32_t c = 0; c < net.cells.size(); ++c) {
    const auto& cell = net.cells[c];
    ASSERT_EQ(cell.outgoing_count, streets.out_offsets[c + 1] - streets.out_offsets[c]) << c;
    ASSERT_TRUE(std::equal(cell.outgoing.begin(), cell.outgoing.begin() + cell.outgoing_count,
                           streets.out_cells.begin() + streets.out_offsets[c]))
        << c;
    ASSERT_EQ(cell.incoming_count, streets.in_offsets[c + 1] - streets.in_offsets[c]) << c;
  }
}

struct SimRun {
  std::uint64_t checksum;
  State state;
};

//! 3000 cars on lower Manhattan; `controllers` false: without lights and yield controllers,
//! where cars meet at every merge and the conflict rule decides.
SimRun run_manhattan(std::uint64_t seed, std::uint32_t steps, Order order, bool check_each_step,
                     bool controllers = true) {
  Network net = build_network(*manhattan());
  if (!controllers) {
    net.lights.clear();
    net.yields.clear();
    net.groups.clear();
  }
  State s = initial_state(net, 3000, seed);
  for (std::uint32_t t = 0; t < steps; ++t) {
    reference_step(net, s, order);
    if (check_each_step) {
      const std::string broken = check_invariants(net, s);
      EXPECT_EQ(broken, "") << "after step " << s.step;
      if (!broken.empty()) break;
    }
  }
  return {checksum(s), std::move(s)};
}

//! Seed 7, ascending order, the invariants checked after every step: run once, compared with
//! by the tests below.
const SimRun& manhattan_seed_7() {
  static const SimRun run = run_manhattan(7, 200, Order::ascending, true);
  return run;
}

TEST(TrafficSimulation, LowerManhattanKeepsItsInvariantsFor200Steps) {
  NEEDS_MANHATTAN();
  const SimRun& run = manhattan_seed_7();
  EXPECT_EQ(run.state.step, 200u);
  // Cars do move, leave at sinks and come back.
  std::size_t moving = 0;
  for (const auto& c : run.state.cars) moving += c.velocity > 0;
  EXPECT_GT(moving, 300u);
  EXPECT_GT(run.state.left, 0u);
  EXPECT_GT(run.state.reactivated, 0u);
}

TEST(TrafficSimulation, TheSameSeedGivesTheSameChecksum) {
  NEEDS_MANHATTAN();
  EXPECT_EQ(run_manhattan(7, 200, Order::ascending, false).checksum, manhattan_seed_7().checksum);
}

TEST(TrafficSimulation, AnotherSeedGivesAnotherChecksum) {
  NEEDS_MANHATTAN();
  EXPECT_NE(run_manhattan(8, 200, Order::ascending, false).checksum, manhattan_seed_7().checksum);
}

TEST(TrafficSimulation, ThePhasesObjectsInReverseOrderGiveTheSameState) {
  NEEDS_MANHATTAN();
  // Every phase is independent of the order of its objects (what a parallel step relies on).
  const SimRun reversed = run_manhattan(7, 200, Order::descending, false);
  EXPECT_EQ(reversed.checksum, manhattan_seed_7().checksum);
  std::ostringstream csv_a, csv_r;
  const Network net = build_network(*manhattan());
  write_state_csv(csv_a, net, manhattan_seed_7().state);
  write_state_csv(csv_r, net, reversed.state);
  EXPECT_EQ(csv_a.str(), csv_r.str());
}

TEST(TrafficSimulation, WithoutControllersCarsMeetAtMergesAndTheOrderStillDoesNotMatter) {
  NEEDS_MANHATTAN();
  // The controllers let one street at a time into an intersection, so with them cars rarely
  // (in lower Manhattan never) target one cell; without them the conflict rule decides often.
  const SimRun up = run_manhattan(7, 100, Order::ascending, true, false);
  const SimRun down = run_manhattan(7, 100, Order::descending, false, false);
  EXPECT_GT(up.state.conflicts, 100u);
  EXPECT_EQ(up.checksum, down.checksum);
  EXPECT_EQ(up.state.conflicts, down.state.conflicts);
}

//! Something that converts to any field's type: T{AnyField{}, ...} compiles with up to as many
//! as T has fields (a base class counts as one).
struct AnyField {
  template <class T>
  operator T() const;  // declared only: used in unevaluated requires-expressions
};

//! How many fields the aggregate T has.
template <class T, class... Fields>
constexpr std::size_t field_count() {
  if constexpr (requires { T{Fields{}..., AnyField{}}; })
    return field_count<T, Fields..., AnyField>();
  else
    return sizeof...(Fields);
}

using Change = std::pair<const char*, std::function<void(State&)>>;

TEST(TrafficSimulation, TheChecksumSeesEveryFieldOfTheState) {
  // A light, two cars with paths, after a step; then every field of State changed in turn,
  // down to each car's and each light's fields. A field added to State, Car or LightState
  // without a change here fails the counts (and should enter the checksum).
  const Network net = lit_crossing(false);
  State s = with_cars(net, {0, 3});
  s.lights[0] = {0, 50, 0};  // both groups have traffic: both stay red (cells 1 and 3)
  step_checked(net, s);
  ASSERT_GT(s.cars[0].path_length, 0);
  ASSERT_EQ(s.controller_limit[1], 0);
  const std::vector<Change> state = {
      {"seed", [](State& x) { x.seed ^= 1; }},
      {"step", [](State& x) { ++x.step; }},
      {"dawdle", [](State& x) { x.dawdle ^= 1; }},
      {"cars", [](State& x) { x.cars.pop_back(); }},
      {"lights", [](State& x) { x.lights.push_back(x.lights[0]); }},
      // A cell's fields on a cell the checksum skipped (empty: 6) and on one it hashed (car 0
      // on cell 0; cell 1, red).
      {"occupant", [](State& x) { x.occupant[6] = 0; }},
      {"occupant", [](State& x) { x.occupant[1] = 0; }},
      {"controller_limit", [](State& x) { x.controller_limit[6] = 3; }},
      {"controller_limit", [](State& x) { x.controller_limit[0] = 3; }},
      {"claim", [](State& x) { x.claim[6] = 1; }},
      {"claim", [](State& x) { x.claim[0] = 1; }},
      {"left", [](State& x) { ++x.left; }},
      {"reactivated", [](State& x) { ++x.reactivated; }},
      {"conflicts", [](State& x) { ++x.conflicts; }},
  };
  const std::vector<Change> car = {
      {"position", [](State& x) { x.cars[0].position ^= 2; }},
      {"velocity", [](State& x) { x.cars[0].velocity ^= 1; }},
      {"max_velocity", [](State& x) { x.cars[0].max_velocity ^= 1; }},
      {"path_length", [](State& x) { --x.cars[0].path_length; }},
      {"active", [](State& x) { x.cars[0].active = !x.cars[0].active; }},
      {"path", [](State& x) { x.cars[0].path[0] ^= 1; }},
  };
  const std::vector<Change> light = {
      {"timer", [](State& x) { x.lights[0].timer ^= 1; }},
      {"phase_time", [](State& x) { x.lights[0].phase_time ^= 1; }},
      {"phase", [](State& x) { x.lights[0].phase ^= 1; }},
  };
  auto fields = [](const std::vector<Change>& changes) {
    std::set<std::string> names;
    for (const auto& change : changes) names.insert(change.first);
    return names.size();
  };
  EXPECT_EQ(field_count<State>(), fields(state));
  EXPECT_EQ(field_count<CarScalars>() + field_count<Car>() - 1, fields(car));  // Car: its base and the path
  EXPECT_EQ(field_count<LightState>(), fields(light));
  const std::uint64_t base = checksum(s);
  for (const auto* changes : {&state, &car, &light})
    for (const auto& [field, change] : *changes) {
      State changed = s;
      change(changed);
      EXPECT_NE(checksum(changed), base) << field;
    }
  // What is not state: path slots beyond the path's length (the layouts keep none).
  State beyond = s;
  beyond.cars[0].path[beyond.cars[0].path_length] ^= 1;
  EXPECT_EQ(checksum(beyond), base);
}

TEST(TrafficSimulation, TheStateCsvHasARowPerCar) {
  const Network net = ring(10);
  State s = with_cars(net, {2, 5});
  std::ostringstream out;
  write_state_csv(out, net, s);
  EXPECT_EQ(out.str(),
            "car,active,cell,x,y,velocity,max_velocity,path\n"
            "0,1,2,8.00,0.00,0,20,\n"
            "1,1,5,20.00,0.00,0,20,\n");
}


// --- the parallel step ----------------------------------------------------------------------
// reference_step_parallel (each phase an OpenMP loop, claims through atomic_claim_min) gives
// reference_step's state bit for bit: compared field by field on 2 and 4 threads (passed
// explicitly: ctest gives every test OMP_NUM_THREADS=2), every phase in parallel however few
// its objects. ctest runs these with OMP_WAIT_POLICY=passive (tests/CMakeLists.txt).

//! The first index where two vectors differ, or the shorter one's length.
template <class T>
std::size_t first_difference(const std::vector<T>& a, const std::vector<T>& b) {
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  return i;
}

//! Every field of the two states equal, each car's whole path array included (its slots beyond
//! the length too: both steps write the same ones).
void expect_same_state(const State& want, const State& got, const std::string& what) {
  static_assert(field_count<State>() == 11 && field_count<CarScalars>() == 5 && field_count<Car>() == 2 &&
                    field_count<LightState>() == 3,
                "a field added to the state: compare it below");
  SCOPED_TRACE(what);
  EXPECT_EQ(got.seed, want.seed);
  EXPECT_EQ(got.step, want.step);
  EXPECT_EQ(got.dawdle, want.dawdle);
  EXPECT_EQ(got.left, want.left);
  EXPECT_EQ(got.reactivated, want.reactivated);
  EXPECT_EQ(got.conflicts, want.conflicts);
  ASSERT_EQ(got.occupant.size(), want.occupant.size());
  ASSERT_EQ(got.controller_limit.size(), want.controller_limit.size());
  ASSERT_EQ(got.claim.size(), want.claim.size());
  EXPECT_EQ(first_difference(got.occupant, want.occupant), want.occupant.size()) << "occupant";
  EXPECT_EQ(first_difference(got.controller_limit, want.controller_limit), want.controller_limit.size())
      << "controller limit";
  EXPECT_EQ(first_difference(got.claim, want.claim), want.claim.size()) << "claim";
  ASSERT_EQ(got.cars.size(), want.cars.size());
  for (std::size_t k = 0; k < want.cars.size(); ++k) {
    const Car &a = want.cars[k], &b = got.cars[k];
    ASSERT_TRUE(a.position == b.position && a.velocity == b.velocity && a.max_velocity == b.max_velocity &&
                a.path_length == b.path_length && a.active == b.active && a.path == b.path)
        << "car " << k << ": cell " << b.position << " (want " << a.position << "), velocity " << int(b.velocity)
        << " (" << int(a.velocity) << "), path length " << int(b.path_length) << " (" << int(a.path_length) << ")";
  }
  ASSERT_EQ(got.lights.size(), want.lights.size());
  for (std::size_t l = 0; l < want.lights.size(); ++l) {
    const LightState &a = want.lights[l], &b = got.lights[l];
    ASSERT_TRUE(a.timer == b.timer && a.phase_time == b.phase_time && a.phase == b.phase) << "light " << l;
  }
  EXPECT_EQ(checksum(got), checksum(want));
}

//! `steps` steps of reference_step and of reference_step_parallel on 2 and 4 threads from
//! `initial`, compared every `every` steps and after the last; returns the reference's state.
State expect_parallel_steps_as_reference(const Network& net, const State& initial, std::uint32_t steps,
                                         std::uint32_t every = 1) {
  State want = initial;
  std::vector<std::pair<int, State>> parallel = {{2, initial}, {4, initial}};
  for (std::uint32_t t = 1; t <= steps; ++t) {
    reference_step(net, want);
    for (auto& [threads, s] : parallel) reference_step_parallel(net, s, threads, 1);  // every phase in parallel
    if (t % every != 0 && t != steps) continue;
    for (const auto& [threads, s] : parallel) {
      expect_same_state(want, s, std::to_string(threads) + " threads, after step " + std::to_string(t));
      if (::testing::Test::HasFailure()) return want;
    }
  }
  return want;
}

//! `cells` cells claimed by `threads` threads, all the same cell at the same moment: cell i
//! during the clock's i-th microsecond, each thread claiming it once (id = its number) when it
//! sees the microsecond begin. Returns the cells claimed by several threads and those left
//! above their lowest claim.
std::pair<std::size_t, std::size_t> claim_cells_at_once(std::uint32_t threads, std::uint32_t cells) {
  std::vector<std::uint32_t> claim(cells, kNone);
  std::vector<std::vector<std::uint8_t>> claimed(threads, std::vector<std::uint8_t>(cells, 0));
  const auto start = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(static_cast<int>(threads))
  {
    const auto t = static_cast<std::uint32_t>(omp_get_thread_num());
    for (std::int64_t last = -1;;) {
      const std::int64_t us =
          std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count();
      if (us >= cells) break;
      if (us == last) continue;
      last = us;
      atomic_claim_min(claim[us], t);
      claimed[t][us] = 1;
    }
  }
  std::size_t contested = 0, wrong = 0;
  for (std::uint32_t c = 0; c < cells; ++c) {
    std::uint32_t lowest = kNone, claimers = 0;
    for (std::uint32_t t = threads; t-- > 0;)
      if (claimed[t][c]) lowest = t, ++claimers;
    contested += claimers > 1;
    wrong += claim[c] != lowest;
  }
  return {contested, wrong};
}

TEST(TrafficParallel, AtomicClaimMinKeepsTheLowestOfClaimsAtOnce) {
  // Claims that close together interleave: a lost update (a thread storing its id over a
  // lower one stored since it read the cell) leaves a cell above its lowest claim for good.
  // Rounds of 0.13 s until 20,000 cells were claimed by several threads at once (at most 40:
  // on a busy machine the threads may seldom run together). A plain `if (id < c) c = id` left
  // 1-3 % of such cells wrong on a loaded 2-core machine (docs/traffic.md); the CAS loop cannot.
  std::size_t contested = 0, wrong = 0;
  for (int round = 0; round < 40 && contested < 20000; ++round) {
    const auto [c, w] = claim_cells_at_once(4, 1u << 17);
    contested += c;
    wrong += w;
  }
  EXPECT_EQ(wrong, 0u) << "cells left above their lowest claim, of " << contested << " claimed by several threads";
  if (contested == 0) GTEST_SKIP() << "the threads never ran at once: nothing checked";
}

TEST(TrafficParallel, TheHandMadeNetworksStepAsTheReference) {
  struct Case {
    std::string name;
    Network net;
    State initial;
    std::uint32_t steps;
  };
  std::vector<Case> cases;
  const auto add = [&](std::string name, Network net, std::uint32_t steps, auto&& make_state) {
    State s = make_state(net);
    cases.push_back({std::move(name), std::move(net), std::move(s), steps});
  };
  add("one car on a ring", ring(100), 30, [](const Network& n) { return with_cars(n, {0}); });
  add("a jammed ring", ring(11), 12, [](const Network& n) { return with_cars(n, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}); });
  add("a merge", merge(), 6, [](const Network& n) { return with_cars(n, {a1, b1}); });
  add("a merge, ids swapped", merge(), 6, [](const Network& n) { return with_cars(n, {b1, a1}); });
  add("a merge, the loser keeps", merge(), 6, [](const Network& n) { return with_cars(n, {a1, b0}, 3); });
  add("a red light", lit_crossing(false), 12, [](const Network& n) {
    State s = with_cars(n, {1, 3});
    s.lights[0] = {0, 5, 1};
    return s;
  });
  add("a yield controller", lit_crossing(true), 12, [](const Network& n) { return with_cars(n, {1, 3}); });
  add("a sink", make_network(5, {{0, 1}, {1, 2}, {2, 3}, {3, 4}}, {4}), 8,
      [](const Network& n) { return with_cars(n, {3}); });
  add("a light of 9 streets on 6 groups", build_network(star(9, 1)), 40,
      [](const Network& n) { return initial_state(n, 10, 5); });
  add("a 5x5 city", test_city::grid_city(5), 100, [](const Network& n) { return initial_state(n, 100, 11); });
  Network open = test_city::grid_city(5);
  open.lights.clear();
  open.yields.clear();
  open.groups.clear();
  // 300 cars on 448 cells without controllers: the conflict rule decides at every merge.
  add("a dense 5x5 city without controllers", open, 100, [](const Network& n) { return initial_state(n, 300, 11); });
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const State want = expect_parallel_steps_as_reference(c.net, c.initial, c.steps);
    if (HasFailure()) return;
    EXPECT_EQ(check_invariants(c.net, want), "");
    if (c.name.starts_with("a dense")) {
      EXPECT_GT(want.conflicts, 500u);
    }
  }
}

TEST(TrafficParallel, LowerManhattanStepsAsTheReference) {
  NEEDS_MANHATTAN();
  const Network net = build_network(*manhattan());
  // 3000 cars under the controllers (lights and yields in parallel), seed 7.
  const State lit = expect_parallel_steps_as_reference(net, initial_state(net, 3000, 7), 200, 10);
  EXPECT_GT(lit.left, 0u);
  if (HasFailure()) return;
  // 20,000 cars without controllers: ~300 cars a step lose a cell another claimed too.
  Network open = net;
  open.lights.clear();
  open.yields.clear();
  open.groups.clear();
  const State dense = expect_parallel_steps_as_reference(open, initial_state(open, 20000, 8), 100, 10);
  EXPECT_GT(dense.conflicts, 20000u);
}

//! The first cell in two signal groups or group in two controllers (phase (a) in parallel, as
//! on the GPU, relies on neither), or "".
std::string shared_controller_cell(const Network& net) {
  constexpr std::uint32_t none = kNone;
  std::vector<std::uint32_t> group_of_cell(net.cells.size(), none), controller_of_group(net.groups.size(), none);
  const auto own = [&](std::uint32_t controller, std::uint32_t g) -> std::string {
    if (controller_of_group[g] != none) return "group " + std::to_string(g) + " is in two controllers";
    controller_of_group[g] = controller;
    for (std::uint32_t i = 0; i < net.groups[g].cell_count; ++i) {
      const std::uint32_t c = net.groups[g].cells[i];
      if (group_of_cell[c] != none && group_of_cell[c] != g) return "cell " + std::to_string(c) + " is in two groups";
      group_of_cell[c] = g;
    }
    return "";
  };
  for (std::uint32_t l = 0; l < net.lights.size(); ++l)
    for (std::uint32_t i = 0; i < net.lights[l].group_count; ++i)
      if (std::string e = own(l, net.lights[l].groups[i]); !e.empty()) return e;
  for (std::uint32_t y = 0; y < net.yields.size(); ++y)
    for (std::uint32_t g : net.yields[y].groups)
      if (std::string e = own(static_cast<std::uint32_t>(net.lights.size()) + y, g); !e.empty()) return e;
  return "";
}

TEST(TrafficParallel, EveryCellIsInAtMostOneSignalGroupOfOneController) {
  EXPECT_EQ(shared_controller_cell(test_city::grid_city(5)), "");
  EXPECT_EQ(shared_controller_cell(build_network(star(9, 1))), "");
  Network shared = lit_crossing(false);
  add_controller(shared, {3, 5}, true);  // cell 3 under the light and a yield controller
  EXPECT_EQ(shared_controller_cell(shared), "cell 3 is in two groups");
  NEEDS_MANHATTAN();
  EXPECT_EQ(shared_controller_cell(build_network(*manhattan())), "");
  // Tiled, the controllers are computed again for the whole city (joints included).
  const std::string path = std::string(LB_SHARED_DATASETS) + "/lowermanhattan.graphml";
  EXPECT_EQ(shared_controller_cell(load_network(path, 2, 2)), "");
}

}  // namespace

#pragma once
//! The traffic simulation on the host: the network the rules run on (built from a loaded
//! street network, with the classes' array limits enforced), the simulation state, the
//! initial state, the sequential CPU reference (lb/traffic/model.hpp's phases in order), its
//! parallel twin (OpenMP, the same state) and the validation every version shares (checksum,
//! invariants, the state as CSV). docs/traffic.md states the rules.

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "lb/datasets/street_network.hpp"
#include "lb/traffic/model.hpp"

namespace lb::traffic {

//! The static network: cells with their incoming and outgoing cells (at most 8 each), signal
//! groups (at most 8 cells), traffic lights (at most 6 groups), yield controllers (2 groups).
struct Network {
  struct Cell {
    double x, y;  //!< metres
    std::uint8_t speed_limit;  //!< the street's, cells a step
    std::uint8_t type;         //!< datasets::StreetType
    bool sink;
    std::uint8_t incoming_count, outgoing_count;
    std::array<std::uint32_t, kMaxIncoming> incoming;
    std::array<std::uint32_t, kMaxOutgoing> outgoing;
  };
  struct SignalGroup {
    std::uint8_t cell_count;
    std::array<std::uint32_t, kMaxGroupCells> cells;
  };
  struct TrafficLight {
    std::uint8_t group_count;
    std::array<std::uint32_t, kMaxLightGroups> groups;
  };
  struct YieldController {
    std::array<std::uint32_t, kYieldGroups> groups;  //!< priority order
  };
  std::vector<Cell> cells;
  std::vector<SignalGroup> groups;
  std::vector<TrafficLight> lights;
  std::vector<YieldController> yields;
};

//! What building changed to fit the classes' limits (docs/traffic.md, "Fan-in and fan-out").
struct BuildReport {
  std::size_t turns = 0;             //!< turns (cell to cell at an intersection) kept
  std::size_t dropped_turns = 0;     //!< turns dropped at intersections of more than 8 streets in or out
  std::size_t crowded_nodes = 0;     //!< such intersections
  std::size_t dead_end_sinks = 0;    //!< streets' last cells left without a turn: made sinks
  std::size_t merged_lights = 0;     //!< lights of more than 6 incoming streets (groups share cells)
  std::size_t sink_cells = 0;        //!< all sinks (the network's and the dead ends above)
  std::uint32_t max_incoming = 0, max_outgoing = 0;
};

//! The simulation's network from a loaded street network: cells keep their street's limit,
//! type and sink flag and are linked along streets; at an intersection with at most 8 streets
//! in and at most 8 out every incoming street's last cell leads to every outgoing street's
//! first cell; at a larger one turns are chosen as docs/traffic.md states (every street keeps
//! at least one turn where the limits allow; a street's last cell left without one becomes a
//! sink). Each of the network's signal groups (one cell) becomes a group; a light with more
//! than 6 groups deals its incoming streets round-robin onto 6 groups. Throws InputError for
//! a light of more than 48 incoming streets (6 groups of 8 cells).
Network build_network(const datasets::StreetNetwork& net, BuildReport* report = nullptr);

//! One line: cells, sinks, turns, and what building dropped or merged.
std::string describe(const BuildReport& r);

struct Car : CarScalars {
  std::array<std::uint32_t, kMaxPath> path;
};

//! Everything that changes. Claims are scratch: every claim is kNone between steps.
struct State {
  std::uint64_t seed = 0;
  std::uint32_t step = 0;
  std::uint32_t dawdle = kDawdleThreshold;  //!< plan_car's dawdle threshold (0: none, for exact tests)
  std::vector<Car> cars;
  std::vector<LightState> lights;
  std::vector<std::uint32_t> occupant;          //!< per cell: the car in it, or kNone
  std::vector<std::uint8_t> controller_limit;   //!< per cell: kNoControllerLimit, or a controller's limit
  std::vector<std::uint32_t> claim;             //!< per cell, scratch of phase (c)
  std::uint64_t left = 0, reactivated = 0;      //!< cars that left at sinks / came back, all steps
  std::uint64_t conflicts = 0;                  //!< cars stopped short by the conflict rule, all steps
};

//! The cells a car may start on: every cell but the sinks.
std::size_t start_cells(const Network& net);

//! `cars` cars at distinct random non-sink cells (a partial Fisher–Yates over them keyed by
//! the seed), velocity 0, max velocity 10..29; lights with phase time 40..59, a random timer
//! and phase; every group stopped (the authors' start). Throws std::invalid_argument when
//! cars exceed start_cells (a network has fewer than 2^32 cells).
State initial_state(const Network& net, std::size_t cars, std::uint64_t seed);

enum class Order { ascending, descending };

//! One step of the CPU reference: the phases of lb/traffic/model.hpp, each over all its
//! objects in id order (descending: in reverse, which must give the same state, as any order
//! or a parallel run must; the tests compare).
void reference_step(const Network& net, State& s, Order order = Order::ascending);

//! A phase of fewer objects runs on the calling thread in reference_step_parallel: a parallel
//! region costs microseconds on idle cores and milliseconds where every core is busy (tests
//! side by side), more than a small phase's work (lower Manhattan, 5000 cars: ~2 ms a step for
//! all phases; 2 threads on a loaded 2-core machine made its 1000 steps 41 s instead of 2.5 s).
inline constexpr std::size_t kParallelMinObjects = 16384;

//! The same step with each phase of at least `min_objects` objects an OpenMP loop over them on
//! `threads` threads (0: OpenMP's default): claims through atomic_claim_min, the counters as
//! reductions, so the state is reference_step's, bit for bit (the tests compare). Needs what
//! build_network guarantees and the GPU relies on too: a cell in at most one signal group, a
//! group in one controller.
void reference_step_parallel(const Network& net, State& s, int threads = 0,
                             std::size_t min_objects = kParallelMinObjects);

//! claim = min(claim, id) with other threads doing the same (the GPU's atomicMin): a CAS loop,
//! relaxed (the phase's barrier orders it before the claims are read).
inline void atomic_claim_min(std::uint32_t& claim, std::uint32_t id) {
  std::atomic_ref<std::uint32_t> a(claim);
  std::uint32_t seen = a.load(std::memory_order_relaxed);
  while (id < seen && !a.compare_exchange_weak(seen, id, std::memory_order_relaxed)) {
  }
}

//! The final state's checksum: every field of State (docs/traffic.md, "Validation"): the
//! step, seed, dawdle threshold and counters, every car (cell, velocity, max velocity, path
//! length, active, its path up to its length), every cell that has a car, a controller limit
//! or a claim, and every light's timer, phase and phase time.
std::uint64_t checksum(const State& s);

//! The invariants, "" when they hold, else the first violation: every active car is on a
//! non-sink cell that names it, every occupied cell names an active car on it (so no two cars
//! share a cell), cars are conserved (active = cars - left + reactivated), velocity <= max
//! velocity <= 30, velocity <= path length <= 30 (0 and 0 for an inactive car), no claim left,
//! every light's timer below its phase time and its phase one of its groups.
std::string check_invariants(const Network& net, const State& s);

//! The state as CSV: "car,active,cell,x,y,velocity,max_velocity,path" (the path as cell ids
//! separated by spaces), one row per car in id order.
void write_state_csv(std::ostream& out, const Network& net, const State& s);

}  // namespace lb::traffic

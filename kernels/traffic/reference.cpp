// The CPU reference of the traffic simulation: the initial state and one step, the phases of
// lb/traffic/model.hpp one after another, each over its objects in id order (or, in the
// parallel step, an OpenMP loop over them), on plain vectors.

#include <fmt/format.h>
#include <omp.h>

#include <stdexcept>
#include <type_traits>

#include "lb/traffic/simulation.hpp"

namespace lb::traffic {
namespace {

//! The world accessor of lb/traffic/model.hpp over the reference's vectors. Parallel: claims
//! through atomic_claim_min (the GPU's atomicMin) and clears as atomic stores (several cars may
//! clear one cell; the same value); every other write of a phase is to a datum no other object
//! of that phase reads or writes.
template <bool Parallel>
struct HostWorld {
  const Network& net;
  State& s;

  std::uint32_t occupant(std::uint32_t c) const { return s.occupant[c]; }
  std::uint32_t street_limit(std::uint32_t c) const { return net.cells[c].speed_limit; }
  std::uint32_t limit(std::uint32_t c) const {
    const std::uint32_t street = net.cells[c].speed_limit, ctrl = s.controller_limit[c];
    return ctrl < street ? ctrl : street;
  }
  bool sink(std::uint32_t c) const { return net.cells[c].sink; }
  std::uint32_t type(std::uint32_t c) const { return net.cells[c].type; }
  std::uint32_t outgoing_count(std::uint32_t c) const { return net.cells[c].outgoing_count; }
  std::uint32_t outgoing(std::uint32_t c, std::uint32_t i) const { return net.cells[c].outgoing[i]; }
  std::uint32_t incoming_count(std::uint32_t c) const { return net.cells[c].incoming_count; }
  std::uint32_t incoming(std::uint32_t c, std::uint32_t i) const { return net.cells[c].incoming[i]; }
  std::uint32_t group_cell_count(std::uint32_t g) const { return net.groups[g].cell_count; }
  std::uint32_t group_cell(std::uint32_t g, std::uint32_t i) const { return net.groups[g].cells[i]; }
  void set_controller_limit(std::uint32_t c, std::uint8_t v) { s.controller_limit[c] = v; }
  std::uint32_t claim(std::uint32_t c) const { return s.claim[c]; }
  void claim_min(std::uint32_t c, std::uint32_t id) {
    if constexpr (Parallel)
      atomic_claim_min(s.claim[c], id);
    else if (id < s.claim[c])
      s.claim[c] = id;
  }
  void clear_claim(std::uint32_t c) {
    if constexpr (Parallel)
      std::atomic_ref<std::uint32_t>(s.claim[c]).store(kNone, std::memory_order_relaxed);
    else
      s.claim[c] = kNone;
  }
  void set_occupant(std::uint32_t c, std::uint32_t id) { s.occupant[c] = id; }
};

//! A car's path (lb/traffic/model.hpp's path accessor).
struct Path {
  std::array<std::uint32_t, kMaxPath>& cells;
  std::uint32_t operator[](std::uint32_t i) const { return cells[i]; }
  void set(std::uint32_t i, std::uint32_t c) { cells[i] = c; }
};

//! A controller's groups (lb/traffic/model.hpp's group list).
template <std::size_t N>
struct Groups {
  const std::array<std::uint32_t, N>& ids;
  std::uint32_t n;
  std::uint32_t size() const { return n; }
  std::uint32_t operator[](std::uint32_t i) const { return ids[i]; }
};

}  // namespace

std::size_t start_cells(const Network& net) {
  std::size_t n = 0;
  for (const auto& c : net.cells) n += !c.sink;
  return n;
}

State initial_state(const Network& net, std::size_t cars, std::uint64_t seed) {
  std::vector<std::uint32_t> free;
  for (std::uint32_t c = 0; c < net.cells.size(); ++c)
    if (!net.cells[c].sink) free.push_back(c);
  if (cars > free.size())
    throw std::invalid_argument(fmt::format("--cars {}: the network has {} cells a car can start on ({} cells, {} sinks)",
                                            cars, free.size(), net.cells.size(), net.cells.size() - free.size()));
  State s;
  s.seed = seed;
  s.occupant.assign(net.cells.size(), kNone);
  s.claim.assign(net.cells.size(), kNone);
  s.controller_limit.assign(net.cells.size(), kNoControllerLimit);
  s.cars.resize(cars);
  for (std::uint32_t k = 0; k < cars; ++k) {
    const auto left = static_cast<std::uint32_t>(free.size() - k);
    std::swap(free[k], free[k + random_below(random_bits(seed, Purpose::place, k, 0), left)]);
    Car& car = s.cars[k];
    car.position = free[k];
    car.velocity = 0;
    car.max_velocity = static_cast<std::uint8_t>(
        kMinCarVelocity + random_below(random_bits(seed, Purpose::max_velocity, k, 0), kCarVelocityRange));
    car.path_length = 0;
    car.active = true;
    car.path.fill(kNone);
    s.occupant[car.position] = k;
  }
  for (std::uint32_t l = 0; l < net.lights.size(); ++l) {
    LightState ls;
    ls.phase_time = kMinPhaseTime + random_below(random_bits(seed, Purpose::phase_time, l, 0), kPhaseTimeRange);
    ls.timer = random_below(random_bits(seed, Purpose::timer, l, 0), ls.phase_time);
    ls.phase = random_below(random_bits(seed, Purpose::phase, l, 0), net.lights[l].group_count);
    s.lights.push_back(ls);
  }
  for (const auto& g : net.groups)
    for (std::uint32_t i = 0; i < g.cell_count; ++i) s.controller_limit[g.cells[i]] = 0;
  return s;
}

namespace {

//! f(i), counted: its result (a bool: whether the object did what the phase counts), 0 for void.
template <class F>
std::uint64_t counted(F& f, std::uint32_t i) {
  if constexpr (std::is_void_v<std::invoke_result_t<F&, std::uint32_t>>) {
    f(i);
    return 0;
  } else {
    return f(i);
  }
}

//! One step: the phases in order, each through each(n, f), which calls f for the objects 0 .. n-1
//! (in any order, or in parallel) and returns the sum of their counts.
template <bool Parallel, class Each>
void step(const Network& net, State& s, Each&& each) {
  HostWorld<Parallel> w{net, s};
  const auto cars = static_cast<std::uint32_t>(s.cars.size());
  // (a) controllers: the lights, then the yield controllers (one loop: they write disjoint cells)
  const auto lights = static_cast<std::uint32_t>(net.lights.size());
  each(net.lights.size() + net.yields.size(), [&](std::uint32_t i) {
    if (i < lights)
      step_light(w, s.lights[i], Groups<kMaxLightGroups>{net.lights[i].groups, net.lights[i].group_count});
    else
      step_yield(w, Groups<kYieldGroups>{net.yields[i - lights].groups, kYieldGroups});
  });
  // (b) plan
  each(cars, [&](std::uint32_t k) {
    Path path{s.cars[k].path};
    plan_car(w, s.cars[k], path, s.seed, k, s.step, s.dawdle);
  });
  // (c) claims, then the conflict rule
  each(cars, [&](std::uint32_t k) { claim_path(w, s.cars[k], Path{s.cars[k].path}, k); });
  s.conflicts += each(cars, [&](std::uint32_t k) { return resolve_claims(w, s.cars[k], Path{s.cars[k].path}, k); });
  // (d) move; sinks
  s.left += each(cars, [&](std::uint32_t k) { return move_car(w, s.cars[k], Path{s.cars[k].path}, k); });
  // (e) reactivation
  if (cars > 0) {
    const std::uint32_t shift = reactivation_shift(s.seed, s.step);
    const auto cells = static_cast<std::uint32_t>(net.cells.size());
    s.reactivated +=
        each(cars, [&](std::uint32_t k) { return reactivate_car(w, s.cars[k], k, cells, cars, shift); });
  }
  ++s.step;
}

}  // namespace

void reference_step(const Network& net, State& s, Order order) {
  step<false>(net, s, [order](std::size_t n, auto&& f) {
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < n; ++i)
      sum += counted(f, static_cast<std::uint32_t>(order == Order::ascending ? i : n - 1 - i));
    return sum;
  });
}

void reference_step_parallel(const Network& net, State& s, int threads, std::size_t min_objects) {
  const int team = threads > 0 ? threads : omp_get_max_threads();
  step<true>(net, s, [team, min_objects](std::size_t n, auto&& f) {
    std::uint64_t sum = 0;
    const auto count = static_cast<std::int64_t>(n);
    // The region's end is the phase's barrier: the next phase reads what this one wrote.
#pragma omp parallel for if (n >= min_objects) num_threads(team) schedule(static) reduction(+ : sum)
    for (std::int64_t i = 0; i < count; ++i) sum += counted(f, static_cast<std::uint32_t>(i));
    return sum;
  });
}

}  // namespace lb::traffic

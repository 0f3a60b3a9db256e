#pragma once
//! The traffic simulation's rules (Springer et al. 2018, experiment 3; docs/traffic.md): one
//! Nagel–Schreckenberg car, one smart traffic light, one yield controller, one step of each,
//! written once for the CPU reference and the GPU version. Every function is LB_HD and takes
//! the world through an accessor (below), never a container, so the GPU version runs the very
//! same rules over its layout views.
//!
//! A step has five phases; each reads only what earlier phases (or earlier steps) wrote, and
//! within a phase no two objects write the same datum, so running the objects of a phase in
//! any order, or in parallel, gives the same state:
//!   (a) controllers: lights and yield controllers read occupancy, write their groups' cells'
//!       controller limits (a cell is in at most one group, a group in one controller);
//!   (b) plan: every active car accelerates, draws its path and slows (occupancy, limits);
//!   (c) claim: every car claims the cells it would drive through (claim = lowest car id,
//!       atomicMin on the GPU); resolve: a car stops before the first cell another car won;
//!   (d) move: a car releases its cell and occupies its last won cell, or leaves at a sink;
//!       it clears the claims along its path (cars clearing one cell store the same kNone);
//!   (e) reactivate: an inactive car takes the first free non-sink cell of its slice of the
//!       cell array (slices of different cars never overlap).
//!
//! The world accessor `W` provides (cells c, groups g, car ids as uint32):
//!   uint32_t occupant(c) const           the car in c, or kNone
//!   uint32_t limit(c) const              min(street limit, controller limit) in cells a step
//!   uint32_t street_limit(c) const
//!   bool sink(c) const;  uint32_t type(c) const (datasets::StreetType as an integer)
//!   uint32_t outgoing_count(c), outgoing(c, i), incoming_count(c), incoming(c, i) const
//!   uint32_t group_cell_count(g), group_cell(g, i) const
//!   void set_controller_limit(c, uint8_t)  (kNoControllerLimit: none)
//!   uint32_t claim(c) const;  void claim_min(c, id);  void clear_claim(c)
//!   void set_occupant(c, id)
//! A path accessor `P` provides uint32_t operator[](i) const and void set(i, cell); a group
//! list `G` provides uint32_t size() const and uint32_t operator[](i) const.

#include <cstdint>

#include "lb/layout/config.hpp"  // LB_HD

namespace lb::traffic {

inline constexpr std::uint32_t kNone = 0xffffffffu;     //!< no car / no claim
inline constexpr std::uint32_t kMaxIncoming = 8;        //!< Cell::incoming
inline constexpr std::uint32_t kMaxOutgoing = 8;        //!< Cell::outgoing
inline constexpr std::uint32_t kMaxPath = 30;           //!< Car::path
inline constexpr std::uint32_t kMaxGroupCells = 8;      //!< SharedSignalGroup::cells
inline constexpr std::uint32_t kMaxLightGroups = 6;     //!< TrafficLight::groups
inline constexpr std::uint32_t kYieldGroups = 2;        //!< a yield controller's groups
inline constexpr std::uint8_t kNoControllerLimit = 0xff;
inline constexpr std::uint32_t kMinCarVelocity = 10;    //!< a car's max velocity: 10..29 cells a step
inline constexpr std::uint32_t kCarVelocityRange = 20;
inline constexpr std::uint32_t kMinPhaseTime = 40;      //!< a light's phase: 40..59 steps
inline constexpr std::uint32_t kPhaseTimeRange = 20;
//! The upstream search of a controller looks at most this far (a street's limit is below 42).
inline constexpr std::uint32_t kMaxLookahead = 48;
//! Dawdling: p = 0.2, as a threshold on 32 random bits (858993459 / 2^32 = 0.2 - 5e-11).
inline constexpr std::uint32_t kDawdleThreshold = 858993459u;

// --- counter-based random numbers -------------------------------------------------------
//! What a random number is for: part of its key, so no two uses share a number.
enum class Purpose : std::uint32_t {
  accelerate = 1,
  path = 2,
  dawdle = 3,
  reactivate = 4,
  place = 5,
  max_velocity = 6,
  phase_time = 7,
  timer = 8,
  phase = 9
};

//! SplitMix64's finaliser.
LB_HD inline std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

//! 64 random bits for (seed, purpose, object, step, draw): a hash, no state, the same on the
//! host and the device.
LB_HD inline std::uint64_t random_bits(std::uint64_t seed, Purpose purpose, std::uint32_t object, std::uint32_t step,
                                       std::uint32_t draw = 0) {
  std::uint64_t h = mix64(seed);
  h = mix64(h ^ ((std::uint64_t{object} << 32) | step));
  return mix64(h ^ ((std::uint64_t(purpose) << 32) | draw));
}

//! Uniform in [0, n) (n >= 1), by multiply-shift of the high 32 bits.
LB_HD inline std::uint32_t random_below(std::uint64_t bits, std::uint32_t n) {
  return static_cast<std::uint32_t>(((bits >> 32) * n) >> 32);
}

// --- signal groups and controllers -----------------------------------------------------
//! Whether a car is in `cell` or in a cell up to `lookahead` cells upstream of it (the
//! authors' search, iterative: depth-first with an explicit stack).
template <class W>
LB_HD bool has_incoming_traffic(const W& w, std::uint32_t cell, std::uint32_t lookahead) {
  if (w.occupant(cell) != kNone) return true;
  if (lookahead > kMaxLookahead) lookahead = kMaxLookahead;
  std::uint32_t stack_cell[kMaxLookahead + 1];
  std::uint8_t stack_next[kMaxLookahead + 1];
  std::uint32_t depth = 0;  // stack_cell[depth] is explored; its children from stack_next[depth]
  stack_cell[0] = cell;
  stack_next[0] = 0;
  for (;;) {
    const std::uint32_t c = stack_cell[depth];
    if (depth < lookahead && stack_next[depth] < w.incoming_count(c)) {
      const std::uint32_t up = w.incoming(c, stack_next[depth]++);
      if (w.occupant(up) != kNone) return true;
      ++depth;
      stack_cell[depth] = up;
      stack_next[depth] = 0;
    } else {
      if (depth == 0) return false;
      --depth;
    }
  }
}

//! Part `part` of `parts` of has_incoming_traffic: every part walks up from `cell` to the first
//! cell with several incoming cells (within the lookahead), then searches only that cell's
//! incoming cells i = part, part + parts, ... and what lies upstream of them. The parts' results
//! ORed are has_incoming_traffic's: a walk upstream past that cell passes one of them.
template <class W>
LB_HD bool has_incoming_traffic_part(const W& w, std::uint32_t cell, std::uint32_t lookahead, std::uint32_t part,
                                     std::uint32_t parts) {
  if (w.occupant(cell) != kNone) return true;
  if (lookahead > kMaxLookahead) lookahead = kMaxLookahead;
  std::uint32_t depth = 0, n = 0;
  for (; depth < lookahead && (n = w.incoming_count(cell)) == 1; ++depth) {
    cell = w.incoming(cell, 0);
    if (w.occupant(cell) != kNone) return true;
  }
  if (depth == lookahead) return false;
  for (std::uint32_t i = part; i < n; i += parts)
    if (has_incoming_traffic(w, w.incoming(cell, i), lookahead - depth - 1)) return true;
  return false;
}

//! A group has traffic when one of its cells has, within that cell's street limit.
template <class W>
LB_HD bool group_has_traffic(const W& w, std::uint32_t group) {
  const std::uint32_t n = w.group_cell_count(group);
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t c = w.group_cell(group, i);
    if (has_incoming_traffic(w, c, w.street_limit(c))) return true;
  }
  return false;
}

//! Part `part` of `parts` of group_has_traffic (has_incoming_traffic_part for each cell).
template <class W>
LB_HD bool group_has_traffic_part(const W& w, std::uint32_t group, std::uint32_t part, std::uint32_t parts) {
  const std::uint32_t n = w.group_cell_count(group);
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t c = w.group_cell(group, i);
    if (has_incoming_traffic_part(w, c, w.street_limit(c), part, parts)) return true;
  }
  return false;
}

//! Go: the group's cells lose their controller limit; stop: it becomes 0.
template <class W>
LB_HD void signal_group(W& w, std::uint32_t group, bool go) {
  const std::uint32_t n = w.group_cell_count(group);
  for (std::uint32_t i = 0; i < n; ++i) w.set_controller_limit(w.group_cell(group, i), go ? kNoControllerLimit : 0);
}

struct LightState {
  std::uint32_t timer, phase_time, phase;
};

// A controller's step is split into pieces that lanes of a GPU warp may share (docs/traffic.md,
// "Step schedules"): lane `lane` of `lanes` searches the groups i = lane, lane + lanes, ... and
// returns bit i for each with traffic; the lanes' bits ORed are the controller's `traffic`;
// then each lane signals its groups, and one lane (the light's timer) does the rest. One lane
// (lanes = 1) is the rule in order, as the host and the default GPU kernel run it.

//! Whether `traffic` (bits of groups) names exactly one group.
LB_HD inline bool exactly_one(std::uint32_t traffic) { return traffic != 0 && (traffic & (traffic - 1)) == 0; }

//! A lane's share of a light's search: it stops at its second group with traffic (then the
//! light's rule knows that not exactly one has; the other lanes' bits cannot change that).
template <class W, class G>
LB_HD std::uint32_t light_traffic(const W& w, const G& groups, std::uint32_t n, std::uint32_t lane,
                                  std::uint32_t lanes) {
  std::uint32_t traffic = 0, found = 0;
  for (std::uint32_t i = lane; i < n && found < 2; i += lanes)
    if (group_has_traffic(w, groups[i])) {
      ++found;
      traffic |= 1u << i;
    }
  return traffic;
}

//! A lane's share where a controller's `lanes` outnumber its n groups and split the searches:
//! group lane mod n, part lane / n of its search in as many parts as lanes share that group.
template <class W, class G>
LB_HD std::uint32_t split_traffic(const W& w, const G& groups, std::uint32_t n, std::uint32_t lane,
                                  std::uint32_t lanes) {
  if (n == 0) return 0;
  const std::uint32_t i = lane % n, parts = (lanes - i + n - 1) / n;
  return group_has_traffic_part(w, groups[i], lane / n, parts) ? 1u << i : 0u;
}

//! A lane's share of a light's signals: where exactly one group has traffic, it goes and the
//! others stop.
template <class W, class G>
LB_HD void light_signals(W& w, const G& groups, std::uint32_t n, std::uint32_t traffic, std::uint32_t lane,
                         std::uint32_t lanes) {
  if (!exactly_one(traffic)) return;
  for (std::uint32_t i = lane; i < n; i += lanes) signal_group(w, groups[i], ((traffic >> i) & 1u) != 0);
}

//! The light's own state (one lane): exactly one group with traffic: timer 0, phase = that
//! group; otherwise the timer advances and on wrap the phase moves to the next group.
template <class W, class G>
LB_HD void light_timer(W& w, LightState& s, const G& groups, std::uint32_t n, std::uint32_t traffic) {
  if (exactly_one(traffic)) {
    std::uint32_t phase = 0;
    while (((traffic >> phase) & 1u) == 0) ++phase;
    s.timer = 0;
    s.phase = phase;
    return;
  }
  s.timer = (s.timer + 1) % s.phase_time;
  if (s.timer == 0) {
    signal_group(w, groups[s.phase], false);
    s.phase = (s.phase + 1) % n;
    signal_group(w, groups[s.phase], true);
  }
}

//! The smart traffic light: exactly one group with traffic goes at once (the others stop,
//! timer 0, phase = that group); otherwise the timer advances and on wrap the phase moves to
//! the next group.
template <class W, class G>
LB_HD void step_light(W& w, LightState& s, const G& groups) {
  const std::uint32_t n = groups.size();
  const std::uint32_t traffic = light_traffic(w, groups, n, 0, 1);
  light_signals(w, groups, n, traffic, 0, 1);
  light_timer(w, s, groups, n, traffic);
}

//! A lane's share of a yield controller's search (every group: each one's signal depends on it).
template <class W, class G>
LB_HD std::uint32_t yield_traffic(const W& w, const G& groups, std::uint32_t lane, std::uint32_t lanes) {
  std::uint32_t traffic = 0;
  for (std::uint32_t i = lane; i < groups.size(); i += lanes)
    if (group_has_traffic(w, groups[i])) traffic |= 1u << i;
  return traffic;
}

//! A lane's share of a yield controller's signals: a group with traffic goes when no group
//! before it has traffic, else it stops; groups without traffic keep their signal.
template <class W, class G>
LB_HD void yield_signals(W& w, const G& groups, std::uint32_t traffic, std::uint32_t lane, std::uint32_t lanes) {
  for (std::uint32_t i = lane; i < groups.size(); i += lanes)
    if ((traffic >> i) & 1u) signal_group(w, groups[i], (traffic & ((1u << i) - 1u)) == 0);
}

//! The yield controller: groups in priority order; the first with traffic goes, later ones
//! with traffic stop, groups without traffic keep their signal.
template <class W, class G>
LB_HD void step_yield(W& w, const G& groups) {
  yield_signals(w, groups, yield_traffic(w, groups, 0, 1), 0, 1);
}

// --- cars ----------------------------------------------------------------------------
//! A car's scalar fields (its path is an inner array, reached through a path accessor).
struct CarScalars {
  std::uint32_t position;      //!< its cell (the sink it left by, while inactive)
  std::uint8_t velocity;       //!< cells this step (after planning: cells it will move)
  std::uint8_t max_velocity;   //!< kMinCarVelocity .. kMinCarVelocity + kCarVelocityRange - 1
  std::uint8_t path_length;    //!< path cells drawn this step (>= velocity)
  bool active;
};

//! The next cell after `cell`: its only outgoing cell, or at an intersection a random one,
//! weighted toward larger streets as the authors' biased walk: weight max(0, type(next) -
//! type(cell)) + 1.
template <class W>
LB_HD std::uint32_t next_cell(const W& w, std::uint32_t cell, std::uint64_t bits) {
  const std::uint32_t n = w.outgoing_count(cell);
  if (n == 1) return w.outgoing(cell, 0);
  const std::uint32_t here = w.type(cell);
  std::uint32_t total = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t t = w.type(w.outgoing(cell, i));
    total += (t > here ? t - here : 0) + 1;
  }
  std::uint32_t pick = random_below(bits, total);
  for (std::uint32_t i = 0; i + 1 < n; ++i) {
    const std::uint32_t t = w.type(w.outgoing(cell, i));
    const std::uint32_t weight = (t > here ? t - here : 0) + 1;
    if (pick < weight) return w.outgoing(cell, i);
    pick -= weight;
  }
  return w.outgoing(cell, n - 1);
}

//! Phase (b), one active car: accelerate by 1 or 2 up to its max velocity; draw a path of
//! that many cells (ending early after a sink); cap the velocity by its cell's limit; walk
//! the path, stopping before the first occupied cell and before a cell whose limit it cannot
//! meet (a cell with a lower limit lowers the velocity to that limit if the car still gets
//! past the cells before it, else the car stops before it); dawdle (v > 0: one cell less with
//! probability dawdle / 2^32; kDawdleThreshold is the model's p = 0.2, 0 never dawdles).
template <class W, class P>
LB_HD void plan_car(const W& w, CarScalars& car, P& path, std::uint64_t seed, std::uint32_t id, std::uint32_t step,
                    std::uint32_t dawdle = kDawdleThreshold) {
  if (!car.active) return;
  std::uint32_t v = car.velocity + 1 + random_below(random_bits(seed, Purpose::accelerate, id, step), 2);
  if (v > car.max_velocity) v = car.max_velocity;
  if (v > kMaxPath) v = kMaxPath;
  std::uint32_t cell = car.position, length = 0;
  while (length < v && !w.sink(cell)) {
    cell = next_cell(w, cell, random_bits(seed, Purpose::path, id, step, length));
    path.set(length++, cell);
  }
  car.path_length = static_cast<std::uint8_t>(length);
  v = length;
  if (v > w.limit(car.position)) v = w.limit(car.position);
  for (std::uint32_t d = 1; d <= v; ++d) {
    const std::uint32_t c = path[d - 1];
    if (w.occupant(c) != kNone) {
      v = d - 1;
      break;
    }
    const std::uint32_t lim = w.limit(c);
    if (v > lim) {
      if (lim > d - 1) {
        v = lim;
      } else {
        v = d - 1;
        break;
      }
    }
  }
  if (v > 0 && static_cast<std::uint32_t>(random_bits(seed, Purpose::dawdle, id, step)) < dawdle) --v;
  car.velocity = static_cast<std::uint8_t>(v);
}

//! Phase (c1): the car claims the cells it would drive through; the lowest id wins a cell.
template <class W, class P>
LB_HD void claim_path(W& w, const CarScalars& car, const P& path, std::uint32_t id) {
  if (!car.active) return;
  for (std::uint32_t i = 0; i < car.velocity; ++i) w.claim_min(path[i], id);
}

//! Phase (c2), the conflict rule: a car that lost a cell of its path to a lower id stops
//! before the first such cell (it keeps the cells before it, which it won). Cells a loser
//! gives up beyond that stay lost to every car this step (no second round). Returns true when
//! the car lost a cell.
template <class W, class P>
LB_HD bool resolve_claims(const W& w, CarScalars& car, const P& path, std::uint32_t id) {
  if (!car.active) return false;
  for (std::uint32_t i = 0; i < car.velocity; ++i)
    if (w.claim(path[i]) != id) {
      car.velocity = static_cast<std::uint8_t>(i);
      return true;
    }
  return false;
}

//! Phase (d): the car moves to the last cell it won, clearing the claims along its path; a car
//! that ends on a sink leaves the simulation (inactive, its cell free, velocity and path 0).
//! Returns true when it left.
template <class W, class P>
LB_HD bool move_car(W& w, CarScalars& car, const P& path, std::uint32_t id) {
  if (!car.active) return false;
  for (std::uint32_t i = 0; i < car.path_length; ++i) w.clear_claim(path[i]);
  if (car.velocity == 0) return false;
  const std::uint32_t to = path[car.velocity - 1];
  w.set_occupant(car.position, kNone);
  car.position = to;
  if (w.sink(to)) {
    car.active = false;
    car.velocity = 0;
    car.path_length = 0;
    return true;
  }
  w.set_occupant(to, id);
  return false;
}

//! Phase (e): an inactive car takes the first free non-sink cell of its slice: cells
//! floor(C·r/N) + i (mod C), i < floor(C/N), r = (id + shift) mod N, for C cells and N cars
//! and a shift drawn per step (the authors' rule). Slices of different cars never overlap,
//! so reactivations never compete. Returns true when it came back.
template <class W>
LB_HD bool reactivate_car(W& w, CarScalars& car, std::uint32_t id, std::uint32_t cells, std::uint32_t cars,
                          std::uint32_t shift) {
  if (car.active) return false;
  const std::uint32_t r = static_cast<std::uint32_t>((std::uint64_t{id} + shift) % cars);
  const std::uint64_t start = std::uint64_t{cells} * r / cars;
  const std::uint32_t tries = cells / cars;
  for (std::uint32_t i = 0; i < tries; ++i) {
    const auto c = static_cast<std::uint32_t>((start + i) % cells);
    if (w.sink(c) || w.occupant(c) != kNone) continue;
    w.set_occupant(c, id);
    car.position = c;
    car.active = true;
    car.velocity = 0;
    car.path_length = 0;
    return true;
  }
  return false;
}

//! The step's shift of the reactivation slices.
LB_HD inline std::uint32_t reactivation_shift(std::uint64_t seed, std::uint32_t step) {
  return static_cast<std::uint32_t>(random_bits(seed, Purpose::reactivate, 0, step) >> 32);
}

}  // namespace lb::traffic

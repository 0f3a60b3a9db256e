// What every version of the traffic simulation is checked by: the state's checksum, its
// invariants, and the state written as CSV.

#include <fmt/format.h>

#include <algorithm>
#include <ostream>

#include "lb/traffic/simulation.hpp"

namespace lb::traffic {

std::uint64_t checksum(const State& s) {
  // Every field of State (tests/cpp/test_traffic.cpp changes each in turn); a cell enters only
  // where it differs from an empty cell (no car, no controller limit, no claim), a car's path
  // only up to its length (the slots beyond are not state: the layouts do not keep them).
  std::uint64_t h = mix64(s.step);
  auto add = [&h](std::uint64_t v) { h = mix64(h ^ v); };
  for (const std::uint64_t v : {s.seed, std::uint64_t{s.dawdle}, s.left, s.reactivated, s.conflicts}) add(v);
  for (const Car& c : s.cars) {
    add((std::uint64_t{c.position} << 32) | (std::uint64_t{c.velocity} << 24) | (std::uint64_t{c.max_velocity} << 16) |
        (std::uint64_t{c.path_length} << 8) | (c.active ? 1u : 0u));
    for (std::uint32_t i = 0; i < c.path_length; ++i) add(c.path[i]);
  }
  const std::size_t cells = std::min({s.occupant.size(), s.controller_limit.size(), s.claim.size()});
  for (std::size_t c = 0; c < cells; ++c)
    if (s.occupant[c] != kNone || s.controller_limit[c] != kNoControllerLimit || s.claim[c] != kNone) {
      add((std::uint64_t{c} << 40) | (std::uint64_t{s.controller_limit[c]} << 32) | s.occupant[c]);
      add(s.claim[c]);
    }
  for (const LightState& l : s.lights) {
    add((std::uint64_t{l.timer} << 32) | l.phase);
    add(l.phase_time);
  }
  return h;
}

std::string check_invariants(const Network& net, const State& s) {
  const std::size_t cells = net.cells.size();
  if (s.occupant.size() != cells || s.claim.size() != cells || s.controller_limit.size() != cells ||
      s.lights.size() != net.lights.size())
    return "the state's per-cell or per-light arrays do not match the network";
  std::size_t active = 0;
  for (std::uint32_t k = 0; k < s.cars.size(); ++k) {
    const Car& c = s.cars[k];
    if (c.position >= cells) return fmt::format("car {} is at cell {}, beyond the {} cells", k, c.position, cells);
    if (c.velocity > c.max_velocity || c.max_velocity > kMaxPath)
      return fmt::format("car {} has velocity {} and max velocity {}", k, c.velocity, c.max_velocity);
    if (c.path_length > kMaxPath || c.velocity > c.path_length)
      return fmt::format("car {} has velocity {} and a path of {} cells", k, c.velocity, c.path_length);
    if (!c.active) {
      if (c.velocity != 0 || c.path_length != 0) return fmt::format("inactive car {} has a velocity or a path", k);
      continue;
    }
    ++active;
    if (net.cells[c.position].sink) return fmt::format("active car {} is on sink cell {}", k, c.position);
    if (s.occupant[c.position] != k)
      return fmt::format("car {} is at cell {}, which names car {}", k, c.position,
                         s.occupant[c.position] == kNone ? std::string("none") : std::to_string(s.occupant[c.position]));
  }
  std::size_t occupied = 0;
  for (std::uint32_t c = 0; c < cells; ++c) {
    if (s.claim[c] != kNone) return fmt::format("cell {} still has a claim (car {})", c, s.claim[c]);
    const std::uint32_t k = s.occupant[c];
    if (k == kNone) continue;
    ++occupied;
    if (k >= s.cars.size() || !s.cars[k].active || s.cars[k].position != c)
      return fmt::format("cell {} names car {}, which is not there", c, k);
  }
  if (occupied != active) return fmt::format("{} active cars on {} occupied cells", active, occupied);
  if (active + s.left != s.cars.size() + s.reactivated)
    return fmt::format("cars not conserved: {} active, {} cars, {} left at sinks, {} reactivated", active,
                       s.cars.size(), s.left, s.reactivated);
  for (std::size_t l = 0; l < s.lights.size(); ++l) {
    const LightState& ls = s.lights[l];
    if (ls.timer >= ls.phase_time || ls.phase >= net.lights[l].group_count)
      return fmt::format("light {} has timer {}, phase time {}, phase {}", l, ls.timer, ls.phase_time, ls.phase);
  }
  return "";
}

void write_state_csv(std::ostream& out, const Network& net, const State& s) {
  out << "car,active,cell,x,y,velocity,max_velocity,path\n";
  for (std::size_t k = 0; k < s.cars.size(); ++k) {
    const Car& c = s.cars[k];
    const auto& cell = net.cells[c.position];
    out << fmt::format("{},{},{},{:.2f},{:.2f},{},{},", k, c.active ? 1 : 0, c.position, cell.x, cell.y, c.velocity,
                       c.max_velocity);
    for (std::uint32_t i = 0; i < c.path_length; ++i) out << (i ? " " : "") << c.path[i];
    out << '\n';
  }
}

}  // namespace lb::traffic

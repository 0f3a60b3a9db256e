// The simulation's network from a loaded street network (lb/traffic/simulation.hpp,
// docs/traffic.md): cells linked along streets and across intersections within the classes'
// limits, signal groups, lights and yield controllers.

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "lb/traffic/simulation.hpp"

namespace lb::traffic {
namespace {

using datasets::ControllerKind;
using datasets::StreetNetwork;

//! Which turns (in-street i to out-street j) an intersection of p streets in and q out keeps,
//! as a p × q matrix: all of them when p, q <= 8; otherwise, so that no in-street has more
//! than 8 turns and no out-street more than 8, (1) every in-street i in order takes its first
//! allowed out-street from j = i mod q on (cyclically), (2) every out-street still without a
//! turn takes its first allowed in-street from i = j mod p on, (3) every in-street in order
//! takes further allowed out-streets from i mod q on.
std::vector<char> select_turns(std::size_t p, std::size_t q) {
  std::vector<char> keep(p * q, 1);
  if (p <= kMaxOutgoing && q <= kMaxIncoming) return keep;
  std::fill(keep.begin(), keep.end(), 0);
  std::vector<std::uint32_t> out_of(p, 0), in_of(q, 0);
  auto allowed = [&](std::size_t i, std::size_t j) {
    return !keep[i * q + j] && out_of[i] < kMaxOutgoing && in_of[j] < kMaxIncoming;
  };
  auto take = [&](std::size_t i, std::size_t j) {
    keep[i * q + j] = 1;
    ++out_of[i];
    ++in_of[j];
  };
  for (std::size_t i = 0; i < p; ++i)
    for (std::size_t k = 0; k < q; ++k)
      if (const std::size_t j = (i + k) % q; allowed(i, j)) {
        take(i, j);
        break;
      }
  for (std::size_t j = 0; j < q; ++j)
    for (std::size_t k = 0; in_of[j] == 0 && k < p; ++k)
      if (const std::size_t i = (j + k) % p; allowed(i, j)) take(i, j);
  for (std::size_t i = 0; i < p; ++i)
    for (std::size_t k = 0; k < q; ++k)
      if (const std::size_t j = (i + k) % q; allowed(i, j)) take(i, j);
  return keep;
}

void link(Network& net, std::uint32_t from, std::uint32_t to) {
  auto& a = net.cells[from];
  auto& b = net.cells[to];
  a.outgoing[a.outgoing_count++] = to;
  b.incoming[b.incoming_count++] = from;
}

}  // namespace

Network build_network(const StreetNetwork& in, BuildReport* report) {
  BuildReport r;
  Network net;
  net.cells.resize(in.cells.size());
  for (std::size_t c = 0; c < in.cells.size(); ++c) {
    const auto& src = in.cells[c];
    auto& cell = net.cells[c];
    cell = Network::Cell{src.x, src.y, src.speed_limit, static_cast<std::uint8_t>(src.type), src.sink, 0, 0, {}, {}};
    cell.incoming.fill(kNone);
    cell.outgoing.fill(kNone);
  }
  // Along streets.
  std::vector<std::vector<std::uint32_t>> into(in.nodes.size()), out_of(in.nodes.size());
  for (std::uint32_t s = 0; s < in.streets.size(); ++s) {
    const auto& st = in.streets[s];
    for (std::uint32_t c = st.first_cell; c + 1 < st.first_cell + st.cells; ++c) link(net, c, c + 1);
    into[st.to].push_back(s);
    out_of[st.from].push_back(s);
  }
  // Across intersections.
  for (std::size_t n = 0; n < in.nodes.size(); ++n) {
    const auto& I = into[n];
    const auto& O = out_of[n];
    const std::vector<char> keep = select_turns(I.size(), O.size());
    if (I.size() > kMaxOutgoing || O.size() > kMaxIncoming) ++r.crowded_nodes;
    for (std::size_t i = 0; i < I.size(); ++i)
      for (std::size_t j = 0; j < O.size(); ++j) {
        if (!keep[i * O.size() + j]) {
          ++r.dropped_turns;
          continue;
        }
        const auto& a = in.streets[I[i]];
        link(net, a.first_cell + a.cells - 1, in.streets[O[j]].first_cell);
        ++r.turns;
      }
  }
  for (auto& cell : net.cells) {
    if (!cell.sink && cell.outgoing_count == 0) {
      cell.sink = true;
      ++r.dead_end_sinks;
    }
    r.sink_cells += cell.sink;
    r.max_incoming = std::max<std::uint32_t>(r.max_incoming, cell.incoming_count);
    r.max_outgoing = std::max<std::uint32_t>(r.max_outgoing, cell.outgoing_count);
  }
  // Controllers and their groups.
  for (const auto& ctrl : in.controllers) {
    const std::uint32_t groups = ctrl.kind == ControllerKind::yield ? kYieldGroups
                                                                    : std::min(ctrl.groups, kMaxLightGroups);
    if (ctrl.groups > kMaxLightGroups * kMaxGroupCells)
      throw datasets::InputError(fmt::format(
          "{}: the traffic light at node '{}' has {} incoming streets; at most {} fit its {} signal groups of {} cells",
          in.source, in.nodes[ctrl.node].id, ctrl.groups, kMaxLightGroups * kMaxGroupCells, kMaxLightGroups,
          kMaxGroupCells));
    const auto first = static_cast<std::uint32_t>(net.groups.size());
    for (std::uint32_t g = 0; g < groups; ++g) {
      Network::SignalGroup group{0, {}};
      group.cells.fill(kNone);
      for (std::uint32_t k = g; k < ctrl.groups; k += groups)
        group.cells[group.cell_count++] = in.groups[ctrl.first_group + k].cell;
      net.groups.push_back(group);
    }
    if (ctrl.kind == ControllerKind::yield) {
      net.yields.push_back({{first, first + 1}});
    } else {
      Network::TrafficLight light{static_cast<std::uint8_t>(groups), {}};
      light.groups.fill(kNone);
      for (std::uint32_t g = 0; g < groups; ++g) light.groups[g] = first + g;
      net.lights.push_back(light);
      r.merged_lights += ctrl.groups > kMaxLightGroups;
    }
  }
  if (report) *report = r;
  return net;
}

std::string describe(const BuildReport& r) {
  std::string text = fmt::format("simulation: {} turns, {} sink cells; cell fan-in at most {}, fan-out at most {}",
                                 r.turns, r.sink_cells, r.max_incoming, r.max_outgoing);
  if (r.crowded_nodes)
    text += fmt::format("; {} intersections of more than {} streets in or out: {} turns dropped, {} dead ends made sinks",
                        r.crowded_nodes, kMaxIncoming, r.dropped_turns, r.dead_end_sinks);
  if (r.merged_lights)
    text += fmt::format("; {} lights of more than {} incoming streets share signal groups", r.merged_lights,
                        kMaxLightGroups);
  return text;
}

}  // namespace lb::traffic

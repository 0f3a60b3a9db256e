// The traffic simulation under access recording (programs.hpp): one step of every phase, each
// over its objects in id order, through lb/traffic/laid_out.hpp's per-object functions (the
// ones the GPU kernels and the host simulation call) over recording views of the state laid
// out AoS with every array full. The controllers run the rule in order (light_object,
// yield_object: the default step schedule); a schedule of several lanes a controller reads the
// same cells, its lanes in another order. Cars and cells log into one trace per phase under
// separate field indices; each record's KDLG sees the other record's accesses, and the
// groups', lights' and yields', as other memory.

#include <array>
#include <stdexcept>
#include <string>

#include "lb/datasets/street_network.hpp"
#include "lb/layout/inner_recording.hpp"
#include "lb/recorded/programs.hpp"
#include "lb/traffic/laid_out.hpp"
#include "lb/traffic/simulation.hpp"

namespace lb::recorded {

namespace {

using namespace lb::traffic;
using M = Maps<InnerLayout::aos, InnerStrategy::full, InnerStrategy::full, InnerStrategy::full>;

//! kTrafficRecordedGrid² intersections on a torus, each left by a primary street east and a
//! residential street north (6 cells each; every turn kept), every third also by a 2-cell exit
//! street into a sink; a traffic light at intersections of even parity, a yield controller
//! (the primary street first) at the others, one signal group per incoming street.
Network torus_city() {
  constexpr std::uint32_t G = kTrafficRecordedGrid, kStreet = 6, kExit = 2;
  Network net;
  struct Street {
    std::uint32_t to, first, cells;
  };
  std::vector<Street> streets;
  // Streets into a node (the primary street first: the yield controllers' priority) and out of it.
  std::vector<std::array<std::uint32_t, 2>> in_of(G * G);
  std::vector<std::vector<std::uint32_t>> out_of(G * G);
  const auto add_street = [&](std::uint32_t from, std::uint32_t to, std::uint32_t cells, datasets::StreetType type,
                              std::uint8_t limit, bool exit) {
    const auto first = static_cast<std::uint32_t>(net.cells.size());
    for (std::uint32_t k = 0; k < cells; ++k) {
      Network::Cell c{4.0 * (from % G), 4.0 * (from / G) + k, limit, static_cast<std::uint8_t>(type),
                      exit && k + 1 == cells, 0, 0, {}, {}};
      c.incoming.fill(kNone);
      c.outgoing.fill(kNone);
      net.cells.push_back(c);
    }
    out_of[from].push_back(static_cast<std::uint32_t>(streets.size()));
    if (!exit) in_of[to][type == datasets::StreetType::primary ? 0 : 1] = static_cast<std::uint32_t>(streets.size());
    streets.push_back({to, first, cells});
  };
  for (std::uint32_t j = 0; j < G; ++j)
    for (std::uint32_t i = 0; i < G; ++i) {
      const std::uint32_t node = j * G + i;
      add_street(node, j * G + (i + 1) % G, kStreet, datasets::StreetType::primary, 5, false);
      add_street(node, (j + 1) % G * G + i, kStreet, datasets::StreetType::residential, 3, false);
      if (node % 3 == 0) add_street(node, node, kExit, datasets::StreetType::residential, 3, true);
    }
  const auto link = [&](std::uint32_t a, std::uint32_t b) {
    net.cells[a].outgoing[net.cells[a].outgoing_count++] = b;
    net.cells[b].incoming[net.cells[b].incoming_count++] = a;
  };
  for (const Street& s : streets)
    for (std::uint32_t k = 0; k + 1 < s.cells; ++k) link(s.first + k, s.first + k + 1);
  for (std::uint32_t node = 0; node < G * G; ++node) {
    for (const std::uint32_t in : in_of[node])
      for (const std::uint32_t out : out_of[node]) link(streets[in].first + streets[in].cells - 1, streets[out].first);
    std::array<std::uint32_t, 2> groups{};
    for (std::size_t g = 0; g < 2; ++g) {
      groups[g] = static_cast<std::uint32_t>(net.groups.size());
      Network::SignalGroup group{1, {}};
      group.cells[0] = streets[in_of[node][g]].first + streets[in_of[node][g]].cells - 1;
      net.groups.push_back(group);
    }
    if ((node % G + node / G) % 2 == 0)
      net.lights.push_back({2, {groups[0], groups[1]}});
    else
      net.yields.push_back({{groups[0], groups[1]}});
  }
  return net;
}

//! The state's views with every access logged into `log`: cells as fields 0.., cars after
//! them, the controllers' and groups' records as other memory.
struct RecordingViews {
  layout::InnerRecordingView<M::Cells> cells;
  layout::InnerRecordingView<M::Cars> cars;
  layout::InnerRecordingView<M::Groups> groups;
  layout::InnerRecordingView<M::Lights> lights;
  layout::InnerRecordingView<M::Yields> yields;
};
constexpr std::size_t kCellFields = layout::recorded_field_count<CellRecord>;
constexpr std::size_t kCarFields = layout::recorded_field_count<CarRecord>;

RecordingViews recording(const Views<M>& v, std::vector<layout::Access>& log) {
  return {{v.cells, log, 0}, {v.cars, log, kCellFields}, {v.groups, log, 0, true}, {v.lights, log, 0, true},
          {v.yields, log, 0, true}};
}

const char* phase_kernel(Phase p) {
  switch (p) {
    case Phase::lights: return "lights";
    case Phase::yields: return "yields";
    case Phase::plan: return "plan";
    case Phase::claim: return "claim";
    case Phase::resolve: return "resolve";
    case Phase::move: return "move";
    case Phase::reactivate: return "reactivate";
  }
  return "?";
}

}  // namespace

TrafficRecordedRun traffic_recorded_run() {
  const Network net = torus_city();
  State s = initial_state(net, kTrafficRecordedCars, 2018);
  for (std::uint32_t t = 0; t < kTrafficRecordedWarmup; ++t) reference_step(net, s);
  // The first step after that in which a car leaves: its reactivation phase then brings one
  // back (every phase's body runs, not only the active cars' early return).
  State expected = s;
  for (reference_step(net, expected); expected.left == s.left; reference_step(net, expected)) {
    if (expected.step > 100 * kTrafficRecordedWarmup) throw std::logic_error("traffic recording: no car ever leaves");
    s = expected;
  }

  const TrafficLayout layout{.layout = InnerLayout::aos};
  HostSet<M> set = lay_out<M>(net, s, layout);
  store_state(set.views(), s);
  const auto cells = static_cast<std::uint32_t>(net.cells.size()), cars = static_cast<std::uint32_t>(s.cars.size());
  const StepParams p{s.seed, s.step, s.dawdle, cells, cars, reactivation_shift(s.seed, s.step), {}};
  std::vector<layout::KernelTrace> traces;
  for (const Phase phase : kPhases) {
    traces.push_back({phase_kernel(phase), {}});
    const RecordingViews v = recording(set.views(), traces.back().accesses);
    run_phase_on_host(v, phase, p, static_cast<std::uint32_t>(net.lights.size()),
                      static_cast<std::uint32_t>(net.yields.size()), s);
  }
  ++s.step;
  load_state(set.views(), s);

  TrafficRecordedRun run;
  run.checksum = checksum(s);
  run.expected = checksum(expected);
  const std::string problem = std::to_string(kTrafficRecordedCars) + " cars on a torus city of " +
                              std::to_string(kTrafficRecordedGrid * kTrafficRecordedGrid) + " intersections (" +
                              std::to_string(cells) + " cells, " + std::to_string(net.lights.size()) + " lights, " +
                              std::to_string(net.yields.size()) + " yield controllers), step " +
                              std::to_string(s.step - 1) + " (the first after " + std::to_string(kTrafficRecordedWarmup) +
                              " reference steps in which a car leaves): every phase's objects one after another";
  run.cells = {.program = "traffic-cells",
               .field_names = {"speed_limit", "type", "sink", "controller_limit", "occupant", "claim",
                               "incoming_count", "incoming", "outgoing_count", "outgoing"},
               .field_bytes = layout::inner_field_bytes<CellRecord>(),
               .kernels = {},
               .problem = problem,
               .record = "cell"};
  run.cars = {.program = "traffic-cars",
              .field_names = {"position", "velocity", "max_velocity", "active", "path_length", "path"},
              .field_bytes = layout::inner_field_bytes<CarRecord>(),
              .kernels = {},
              .problem = problem,
              .record = "car"};
  for (const layout::KernelTrace& t : traces) {
    run.cells.kernels.push_back({t.kernel, layout::record_view_of(t.accesses, 0, kCellFields)});
    run.cars.kernels.push_back({t.kernel, layout::record_view_of(t.accesses, kCellFields, kCarFields)});
  }
  return run;
}

}  // namespace lb::recorded

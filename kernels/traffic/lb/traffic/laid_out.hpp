#pragma once
//! The traffic classes as inner-array records, their mappings for one TrafficLayout, the world
//! and path accessors of lb/traffic/model.hpp over views of them, one function per (phase,
//! object) that the host loop and the GPU kernels both call, and the state laid out and read
//! back. Shared by host_layouts.hpp and gpu_layouts.cuh; everything here is a template.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "lb/inner/strategies.hpp"
#include "lb/layout/host_storage.hpp"
#include "lb/layout/inner_array.hpp"
#include "lb/layout/record.hpp"
#include "lb/layout/view.hpp"
#include "lb/traffic/layouts.hpp"
#include "lb/traffic/model.hpp"

namespace lb::traffic {

namespace tag {
struct SpeedLimit {};
struct Type {};
struct Sink {};
struct ControllerLimit {};
struct Occupant {};
struct Claim {};
struct Incoming {};
struct Outgoing {};
struct Position {};
struct Velocity {};
struct MaxVelocity {};
struct Active {};
struct Path {};
struct GroupCells {};
struct Timer {};
struct PhaseTime {};
struct Phase {};
struct LightGroups {};
struct YieldGroups {};
}  // namespace tag

using layout::Field;
using layout::InnerArray;
using layout::Record;

//! Cell {speed limit, street type, sink, controller limit, car in it, claim, incoming ≤ 8,
//! outgoing ≤ 8}: the static cell and its per-step state in one record.
using CellRecord = Record<Field<tag::SpeedLimit, std::uint8_t>, Field<tag::Type, std::uint8_t>,
                          Field<tag::Sink, std::uint8_t>, Field<tag::ControllerLimit, std::uint8_t>,
                          Field<tag::Occupant, std::uint32_t>, Field<tag::Claim, std::uint32_t>,
                          Field<tag::Incoming, InnerArray<std::uint32_t, kMaxIncoming>>,
                          Field<tag::Outgoing, InnerArray<std::uint32_t, kMaxOutgoing>>>;
//! Car {cell, velocity, max velocity, active, path ≤ 30 (its length is the path length)}.
using CarRecord = Record<Field<tag::Position, std::uint32_t>, Field<tag::Velocity, std::uint8_t>,
                         Field<tag::MaxVelocity, std::uint8_t>, Field<tag::Active, std::uint8_t>,
                         Field<tag::Path, InnerArray<std::uint32_t, kMaxPath>>>;
using GroupRecord = Record<Field<tag::GroupCells, InnerArray<std::uint32_t, kMaxGroupCells>>>;
using LightRecord = Record<Field<tag::Timer, std::uint32_t>, Field<tag::PhaseTime, std::uint32_t>,
                          Field<tag::Phase, std::uint32_t>,
                          Field<tag::LightGroups, InnerArray<std::uint32_t, kMaxLightGroups>>>;
using YieldRecord = Record<Field<tag::YieldGroups, InnerArray<std::uint32_t, kYieldGroups>>>;

//! The mappings of one layout: L for every class; the strategies of Cell::incoming,
//! Cell::outgoing and Car::path; the controllers' arrays fully inlined.
template <InnerLayout L, InnerStrategy SIn, InnerStrategy SOut, InnerStrategy SPath>
struct Maps {
  static constexpr InnerLayout layout = L;
  using Cells = layout::InnerFieldsMapping<CellRecord, L, layout::InnerStrategies<SIn, SOut>>;
  using Cars = layout::InnerFieldsMapping<CarRecord, L, layout::InnerStrategies<SPath>>;
  using Groups = layout::InnerArrayMapping<GroupRecord, L, InnerStrategy::full>;
  using Lights = layout::InnerArrayMapping<LightRecord, L, InnerStrategy::full>;
  using Yields = layout::InnerArrayMapping<YieldRecord, L, InnerStrategy::full>;
};

template <class M>
struct Views {
  layout::View<typename M::Cells> cells;
  layout::View<typename M::Cars> cars;
  layout::View<typename M::Groups> groups;
  layout::View<typename M::Lights> lights;
  layout::View<typename M::Yields> yields;
};

//! Calls f.template operator()<Maps<L, SIn, SOut, SPath>>() for the TrafficLayout (layout L
//! given: each GPU unit instantiates one layout; cells only where cells_apart_runs).
template <InnerLayout L, class F>
decltype(auto) dispatch_maps(const TrafficLayout& t, F&& f) {
  constexpr InnerStrategy full = InnerStrategy::full;
  using Only = inner::InnerLayoutList<L>;
  return inner::dispatch_inner<Only>(L, t.strategy, [&]<InnerLayout, InnerStrategy S>() -> decltype(auto) {
    switch (t.field) {
      case SweptField::incoming: return f.template operator()<Maps<L, S, full, full>>();
      case SweptField::outgoing: return f.template operator()<Maps<L, full, S, full>>();
      case SweptField::path: return f.template operator()<Maps<L, full, full, S>>();
      case SweptField::cells:
        if constexpr (cells_apart_runs(L, S)) return f.template operator()<Maps<L, S, S, full>>();
        check_layout(t);  // throws: not built here
        break;
      case SweptField::none: break;
    }
    return f.template operator()<Maps<L, full, full, full>>();
  });
}

// --- accessors of lb/traffic/model.hpp over the views -------------------------------------

//! The world (model.hpp's `W`): cells and signal groups, over views of them (layout::View, or
//! a recording view: lb/layout/inner_recording.hpp).
template <class CellsView, class GroupsView>
struct ViewWorld {
  CellsView cells;
  GroupsView groups;

  LB_HD LB_FORCEINLINE std::uint32_t occupant(std::uint32_t c) const { return cells.template get<tag::Occupant>(c); }
  LB_HD LB_FORCEINLINE std::uint32_t street_limit(std::uint32_t c) const {
    return cells.template get<tag::SpeedLimit>(c);
  }
  LB_HD LB_FORCEINLINE std::uint32_t limit(std::uint32_t c) const {
    const std::uint32_t street = cells.template get<tag::SpeedLimit>(c);
    const std::uint32_t ctrl = cells.template get<tag::ControllerLimit>(c);
    return ctrl < street ? ctrl : street;
  }
  LB_HD LB_FORCEINLINE bool sink(std::uint32_t c) const { return cells.template get<tag::Sink>(c) != 0; }
  LB_HD LB_FORCEINLINE std::uint32_t type(std::uint32_t c) const { return cells.template get<tag::Type>(c); }
  LB_HD LB_FORCEINLINE std::uint32_t outgoing_count(std::uint32_t c) const {
    return cells.template length<tag::Outgoing>(c);
  }
  LB_HD LB_FORCEINLINE std::uint32_t outgoing(std::uint32_t c, std::uint32_t i) const {
    return cells.template get<tag::Outgoing>(c, i);
  }
  LB_HD LB_FORCEINLINE std::uint32_t incoming_count(std::uint32_t c) const {
    return cells.template length<tag::Incoming>(c);
  }
  LB_HD LB_FORCEINLINE std::uint32_t incoming(std::uint32_t c, std::uint32_t i) const {
    return cells.template get<tag::Incoming>(c, i);
  }
  LB_HD LB_FORCEINLINE std::uint32_t group_cell_count(std::uint32_t g) const {
    return groups.template length<tag::GroupCells>(g);
  }
  LB_HD LB_FORCEINLINE std::uint32_t group_cell(std::uint32_t g, std::uint32_t i) const {
    return groups.template get<tag::GroupCells>(g, i);
  }
  LB_HD LB_FORCEINLINE void set_controller_limit(std::uint32_t c, std::uint8_t v) const {
    cells.template get<tag::ControllerLimit>(c) = v;
  }
  LB_HD LB_FORCEINLINE std::uint32_t claim(std::uint32_t c) const { return cells.template get<tag::Claim>(c); }
  //! The lowest id wins: atomicMin on the device, so the order of the claims does not matter.
  LB_HD LB_FORCEINLINE void claim_min(std::uint32_t c, std::uint32_t id) const {
    auto&& claim = cells.template get<tag::Claim>(c);
#if defined(__CUDA_ARCH__)
    atomicMin(reinterpret_cast<unsigned int*>(&claim), id);
#else
    if (id < claim) claim = id;
#endif
  }
  LB_HD LB_FORCEINLINE void clear_claim(std::uint32_t c) const { cells.template get<tag::Claim>(c) = kNone; }
  LB_HD LB_FORCEINLINE void set_occupant(std::uint32_t c, std::uint32_t id) const {
    cells.template get<tag::Occupant>(c) = id;
  }
};

//! An array field of record i as model.hpp's path accessor and group list.
template <class V, class Tag>
struct ArrayOf {
  V view;
  std::uint32_t i;
  LB_HD LB_FORCEINLINE std::uint32_t size() const { return view.template length<Tag>(i); }
  LB_HD LB_FORCEINLINE std::uint32_t operator[](std::uint32_t k) const { return view.template get<Tag>(i, k); }
  LB_HD LB_FORCEINLINE void set(std::uint32_t k, std::uint32_t c) const { view.template get<Tag>(i, k) = c; }
};

// The functions below take any set of views with Views' members (`V`): Views<M> on the host and
// the GPU, a set of recording views where the host records the phases' accesses.

template <class V>
LB_HD LB_FORCEINLINE auto world(const V& v) {
  return ViewWorld<decltype(v.cells), decltype(v.groups)>{v.cells, v.groups};
}

template <class V>
LB_HD LB_FORCEINLINE CarScalars load_car(const V& v, std::uint32_t k) {
  CarScalars c;
  c.position = v.cars.template get<tag::Position>(k);
  c.velocity = v.cars.template get<tag::Velocity>(k);
  c.max_velocity = v.cars.template get<tag::MaxVelocity>(k);
  c.path_length = static_cast<std::uint8_t>(v.cars.template length<tag::Path>(k));
  c.active = v.cars.template get<tag::Active>(k) != 0;
  return c;
}
//! Stores what a phase may change (max velocity never changes).
template <class V>
LB_HD LB_FORCEINLINE void store_car(const V& v, std::uint32_t k, const CarScalars& c) {
  v.cars.template get<tag::Position>(k) = c.position;
  v.cars.template get<tag::Velocity>(k) = c.velocity;
  v.cars.template get<tag::Active>(k) = c.active ? 1 : 0;
  v.cars.template set_length<tag::Path>(k, c.path_length);
}

// --- one object of one phase (model.hpp's rules over the views) ---------------------------

//! What every phase of one step needs besides the views.
struct StepParams {
  std::uint64_t seed;
  std::uint32_t step, dawdle, cells, cars, shift;
  TrafficFault fault;
};

template <class V>
LB_HD LB_FORCEINLINE void light_object(const V& v, std::uint32_t l) {
  auto w = world(v);
  LightState s{v.lights.template get<tag::Timer>(l), v.lights.template get<tag::PhaseTime>(l),
               v.lights.template get<tag::Phase>(l)};
  step_light(w, s, ArrayOf<decltype(v.lights), tag::LightGroups>{v.lights, l});
  v.lights.template get<tag::Timer>(l) = s.timer;
  v.lights.template get<tag::Phase>(l) = s.phase;
}

template <class V>
LB_HD LB_FORCEINLINE void yield_object(const V& v, std::uint32_t y) {
  auto w = world(v);
  step_yield(w, ArrayOf<decltype(v.yields), tag::YieldGroups>{v.yields, y});
}

// A controller shared by `lanes` lanes (model.hpp's pieces): each lane's search (`split`:
// lanes beyond the groups split their searches), then, given every lane's bits ORed, each
// lane's signals (lane 0 also the light's timer and phase).
template <class V>
LB_HD LB_FORCEINLINE std::uint32_t light_lane_traffic(const V& v, std::uint32_t l, std::uint32_t lane,
                                                      std::uint32_t lanes, bool split) {
  const ArrayOf<decltype(v.lights), tag::LightGroups> groups{v.lights, l};
  const std::uint32_t n = groups.size();
  if (split && lanes > n) return split_traffic(world(v), groups, n, lane, lanes);
  return light_traffic(world(v), groups, n, lane, lanes);
}

template <class V>
LB_HD LB_FORCEINLINE void light_lane_signals(const V& v, std::uint32_t l, std::uint32_t traffic, std::uint32_t lane,
                                             std::uint32_t lanes) {
  auto w = world(v);
  const ArrayOf<decltype(v.lights), tag::LightGroups> groups{v.lights, l};
  const std::uint32_t n = groups.size();
  light_signals(w, groups, n, traffic, lane, lanes);
  if (lane != 0) return;
  LightState s{v.lights.template get<tag::Timer>(l), v.lights.template get<tag::PhaseTime>(l),
               v.lights.template get<tag::Phase>(l)};
  light_timer(w, s, groups, n, traffic);
  v.lights.template get<tag::Timer>(l) = s.timer;
  v.lights.template get<tag::Phase>(l) = s.phase;
}

template <class V>
LB_HD LB_FORCEINLINE std::uint32_t yield_lane_traffic(const V& v, std::uint32_t y, std::uint32_t lane,
                                                      std::uint32_t lanes, bool split) {
  const ArrayOf<decltype(v.yields), tag::YieldGroups> groups{v.yields, y};
  if (split && lanes > kYieldGroups) return split_traffic(world(v), groups, kYieldGroups, lane, lanes);
  return yield_traffic(world(v), groups, lane, lanes);
}

template <class V>
LB_HD LB_FORCEINLINE void yield_lane_signals(const V& v, std::uint32_t y, std::uint32_t traffic, std::uint32_t lane,
                                             std::uint32_t lanes) {
  auto w = world(v);
  yield_signals(w, ArrayOf<decltype(v.yields), tag::YieldGroups>{v.yields, y}, traffic, lane, lanes);
}

template <class V>
LB_HD LB_FORCEINLINE void plan_object(const V& v, std::uint32_t k, const StepParams& p) {
  CarScalars c = load_car(v, k);
  if (!c.active) return;
  ArrayOf<decltype(v.cars), tag::Path> path{v.cars, k};
  plan_car(world(v), c, path, p.seed, k, p.step, p.dawdle);
  store_car(v, k, c);
}

template <class V>
LB_HD LB_FORCEINLINE void claim_object(const V& v, std::uint32_t k) {
  auto w = world(v);
  const CarScalars c = load_car(v, k);
  claim_path(w, c, ArrayOf<decltype(v.cars), tag::Path>{v.cars, k}, k);
}

//! Returns whether the car lost a cell (the conflicts counter).
template <class V>
LB_HD LB_FORCEINLINE bool resolve_object(const V& v, std::uint32_t k) {
  CarScalars c = load_car(v, k);
  if (!resolve_claims(world(v), c, ArrayOf<decltype(v.cars), tag::Path>{v.cars, k}, k)) return false;
  v.cars.template get<tag::Velocity>(k) = c.velocity;
  return true;
}

//! Returns whether the car left at a sink.
template <class V>
LB_HD LB_FORCEINLINE bool move_object(const V& v, std::uint32_t k, const StepParams& p) {
  if (k == p.fault.skip_move_of_car) return false;
  auto w = world(v);
  CarScalars c = load_car(v, k);
  if (!c.active) return false;
  const bool left = move_car(w, c, ArrayOf<decltype(v.cars), tag::Path>{v.cars, k}, k);
  store_car(v, k, c);
  return left;
}

//! Returns whether the car came back.
template <class V>
LB_HD LB_FORCEINLINE bool reactivate_object(const V& v, std::uint32_t k, const StepParams& p) {
  if (v.cars.template get<tag::Active>(k)) return false;
  auto w = world(v);
  CarScalars c = load_car(v, k);
  if (!reactivate_car(w, c, k, p.cells, p.cars, p.shift)) return false;
  store_car(v, k, c);
  return true;
}

//! A controller's step over `lanes` lanes one after another, as a warp's lanes share it on
//! the GPU: every lane's search, then every lane's signals given their bits ORed.
template <class Traffic, class Signals>
void controller_in_lanes(std::uint32_t lanes, Traffic&& traffic, Signals&& signals) {
  std::uint32_t bits = 0;
  for (std::uint32_t lane = 0; lane < lanes; ++lane) bits |= traffic(lane);
  for (std::uint32_t lane = 0; lane < lanes; ++lane) signals(bits, lane);
}

//! One phase of a step on the host over views `v` (the laid-out set's, or recording views of
//! it): each object of the phase's class in id order, the counters added to `s`. The host
//! simulation and the access recording (kernels/recorded) run the same loop. Under a schedule
//! (StepSchedule: the host takes its lanes and fused) a controller runs in its lanes, and a
//! fused phase runs with the one it folds in (folded: the caller skips that one).
template <class V>
void run_phase_on_host(const V& v, Phase phase, const StepParams& p, std::uint32_t lights, std::uint32_t yields,
                       State& s, const StepSchedule& schedule = {}) {
  const auto each = [](std::uint32_t n, auto&& f) {
    for (std::uint32_t i = 0; i < n; ++i) f(i);
  };
  const std::uint32_t lanes = schedule.lanes, ylanes = yield_lanes(schedule);
  const bool split = schedule.split;
  const auto light = [&](std::uint32_t l) {
    if (lanes == 1) return light_object(v, l);
    controller_in_lanes(
        lanes, [&](std::uint32_t lane) { return light_lane_traffic(v, l, lane, lanes, split); },
        [&](std::uint32_t bits, std::uint32_t lane) { light_lane_signals(v, l, bits, lane, lanes); });
  };
  const auto yield = [&](std::uint32_t y) {
    if (lanes == 1) return yield_object(v, y);
    controller_in_lanes(
        ylanes, [&](std::uint32_t lane) { return yield_lane_traffic(v, y, lane, ylanes, split); },
        [&](std::uint32_t bits, std::uint32_t lane) { yield_lane_signals(v, y, bits, lane, ylanes); });
  };
  switch (phase) {
    case Phase::lights:
      each(lights, light);
      if (folded(Phase::yields, schedule)) each(yields, yield);
      break;
    case Phase::yields: each(yields, yield); break;
    case Phase::plan:
      each(p.cars, [&](std::uint32_t k) {
        plan_object(v, k, p);
        if (folded(Phase::claim, schedule)) claim_object(v, k);
      });
      break;
    case Phase::claim: each(p.cars, [&](std::uint32_t k) { claim_object(v, k); }); break;
    case Phase::resolve: each(p.cars, [&](std::uint32_t k) { s.conflicts += resolve_object(v, k); }); break;
    case Phase::move: each(p.cars, [&](std::uint32_t k) { s.left += move_object(v, k, p); }); break;
    case Phase::reactivate: each(p.cars, [&](std::uint32_t k) { s.reactivated += reactivate_object(v, k, p); }); break;
  }
}

// --- the state laid out and read back -------------------------------------------------------

template <class M>
struct HostSet {
  layout::HostStorage<typename M::Cells> cells;
  layout::HostStorage<typename M::Cars> cars;
  layout::HostStorage<typename M::Groups> groups;
  layout::HostStorage<typename M::Lights> lights;
  layout::HostStorage<typename M::Yields> yields;
  Views<M> views() const { return {cells.view(), cars.view(), groups.view(), lights.view(), yields.view()}; }
};

namespace detail {
template <class T, class F>
std::vector<std::uint32_t> each(const std::vector<T>& items, F&& f) {
  std::vector<std::uint32_t> out;
  out.reserve(items.size());
  for (const T& x : items) out.push_back(static_cast<std::uint32_t>(f(x)));
  return out;
}
//! The swept array's N where it is partial, else 0 (one entry per array of the record; cells is
//! never partial: check_layout).
inline std::size_t n_of(const TrafficLayout& t, SweptField f) {
  return t.field == f && t.strategy == InnerStrategy::partial ? t.inline_count : 0;
}
}  // namespace detail

//! The network laid out in M (cells' static fields and arrays, groups, lights' and yields'
//! groups) for the cars of `initial`, the dynamic state zero (store_state fills it). A car's
//! path reserves its max velocity's slots (the authors' partially inlined Car::path; full and
//! object hold 30 anyway): a path never outgrows the velocity it is drawn for.
template <class M>
HostSet<M> lay_out(const Network& net, const State& initial, const TrafficLayout& t) {
  using layout::ArrayLengths, layout::InnerArraySizes, layout::inner_host_storage;
  const ArrayLengths cell_lengths{detail::each(net.cells, [](const auto& c) { return c.incoming_count; }),
                                  detail::each(net.cells, [](const auto& c) { return c.outgoing_count; })};
  const std::size_t cars = initial.cars.size();
  const ArrayLengths path_lengths{std::vector<std::uint32_t>(cars, 0)};
  HostSet<M> set{
      inner_host_storage<typename M::Cells>(
          cell_lengths, InnerArraySizes{{detail::n_of(t, SweptField::incoming), detail::n_of(t, SweptField::outgoing)}, {}}),
      inner_host_storage<typename M::Cars>(
          path_lengths, InnerArraySizes{{detail::n_of(t, SweptField::path)},
                                        {detail::each(initial.cars, [](const Car& c) { return c.max_velocity; })}}),
      inner_host_storage<typename M::Groups>(
          ArrayLengths{detail::each(net.groups, [](const auto& g) { return g.cell_count; })}),
      inner_host_storage<typename M::Lights>(
          ArrayLengths{detail::each(net.lights, [](const auto& l) { return l.group_count; })}),
      inner_host_storage<typename M::Yields>(
          ArrayLengths{std::vector<std::uint32_t>(net.yields.size(), kYieldGroups)})};
  const Views<M> v = set.views();
  // Every element's slots are its own (the storages' offsets are fixed above): laid out on every
  // core, as the paper-scale network's 8 M cells are per benchmark case.
#pragma omp parallel for schedule(static)
  for (std::int64_t ci = 0; ci < static_cast<std::int64_t>(net.cells.size()); ++ci) {
    const auto c = static_cast<std::uint32_t>(ci);
    const Network::Cell& cell = net.cells[c];
    v.cells.template get<tag::SpeedLimit>(c) = cell.speed_limit;
    v.cells.template get<tag::Type>(c) = cell.type;
    v.cells.template get<tag::Sink>(c) = cell.sink ? 1 : 0;
    for (std::uint32_t i = 0; i < cell.incoming_count; ++i) v.cells.template get<tag::Incoming>(c, i) = cell.incoming[i];
    for (std::uint32_t i = 0; i < cell.outgoing_count; ++i) v.cells.template get<tag::Outgoing>(c, i) = cell.outgoing[i];
  }
  for (std::uint32_t g = 0; g < net.groups.size(); ++g)
    for (std::uint32_t i = 0; i < net.groups[g].cell_count; ++i)
      v.groups.template get<tag::GroupCells>(g, i) = net.groups[g].cells[i];
  for (std::uint32_t l = 0; l < net.lights.size(); ++l)
    for (std::uint32_t i = 0; i < net.lights[l].group_count; ++i)
      v.lights.template get<tag::LightGroups>(l, i) = net.lights[l].groups[i];
  for (std::uint32_t y = 0; y < net.yields.size(); ++y)
    for (std::uint32_t i = 0; i < kYieldGroups; ++i) v.yields.template get<tag::YieldGroups>(y, i) = net.yields[y].groups[i];
  return set;
}

//! Writes the state's dynamic part (cars with their paths, occupants, controller limits,
//! claims, lights' timers and phases) into views of a lay_out.
template <class M>
void store_state(const Views<M>& v, const State& s) {
#pragma omp parallel for schedule(static)
  for (std::int64_t ki = 0; ki < static_cast<std::int64_t>(s.cars.size()); ++ki) {
    const auto k = static_cast<std::uint32_t>(ki);
    const Car& car = s.cars[k];
    v.cars.template get<tag::MaxVelocity>(k) = car.max_velocity;
    for (std::uint32_t i = 0; i < car.path_length; ++i) v.cars.template get<tag::Path>(k, i) = car.path[i];
    store_car(v, static_cast<std::uint32_t>(k), car);
  }
#pragma omp parallel for schedule(static)
  for (std::int64_t ci = 0; ci < static_cast<std::int64_t>(s.occupant.size()); ++ci) {
    const auto c = static_cast<std::uint32_t>(ci);
    v.cells.template get<tag::Occupant>(c) = s.occupant[c];
    v.cells.template get<tag::ControllerLimit>(c) = s.controller_limit[c];
    v.cells.template get<tag::Claim>(c) = s.claim[c];
  }
  for (std::uint32_t l = 0; l < s.lights.size(); ++l) {
    v.lights.template get<tag::Timer>(l) = s.lights[l].timer;
    v.lights.template get<tag::PhaseTime>(l) = s.lights[l].phase_time;
    v.lights.template get<tag::Phase>(l) = s.lights[l].phase;
  }
}

//! The dynamic part read back into `s` (which holds the seed, step and counters; its vectors
//! are resized to the views' counts).
template <class M>
void load_state(const Views<M>& v, State& s) {
  s.cars.resize(v.cars.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t ki = 0; ki < static_cast<std::int64_t>(s.cars.size()); ++ki) {
    const auto k = static_cast<std::uint32_t>(ki);
    Car& car = s.cars[k];
    static_cast<CarScalars&>(car) = load_car(v, k);
    car.max_velocity = v.cars.template get<tag::MaxVelocity>(k);
    car.path.fill(kNone);
    for (std::uint32_t i = 0; i < car.path_length; ++i) car.path[i] = v.cars.template get<tag::Path>(k, i);
  }
  const std::size_t cells = v.cells.size();
  s.occupant.resize(cells);
  s.controller_limit.resize(cells);
  s.claim.resize(cells);
#pragma omp parallel for schedule(static)
  for (std::int64_t ci = 0; ci < static_cast<std::int64_t>(cells); ++ci) {
    const auto c = static_cast<std::uint32_t>(ci);
    s.occupant[c] = v.cells.template get<tag::Occupant>(c);
    s.controller_limit[c] = v.cells.template get<tag::ControllerLimit>(c);
    s.claim[c] = v.cells.template get<tag::Claim>(c);
  }
  s.lights.resize(v.lights.size());
  for (std::uint32_t l = 0; l < s.lights.size(); ++l)
    s.lights[l] = {v.lights.template get<tag::Timer>(l), v.lights.template get<tag::PhaseTime>(l),
                   v.lights.template get<tag::Phase>(l)};
}

//! The laid-out bytes of a set: the total and each swept-able array's share.
template <class M>
TrafficFootprint footprint_of(const HostSet<M>& set) {
  TrafficFootprint f;
  for (const InnerFootprint& part : {set.cells.mapping().footprint(), set.cars.mapping().footprint(),
                                     set.groups.mapping().footprint(), set.lights.mapping().footprint(),
                                     set.yields.mapping().footprint()}) {
    f.total.inline_bytes += part.inline_bytes;
    f.total.arena_bytes += part.arena_bytes;
    f.total.wasted_bytes += part.wasted_bytes;
  }
  f.incoming = set.cells.mapping().template footprint_of<tag::Incoming>();
  f.outgoing = set.cells.mapping().template footprint_of<tag::Outgoing>();
  f.path = set.cars.mapping().template footprint_of<tag::Path>();
  return f;
}

}  // namespace lb::traffic

namespace lb::traffic {

//! The parts of a set (HostSet, the GPU's DeviceSet) that a step writes: the cells (occupant,
//! claim, controller limit), the cars and the lights (timer, phase). Groups and yields are only
//! read. The one list a snapshot copies.
template <class Set>
auto stepped_parts(Set& set) {
  return std::tie(set.cells, set.cars, set.lights);
}

namespace detail {
template <class Parts>
struct OwnedParts;
template <class... P>
struct OwnedParts<std::tuple<P&...>> {
  using type = std::tuple<std::unique_ptr<P>...>;
};
//! f(a_i, b_i) for each element of two tuples of one size.
template <class A, class B, class F>
void each_pair(A& a, B&& b, F&& f) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (f(std::get<I>(a), std::get<I>(b)), ...);
  }(std::make_index_sequence<std::tuple_size_v<std::remove_cvref_t<A>>>{});
}
}  // namespace detail

//! A copy of a set's stepped parts (in storages of their mappings, where the set lives: host or
//! device memory) and the state's scalars, to return to by copying blobs back instead of laying
//! a State out again. `copy(to, from)` copies one storage into another of its mapping.
template <class Set>
class StepSnapshot {
 public:
  template <class Copy>
  StepSnapshot(Set& live, const State& scalars, Copy&& copy)
      : copies_(std::apply(
            [](auto&... part) {
              return Parts{std::make_unique<std::remove_cvref_t<decltype(part)>>(part.mapping())...};
            },
            stepped_parts(live))),
        scalars_(scalars) {
    detail::each_pair(copies_, stepped_parts(live), [&](auto& mine, auto& part) { copy(*mine, part); });
  }
  //! The kept parts copied back into `live`; returns the kept scalars.
  template <class Copy>
  const State& restore(Set& live, Copy&& copy) const {
    detail::each_pair(copies_, stepped_parts(live), [&](const auto& mine, auto& part) { copy(part, *mine); });
    return scalars_;
  }

 private:
  using Parts = typename detail::OwnedParts<decltype(stepped_parts(std::declval<Set&>()))>::type;
  Parts copies_;
  State scalars_;
};

//! What the host and GPU simulations share: the host copy of the layout (laid out once; the
//! GPU uploads it), the state's scalars (seed, step, counters) and the footprint.
template <class M>
class LaidOutBase : public LaidOutTraffic {
 public:
  const TrafficFootprint& footprint() const override { return footprint_; }

 protected:
  LaidOutBase(const Network& net, const State& initial, const TrafficLayout& t, TrafficFault fault)
      : set_(lay_out<M>(net, initial, t)),
        footprint_(footprint_of(set_)),
        cells_(static_cast<std::uint32_t>(net.cells.size())),
        fault_(fault) {}
  //! The state into the host copy and its scalars into scalars_.
  void store_host(const State& s) {
    scalars_ = State{};
    scalars_.seed = s.seed;
    scalars_.step = s.step;
    scalars_.dawdle = s.dawdle;
    scalars_.left = s.left;
    scalars_.reactivated = s.reactivated;
    scalars_.conflicts = s.conflicts;
    store_state(set_.views(), s);
  }
  //! The host copy read back, with scalars_.
  State load_host() const {
    State s = scalars_;
    load_state(set_.views(), s);
    return s;
  }
  //! This step's parameters (the reactivation shift drawn for it).
  StepParams params() const {
    const State& s = scalars_;
    return {s.seed, s.step, s.dawdle, cells_, static_cast<std::uint32_t>(set_.cars.size()),
            reactivation_shift(s.seed, s.step), fault_};
  }

  mutable HostSet<M> set_;  //!< the GPU version downloads into it (state() const)
  TrafficFootprint footprint_;
  std::uint32_t cells_;
  TrafficFault fault_;
  State scalars_;  //!< seed, step, dawdle and the counters (no vectors)
};

}  // namespace lb::traffic

#pragma once
//! The traffic simulation over the inner-array layouts (docs/traffic.md, "GPU version"): the
//! state laid out in one layout (AoS or SoA for every class) with one array field swept over
//! the strategies (Cell::incoming, Cell::outgoing or Car::path: none, partial N, full, object;
//! or both cell arrays at once) and every other array fully inlined, stepped by the rules of
//! lb/traffic/model.hpp on the GPU (one kernel per phase and object class) or on the host (the
//! same template code over host views, so the CPU tests check every layout against the
//! reference).

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "lb/layout/inner_array.hpp"
#include "lb/traffic/simulation.hpp"

namespace lb::traffic {

using layout::InnerFootprint;
using layout::InnerLayout;
using layout::InnerStrategy;

//! The array field a layout sweeps; `none`: every array fully inlined; `cells`: Cell::incoming
//! and Cell::outgoing both at the strategy (Kofler's method's choice for the cell, every field
//! alone: docs/advisor.md §6), run only where cells_apart_runs says.
enum class SweptField { none, incoming, outgoing, path, cells };

std::string_view to_string(SweptField f);
//! Throws std::invalid_argument("unknown traffic array field 'x' (expected one of: ...)").
SweptField parse_swept_field(std::string_view name);
//! The swept array's Max (8, 8, 30; cells 8, each array's; 0 for none): the largest partial N,
//! the slots full holds.
std::size_t max_elements(SweptField f);
//! Where SweptField::cells runs (and is instantiated: each costs a step's kernels): SoA with
//! both arrays apart from the cell, object or none, the layouts the method's choice maps to.
constexpr bool cells_apart_runs(InnerLayout l, InnerStrategy s) {
  return l == InnerLayout::soa && (s == InnerStrategy::object || s == InnerStrategy::none);
}

struct TrafficLayout {
  InnerLayout layout = InnerLayout::soa;
  SweptField field = SweptField::none;
  InnerStrategy strategy = InnerStrategy::full;  //!< of the swept field (full for none)
  std::size_t inline_count = 0;                  //!< partial's N (0 for the other strategies)
};

//! Throws std::invalid_argument naming the problem: a strategy other than full without a swept
//! field, an inline count for a strategy other than partial or above the field's Max, the
//! field cells where cells_apart_runs refuses it.
void check_layout(const TrafficLayout& t);
//! "soa, Car::path partial N = 6, the other arrays full" / "aos, every array full" /
//! "soa, Cell::incoming and Cell::outgoing object, the other arrays full".
std::string describe(const TrafficLayout& t);

//! Bytes of the laid-out state: everything, and each swept-able array's share (headers, inline
//! slots, arena: layout::InnerFieldsMapping::footprint_of).
struct TrafficFootprint {
  InnerFootprint total, incoming, outgoing, path;
};

//! Test hook: one object skips one phase (the move of car `skip_move_of_car`), so validation
//! must fail; kNone: no fault.
struct TrafficFault {
  std::uint32_t skip_move_of_car = kNone;
};

enum class Device { cpu, gpu };

//! The phases of a step in the order they run (lb/traffic/model.hpp; on the GPU one kernel
//! each) and the part of Fig. 11's time split each belongs to: the one place that classifies
//! them.
enum class Phase : std::uint8_t { lights, yields, plan, claim, resolve, move, reactivate };
inline constexpr Phase kPhases[] = {Phase::lights, Phase::yields,  Phase::plan,      Phase::claim,
                                    Phase::resolve, Phase::move,   Phase::reactivate};
enum class StepPart : std::uint8_t { controllers, cars };
constexpr StepPart part_of(Phase p) {
  return p == Phase::lights || p == Phase::yields ? StepPart::controllers  // traffic lights, yield controllers
                                                  : StepPart::cars;
}

//! How a step runs (issue 38's levers; docs/traffic.md, "Step schedules"): every schedule runs
//! the same per-object code to the same state. The default is the step as it was measured
//! before the levers: seven kernels of 256 threads, one thread a controller, stream launches.
struct StepSchedule {
  //! Lanes a controller (1, 2, 4 or 8; a yield controller takes at most 2): its groups dealt
  //! over them, each lane searching its own, the lanes' findings ORed (warp shuffles on the
  //! GPU, the lanes one after another on the host).
  std::uint32_t lanes = 1;
  //! Lanes beyond a controller's groups split the groups' upstream searches at their first
  //! fork (has_incoming_traffic_part); a yield controller then takes every lane. Needs lanes.
  bool split = false;
  std::uint32_t block = 256;  //!< threads a block of every kernel (GPU; a multiple of 32 up to 1024)
  //! Lights and yield controllers in one kernel, plan and claim in one (each car claims right
  //! after it plans: no plan reads a claim). The host runs plan and claim car by car.
  bool fused = false;
  bool graph = false;  //!< the step's launches as one CUDA graph, launched once a step (GPU)
  bool operator==(const StepSchedule&) const = default;
};

//! "base" (the default), else its parts that differ from it joined by '-' in this order:
//! lanes<N>, split, block<B>, fused, graph ("lanes8-split-block64-fused-graph").
std::string to_string(const StepSchedule& s);
//! The schedule of to_string's text, which must be written as to_string writes it; else
//! std::invalid_argument naming the part and the parts there are.
StepSchedule parse_step_schedule(std::string_view text);
//! Whether `fused` folds the phase into the one before it (yields into lights, claim into plan).
constexpr bool folded(Phase p, const StepSchedule& s) { return s.fused && (p == Phase::yields || p == Phase::claim); }
//! A yield controller's lanes (it has kYieldGroups groups; all the lanes where they split).
constexpr std::uint32_t yield_lanes(const StepSchedule& s) {
  return s.split || s.lanes < kYieldGroups ? s.lanes : kYieldGroups;
}

//! Seconds of a run spent in each part of its steps (Fig. 11: cars and controllers).
struct StepSplit {
  double cars_s = 0, controllers_s = 0;
  double& operator[](StepPart p) { return p == StepPart::cars ? cars_s : controllers_s; }
};

//! A simulation state laid out in one TrafficLayout on one device, with the network it runs on.
class LaidOutTraffic {
 public:
  virtual ~LaidOutTraffic() = default;
  //! Lays `s` out (its cars, signals, lights, step and counters); the GPU uploads it (and has
  //! finished when reset returns).
  virtual void reset(const State& s) = 0;
  //! Keeps a copy of the state now, as laid out (the parts a step writes, stepped_parts in
  //! laid_out.hpp, where the simulation lives: device memory on the GPU) with its step and
  //! counters, for restore_snapshot. Costs those parts' memory again; replaces an earlier one.
  virtual void keep_snapshot() = 0;
  //! Back to the state keep_snapshot kept by copying it back in the layout: no laying out, no
  //! upload. The GPU enqueues device-to-device copies on `stream` (ordered after the runs on it;
  //! runs on other streams must have finished) and returns. Throws std::logic_error without a
  //! snapshot.
  virtual void restore_snapshot(cudaStream_t stream = nullptr) = 0;
  //! `steps` steps. The GPU enqueues them on `stream` (wait() waits); the host runs them.
  virtual void run(std::uint32_t steps, cudaStream_t stream = nullptr) = 0;
  virtual void wait(cudaStream_t stream = nullptr) = 0;
  //! `steps` steps as run() takes them (the same state after), instrumented: the seconds spent
  //! in each part of the step (part_of), taken at every change of part; the GPU with CUDA events
  //! on `stream` (read back every few hundred changes, and synchronised before it returns), the
  //! host with a steady clock. The marks perturb the run a little: a benchmark times run() and
  //! takes only the split from this.
  virtual StepSplit run_split(std::uint32_t steps, cudaStream_t stream = nullptr) = 0;
  //! The state now, read back into the reference's form (claims included: all kNone between
  //! steps), for checksum, check_invariants and write_state_csv.
  virtual State state() const = 0;
  virtual const TrafficFootprint& footprint() const = 0;
};

//! `net` laid out in `t` on `device`, holding `initial` (reset). Each car's path reserves its
//! max velocity's slots (none, partial): a later reset must keep the cars' max velocities.
//! Throws std::invalid_argument as check_layout, and for a schedule parse_step_schedule refuses.
std::unique_ptr<LaidOutTraffic> make_laid_out_traffic(const Network& net, const State& initial, const TrafficLayout& t,
                                                      Device device, TrafficFault fault = {},
                                                      const StepSchedule& schedule = {});

}  // namespace lb::traffic

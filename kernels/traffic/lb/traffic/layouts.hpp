#pragma once
//! The traffic simulation over the inner-array layouts (docs/traffic.md, "GPU version"): the
//! state laid out in one layout (AoS or SoA for every class) with one array field swept over
//! the strategies (Cell::incoming, Cell::outgoing or Car::path: none, partial N, full, object)
//! and every other array fully inlined, stepped by the rules of lb/traffic/model.hpp on the
//! GPU (one kernel per phase and object class) or on the host (the same template code over
//! host views, so the CPU tests check every layout against the reference).

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

//! The array field a layout sweeps; `none`: every array fully inlined.
enum class SweptField { none, incoming, outgoing, path };

std::string_view to_string(SweptField f);
//! Throws std::invalid_argument("unknown traffic array field 'x' (expected one of: ...)").
SweptField parse_swept_field(std::string_view name);
//! The swept array's Max (8, 8, 30; 0 for none): the largest partial N, the slots full holds.
std::size_t max_elements(SweptField f);

struct TrafficLayout {
  InnerLayout layout = InnerLayout::soa;
  SweptField field = SweptField::none;
  InnerStrategy strategy = InnerStrategy::full;  //!< of the swept field (full for none)
  std::size_t inline_count = 0;                  //!< partial's N (0 for the other strategies)
};

//! Throws std::invalid_argument naming the problem: a strategy other than full without a swept
//! field, an inline count for a strategy other than partial or above the field's Max.
void check_layout(const TrafficLayout& t);
//! "soa, Car::path partial N = 6, the other arrays full" / "aos, every array full".
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
//! Throws std::invalid_argument as check_layout.
std::unique_ptr<LaidOutTraffic> make_laid_out_traffic(const Network& net, const State& initial, const TrafficLayout& t,
                                                      Device device, TrafficFault fault = {});

}  // namespace lb::traffic

// LavaMD under access recording: every box's block replayed on the host (recorders.hpp). The
// particles rv and the forces fv are records of the same four fields, recorded into one trace
// under the same field indices; the charges qv are other memory.

#include <string>

#include "lb/kofler/lavamd_body.hpp"
#include "lb/kofler/recorders.hpp"
#include "lb/layout/aos.hpp"
#include "lb/layout/host_storage.hpp"
#include "lb/layout/recording.hpp"

namespace lb::kofler {

LavaRecordedRun lavamd_recorded_run() {
  using T = float;
  using M = layout::AoSMapping<FourVector<T>>;
  LavaRecordedRun run;
  run.input = rounded_to_float(lavamd_input(kLavaRecordedBoxes1d));
  const std::size_t boxes = lavamd_boxes(kLavaRecordedBoxes1d), n = boxes * kParticlesPerBox;
  layout::HostStorage<M> rv(M{n}), fv(M{n});
  std::vector<T> qv(n);
  for (std::size_t i = 0; i < n; ++i) {
    rv.view().store(i, to_value<T>(run.input.rv[i]));
    qv[i] = T(run.input.qv[i]);
  }
  layout::KernelTrace trace{"lavamd_kernel", {}};
  const layout::RecordingView<M> rrv(rv.view(), trace.accesses), rfv(fv.view(), trace.accesses);
  for (std::size_t box = 0; box < boxes; ++box)
    lavamd_replay_box(rrv, layout::RecordedArray<T>{qv.data(), &trace.accesses}, rfv, kLavaRecordedBoxes1d, long(box));
  for (std::size_t i = 0; i < n; ++i) run.fv.push_back(to_plain<T>(fv.view().load(i)));
  run.program = {.program = "lavamd",
                 .field_names = kLavaFieldNames,
                 .field_bytes = layout::field_bytes<FourVector<T>>(),
                 .kernels = {std::move(trace)},
                 .problem = std::to_string(boxes) + " boxes (" + std::to_string(kLavaRecordedBoxes1d) + "^3) of " +
                            std::to_string(kParticlesPerBox) +
                            " particles, float: every box's block one after another, its " +
                            std::to_string(kParticlesPerBox) + " active threads phase by phase in thread order"};
  return run;
}

RecordedProgram record_lavamd() { return lavamd_recorded_run().program; }

}  // namespace lb::kofler

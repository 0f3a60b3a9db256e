// N-body under access recording: one step's blocks replayed on the host (recorders.hpp).

#include <string>

#include "lb/kofler/nbody_body.hpp"
#include "lb/kofler/recorders.hpp"
#include "lb/layout/host_storage.hpp"
#include "lb/layout/recording.hpp"

namespace lb::kofler {

NBodyRecordedRun nbody_recorded_run() {
  using M = layout::AoSMapping<Body>;
  const std::size_t n = kNBodyRecordedBodies;
  NBodyRecordedRun run;
  run.params.steps = 1;
  run.initial = nbody_initial(n, 42);
  layout::HostStorage<M> in(M{n}), out(M{n});
  for (std::size_t i = 0; i < n; ++i) {
    in.view().get<Pos>(i) = run.initial.pos[i];
    in.view().get<Vel>(i) = run.initial.vel[i];
  }
  layout::KernelTrace trace{"nbody_step_kernel", {}};
  const layout::RecordingView<M> rin(in.view(), trace.accesses), rout(out.view(), trace.accesses);
  const unsigned blocks = nbody_blocks(n);
  for (unsigned b = 0; b < blocks; ++b) nbody_replay_block(rin, rout, b, run.params.softening2, run.params.dt);
  run.after = {std::vector<float4>(n), std::vector<float4>(n)};
  for (std::size_t i = 0; i < n; ++i) {
    run.after.pos[i] = out.view().get<Pos>(i);
    run.after.vel[i] = out.view().get<Vel>(i);
  }
  run.program = {.program = "nbody",
                 .field_names = {"pos", "vel"},
                 .field_bytes = layout::field_bytes<Body>(),
                 .kernels = {std::move(trace)},
                 .problem = std::to_string(n) + " bodies, 1 step: all " + std::to_string(blocks) +
                            " blocks of " + std::to_string(kTileBodies) +
                            " threads, one after another, each phase by phase in thread order"};
  return run;
}

RecordedProgram record_nbody() { return nbody_recorded_run().program; }

}  // namespace lb::kofler

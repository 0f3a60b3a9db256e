// Kriging under access recording (programs.hpp): experiment 4's thread body (experiments.cu's
// exp4_kernel: the point's B from the wells, A copied in, the solve, then write_estimates'
// combine for every surface) through the shared solver (lb/kriging/solver.hpp), one grid
// point after another in the block's thread order, the wells through a recording view.

#include <memory>
#include <string>

#include "lb/datasets/wells.hpp"
#include "lb/kriging/cpu.hpp"
#include "lb/kriging/device.hpp"
#include "lb/kriging/solver.hpp"
#include "lb/layout/aos.hpp"
#include "lb/layout/host_storage.hpp"
#include "lb/layout/recording.hpp"
#include "lb/recorded/programs.hpp"

namespace lb::recorded {

KrigingRecordedRun kriging_recorded_run() {
  using T = double;
  using M = layout::AoSMapping<kriging::Well<T>>;
  const datasets::KrigingCase c = datasets::generate_kriging_case(
      {.wells = kKrigingRecordedWells, .mesh_x = kriging::kPointBlockX, .mesh_y = kriging::kPointBlockY});
  kriging::KrigingInput<T> in =
      kriging::make_input<T>(c.wells, c.grid, kriging::Variogram::for_domain(c.width, c.height));
  std::vector<T> a = kriging::kriging_matrix(in, 1);
  const int n = static_cast<int>(in.wells);
  const std::size_t mx = in.grid_x.size(), points = in.points();
  layout::HostStorage<M> wells(M{in.wells});
  for (std::size_t j = 0; j < in.wells; ++j)
    wells.view().get<kriging::WellX>(j) = in.well_x[j], wells.view().get<kriging::WellY>(j) = in.well_y[j];

  KrigingRecordedRun run;
  run.estimates.assign(in.surfaces * points, T(0));
  layout::KernelTrace trace{"exp4_kernel", {}};
  std::vector<layout::Access>& log = trace.accesses;
  const layout::RecordingView<M> w(wells.view(), log);
  const layout::RecordedArray<T> recorded_a{a.data(), &log};
  auto sys = std::make_unique<kriging::PointSystem<T>>();
  for (std::size_t p = 0; p < points; ++p) {  // threadIdx.x (ix) fastest: the block's thread order
    const T px = layout::recorded_other(in.grid_x[p % mx], log), py = layout::recorded_other(in.grid_y[p / mx], log);
    const kriging::SolveStatus status = kriging::solve_weights(recorded_a, w, n, in.covariance, px, py, *sys);
    if (!status.ok()) kriging::throw_singular_system(in, status, "in the recorded run");
    for (std::size_t h = 0; h < in.surfaces; ++h) {
      const T estimate = kriging::combine(sys->b, layout::RecordedArray<T>{in.values.data() + h * in.wells, &log}, n);
      layout::recorded_other(run.estimates[h * points + p], log) = estimate;
    }
  }
  run.expected = kriging::krige_shared_weights(in);
  run.program = {.program = "kriging",
                 .field_names = {"x", "y"},
                 .field_bytes = layout::field_bytes<kriging::Well<T>>(),
                 .kernels = {std::move(trace)},
                 .problem = std::to_string(in.wells) + " wells, " + std::to_string(in.surfaces) +
                            " surfaces, double: experiment 4's block of " + std::to_string(points) + " grid points (" +
                            std::to_string(mx) + " x " + std::to_string(in.grid_y.size()) +
                            "), one thread after another in thread order",
                 .record = "well"};
  return run;
}

}  // namespace lb::recorded

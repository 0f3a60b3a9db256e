// IDW under access recording (programs.hpp): the naive body (lb/idw/naive_body.hpp) one
// prediction point after another, or the tiled kernel's phases (lb/idw/tiled_body.hpp) a whole
// block at a time, over recording views of the data and prediction points.

#include <string>

#include "lb/datasets/points.hpp"
#include "lb/idw/interaction.hpp"
#include "lb/idw/naive_body.hpp"
#include "lb/idw/tiled_body.hpp"
#include "lb/layout/aos.hpp"
#include "lb/layout/host_storage.hpp"
#include "lb/layout/recording.hpp"
#include "lb/recorded/programs.hpp"

namespace lb::recorded {

IdwRecordedRun idw_recorded_run(IdwBody which) {
  using T = float;
  using M = layout::AoSMapping<idw::Point<T>>;
  const std::size_t m = kIdwRecordedData, n = kIdwRecordedPredictions;
  const datasets::PointSet data = datasets::uniform_points(m, 1), pred = datasets::uniform_points(n, 2);
  layout::HostStorage<M> d(M{m}), q(M{n});
  IdwRecordedRun run;
  for (std::size_t j = 0; j < m; ++j) {
    d.view().get<idw::X>(j) = T(data.x[j]), d.view().get<idw::Y>(j) = T(data.y[j]), d.view().get<idw::Z>(j) = T(data.z[j]);
    run.data_x.push_back(T(data.x[j])), run.data_y.push_back(T(data.y[j])), run.data_z.push_back(T(data.z[j]));
  }
  for (std::size_t i = 0; i < n; ++i) {
    q.view().get<idw::X>(i) = T(pred.x[i]), q.view().get<idw::Y>(i) = T(pred.y[i]), q.view().get<idw::Z>(i) = T(0);
    run.pred_x.push_back(T(pred.x[i])), run.pred_y.push_back(T(pred.y[i]));
  }
  const bool naive = which == IdwBody::naive;
  layout::KernelTrace trace{naive ? "naive (NaiveBody)" : "tiled_kernel", {}};
  const layout::RecordingView<M> rd(d.view(), trace.accesses), rq(q.view(), trace.accesses);
  const idw::PowerTwo power;
  std::string order;
  if (naive) {
    const idw::NaiveBody body{rd, rq, power};
    for (std::size_t i = 0; i < n; ++i) body(i);
    order = "one thread after another";
  } else {
    const std::size_t blocks = (n + kIdwRecordedBlock - 1) / kIdwRecordedBlock;
    for (std::size_t b = 0; b < blocks; ++b) idw::idw_tiled_replay_block(rd, rq, power, b, kIdwRecordedBlock);
    order = "every block's threads phase by phase in thread order";
  }
  for (std::size_t i = 0; i < n; ++i) run.values.push_back(q.view().get<idw::Z>(i));
  run.program = {.program = naive ? "idw-naive" : "idw-tiled",
                 .field_names = {"x", "y", "z"},
                 .field_bytes = layout::field_bytes<idw::Point<T>>(),
                 .kernels = {std::move(trace)},
                 .problem = std::to_string(n) + " prediction points (blocks of " + std::to_string(kIdwRecordedBlock) +
                            ") over " + std::to_string(m) + " data points, float, p = 2: " + order,
                 .record = "point"};
  return run;
}

}  // namespace lb::recorded

// BlackScholes under access recording: the timed kernel's threads over one block of options,
// in thread order (recorders.hpp).

#include <string>

#include "lb/kofler/blackscholes.hpp"
#include "lb/kofler/recorders.hpp"
#include "lb/layout/aos.hpp"
#include "lb/layout/host_storage.hpp"
#include "lb/layout/recording.hpp"

namespace lb::kofler {

BlackScholesRecordedRun blackscholes_recorded_run() {
  using M = layout::AoSMapping<Option>;
  const std::size_t n = kBlackScholesRecordedOptions;
  const BlackScholesParams params;
  layout::HostStorage<M> options(M{n});
  const auto v = options.view();
  for (std::size_t i = 0; i < n; ++i) option_inputs(params.seed, i, v.get<Stock>(i), v.get<Strike>(i), v.get<Years>(i));
  layout::KernelTrace trace{"black_scholes_kernel", {}};
  const layout::RecordingView<M> rv(v, trace.accesses);
  for (std::size_t i = 0; i < n; ++i) black_scholes_option<FastMath>(rv, i, params.riskfree, params.volatility);
  BlackScholesRecordedRun run;
  for (std::size_t i = 0; i < n; ++i) {
    run.call.push_back(v.get<Call>(i));
    run.put.push_back(v.get<Put>(i));
  }
  run.program = {.program = "blackscholes",
                 .field_names = {"S", "X", "T", "call", "put"},
                 .field_bytes = layout::field_bytes<Option>(),
                 .kernels = {std::move(trace)},
                 .problem = std::to_string(n) + " options: the timed kernel's block of " + std::to_string(n) +
                            " threads in thread order"};
  return run;
}

RecordedProgram record_blackscholes() { return blackscholes_recorded_run().program; }

}  // namespace lb::kofler

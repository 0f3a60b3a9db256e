// The inner-array synthetic benchmark under access recording (programs.hpp): its kernel body
// (lb/inner/synthetic.hpp's AddValue) one object after another over a recording view of the
// objects laid out AoS with every array full (any layout records the same fields and bytes).

#include <string>

#include "lb/inner/synthetic.hpp"
#include "lb/inner/synthetic_image.hpp"
#include "lb/layout/inner_recording.hpp"
#include "lb/recorded/programs.hpp"

namespace lb::recorded {

SyntheticRecordedRun synthetic_recorded_run() {
  using M = layout::InnerArrayMapping<inner::SyntheticObject, layout::InnerLayout::aos, layout::InnerStrategy::full>;
  const inner::SyntheticInputs in = inner::make_synthetic_inputs(kSyntheticRecordedObjects);
  const auto input = inner::synthetic_image<M>(in, 0), objects = inner::synthetic_image<M>(in, 0);
  layout::KernelTrace trace{"add_value (AddValue)", {}};
  const inner::AddValue<layout::InnerRecordingView<M>> body{{objects->view(), trace.accesses}};
  for (std::size_t i = 0; i < in.sizes.size(); ++i) body(i);
  SyntheticRecordedRun run;
  const inner::SyntheticCheck check = inner::check_synthetic_output(*objects, *input, in);
  run.output_ok = check.ok;
  run.output_message = check.message;
  run.program = {.program = "synthetic",
                 .field_names = {"value", "size", "elements"},
                 .field_bytes = layout::inner_field_bytes<inner::SyntheticObject>(),
                 .kernels = {std::move(trace)},
                 .problem = std::to_string(in.sizes.size()) + " objects of 32..64 elements (the benchmark's seed): "
                            "one thread after another",
                 .record = "object"};
  return run;
}

}  // namespace lb::recorded

// The traffic simulation's GPU version, SoA: its twelve mappings (gpu_layouts.cuh; two of them
// both cell arrays apart).
#include "gpu_layouts.cuh"

namespace lb::traffic {
std::unique_ptr<LaidOutTraffic> make_gpu_traffic_soa(const Network& net, const State& initial, const TrafficLayout& t,
                                                     TrafficFault fault, const StepSchedule& schedule) {
  return gpu::make<InnerLayout::soa>(net, initial, t, fault, schedule);
}
}  // namespace lb::traffic

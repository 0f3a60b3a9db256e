// The traffic simulation's GPU version, AoSoA of 32 records (beyond the paper: Kofler's method's
// choice for the car): its ten mappings (gpu_layouts.cuh).
#include "gpu_layouts.cuh"

namespace lb::traffic {
std::unique_ptr<LaidOutTraffic> make_gpu_traffic_aosoa32(const Network& net, const State& initial,
                                                         const TrafficLayout& t, TrafficFault fault,
                                                         const StepSchedule& schedule) {
  return gpu::make<InnerLayout::aosoa32>(net, initial, t, fault, schedule);
}
}  // namespace lb::traffic

// The traffic simulation's GPU version, SoA: its ten mappings (gpu_layouts.cuh).
#include "gpu_layouts.cuh"

namespace lb::traffic {
std::unique_ptr<LaidOutTraffic> make_gpu_traffic_soa(const Network& net, const State& initial, const TrafficLayout& t,
                                                     TrafficFault fault) {
  return gpu::make<InnerLayout::soa>(net, initial, t, fault);
}
}  // namespace lb::traffic

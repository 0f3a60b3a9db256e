// The traffic simulation over the layouts on the host, AoSoA of 32 records (beyond the paper):
// its ten mappings (host_layouts.hpp).
#include "host_layouts.hpp"

namespace lb::traffic {
std::unique_ptr<LaidOutTraffic> make_host_traffic_aosoa32(const Network& net, const State& initial,
                                                          const TrafficLayout& t, TrafficFault fault,
                                                          const StepSchedule& schedule) {
  return host::make<InnerLayout::aosoa32>(net, initial, t, fault, schedule);
}
}  // namespace lb::traffic

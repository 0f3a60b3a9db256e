// The traffic simulation over the layouts on the host, SoA: its twelve mappings (host_layouts.hpp;
// two of them both cell arrays apart).
#include "host_layouts.hpp"

namespace lb::traffic {
std::unique_ptr<LaidOutTraffic> make_host_traffic_soa(const Network& net, const State& initial, const TrafficLayout& t,
                                                      TrafficFault fault, const StepSchedule& schedule) {
  return host::make<InnerLayout::soa>(net, initial, t, fault, schedule);
}
}  // namespace lb::traffic

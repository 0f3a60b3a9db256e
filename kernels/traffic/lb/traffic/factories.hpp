#pragma once
//! The factories behind make_laid_out_traffic (lb/traffic/layouts.hpp), one unit per device
//! and layout (host_<layout>.cpp, gpu_<layout>.cu for aos, soa and, beyond the paper, aosoa32:
//! each instantiates its layout's ten mappings; soa two more: both cell arrays apart).

#include <memory>

#include "lb/traffic/layouts.hpp"

namespace lb::traffic {
std::unique_ptr<LaidOutTraffic> make_gpu_traffic_aos(const Network& net, const State& initial, const TrafficLayout& t,
                                                     TrafficFault fault, const StepSchedule& schedule);
std::unique_ptr<LaidOutTraffic> make_gpu_traffic_soa(const Network& net, const State& initial, const TrafficLayout& t,
                                                     TrafficFault fault, const StepSchedule& schedule);
std::unique_ptr<LaidOutTraffic> make_host_traffic_aos(const Network& net, const State& initial, const TrafficLayout& t,
                                                      TrafficFault fault, const StepSchedule& schedule);
std::unique_ptr<LaidOutTraffic> make_host_traffic_soa(const Network& net, const State& initial, const TrafficLayout& t,
                                                      TrafficFault fault, const StepSchedule& schedule);
std::unique_ptr<LaidOutTraffic> make_gpu_traffic_aosoa32(const Network& net, const State& initial,
                                                         const TrafficLayout& t, TrafficFault fault,
                                                         const StepSchedule& schedule);
std::unique_ptr<LaidOutTraffic> make_host_traffic_aosoa32(const Network& net, const State& initial,
                                                          const TrafficLayout& t, TrafficFault fault,
                                                          const StepSchedule& schedule);
}  // namespace lb::traffic

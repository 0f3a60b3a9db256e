#pragma once
//! A suite (one paper) turns a preset into a list of named benchmarks. Planning touches no
//! GPU, so `layoutbench plan` works anywhere; running uses the process's RunEnv.

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include "lb/harness/ceilings.hpp"
#include "lb/harness/device_context.hpp"
#include "lb/harness/preset.hpp"

namespace lb::harness {

//! Command-line overrides of the preset (empty = keep the preset's).
struct Overrides {
  std::vector<std::size_t> sizes;
  std::vector<std::string> precisions;
};

struct PlannedBenchmark {
  std::string name;
  std::function<void(benchmark::State&)> run;
};

using Planner = std::function<std::vector<PlannedBenchmark>(const Preset&, const Overrides&)>;

struct Suite {
  std::string name;
  Planner plan;
};

//! Every suite the binary knows, in run order.
const std::vector<Suite>& suites();
const Suite& find_suite(const std::string& name);  // throws std::invalid_argument

class GpuTimer;

//! Process-wide state of a `run`: the device, its measured ceilings, the timer.
struct RunEnv {
  DeviceSummary device;
  nlohmann::json gpu;
  Ceilings ceilings;
  std::unique_ptr<GpuTimer> timer;
};
RunEnv& env();

}  // namespace lb::harness

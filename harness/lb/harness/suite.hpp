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

//! An artifact a suite makes after its benchmarks, besides their results: when the suite's
//! object in the preset has `preset_key`, harness/run.py runs `layoutbench <command>` on each
//! device (e.g. kriging's Fig. 4 model).
struct ArtifactStep {
  std::string name;
  std::string preset_key;
  std::string command;
  std::string description;
};

struct Suite {
  std::string name;
  Planner plan;
  std::vector<ArtifactStep> steps;
};

//! Every suite the binary knows, in run order.
const std::vector<Suite>& suites();
const Suite& find_suite(const std::string& name);  // throws std::invalid_argument

//! The registry harness/run.py and the tests read (`layoutbench suites --json`): the suites in
//! run order with their artifact steps, and the named presets with their descriptions.
nlohmann::json registry_json();

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

#pragma once
//! A suite (one paper) turns a preset into a list of named benchmarks. Planning touches no
//! GPU, so `layoutbench plan` works anywhere; running uses the process's RunEnv.

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include "lb/harness/ceilings.hpp"
#include "lb/harness/device_context.hpp"
#include "lb/harness/plan.hpp"
#include "lb/harness/preset.hpp"

namespace lb::harness {

//! Command-line overrides of the preset (empty = keep the preset's) and run options.
struct Overrides {  // default member initializers: a designated initializer may name only some
  std::vector<std::size_t> sizes{};
  std::vector<std::string> precisions{};
  //! The files given for the suite's declared inputs (SuiteInput), by input name: each suite's
  //! own code reads its own; the harness only passes them on.
  std::map<std::string, std::string> inputs{};
  //! --axis NAME=v1,v2 (repeatable): each axis's values as typed, the axes in the order given.
  std::vector<std::pair<std::string, std::vector<std::string>>> axes{};
};

//! The command line's --axis options ("NAME=v1,v2", each as typed) as Overrides::axes: one
//! std::invalid_argument naming the option for a text without NAME=, an empty list or value, a
//! value given twice, and an axis given twice.
std::vector<std::pair<std::string, std::vector<std::string>>> parse_axis_options(const std::vector<std::string>& texts);

struct PlannedBenchmark {
  std::string name;
  std::function<void(benchmark::State&)> run;
  int repetitions = 0;    //!< 0: the preset's (ProgramCase::repetitions)
  double min_time_s = 0;  //!< 0: the preset's
  Where where = Where::gpu;  //!< a CPU benchmark holds the host's CPU lock while it runs
};

//! An integer the preset's step object gives, from `min` (to `max`, where not 0).
struct StepParameter {
  std::string key;
  long long min = 0, max = 0;
};

//! Where a Python step's per-GPU output may come from besides the run itself: copies
//! committed per GPU model, `folder` (from the repository root) / <gpu-name-slug>.json. Each
//! copy, like the step's own output, is JSON carrying "format": `format` and the "gpu"
//! {"name", "uuid"} it was made on. With the step's parameter `reuse` at 1 in the preset, a
//! new run whose every device has a copy leaves the step's suite out (harness/run.py).
struct CommittedOutputs {
  std::string folder{};  //!< empty: the step has none
  std::string format{};
  std::string reuse{};  //!< a key of the step's parameters; empty: never reused
};

//! An artifact a suite makes after its benchmarks, besides their results: when the suite's
//! object in the preset has `preset_key` (an object of `parameters`, checked), harness/run.py
//! runs `layoutbench <argv>` on each device k after all its suites, argv with "{<key>}"
//! replaced by that parameter's value and "{out:<output>}" by the file
//! <run folder>/<suite>-<output>.gpu<k>.csv it writes (a figure's data). A suite with a step
//! of its own needs no Python change.
//! A step whose runner is "python" runs `python3 -m <argv>` from the repository root right
//! after its suite on each device (before the next suite), "{results}" standing for that
//! device's results of the suite (<suite>.gpu<k>.json) and "{out:<output>}" for
//! <run folder>/<suite>/<output>.gpu<k>.json, which another suite may take as an input
//! (SuiteInput::from).
struct ArtifactStep {
  std::string name;
  std::string preset_key;
  std::string command;  //!< argv[0]
  std::string figure;   //!< what the artifact is for, in messages ("Fig. 4")
  std::string description;
  std::vector<StepParameter> parameters;
  std::vector<std::string> argv;
  std::vector<std::string> outputs;  //!< in the order argv names them
  std::string runner = "layoutbench";  //!< or "python" (above)
  CommittedOutputs committed{};        //!< a Python step of one output only
};

//! The output `output` of the Python step `step` of suite `suite` (ArtifactStep).
struct StepOutput {
  std::string suite{}, step{}, output{};
};

//! A file a suite's run may be given, which the suite's own code reads: `layoutbench plan|run
//! --<name> FILE` (Overrides::inputs). `read` reads and checks it before anything is planned
//! (an error names the file). harness/run.py gives it the output `from` made on the same GPU:
//! the run's own, else a committed copy (CommittedOutputs); none found, the option is left out.
struct SuiteInput {
  std::string name;
  std::string description;  //!< the option's help
  std::function<void(const std::string& path)> read;
  StepOutput from{};  //!< empty suite: given by hand only
};

struct Suite {
  std::string name;
  SuitePrograms programs;
  std::vector<ArtifactStep> steps;
  std::vector<SuiteInput> inputs{};
  //! The preset's benchmarks of this suite (plan_suite).
  std::vector<PlannedBenchmark> plan(const Preset& preset, const Overrides& overrides) const {
    return plan_suite(name, programs, preset, overrides);
  }
};

//! Every suite the binary knows, in run order: defined by the binary's suite list
//! (benches/suites.cpp; a test's own binary links its own, tests/fixture_program).
const std::vector<Suite>& suites();

//! The suite named `name` of `all`; std::invalid_argument naming the others.
const Suite& find_suite(const std::vector<Suite>& all, const std::string& name);

//! The registry harness/run.py and the tests read (`layoutbench suites --json`): the suites of
//! `all` in run order with their programs (axes with their values, counters), artifact steps
//! and inputs, the layout kinds' name table, and the named presets with their descriptions.
nlohmann::json registry_json(const std::vector<Suite>& all);

// Over the binary's suites. Inline: the call to suites() is the caller's, so the suite list
// it links resolves it (the harness library defines no suite list).
inline const Suite& find_suite(const std::string& name) { return find_suite(suites(), name); }
inline nlohmann::json registry_json() { return registry_json(suites()); }

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

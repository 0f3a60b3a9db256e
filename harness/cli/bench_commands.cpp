//! The bench commands (bench_commands.hpp): list-devices, build-info, gpu-decision, suites,
//! plan and run, over the suites the binary links; and main() of a benchmark binary.

#include <algorithm>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <CLI/CLI.hpp>
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "lb/common/cuda_check.hpp"
#include "lb/datasets/text.hpp"
#include "lb/harness/gpu_presence.hpp"
#include "lb/harness/ceilings.hpp"
#include "lb/harness/device_context.hpp"
#include "lb/harness/gpu_timer.hpp"
#include "lb/harness/journal.hpp"
#include "lb/harness/preset.hpp"
#include "lb/harness/runner.hpp"
#include "lb/harness/suite.hpp"
#include "bench_commands.hpp"
#include "common.hpp"

namespace lb::harness {
namespace {

template <class State>
constexpr bool has_skip_with_message = requires(State& st) { st.SkipWithMessage(""); };

struct Selection {
  std::string suite;  //!< default: the binary's first suite
  std::string preset = "quick";
  std::string filter;
  std::vector<std::string> sizes;  //!< as typed: checked by sizes_of
  std::vector<std::string> precisions;
  std::vector<std::string> axes;  //!< --axis NAME=v1,v2, each as typed: checked by parse_axis_options
  std::map<std::string, std::string> inputs;  //!< the suites' declared inputs (--<name> FILE); unset: empty
};

//! --sizes as distinct positive integers: "-1" or "1024.5" is an error naming the option, never
//! a wrapped or truncated size, and so is a size given twice.
std::vector<std::size_t> sizes_of(const std::vector<std::string>& texts) {
  std::vector<std::size_t> sizes;
  for (const auto& t : texts) {
    std::size_t n = 0;
    if (!lb::datasets::text::parse_size(t, n) || n == 0)
      throw std::invalid_argument(
          fmt::format("--sizes: {} is not a positive integer", lb::datasets::text::quote(t)));
    // A size given twice would plan its benchmarks twice under one name.
    if (std::find(sizes.begin(), sizes.end(), n) != sizes.end())
      throw std::invalid_argument(fmt::format("--sizes: {} is given twice; give each size once", n));
    sizes.push_back(n);
  }
  return sizes;
}

void add_selection_options(CLI::App* cmd, Selection& s) {
  cmd->add_option("--suite", s.suite, "suite (paper) to run")->capture_default_str();
  cmd->add_option("--preset", s.preset, "a named preset (`layoutbench suites` lists them) or a preset .json file")->capture_default_str();
  cmd->add_option("--filter", s.filter, "only benchmarks whose name matches this regex (ECMAScript, search)");
  cmd->add_option("--sizes", s.sizes,
                  "set each program's size axis (--axis <its size axis>=...; `suites --json` names it)")
      ->delimiter(',');
  cmd->add_option("--precision", s.precisions, "set each program's precision axis (float,double)")
      ->delimiter(',')
      ->check(lb::tools::one_of({"float", "double"}));
  cmd->add_option("--axis", s.axes,
                  "NAME=v1,v2: the values of each program's axis NAME (repeatable): an open axis's (sizes, "
                  "tiles) replace the preset's, an enumerated one's (layouts, versions) narrow it; `suites --json` "
                  "lists each program's axes")
      ->allow_extra_args(false);
  std::set<std::string> added;  // two suites may take one input
  for (const auto& suite : suites())
    for (const auto& input : suite.inputs)
      if (added.insert(input.name).second)
        cmd->add_option("--" + input.name, s.inputs[input.name], input.description)->check(lb::tools::not_empty());
}

//! The inputs given, each read by `suite`'s own reader first; one `suite` does not declare is
//! a mistake, not ignored.
std::map<std::string, std::string> suite_inputs(const Suite& suite, const std::map<std::string, std::string>& given) {
  std::map<std::string, std::string> inputs;
  for (const auto& [name, path] : given) {
    if (path.empty()) continue;
    const auto it = std::find_if(suite.inputs.begin(), suite.inputs.end(), [&](const auto& i) { return i.name == name; });
    if (it == suite.inputs.end())
      throw std::invalid_argument(fmt::format("--{}: suite {} takes no such input", name, suite.name));
    if (it->read) it->read(path);
    inputs[name] = path;
  }
  return inputs;
}

struct Plan {
  Preset preset;
  std::vector<PlannedBenchmark> benchmarks;
};

Plan make_plan(const Selection& s) {
  Plan plan{load_preset(s.preset), {}};
  const Suite& suite = find_suite(s.suite);
  Overrides overrides{sizes_of(s.sizes), s.precisions, suite_inputs(suite, s.inputs), parse_axis_options(s.axes)};
  auto all = suite.plan(plan.preset, overrides);
  std::optional<std::regex> filter;
  if (!s.filter.empty()) {
    try {
      filter.emplace(s.filter);
    } catch (const std::regex_error& e) {
      throw std::invalid_argument(fmt::format("--filter '{}' is not a valid regular expression: {}", s.filter, e.what()));
    }
  }
  for (auto& b : all)
    if (!filter || std::regex_search(b.name, *filter)) plan.benchmarks.push_back(std::move(b));
  return plan;
}

std::set<std::string> read_skip_file(const std::string& path) {
  std::set<std::string> names;
  if (path.empty()) return names;
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("cannot read skip file " + path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) names.insert(line);
  return names;
}

int cmd_list_devices() {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& d : list_devices()) out.push_back({{"index", d.index}, {"name", d.name}, {"uuid", d.uuid}});
  std::printf("%s\n", out.dump().c_str());
  return 0;
}

//! The build block every run's context carries (lb.build): harness/run.py --resume checks it
//! against the run's journals.
int cmd_build_info() {
  std::printf("%s\n", build_context().dump().c_str());
  return 0;
}

//! The GPU tests' rule (lb/harness/gpu_presence.hpp) for the Python GPU tests: run, skip or
//! fail, and why, as JSON.
int cmd_gpu_decision() {
  const auto d = lb::harness::gpu_decision();
  std::printf("%s\n", nlohmann::json{{"action", lb::harness::to_string(d.action)}, {"reason", d.reason}}.dump().c_str());
  return 0;
}

int cmd_suites(bool as_json) {
  const nlohmann::json registry = registry_json();
  if (as_json) {
    std::printf("%s\n", registry.dump(2).c_str());
    return 0;
  }
  std::printf("suites (in run order):\n");
  for (const auto& s : registry["suites"]) {
    std::printf("  %s\n", s["name"].get<std::string>().c_str());
    for (const auto& step : s["steps"])
      std::printf("    step %s: when the preset has '%s', `%s %s` (%s)\n", step["name"].get<std::string>().c_str(),
                  step["preset_key"].get<std::string>().c_str(),
                  step["runner"] == "python" ? "python3 -m" : "layoutbench", step["command"].get<std::string>().c_str(),
                  step["description"].get<std::string>().c_str());
    for (const auto& input : s["inputs"])
      std::printf("    input --%s: %s\n", input["name"].get<std::string>().c_str(),
                  input["description"].get<std::string>().c_str());
  }
  std::printf("presets (%s):\n", preset_dir().c_str());
  for (const auto& p : registry["presets"])
    std::printf("  %s: %s\n", p["name"].get<std::string>().c_str(), p["description"].get<std::string>().c_str());
  return 0;
}

//! With --json, each name with where it runs ("gpu" or "cpu"): harness/run.py runs a CPU
//! benchmark once per host, not once per card, as it depends on no GPU.
int cmd_plan(const Selection& s, bool as_json) {
  const Plan plan = make_plan(s);
  if (!as_json) {
    for (const auto& b : plan.benchmarks) std::printf("%s\n", b.name.c_str());
    return 0;
  }
  nlohmann::json out = nlohmann::json::array();
  for (const auto& b : plan.benchmarks)
    out.push_back({{"name", b.name}, {"where", b.where == Where::cpu ? "cpu" : "gpu"}});
  std::printf("%s\n", out.dump().c_str());
  return 0;
}

int cmd_run(const Selection& s, const std::string& journal_path, const std::string& skip_path,
            const std::string& cpu_lock) {
  Plan plan = make_plan(s);
  const auto skip = read_skip_file(skip_path);
  const auto devices = list_devices();
  // A plan of CPU benchmarks needs no GPU (a CPU-only machine runs the CPU programs, a test its
  // fixture program); one with a GPU benchmark left to run does.
  const auto on_gpu = std::count_if(plan.benchmarks.begin(), plan.benchmarks.end(), [&](const PlannedBenchmark& b) {
    return b.where == Where::gpu && !skip.count(b.name);
  });
  if (devices.empty() && on_gpu > 0)
    throw std::runtime_error(fmt::format("no CUDA GPU visible: `run` needs one ({} of the {} planned benchmarks run on the GPU)",
                                         on_gpu, plan.benchmarks.size()));

  nlohmann::json run_block = {{"preset", plan.preset.name},
                              {"preset_file", repo_relative(plan.preset.path)},
                              {"suite", s.suite},
                              {"filter", s.filter},
                              {"repetitions", plan.preset.repetitions},
                              {"min_time_s", plan.preset.min_time_s},
                              {"spread_flag_pct", plan.preset.spread_flag_pct},
                              {"noise_target_pct", plan.preset.noise_target_pct},
                              {"noise_cap_s", plan.preset.noise_cap_s},
                              // CPU benchmarks hold this host-wide lock: never two at once on the host.
                              {"cpu_lock", cpu_lock},
                              {"device_index", nullptr}};
  nlohmann::json lb_block = {{"build", build_context()}};
  if (devices.empty()) {
    std::fprintf(stderr, "no CUDA GPU visible: the plan's %zu benchmark(s) run on the CPU\n", plan.benchmarks.size());
  } else {
    RunEnv& e = env();
    e.device = devices.front();
    check(cudaSetDevice(e.device.index), "cudaSetDevice");
    e.gpu = gpu_context(e.device.index);
    std::fprintf(stderr, "device %d: %s (%s), measuring ceilings...\n", e.device.index, e.device.name.c_str(),
                 e.device.uuid.c_str());
    e.ceilings = measure_ceilings();
    std::fprintf(stderr,
                 "ceilings: copy %.0f GB/s, FP32 FMA %.2f T/s, FP64 FMA %.2f T/s, FP32 rcp %.2f T/s; bus H2D/D2H "
                 "pinned %.1f/%.1f GB/s, pageable %.1f/%.1f GB/s\n",
                 e.ceilings.copy_bandwidth_gbs, e.ceilings.fp32_fma_per_s / 1e12, e.ceilings.fp64_fma_per_s / 1e12,
                 e.ceilings.fp32_rcp_per_s / 1e12, e.ceilings.h2d_pinned_gbs, e.ceilings.d2h_pinned_gbs,
                 e.ceilings.h2d_pageable_gbs, e.ceilings.d2h_pageable_gbs);
    e.timer = std::make_unique<GpuTimer>(e.device.uuid);
    lb_block["gpu"] = e.gpu;
    lb_block["ceilings"] = e.ceilings.to_json();
    run_block["device_index"] = e.device.index;
  }
  lb_block["run"] = run_block;

  Journal journal(journal_path);
  nlohmann::json context = host_context();
  context["lb"] = lb_block;
  journal.write({{"type", "context"}, {"context", context}});

  // Google Benchmark's own flags come from the preset, not from our command line.
  // Google Benchmark 1.8 (it has SkipWithMessage) wants a unit suffix on the minimum time.
  constexpr bool min_time_has_unit = has_skip_with_message<benchmark::State>;
  std::vector<std::string> args = {"layoutbench", fmt::format("--benchmark_repetitions={}", plan.preset.repetitions),
                                   fmt::format("--benchmark_min_time={}{}", plan.preset.min_time_s,
                                               min_time_has_unit ? "s" : "")};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  benchmark::Initialize(&argc, argv.data());

  std::size_t already_done = 0;
  for (const auto& b : plan.benchmarks) already_done += skip.count(b.name);
  JournalReporter reporter(journal, already_done, plan.benchmarks.size(), plan.preset.spread_flag_pct);
  run_benchmarks(plan.benchmarks, skip,
                 {.repetitions = plan.preset.repetitions,
                  .min_time_s = plan.preset.min_time_s,
                  .noise = {.target_pct = plan.preset.noise_target_pct, .cap_s = plan.preset.noise_cap_s},
                  .cpu_lock = cpu_lock},
                 reporter);
  benchmark::Shutdown();
  std::fprintf(stderr, "%zu benchmark(s) finished, %zu failed\n", plan.benchmarks.size() - already_done,
               reporter.failures());
  return 0;
}

//! The bench commands, added to a binary's command line; run() runs the one chosen.
class BenchCommands {
 public:
  explicit BenchCommands(CLI::App& app) {
    if (!suites().empty()) sel_.suite = suites().front().name;
    list_ = app.add_subcommand("list-devices", "print the visible GPUs as JSON");
    build_info_ = app.add_subcommand(
        "build-info", "print how this binary was built (the build block of its results' context) as JSON");
    gpu_check_ = app.add_subcommand(
        "gpu-decision", "whether GPU tests run, skip or fail here, and why, as JSON (LB_REQUIRE_GPU=1: a GPU is expected)");
    suites_ = app.add_subcommand("suites", "list the suites, their artifact steps and the named presets");
    suites_->add_flag("--json", suites_json_, "print them as JSON (what harness/run.py reads)");
    plan_ = app.add_subcommand("plan", "print the benchmark names a preset runs");
    add_selection_options(plan_, sel_);
    plan_->add_flag("--json", plan_json_,
                    "print them as JSON, each with where it runs: [{name, where: gpu|cpu}] (what harness/run.py reads)");
    run_ = app.add_subcommand("run", "run benchmarks on the first visible GPU (a plan of CPU benchmarks: none needed)");
    add_selection_options(run_, sel_);
    run_->add_option("--journal", journal_, "JSON-lines file each finished benchmark is appended to")->required();
    run_->add_option("--skip-file", skip_, "names (one per line) already done: not run again")
        ->check(lb::tools::not_empty());
    run_->add_option("--cpu-lock", cpu_lock_,
                     "the host-wide lock file CPU benchmarks hold while they run (every process of a host: the same)")
        ->capture_default_str();
  }
  BenchCommands(const BenchCommands&) = delete;  // the options hold pointers to its members
  BenchCommands& operator=(const BenchCommands&) = delete;

  //! The chosen command's exit code; -1 where another subcommand was chosen.
  int run() const {
    if (*list_) return cmd_list_devices();
    if (*build_info_) return cmd_build_info();
    if (*gpu_check_) return cmd_gpu_decision();
    if (*suites_) return cmd_suites(suites_json_);
    if (*plan_) return cmd_plan(sel_, plan_json_);
    if (*run_) return cmd_run(sel_, journal_, skip_, cpu_lock_);
    return -1;
  }

 private:
  Selection sel_;
  std::string journal_, skip_, cpu_lock_ = kDefaultCpuLock;
  bool suites_json_ = false, plan_json_ = false;
  CLI::App *list_ = nullptr, *build_info_ = nullptr, *gpu_check_ = nullptr, *suites_ = nullptr, *plan_ = nullptr,
           *run_ = nullptr;
};

int run_command(int argc, char** argv, const ToolCommands& tools) {
  CLI::App app{"layoutbench: GPU data-layout benchmarks (see README.md)"};
  app.require_subcommand(1);
  BenchCommands bench(app);  // not const: the parser writes its options
  const std::function<int()> run_tool = tools ? tools(app) : std::function<int()>{};
  if (const int code = lb::tools::parse_command_line(app, argc, argv); code >= 0) return code;
  try {
    if (const int code = bench.run(); code >= 0) return code;
    if (run_tool)
      if (const int code = run_tool(); code >= 0) return code;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "layoutbench: error: %s\n", lb::tools::out_of_memory_message().c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "layoutbench: error: %s\n", e.what());
    return 2;
  }
  return 0;
}

}  // namespace

// Every subcommand's output checked once at the end: a failed write to stdout is exit 2.
int bench_main(int argc, char** argv, const ToolCommands& tools) {
  return lb::tools::stdout_checked(run_command(argc, argv, tools));
}

}  // namespace lb::harness

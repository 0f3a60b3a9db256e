//! Kriging (Li & Dong) benchmarks: the CPU programs (single core, as the paper; cpu-exp8 uses
//! every core through OpenMP) and the CUDA experiments 1-6, plus experiment 7 (cuBLAS GEMM
//! pair) and experiment 8 (the dual form, on the GPU and on the CPU), over the scales; a
//! well-count sweep for experiments 6, 7 and 8. Each is a program variant (lb/harness/
//! program.hpp): one run of every CUDA experiment (outputs poisoned first) and of every CPU
//! program (checked at spread points) is validated against the double reference
//! (lb/kriging/reference.hpp) before the timed runs; `unvalidated` is 1 where the tolerance is
//! too wide to fail a wrong program. Experiment 6 also reports its difference from experiment
//! 5 over every estimate (the paper's accuracy question).
//!
//! This file: the program's axes and expansion; its settings in ok_config, its variants in
//! ok_variants; the one planner (lb/harness/plan.hpp) reads, expands, names and runs them.
//!
//! Names: kriging/ok/<version>/<layout>/<precision>/scale:<s>/wells:<n>, with version
//! cpu-exp1|cpu-exp2|cpu-exp4|cpu-exp8 (the CPU programs; exps 3, 5, 6 use 2, 4, 4 in float)
//! or gpu-exp1..gpu-exp8, and layout soa (wells as x[] and y[] arrays in global memory),
//! aos-const (exps 5, 6: {x, y} structs in __constant__ memory) or dense (exps 7, 8: dense
//! arrays of A^-1 / alpha, the wells staged in shared memory by exp 8); beyond the paper,
//! exp 4 also as aosoa32 (the wells as AoSoA of 32, Kofler's method's choice: exp4_layouts).

#include <fmt/format.h>

#include "kriging/ok_config.hpp"
#include "kriging/ok_variants.hpp"
#include "kriging/suite.hpp"
#include "lb/datasets/wells.hpp"
#include "lb/harness/plan.hpp"

namespace lb::benches::kriging {
namespace {

using lb::kriging::CpuProgram;

const char* layout_of(int experiment) {
  if (experiment >= 7) return "dense";
  return experiment >= 5 ? "aos-const" : "soa";
}

AxisValue text(const std::string& s) { return {s, s}; }

AxisValue base_wells() { return {std::to_string(datasets::kKrigingBaseWells), datasets::kKrigingBaseWells}; }

//! The CPU programs at a scale (the paper's single-core ones and experiment 8's OpenMP one),
//! each with its precision, layout and the base case's wells.
std::vector<Step> cpu_steps() {
  std::vector<Step> out;
  for (auto [program, prec] :
       {std::pair{CpuProgram::rebuild_every_point, Prec::f64}, std::pair{CpuProgram::reuse_matrix, Prec::f64},
        std::pair{CpuProgram::shared_weights, Prec::f64}, std::pair{CpuProgram::shared_weights, Prec::f32},
        std::pair{CpuProgram::dual, Prec::f64}, std::pair{CpuProgram::dual, Prec::f32}})
    out.push_back({{"version", {fmt::format("cpu-exp{}", int(program)), program}},
                   {"layout", text(program == CpuProgram::dual ? "dense" : "soa")},
                   {"precision", text(to_string(prec))},
                   {"wells", base_wells()}});
  return out;
}

//! A CUDA experiment's precisions (experiment 6 computes in float, 7 and 8 in exp7_precisions,
//! the others in double), each with its version and layout (experiment 4: each of
//! exp4_layouts).
std::vector<Step> gpu_steps(const Settings& s, const Point& at) {
  const int e = static_cast<int>(at.get<std::int64_t>("experiment"));
  std::vector<Prec> precisions = e >= 7 ? s.exp7_precisions : std::vector<Prec>{e == 6 ? Prec::f32 : Prec::f64};
  std::vector<std::string> layouts{layout_of(e)};
  if (e == 4) {
    layouts.clear();
    for (lb::kriging::WellLayout l : s.exp4_layouts) layouts.emplace_back(lb::kriging::to_string(l));
  }
  std::vector<Step> out;
  for (Prec p : precisions)
    for (const std::string& layout : layouts)
      out.push_back({{"precision", text(to_string(p))},
                     {"version", text(fmt::format("gpu-exp{}", e))},
                     {"layout", text(layout)}});
  return out;
}

template <class T>
std::vector<Step> steps_of(const std::string& axis, const std::vector<T>& values) {
  std::vector<Step> out;
  for (const T& v : values) out.push_back({{axis, {std::to_string(v), v}}});
  return out;
}

//! Per scale the CPU programs (cpu_programs) and each experiment at the base case's wells;
//! then the well sweep: its scales x wells x experiments (a name the first part planned is
//! planned once).
Expansion expand_ok(const Reader& read) {
  const Settings s = read_settings(read);
  const Steps cpu = [s](const Point&, const Reader&) { return s.cpu_programs ? cpu_steps() : std::vector<Step>{}; };
  const Steps gpu = [s](const Point& at, const Reader&) {
    auto out = gpu_steps(s, at);
    for (Step& step : out) step.emplace_back("wells", base_wells());
    return out;
  };
  const Steps sweep_gpu = [s](const Point& at, const Reader&) { return gpu_steps(s, at); };
  const Steps sweep_scales = [s](const Point&, const Reader&) { return steps_of("scale", s.well_sweep.scales); };
  const Steps sweep_experiments = [s](const Point&, const Reader&) {
    return steps_of("experiment", s.well_sweep.experiments);
  };
  return {.loops = {over("scale", {over("version", cpu), over("experiment", {over("precision", gpu)})}),
                    over("scale", sweep_scales,
                         {over("wells", {over("experiment", sweep_experiments, {over("precision", sweep_gpu)})})})},
          .make = [s](const Point& at) {
            const Prec prec = at.text("precision") == "float" ? Prec::f32 : Prec::f64;
            const int scale = static_cast<int>(at.get<std::int64_t>("scale"));
            if (at.text("version").starts_with("cpu-"))
              return cpu_case({at.get<CpuProgram>("version"), prec, scale, s.cpu_sample_estimates});
            const int e = static_cast<int>(at.get<std::int64_t>("experiment"));
            return gpu_case({e, prec, scale, at.get<std::size_t>("wells"),
                             e == 4 ? lb::kriging::parse_well_layout(at.text("layout")) : lb::kriging::WellLayout::soa});
          }};
}

}  // namespace

//! Kriging's one program, ordinary kriging (the suite's section is its object).
Program ok_program() {
  Axis versions{"version", {"cpu-exp1", "cpu-exp2", "cpu-exp4", "cpu-exp8"}};
  for (int e = 1; e <= 8; ++e) versions.values.push_back(fmt::format("gpu-exp{}", e));
  return {"ok",
          {versions,
           {"layout", {"soa", "aos-const", "dense", "aosoa32"}},
           {.name = "precision", .values = {"float", "double"}, .shorthand = Shorthand::precision},
           {.name = "scale",
            .type = AxisType::integer,
            .key = "scales",
            .limits =
                [](const nlohmann::json& v) {
                  const auto s = v.get<std::int64_t>();
                  return s < 1 || s > 100 ? fmt::format("scale {} is not in 1..100", s) : "";
                },
            .shorthand = Shorthand::sizes},
           {.name = "wells",
            .type = AxisType::count,
            .key = "well_sweep.wells",
            .limits =
                [](const nlohmann::json& v) {
                  const auto n = v.get<std::size_t>();
                  return n < 2 || n > 4096 ? fmt::format("{} wells is not in 2..4096", n) : "";
                }},
           {.name = "experiment",
            .type = AxisType::integer,
            .key = "experiments",
            .limits = [](const nlohmann::json& v) { return experiment_problem(v.get<std::int64_t>()); },
            .named = false}},
          {"vs_exp5_max_abs", "vs_exp5_max_rel", "device_s", "host_solve_s", "device_solve_s", "solve_trial_host_s",
           "solve_trial_device_s", "solve_on_device", "sampled", "sample_points"},
          {"exp7_precisions", "exp4_layouts", "cpu_programs", "cpu_sample_estimates", "well_sweep", "model"},
          expand_ok};
}

}  // namespace lb::benches::kriging

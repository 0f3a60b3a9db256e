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
//! This file: the program's declaration and planner; its preset object in kriging/config, its
//! variants in kriging/variants; the one planner (lb/harness/plan.hpp) names and runs them.
//!
//! Names: kriging/ok/<version>/<layout>/<precision>/scale:<s>/wells:<n>, with version
//! cpu-exp1|cpu-exp2|cpu-exp4|cpu-exp8 (the CPU programs; exps 3, 5, 6 use 2, 4, 4 in float)
//! or gpu-exp1..gpu-exp8, and layout soa (wells as x[] and y[] arrays in global memory),
//! aos-const (exps 5, 6: {x, y} structs in __constant__ memory) or dense (exps 7, 8: dense
//! arrays of A^-1 / alpha, the wells staged in shared memory by exp 8).

#include <algorithm>

#include <fmt/format.h>

#include "kriging/config.hpp"
#include "kriging/variants.hpp"
#include "lb/datasets/wells.hpp"
#include "lb/harness/plan.hpp"

namespace lb::harness {
namespace {

using namespace kriging_bench;

const char* layout_of(int experiment) {
  if (experiment >= 7) return "dense";
  return experiment >= 5 ? "aos-const" : "soa";
}

//! Ordinary kriging on its axes: <version>/<layout>/<precision>/scale:<s>/wells:<n>.
BenchmarkId ok_id(std::string version, const char* layout, Prec p, int scale, std::size_t wells) {
  return {.version = std::move(version),
          .layout = layout,
          .precision = to_string(p),
          .params = {{"scale", std::to_string(scale)}, {"wells", std::to_string(wells)}}};
}

std::vector<PlannedCase> plan_ok(const Preset& preset, const nlohmann::json& j, std::string_view,
                                 const Overrides& overrides) {
  const Config c = read_config(preset, j, overrides);
  auto wanted = [&](Prec p) { return c.precisions.empty() || std::find(c.precisions.begin(), c.precisions.end(), p) != c.precisions.end(); };
  Cases plan;  // counted against the plan limit
  std::vector<std::string> names;
  auto add_gpu = [&](int e, Prec p, int scale, std::size_t wells) {
    if (!wanted(p)) return;
    BenchmarkId id = ok_id(fmt::format("gpu-exp{}", e), layout_of(e), p, scale, wells);
    const std::string name = benchmark_name(id);
    if (std::find(names.begin(), names.end(), name) != names.end()) return;
    names.push_back(name);
    plan.push_back({std::move(id), gpu_case({e, p, scale, wells})});
  };
  auto gpu_precisions = [&](int e) {
    if (e >= 7) return c.exp7_precisions;
    return std::vector<Prec>{e == 6 ? Prec::f32 : Prec::f64};
  };
  for (int scale : c.scales) {
    if (c.cpu_programs) {
      using P = kriging::CpuProgram;
      for (auto [program, prec] : {std::pair{P::rebuild_every_point, Prec::f64}, std::pair{P::reuse_matrix, Prec::f64},
                                   std::pair{P::shared_weights, Prec::f64}, std::pair{P::shared_weights, Prec::f32},
                                   std::pair{P::dual, Prec::f64}, std::pair{P::dual, Prec::f32}}) {
        if (!wanted(prec)) continue;
        plan.push_back({ok_id(fmt::format("cpu-exp{}", int(program)), program == P::dual ? "dense" : "soa", prec, scale,
                              datasets::kKrigingBaseWells),
                        cpu_case({program, prec, scale, c.cpu_sample_estimates})});
      }
    }
    for (int e : c.experiments)
      for (Prec p : gpu_precisions(e)) add_gpu(e, p, scale, datasets::kKrigingBaseWells);
  }
  for (int scale : c.sweep.scales)
    for (std::size_t wells : c.sweep.wells)
      for (int e : c.sweep.experiments)
        for (Prec p : gpu_precisions(e)) add_gpu(e, p, scale, wells);
  return plan;
}

}  // namespace

//! Kriging's one program, ordinary kriging (the suite's section is its object).
Program ok_program() {
  Axis versions{"version", {"cpu-exp1", "cpu-exp2", "cpu-exp4", "cpu-exp8"}};
  for (int e = 1; e <= 8; ++e) versions.values.push_back(fmt::format("gpu-exp{}", e));
  return {"ok",
          {versions, {"layout", {"soa", "aos-const", "dense"}}, {"precision", {"float", "double"}}, {"scale", {}},
           {"wells", {}}},
          {"vs_exp5_max_abs", "vs_exp5_max_rel", "device_s", "host_solve_s", "device_solve_s", "solve_trial_host_s",
           "solve_trial_device_s", "solve_on_device", "sampled", "sample_points"},
          plan_ok};
}

}  // namespace lb::harness

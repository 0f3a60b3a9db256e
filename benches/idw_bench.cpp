//! IDW (Mei & Tian 2016) benchmarks: every GPU version x layout x precision x power x size,
//! each validated against the double CPU reference before it is timed, plus the paper's
//! single-core CPU baseline and an OpenMP CPU time. The program's declaration and planner;
//! its preset object in idw/config, its variants in idw/variants; the one planner
//! (lb/harness/plan.hpp) names and runs them.

#include <fmt/format.h>

#include "idw/config.hpp"
#include "idw/variants.hpp"
#include "lb/harness/plan.hpp"

namespace lb::harness {
namespace {

using namespace idw_bench;

std::string power_text(double p) { return fmt::format("{:g}", p); }

//! Shepard's IDW on its axes: <version>/<layout>/<precision>/p:<p>/size:<n>[/block:<b>].
BenchmarkId shepard_id(std::string_view version, std::string_view layout, Precision prec, double p, std::size_t size) {
  return {.version = std::string(version),
          .layout = std::string(layout),
          .precision = std::string(idw::to_string(prec)),
          .params = {{"p", power_text(p)}, {"size", std::to_string(size)}}};
}

std::vector<PlannedCase> plan_shepard(const Preset& preset, const nlohmann::json& j, std::string_view,
                                      const Overrides& overrides) {
  const Config c = read_config(preset, j, overrides);
  Cases plan;  // counted against the plan limit
  for (std::size_t size : c.sizes)
    for (Precision prec : c.precisions) {
      if (c.cpu_baselines)
        for (double p : c.powers)
          for (bool parallel : {false, true}) {
            plan.push_back({shepard_id(parallel ? "cpu-omp" : "cpu-serial", "aos", prec, p, size),
                            cpu_case({parallel, prec, p, size})});
          }
      for (const auto& layout : idw::layout_names(prec)) {
        for (Version version : c.versions)
          for (double p : c.powers) {
            if (!c.runs(version, layout, p, size)) continue;
            BenchmarkId id = shepard_id(idw::to_string(version), layout, prec, p, size);
            id.params.emplace_back("block", std::to_string(c.block));
            plan.push_back({std::move(id), gpu_case({version, layout, prec, p, size, c.block})});
          }
      }
    }
  return plan;
}

}  // namespace

//! IDW's one program, Shepard's interpolation (the suite's section is its object).
Program shepard_program() {
  Axis versions{"version", {}};
  for (Version v : idw::gpu_versions()) versions.values.emplace_back(idw::to_string(v));
  versions.values.insert(versions.values.end(), {"cpu-serial", "cpu-omp"});
  return {"shepard",
          {versions, layout_axis(), {"precision", {"float", "double"}}, {"p", {}}, {"size", {}}, {"block", {}}},
          {"checked_probes", "max_probe_share", "sampled", "sample_points", "omp_threads"},
          plan_shepard};
}

}  // namespace lb::harness

//! Kofler, Cosenza & Fahringer 2015: the suite's planner. Each program (CUDA ports of the
//! paper's OpenCL programs) lives in benches/kofler/<program>_bench.cpp and plans its own
//! benchmarks over the layouts its preset object names (layout_choice.hpp).

#include <fmt/format.h>

#include "kofler/programs.hpp"

namespace lb::harness {
namespace kofler {

const std::vector<Program>& programs() {
  static const std::vector<Program> all = {
      {"nbody", plan_nbody},
      {"blackscholes", plan_black_scholes},
      {"bitonic", plan_bitonic},
      {"lavamd", plan_lavamd},
      {"sampo", plan_sampo},
  };
  return all;
}

std::string benchmark_name(std::string_view program, std::string_view version, const LayoutChoice& layout,
                           std::string_view precision, std::size_t size) {
  const std::string param = layout.param();
  return fmt::format("kofler/{}/{}/{}/{}/{}size:{}", program, version, layout.layout, precision,
                     param.empty() ? "" : param + "/", size);
}

}  // namespace kofler

std::vector<PlannedBenchmark> plan_kofler(const Preset& preset, const Overrides& overrides) {
  if (!preset.suites.contains("kofler")) throw preset.error_at("suites", "this preset has no 'kofler' suite");
  const auto& j = preset.suites["kofler"];
  if (!j.is_object()) throw preset.error_at("kofler", "'kofler' must be an object of programs");
  std::vector<PlannedBenchmark> plan;
  for (const auto& [name, config] : j.items()) {
    const auto& all = kofler::programs();
    const auto it = std::find_if(all.begin(), all.end(), [&](const kofler::Program& p) { return p.name == name; });
    if (it == all.end()) {
      std::string known;
      for (const auto& p : all) known += (known.empty() ? "" : ", ") + std::string(p.name);
      throw preset.error_at(name, fmt::format("unknown Kofler program '{}' (expected one of: {})", name, known), "kofler");
    }
  }
  for (const auto& program : kofler::programs())  // run order is the suite's, not the file's
    if (j.contains(program.name)) {
      auto part = program.plan(preset, j[std::string(program.name)], program.name, overrides);
      plan.insert(plan.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
    }
  if (plan.empty()) throw preset.no_benchmark("kofler", overrides.precisions);
  return plan;
}

}  // namespace lb::harness

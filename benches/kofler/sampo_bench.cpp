//! SAMPO in the Kofler suite: one benchmark per layout choice and initial egg count. A run is
//! `steps` hourly steps from the population after `warmup_hours` (simulated once per size on
//! the GPU with AoS, not timed); the CPU reference continues the same snapshot, and every
//! layout must reproduce its statistics and final population bit for bit.
//!
//!   "sampo": {"sizes": [32000], "warmup_hours": 720, "steps": 24,
//!             "layouts": [...], "tiles": [...], "compile_time_tiles": [...], "partitions": {...}}

#include <mutex>

#include <fmt/format.h>

#include "kofler/programs.hpp"
#include "sampo.hpp"

namespace lb::harness::kofler {
namespace {

namespace model = lb::kofler::sampo;

std::uint32_t positive_u32(const Preset& preset, const nlohmann::json& j, const char* key, std::string_view where,
                           std::uint32_t min) {
  if (!j.contains(key)) throw preset.error_at(where, fmt::format("'{}' needs '{}'", where, key));
  const auto& v = j[key];
  if (!v.is_number_unsigned() || v.get<std::uint64_t>() < min || v.get<std::uint64_t>() > 1000000)
    throw preset.error_at(key, fmt::format("'{}' must be an integer in {}..1000000", key, min), where);
  return v.get<std::uint32_t>();
}

//! The reference of the last size asked for (benchmarks run size by size): the GPU warm-up
//! snapshot and the CPU run from it, shared by every layout of that size.
std::shared_ptr<const model::ReferenceRun> reference_for(const model::Config& cfg) {
  static std::mutex mutex;
  static std::tuple<std::uint32_t, std::uint32_t, std::uint32_t> key;
  static std::shared_ptr<const model::ReferenceRun> cached;
  std::lock_guard lock(mutex);
  const auto k = std::make_tuple(cfg.initial_eggs, cfg.warmup_hours, cfg.steps);
  if (!cached || key != k) {
    cached.reset();
    cached = std::make_shared<const model::ReferenceRun>(model::reference_from(model::gpu_warmup(cfg), cfg));
    key = k;
  }
  return cached;
}

}  // namespace

std::vector<PlannedBenchmark> plan_sampo(const Preset& preset, const nlohmann::json& j, std::string_view where,
                                         const Overrides& overrides) {
  preset.check_keys(j, where,
                    {"sizes", "warmup_hours", "steps", "layouts", "tiles", "compile_time_tiles", "partitions"});
  std::vector<std::size_t> sizes = overrides.sizes;
  if (sizes.empty()) sizes = preset.list_at<std::size_t>(j, "sizes", where);
  for (std::size_t s : sizes)
    if (s < 64 || s > 2000000)
      throw preset.error_at("sizes", fmt::format("SAMPO size (initial eggs) {} is not in 64..2000000", s), where);
  const std::uint32_t warmup = positive_u32(preset, j, "warmup_hours", where, 0);
  const std::uint32_t steps = positive_u32(preset, j, "steps", where, 1);

  const std::vector<std::string> fields(std::begin(model::kFieldNames), std::end(model::kFieldNames));
  const std::vector<std::size_t> ct_tiles(std::begin(model::kCompileTimeTiles), std::end(model::kCompileTimeTiles));
  std::vector<PlannedBenchmark> plan;
  for (std::size_t size : sizes) {
    const model::Config cfg = model::Config::for_eggs(std::uint32_t(size), warmup, steps);
    for (const LayoutChoice& choice :
         layout_choices(preset, j, where, size, fields, ct_tiles, {model::kManualPartition, model::kByKernelPartition})) {
      const std::string name = benchmark_name("sampo", "gpu", choice, "mixed", size);
      // host: the snapshot's staging copy and the final population's download, one array each
      const MemoryNeed need{.host_bytes = 2 * model::device_bytes(cfg) / 3, .device_bytes = model::device_bytes(cfg)};
      ProgramCase pc{Where::gpu, need,
                     [=] { return model::make_variant(choice, cfg, reference_for(cfg)); }};
      plan.push_back({name, [=](benchmark::State& st) { run_case(st, name, pc); }});
    }
  }
  return plan;
}

}  // namespace lb::harness::kofler

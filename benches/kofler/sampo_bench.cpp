//! SAMPO in the Kofler suite: one benchmark per layout choice and initial egg count. A run is
//! `steps` hourly steps from the population after `warmup_hours` (simulated once per size on
//! the GPU with AoS, not timed); the CPU reference continues the same snapshot, and every
//! layout must reproduce its statistics and final population bit for bit.
//!
//!   "sampo": {"sizes": [32000], "warmup_hours": 720, "steps": 24,
//!             "layouts": [...], "tiles": [...], "compile_time_tiles": [...], "partitions": {...},
//!             "kdlg_tiles": [...]}

#include <mutex>

#include <fmt/format.h>

#include "kofler/suite.hpp"
#include "kofler/sampo_bench.hpp"

namespace lb::benches::kofler {
namespace {

namespace model = lb::kofler::sampo;
using model::Agent;
using model::AgentValue;
using model::Config;
using model::Engine;
using model::Fault;
using model::Population;
using model::ReferenceRun;
using model::StepStats;

//! One layout's run: the Engine (kernels/kofler/sampo.hpp) on its mapping, checked step for
//! step and agent for agent against the CPU reference.
template <class M>
class SampoVariant final : public Variant {
 public:
  SampoVariant(const M& mapping, const Config& cfg, std::shared_ptr<const ReferenceRun> expected, Fault fault)
      : cfg_(cfg), expected_(std::move(expected)), fault_(fault), engine_(mapping, cfg) {}

  void setup(cudaStream_t) override {
    engine_.load_snapshot(expected_->snapshot);
    engine_.capture(fault_);
  }
  void poison(cudaStream_t stream) override { engine_.poison(stream); }
  void prepare(cudaStream_t stream) override { engine_.prepare(stream); }
  void run(cudaStream_t stream) override { engine_.launch(stream); }

  Check validate(cudaStream_t stream) override {
    if (const std::string diff = model::first_stat_difference(engine_.stats(stream), *expected_, cfg_); !diff.empty())
      return {false, diff, false, {}};
    const Population final_pop = engine_.population(stream);
    if (const std::string diff = model::first_difference(final_pop, expected_->final_population); !diff.empty())
      return {false, diff, false, {}};
    return {true, "", false, {{"checked", double(final_pop.size())}, {"max_abs_err", 0.0}, {"tolerance", 0.0}}};
  }

  //! From the reference's statistics, which the validated run matched step for step: the
  //! least DRAM traffic, each field a kernel touches moved once (4 B each). Per step, with n
  //! agents (E eggs, L larvae, P pupae, A adults, F adult females), s survivors, d = n - s
  //! dying and e new eggs:
  //!   larval_density  4n state + 4L age                 female_count  4n state + 4A + 4F
  //!   kill_agents     8n read, 4d written               count, scatter  4n dead each
  //!   update_agents   dead, state, age, hoursInState, delay, bloodmeal count (24 B) for eggs
  //!                   and pupae, + the larval delay for larvae (28 B), + cycle length and
  //!                   development for adults (32 B); writes age and hoursInState (8 B), + the
  //!                   larval delay (12 B), + cycle length and development (16 B). Those dying
  //!                   this hour count as living (an overstatement of ~1 %), transitions as not
  //!                   happening (they are rarer still).
  //!   scatter         48 B read and written per survivor; create_eggs 48 B written per egg.
  Work work() const override {
    Work w;
    w.unit = "agent_steps";
    for (const StepStats& s : expected_->stats) {
      const double n = s.population, adults = n - s.eggs - s.larvae - s.pupae, dying = n - s.survivors,
                   eggs = double(s.eggs_laid) - s.eggs_dropped;
      w.units += n;
      w.bytes_read += (4 * n + 4.0 * s.larvae) + (4 * n + 4 * adults + 4.0 * s.females) + 8 * n +
                      (24.0 * (s.eggs + s.pupae) + 28.0 * s.larvae + 32 * adults) + 4 * n +
                      (4 * n + 48.0 * s.survivors);
      w.bytes_written += 4 * dying + (8.0 * (s.eggs + s.pupae) + 12.0 * s.larvae + 16 * adults) +
                         48.0 * s.survivors + 48 * eggs;
    }
    return w;
  }
  double footprint_bytes() const override { return engine_.footprint(); }
  void add_counters(benchmark::State& state, double) const override {
    state.counters["struct_bytes"] = double(sizeof(AgentValue));
    state.counters["fields"] = double(Agent::field_count);
    state.counters["kernels"] = double(model::kSampoKernels);
    state.counters["agents_final"] = double(expected_->final_population.size());
  }

 private:
  Config cfg_;
  std::shared_ptr<const ReferenceRun> expected_;
  Fault fault_;
  Engine<M> engine_;
};

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

std::unique_ptr<Variant> make_sampo_variant(const LayoutChoice& choice, const Config& cfg,
                                            std::shared_ptr<const ReferenceRun> expected, Fault fault) {
  std::unique_ptr<Variant> v;
  with_mapping<model::SampoLayouts>(choice, cfg.agent_capacity, [&](const auto& mapping) {
    using M = std::decay_t<decltype(mapping)>;
    v = std::make_unique<SampoVariant<M>>(mapping, cfg, expected, fault);
  });
  return v;
}

namespace {

const std::vector<std::string> kAgentFields(std::begin(model::kFieldNames), std::end(model::kFieldNames));
const std::vector<std::size_t> kSampoTiles = model::SampoLayouts::compile_time_tiles();
const std::vector<std::string> kCompileTimePartitions = model::SampoLayouts::compile_time_partitions();

//! Per size (initial eggs) each layout choice, the model run warmup_hours then steps.
Expansion expand_sampo(const Reader& read) {
  const std::uint32_t warmup = positive_u32(read.preset(), read.object(), "warmup_hours", read.where(), 0);
  const std::uint32_t steps = positive_u32(read.preset(), read.object(), "steps", read.where(), 1);
  const auto method = method_source("sampo", kAgentFields, record_field_bytes<Agent>(), read.overrides());
  const Steps layouts = [method](const Point& at, const Reader& r) {
    return layout_steps(r, at.get<std::size_t>("size"), kAgentFields, kSampoTiles, kCompileTimePartitions, &method);
  };
  return {.loops = {over("size", {over("version", {over("precision", {over("layout", layouts)})})})},
          .make = [warmup, steps](const Point& at) {
            const model::Config cfg =
                model::Config::for_eggs(std::uint32_t(at.get<std::size_t>("size")), warmup, steps);
            const LayoutChoice& choice = at.get<LayoutChoice>("layout");
            // host: the reference's snapshot and final population, the run's population downloaded
            // for validation: each at most the capacity, the snapshot far less
            const MemoryNeed need{.host_bytes = 2.0 * cfg.agent_capacity * sizeof(AgentValue),
                                  .device_bytes = model::device_bytes(cfg)};
            return kofler_run(choice, Where::gpu, need, [=](const LayoutChoice& c) {
              return make_sampo_variant(c, cfg, reference_for(cfg));
            });
          }};
}

}  // namespace

Program sampo_program() {
  std::vector<Axis> axes = kofler_axes({"gpu"}, {"mixed"}, kSampoTiles, kCompileTimePartitions);
  axis_named(axes, "size").limits = [](const nlohmann::json& v) {
    const auto s = v.get<std::size_t>();
    return s < 64 || s > 2000000 ? fmt::format("SAMPO size (initial eggs) {} is not in 64..2000000", s) : "";
  };
  return {"sampo",
          std::move(axes),
          {"struct_bytes", "fields", "kernels", "agents_final"},
          {"warmup_hours", "steps", "partitions"},
          expand_sampo};
}

}  // namespace lb::benches::kofler

// SAMPO under access recording (sampo_recording.hpp): one agent per life-cycle path through
// every kernel of a step that touches the agent record.

#include "lb/kofler/sampo_recording.hpp"

#include <stdexcept>
#include <string>

#include "lb/kofler/recorders.hpp"
#include "lb/kofler/sampo.hpp"
#include "lb/kofler/sampo_bodies.hpp"
#include "lb/layout/aos.hpp"
#include "lb/layout/host_storage.hpp"
#include "lb/layout/recording.hpp"

namespace lb::kofler {

namespace sampo {

namespace {

constexpr std::size_t kStates = 8;

bool kills(const Sample& s, const Config& cfg, const MortalityTable& table, u32 as_index) {
  return dies(s.agent.get<State>(), s.agent.get<AgeInHours>(), s.larvae_1day_equiv, cfg.carrying_capacity, table,
              random_u32(cfg.seed, s.hour, as_index, KILL));
}

}  // namespace

std::vector<Sample> recorded_agents(const Config& cfg, const Constants& c, u32 max_hours) {
  const MortalityTable table = mortality_table();
  Population pop = initial_population(cfg, c);
  std::vector<Sample> found(kStates + 1);
  std::vector<bool> seen(kStates + 1, false);
  std::size_t missing = kStates + 1;
  for (u32 hour = 0; hour < max_hours && missing > 0; ++hour) {
    u32 days = 0, eggs_pupae = 0;  // as the reference's step computes them
    for (const AgentValue& a : pop) {
      days += a.get<State>() == LARVA ? u32(a.get<AgeInHours>() / 24.0f) : 0;
      eggs_pupae += a.get<State>() == EGG || a.get<State>() == PUPA;
    }
    for (std::size_t i = 0; i < pop.size() && missing > 0; ++i) {
      const Sample s{pop[i], u32(i), hour, days, days + eggs_pupae};
      const std::size_t bit = std::size_t(__builtin_ctz(pop[i].get<State>()));
      if (!seen[kStates] && kills(s, cfg, table, u32(kStates))) {
        seen[kStates] = true, --missing, found[kStates] = s;
        continue;
      }
      if (seen[bit] || kills(s, cfg, table, u32(bit))) continue;
      AgentValue next = pop[i];
      update_agent(PlainRef{next}, c, cfg, hour, u32(i), s.biomass);
      if (next.get<State>() != pop[i].get<State>()) seen[bit] = true, --missing, found[bit] = s;
    }
    step(pop, cfg, c, table, hour);
  }
  if (missing > 0) found.clear();
  return found;
}

namespace {

SampoRecordedRun record_step() {
  using M = layout::AoSMapping<Agent>;
  const Constants c;
  const MortalityTable table = mortality_table();
  SampoRecordedRun run;
  run.cfg = Config::for_eggs(200, 0, 0);
  run.samples = recorded_agents(run.cfg, c, 2000);
  if (run.samples.empty()) throw std::logic_error("SAMPO recording: some state never appeared");
  const u32 n = u32(run.samples.size()), hour = run.samples.back().hour;
  layout::HostStorage<M> agents(M{n});
  for (u32 k = 0; k < n; ++k) agents.view().store(k, run.samples[k].agent);

  std::vector<layout::KernelTrace>& kernels = run.program.kernels;
  auto kernel = [&](const char* name) -> std::vector<layout::Access>& {
    kernels.push_back({name, {}});
    return kernels.back().accesses;
  };
  StepStats& s = run.stats;
  s.population = n;
  {
    const layout::RecordingView<M> v(agents.view(), kernel("larval_density"));
    for (u32 k = 0; k < n; ++k) count_larval_density(v, k, s.eggs, s.larvae, s.pupae, s.larvae_1day_equiv);
  }
  {
    const layout::RecordingView<M> v(agents.view(), kernel("female_count"));
    for (u32 k = 0; k < n; ++k) count_female(v, k, s.females, s.potentially_infective);
  }
  {
    const layout::RecordingView<M> v(agents.view(), kernel("kill_agents"));
    for (u32 k = 0; k < n; ++k) kill_agent(v, k, run.samples[k].larvae_1day_equiv, run.cfg, table, run.samples[k].hour);
  }
  run.events.resize(n);
  {
    const layout::RecordingView<M> v(agents.view(), kernel("update_agents"));
    for (u32 k = 0; k < n; ++k) {
      if (!agent_alive(v, k)) continue;
      const Sample& a = run.samples[k];
      run.events[k] = update_agent(v.at(k), c, run.cfg, a.hour, a.index, a.biomass);
      s.eggs_laid += run.events[k].eggs_laid;
    }
  }
  for (u32 k = 0; k < n; ++k) run.updated.push_back(agents.view().load(k));
  {
    const layout::RecordingView<M> v(agents.view(), kernel("count_survivors"));
    for (u32 k = 0; k < n; ++k) s.survivors += agent_alive(v, k);
  }
  layout::HostStorage<M> next(M{s.eggs_laid + s.survivors});
  {  // scatter_survivors: every thread's dead check, the block scan, then the survivors' copies
    const layout::RecordingView<M> v(agents.view(), kernel("scatter_survivors")), to(next.view(), kernels.back().accesses);
    std::vector<u32> alive(n);
    for (u32 k = 0; k < n; ++k) alive[k] = agent_alive(v, k);
    for (u32 k = 0, position = s.eggs_laid; k < n; position += alive[k], ++k)
      if (alive[k]) copy_agent(v, to, k, position);
  }
  {
    const layout::RecordingView<M> to(next.view(), kernel("create_eggs"));
    for (u32 j = 0; j < s.eggs_laid; ++j) to.store(j, new_egg(c, run.cfg, hour, j));
  }
  for (u32 j = 0; j < s.eggs_laid + s.survivors; ++j) run.next.push_back(next.view().load(j));

  run.program.program = "sampo";
  run.program.field_names.assign(std::begin(kFieldNames), std::end(kFieldNames));
  run.program.field_bytes = layout::field_bytes<Agent>();
  run.program.problem = std::to_string(n) + " agents from " + std::to_string(run.cfg.initial_eggs) +
                        " eggs' CPU reference run: the first to leave each of the 8 states and the first to "
                        "die, one thread each in index order, through every kernel of a step that touches "
                        "the agent record (" + std::to_string(kernels.size()) + " of " +
                        std::to_string(kSampoKernels) + "; scan_blocks touches none)";
  return run;
}

}  // namespace

SampoRecordedRun sampo_recorded_run() {
  static const SampoRecordedRun run = record_step();  // the sampling steps the reference for hours
  return run;
}

}  // namespace sampo

RecordedProgram record_sampo() { return sampo::sampo_recorded_run().program; }

}  // namespace lb::kofler

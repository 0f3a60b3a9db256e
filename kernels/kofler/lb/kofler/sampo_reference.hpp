#pragma once
//! The CPU reference of SAMPO's deterministic model (sampo_model.hpp): the same per-agent
//! bodies, with the step's reductions, egg counter and order-keeping compaction written as
//! plain loops over a std::vector, so a GPU run of any layout must match it bit for bit.

#include <string>
#include <vector>

#include "lb/kofler/sampo_model.hpp"

namespace lb::kofler::sampo {

using Population = std::vector<AgentValue>;

//! The initial population: cfg.initial_eggs new eggs.
Population initial_population(const Config& cfg, const Constants& c);

//! One hourly step at `hour` (the stats' population, reductions, counters and compaction):
//! kill, update, then the next population = the hour's new eggs followed by the survivors in
//! their order. Eggs beyond cfg.agent_capacity are dropped (counted).
StepStats step(Population& pop, const Config& cfg, const Constants& c, const MortalityTable& table, u32 hour);

//! A run as the benchmark times it: `snapshot` after cfg.warmup_hours from the initial eggs,
//! then cfg.steps hours from it (stats per step, the final population).
struct ReferenceRun {
  Population snapshot;
  std::vector<StepStats> stats;
  Population final_population;
};
ReferenceRun reference_run(const Config& cfg);
//! cfg.steps hours from a given snapshot (taken after cfg.warmup_hours).
ReferenceRun reference_from(Population snapshot, const Config& cfg);

//! The first per-step statistic of a run (`got`, cfg.steps steps from expected's snapshot)
//! that differs from `expected`'s, naming the hour and the statistic; empty if none does.
std::string first_stat_difference(const std::vector<StepStats>& got, const ReferenceRun& expected, const Config& cfg);
//! The first difference between two populations, naming the agent and the field; empty if none.
std::string first_difference(const Population& got, const Population& want);

//! Agents per state (index = log2 of the state bit) of a population.
std::vector<std::size_t> count_by_state(const Population& pop);

}  // namespace lb::kofler::sampo

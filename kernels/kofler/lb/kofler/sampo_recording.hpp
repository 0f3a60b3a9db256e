#pragma once
//! SAMPO under access recording (record_program("sampo"), recorders.hpp): the agents it
//! replays and what its kernels' bodies computed on them, for the tests. Host only.

#include <vector>

#include "lb/kofler/recorded.hpp"
#include "lb/kofler/sampo_reference.hpp"

namespace lb::kofler::sampo {

//! update_agent's plain accessor over one host agent (as the CPU reference's).
struct PlainRef {
  AgentValue& v;
  template <class Tag>
  auto& get() const {
    return v.template get<Tag>();
  }
};

//! An agent as the CPU reference's step found it at `hour`: its value, its index there, the
//! step's larval days (killAgents' density) and biomass (updateAgents').
struct Sample {
  AgentValue agent;
  u32 index, hour, larvae_1day_equiv, biomass;
};

//! The recorded population: for each of the 8 states (agent k = the state's bit), the first
//! agent of the reference's hourly steps from `cfg`'s eggs that leaves it (update_agent's
//! longest path there) and that killAgents, run as agent k, spares; then (agent 8) the first
//! agent that killAgents, run as agent 8, kills. Empty if some state never appears within
//! `max_hours`.
std::vector<Sample> recorded_agents(const Config& cfg, const Constants& c, u32 max_hours);

//! The recorded step (docs/kdlg.md, "The five programs"): the population of recorded_agents
//! at index k = its position, every kernel that touches the agent record run in launch order
//! over it, one thread per agent in index order. Agent k's killAgents and updateAgents use its
//! sample's hour, index, density and biomass; createEggs the last sample's hour.
struct SampoRecordedRun {
  RecordedProgram program;
  Config cfg;
  std::vector<Sample> samples;
  Population updated;                //!< the population after updateAgents (dead marked)
  std::vector<UpdateEvents> events;  //!< per agent (zero for the dead)
  StepStats stats{};                 //!< the reductions' and the compaction's counts
  Population next;                   //!< the new eggs, then the survivors in order
};
SampoRecordedRun sampo_recorded_run();

}  // namespace lb::kofler::sampo

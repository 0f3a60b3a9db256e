// A real program body under access recording: SAMPO's update_agent (sampo_model.hpp), the
// per-agent body the GPU kernel update_agents and the CPU reference both call, runs unchanged
// over a RecordingView of the agent record. One agent in each of the eight life-cycle states,
// the first to leave it in the CPU reference's hourly steps from 200 eggs, each recorded as
// one thread's trace; the KDLG over them (docs/kdlg.md, "SAMPO's updateAgents") is printed.
// N-body, the first candidate, has no host-callable body yet: its per-body update is
// inside the __global__ kernel (nbody.cu) and its CPU reference works on double arrays.

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "lb/layout/host_storage.hpp"
#include "lb/layout/kdlg.hpp"
#include "lb/layout/recording.hpp"
#include "sampo_reference.hpp"

namespace lb::kofler::sampo {
namespace {

using layout::AoSMapping;
using Mapping = AoSMapping<Agent>;

//! update_agent's plain accessor over one host agent (as the CPU reference's).
struct PlainRef {
  AgentValue& v;
  template <class Tag>
  auto& get() const {
    return v.template get<Tag>();
  }
};

//! An agent as update_agent found it: its value, index and the step's hour and biomass.
struct Sample {
  AgentValue agent;
  u32 index, hour, biomass;
};

//! For each state, the first agent that leaves it (update_agent's longest path there),
//! stepping the CPU reference hour by hour from `cfg`'s eggs until all eight are found (or
//! `max_hours`; then none).
std::vector<Sample> one_agent_leaving_each_state(const Config& cfg, const Constants& c, u32 max_hours) {
  const MortalityTable table = mortality_table();
  Population pop = initial_population(cfg, c);
  std::vector<Sample> found(8);
  std::vector<bool> seen(8, false);
  std::size_t missing = 8;
  for (u32 hour = 0; hour < max_hours && missing > 0; ++hour) {
    u32 biomass = 0;  // as the reference's step computes it: larval days + eggs + pupae
    for (const AgentValue& a : pop)
      biomass += a.get<State>() == LARVA ? u32(a.get<AgeInHours>() / 24.0f)
                                         : u32(a.get<State>() == EGG || a.get<State>() == PUPA);
    for (std::size_t i = 0; i < pop.size(); ++i) {
      const u32 bit = u32(__builtin_ctz(pop[i].get<State>()));
      AgentValue next = pop[i];
      update_agent(PlainRef{next}, c, cfg, hour, u32(i), biomass);
      if (!seen[bit] && next.get<State>() != pop[i].get<State>()) {
        seen[bit] = true;
        --missing;
        found[bit] = {pop[i], u32(i), hour, biomass};
      }
    }
    step(pop, cfg, c, table, hour);
  }
  if (missing > 0) found.clear();
  return found;
}

TEST(KdlgSampo, UpdateAgentRunsUnderRecordingAndGivesItsKdlg) {
  const Config cfg = Config::for_eggs(200, 0, 0);
  const Constants c;
  const std::vector<Sample> samples = one_agent_leaving_each_state(cfg, c, 2000);
  ASSERT_EQ(samples.size(), 8u) << "some state never appeared";

  layout::HostStorage<Mapping> storage(Mapping{samples.size()});
  const auto view = storage.view();
  std::vector<layout::KernelTrace> threads;
  std::vector<bool> loaded(Agent::field_count, false), stored(Agent::field_count, false);
  for (std::size_t k = 0; k < samples.size(); ++k) {
    const Sample& s = samples[k];
    view.store(k, s.agent);
    AgentValue want = s.agent;
    const UpdateEvents plain = update_agent(PlainRef{want}, c, cfg, s.hour, s.index, s.biomass);
    std::vector<layout::Access> log;
    const UpdateEvents recorded =
        update_agent(layout::RecordingView<Mapping>(view, log).at(k), c, cfg, s.hour, s.index, s.biomass);
    const AgentValue got = view.load(k);
    EXPECT_EQ(std::memcmp(&got, &want, sizeof got), 0) << "state " << k << ": recording changed the update";
    EXPECT_EQ(std::memcmp(&recorded, &plain, sizeof plain), 0) << "state " << k;
    for (const layout::Access& a : log) (a.kind == layout::AccessKind::load ? loaded : stored)[a.field] = true;
    threads.push_back({"update_agent, state " + std::to_string(s.agent.get<State>()), log});
  }
  // sampo.cu's account of update_agents: the fields its states need (all but dead, which the
  // kernel's loop reads before calling the body), never a store to isFemale.
  for (std::size_t f = 0; f < Agent::field_count; ++f)
    EXPECT_EQ(bool(loaded[f]), f != Agent::index_of<Dead>) << kFieldNames[f];
  EXPECT_FALSE(stored[Agent::index_of<IsFemale>]);
  EXPECT_FALSE(stored[Agent::index_of<Dead>]);

  const std::vector<std::string> names(std::begin(kFieldNames), std::end(kFieldNames));
  const layout::Kdlg g = layout::program_kdlg(layout::field_bytes<Agent>(), threads);
  const layout::KdlgPartition p = layout::kdlg_partition(g);
  // Every agent reads and writes its age and hours in state, then reads its blood-meal count
  // and switches on its state, within a few words: these four are always one cluster.
  const std::size_t age = Agent::index_of<AgeInHours>;
  for (std::size_t f : {Agent::index_of<HoursInState>, Agent::index_of<HumanBloodmealCount>, Agent::index_of<State>})
    EXPECT_LT(g.delta(age, f), layout::kNvidiaL1LineBytes) << kFieldNames[f];
  EXPECT_EQ(g.delta(age, Agent::index_of<Dead>), layout::kInfiniteDistance);
  std::printf("SAMPO update_agent, one agent per state (from %u eggs): %s\n", cfg.initial_eggs,
              layout::partition_name(p, names).c_str());
  for (const auto& m : p.merges) std::printf("  joined %s and %s at delta %llu\n", names[m.a].c_str(), names[m.b].c_str(), (unsigned long long)m.delta);
}

}  // namespace
}  // namespace lb::kofler::sampo

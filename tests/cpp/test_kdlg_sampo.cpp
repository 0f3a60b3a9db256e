// SAMPO's KDLG from its recorded kernels (record_program("sampo"), sampo_recording.cpp): the
// per-agent bodies the GPU kernels call (update_agent, sampo_bodies.hpp) run unchanged over a
// RecordingView of the agent record, for one agent leaving each of the eight life-cycle states
// and one that dies, through every kernel of a step that touches the record. The update
// kernel's KDLG and the program's partition (docs/kdlg.md, "The five programs") are printed.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "lb/kofler/recorded.hpp"
#include "lb/kofler/sampo_model.hpp"
#include "lb/layout/kdlg.hpp"

namespace lb::kofler::sampo {
namespace {

TEST(KdlgSampo, EveryKernelRunsUnderRecordingAndGivesTheProgramsKdlg) {
  const RecordedProgram p = record_program("sampo");
  const std::vector<std::string> names(std::begin(kFieldNames), std::end(kFieldNames));
  ASSERT_EQ(p.field_names, names);
  std::vector<std::string> kernels;
  for (const auto& k : p.kernels) kernels.push_back(k.kernel);
  EXPECT_EQ(kernels, (std::vector<std::string>{"larval_density", "female_count", "kill_agents", "update_agents",
                                               "count_survivors", "scatter_survivors", "create_eggs"}));
  const auto& update = *std::find_if(p.kernels.begin(), p.kernels.end(),
                                     [](const layout::KernelTrace& k) { return k.kernel == "update_agents"; });

  // sampo.cu's account of update_agents: dead (the kernel's check), then the fields the
  // states need (all of them over the eight), never a store to isFemale or dead.
  std::vector<bool> loaded(Agent::field_count, false), stored(Agent::field_count, false);
  for (const layout::Access& a : update.accesses) (a.kind == layout::AccessKind::load ? loaded : stored)[a.field] = true;
  for (std::size_t f = 0; f < Agent::field_count; ++f) EXPECT_TRUE(loaded[f]) << kFieldNames[f];
  EXPECT_FALSE(stored[Agent::index_of<IsFemale>]);
  EXPECT_FALSE(stored[Agent::index_of<Dead>]);

  // In update_agents, every agent reads and writes its age and hours in state, then reads its
  // blood-meal count and switches on its state, within a few words: these four are always close.
  const layout::Kdlg u = layout::kernel_kdlg(p.field_bytes, update.accesses);
  const std::size_t age = Agent::index_of<AgeInHours>;
  for (std::size_t f : {Agent::index_of<HoursInState>, Agent::index_of<HumanBloodmealCount>, Agent::index_of<State>})
    EXPECT_LT(u.delta(age, f), layout::kNvidiaL1LineBytes) << kFieldNames[f];
  // Over the program, kernels that touch one field of a pair and not the other make it ∞:
  // larval_density reads age, never dead; female_count reads state, never age.
  const layout::Kdlg g = layout::program_kdlg(p.field_bytes, p.kernels);
  EXPECT_EQ(g.delta(age, Agent::index_of<Dead>), layout::kInfiniteDistance);
  EXPECT_EQ(g.delta(age, Agent::index_of<State>), layout::kInfiniteDistance);
  // The fields only update_agents, the scatter and createEggs touch may still join; isFemale and
  // the sporogonic development go together in female_count.
  const layout::KdlgPartition part = layout::kdlg_partition(g);
  const layout::KdlgPartition update_part = layout::kdlg_partition(u);
  std::printf("SAMPO (%s)\n  update_agents alone: %s\n  program: %s\n", p.problem.c_str(),
              layout::partition_name(update_part, names).c_str(), layout::partition_name(part, names).c_str());
  for (const auto& m : part.merges)
    std::printf("  joined %s and %s at delta %llu\n", names[m.a].c_str(), names[m.b].c_str(), (unsigned long long)m.delta);
}

}  // namespace
}  // namespace lb::kofler::sampo

#pragma once
//! SAMPO's per-agent bodies of the kernels that touch the agent record (sampo.cu's kernels call
//! them in their grid-stride loops on the GPU; sampo_recording.cpp runs them on the host under
//! access recording), over any view of Agent. update_agents' body is update_agent
//! (sampo_model.hpp) after the dead check; count_survivors and scatter_survivors read `dead`
//! through agent_alive and copy a survivor with copy_agent around their CUB block reductions.

#include "lb/kofler/sampo_model.hpp"

namespace lb::kofler::sampo {

//! larval_density (calcL1de): counts eggs, pupae, larvae and the larvae's days.
template <class V>
LB_HD LB_FORCEINLINE void count_larval_density(const V& v, u32 i, u32& eggs, u32& larvae, u32& pupae, u32& days) {
  const u32 state = v.template get<State>(i);
  eggs += state == EGG;
  pupae += state == PUPA;
  if (state == LARVA) {
    ++larvae;
    days += u32(v.template get<AgeInHours>(i) / 24.0f);
  }
}

//! female_count (calcFemales): counts the adult females and the potentially infective ones.
template <class V>
LB_HD LB_FORCEINLINE void count_female(const V& v, u32 i, u32& females, u32& infective) {
  if (v.template get<State>(i) >= IMMATURE && v.template get<IsFemale>(i)) {
    ++females;
    infective += v.template get<SporogonicDevelopment>(i) >= 1.0f;
  }
}

//! kill_agents (killAgents): marks agent i dead if it dies this hour.
template <class V>
LB_HD LB_FORCEINLINE void kill_agent(const V& v, u32 i, u32 l1de, const Config& cfg, const MortalityTable& table,
                                     u32 hour) {
  if (dies(v.template get<State>(i), v.template get<AgeInHours>(i), l1de, cfg.carrying_capacity, table,
           random_u32(cfg.seed, hour, i, KILL)))
    v.template get<Dead>(i) = 1;
}

//! count_survivors, scatter_survivors: whether agent i lives (0 or 1).
template <class V>
LB_HD LB_FORCEINLINE u32 agent_alive(const V& v, u32 i) {
  return !v.template get<Dead>(i);
}

//! scatter_survivors (oldToNewAgents): survivor i to place `to` of the next population.
template <class V>
LB_HD LB_FORCEINLINE void copy_agent(const V& v, const V& next, u32 i, u32 to) {
  next.store(to, v.load(i));
}

}  // namespace lb::kofler::sampo

#pragma once
//! SAMPO (Kofler, Davis & Gesing 2014, github klois/SAMPO): an agent-based point model of an
//! Anopheles gambiae population at a constant 30 °C, one step per hour. This header holds what
//! the GPU kernels (sampo.cu) and the CPU reference (sampo_reference.cpp) share: the agent
//! record (12 fields of 4 bytes, as the original's Agent, AgentState and AgentAge structs),
//! the model's constants, a counter-based random number per (seed, hour, agent, purpose), and
//! the per-agent bodies of killAgents, updateAgents and createEggs.
//!
//! Simplifications of the original, kept deterministic and bit-identical on CPU and GPU:
//! - agents are not kept in per-state ranges; one array, each kernel branches on `state`;
//! - random numbers are a hash of (seed, hour, index, purpose) instead of per-work-item
//!   Tausworthe streams; normal variates are Irwin-Hall sums of 12 random bytes;
//! - mortality is a threshold on a 32-bit random number, read from tables built on the host
//!   from the original's formulas (the larval one quantised in the density ratio x =
//!   larvae-1-day-equivalents / (age in days * carrying capacity), 1/256 steps), so no
//!   transcendental function runs on the device;
//! - egg counts, delays and egg laying use integer arithmetic; the float fields change only by
//!   additions of constants and one division, which CUDA and the host round the same way;
//! - interventions (ITN, IRS, ovitraps, larvicide) are off, as in the original's runs.

#include <cstdint>
#include <cstring>

#include "lb/kofler/hash.hpp"
#include "lb/layout/record.hpp"

namespace lb::kofler::sampo {

using u32 = std::uint32_t;
using u64 = std::uint64_t;

// Field tags, in the original's order (struct Agent, then AgentState, then AgentAge).
struct AvailableEggs {};
struct CycleLength {};
struct HumanBloodmealCount {};
struct Delay {};
struct NumEggBatches {};
struct OvipositionOrLarvalDelay {};  //!< the original's union: u32 attempts (gravid) or f32 delay (larva)
struct Dead {};
struct State {};
struct AgeInHours {};
struct HoursInState {};
struct IsFemale {};
struct SporogonicDevelopment {};

using Agent = layout::Record<
    layout::Field<AvailableEggs, u32>, layout::Field<CycleLength, u32>, layout::Field<HumanBloodmealCount, u32>,
    layout::Field<Delay, float>, layout::Field<NumEggBatches, u32>, layout::Field<OvipositionOrLarvalDelay, u32>,
    layout::Field<Dead, u32>, layout::Field<State, u32>, layout::Field<AgeInHours, float>,
    layout::Field<HoursInState, float>, layout::Field<IsFemale, u32>, layout::Field<SporogonicDevelopment, float>>;
using AgentValue = layout::RecordValue<Agent>;

//! Field names in record order, as presets name them in partitions.
inline constexpr const char* kFieldNames[] = {
    "availableEggs", "cycleLength", "humanBloodmealCount", "delay", "numEggBatches", "ovipositionOrLarvalDelay",
    "dead", "state", "ageInHours", "hoursInState", "isFemale", "cumulativeSporogonicDevelopment"};

// The state bit mask of the original (agent.h).
enum : u32 { EGG = 1, LARVA = 2, PUPA = 4, IMMATURE = 8, MATESEEKING = 16, BMS = 32, BMD = 64, GRAVID = 128 };

LB_HD inline float as_float(u32 bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
LB_HD inline u32 as_bits(float f) {
  u32 b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

//! What one run needs; sizes follow the original (32,000 eggs, carrying capacity 160,000, up to
//! 6 M agents) scaled by the initial egg count.
struct Config {
  u32 initial_eggs = 32000;
  u32 carrying_capacity = 160000;
  u32 agent_capacity = 6000000;
  u32 warmup_hours = 0;  //!< hours simulated (on the CPU) before the snapshot a run starts from
  u32 steps = 24;        //!< hourly steps of one run
  u32 seed = 20140301;

  static Config for_eggs(u32 eggs, u32 warmup_hours, u32 steps) {
    return {eggs, eggs * 5, u32(u64(eggs) * 6000000 / 32000), warmup_hours, steps, 20140301};
  }
};

//! Mortality per hour as thresholds on a uniform 32-bit random number (dies when r < t), from
//! the original's killAgents: eggs and pupae 10 %/day, adults the age-dependent logistic rate,
//! larvae 0.1 exp(x) a day (at most 0.8) with x the density ratio above.
struct MortalityTable {
  static constexpr u32 kAdultDays = 100;
  static constexpr u32 kLarvalStepsPerUnit = 256;
  static constexpr u32 kLarvalBins = 544;  //!< x up to 2.125 > ln 8, where the daily rate clips at 0.8
  u32 egg_pupa;
  u32 adult[kAdultDays];
  u32 larval[kLarvalBins];
};
MortalityTable mortality_table();  //!< built on the host in double (sampo_reference.cpp)

//! Constants of the original's properties.h at the model's temperature, as floats.
struct Constants {
  float temperature = 30.0f;
  float egg_incubation = -0.923f * 30.0f + 60.923f;
  float larva_development = 0.007236393f;  //!< devRates[30 - 12]
  float pupa_delay = float(-0.923 * 30.0 + 60.923);
  float immature_delay = -2.667f * 30.0f + 120.0f;
  float mate_seeking_delay = 1.0f;
  float bloodmeal_seeking_delay = 0.0f;
  float bloodmeal_digesting_delay = -1.231f * 30.0f + 77.231f;
  float sporogonic_increment = float(1.0 / ((111.0 / (30.0 - 16.0)) * 14.0));
  u32 bloodmeal_success = 0xC0000000u;  //!< 0.75: a blood meal succeeds when r < this
  u32 lay_probability = 0x40000000u;    //!< 0.25, as the original's gravids
};

//! Per-step population statistics, the same on the CPU and every GPU layout.
struct StepStats {
  u32 population;       //!< agents at the start of the step
  u32 eggs, larvae, pupae;
  u32 larvae_1day_equiv; //!< larval-density reduction: sum of larval ages in whole days
  u32 females, potentially_infective;  //!< female-count reduction over adults
  u32 bites, infectious_bites, cycles, cycle_hours;  //!< updateAgents' atomic counters
  u32 eggs_laid;        //!< updateAgents' atomic egg counter
  u32 survivors;        //!< compaction
  u32 eggs_dropped;     //!< eggs that did not fit in the agent capacity
};
inline bool operator==(const StepStats& a, const StepStats& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// --- random numbers -----------------------------------------------------------------------
enum Purpose : u32 { KILL = 1, LARVA_DELAY = 2, BLOODMEAL = 3, EGG_BATCH = 4, LAY = 5, SEX = 6, HATCH = 7 };

LB_HD inline u32 random_u32(u32 seed, u32 hour, u32 index, u32 purpose) {
  return mix32(mix32(mix32(seed ^ (purpose * 0x9E3779B9u)) + hour) ^ index);
}
//! Sum of 12 random bytes: mean 1530, standard deviation ~256 (Irwin-Hall, close to normal).
LB_HD inline int byte_sum12(u32 seed, u32 hour, u32 index, u32 purpose) {
  int s = 0;
  for (u32 k = 0; k < 3; ++k) {
    const u32 r = random_u32(seed + k, hour, index, purpose);
    s += int(r & 255u) + int((r >> 8) & 255u) + int((r >> 16) & 255u) + int(r >> 24);
  }
  return s;
}

// --- the original's property functions, in integer arithmetic -------------------------
//! eggsHatching: hours, piecewise linear in a uniform p (= q / 10^4), rounded.
LB_HD inline u32 hatching_hours(u32 r) {
  const long long q = r % 10000u;
  long long m, b;  // slope and intercept in 1e-4 units
  if (q < 5000) m = 480000, b = 0;
  else if (q < 8500) m = 685714, b = -102857;
  else if (q < 9000) m = 4800000, b = -3600000;
  else if (q < 9400) m = 6000000, b = -4680000;
  else m = 24000000, b = -21600000;
  return u32((m * q + b * 10000 + 50000000) / 100000000);
}
//! larvaDelay: normal(1.0, 0.1).
LB_HD inline float larva_delay(int byte_sum) { return float(byte_sum + 1030) / 2560.0f; }
//! generateEggs: normal(170, 30) rounded, times 0.8 per earlier batch (rounded each time).
LB_HD inline u32 egg_batch(int byte_sum, u32 earlier_batches) {
  int eggs = (170 * 256 + 30 * (byte_sum - 1530) + 128) / 256;
  if (eggs < 0) eggs = 0;
  for (u32 b = 0; b < earlier_batches && eggs > 0; ++b) eggs = (eggs * 4 + 2) / 5;
  return u32(eggs);
}
//! layEggs: ceil(available * max(0, 1 - biomass / ((attempts + 1) * capacity))).
LB_HD inline u32 eggs_to_lay(u32 available, u32 attempts, u32 biomass, u32 capacity) {
  const u64 room = u64(attempts + 1) * capacity;
  if (biomass >= room) return 0;
  return u32((u64(available) * (room - biomass) + room - 1) / room);
}
LB_HD inline bool night(u32 world_hour) { return world_hour <= 6u || world_hour >= 18u; }

// --- per-agent bodies: A is any record accessor with get<Tag>() returning a reference -----

//! killAgents: whether the agent dies this hour (reads state and ageInHours).
LB_HD inline bool dies(u32 state, float age_in_hours, u32 larvae_1day_equiv, u32 capacity, const MortalityTable& t,
                       u32 r) {
  const float days_f = age_in_hours / 24.0f;
  const u32 days = u32(days_f < 99.0f ? days_f : 99.0f);
  u32 threshold = t.egg_pupa;
  if (state >= IMMATURE) {
    threshold = t.adult[days];
  } else if (state == LARVA) {
    const u64 bin = u64(larvae_1day_equiv) * MortalityTable::kLarvalStepsPerUnit / (u64(days ? days : 1) * capacity);
    threshold = t.larval[bin < MortalityTable::kLarvalBins ? bin : MortalityTable::kLarvalBins - 1];
  }
  return r < threshold;
}

//! What updateAgents reports through its atomic counters.
struct UpdateEvents {
  u32 eggs_laid = 0;
  u32 bites = 0, infectious_bites = 0, cycles = 0, cycle_hours = 0;
};

//! updateAgents for one living agent at `hour` (the life-cycle state machine of the original).
template <class A>
LB_HD inline UpdateEvents update_agent(A a, const Constants& c, const Config& cfg, u32 hour, u32 index,
                                       u32 biomass) {
  UpdateEvents ev;
  const u32 world_hour = hour % 24u;
  auto& age = a.template get<AgeInHours>();
  auto& in_state = a.template get<HoursInState>();
  auto& delay = a.template get<Delay>();
  auto& state = a.template get<State>();
  auto& cycle = a.template get<CycleLength>();
  auto& slot = a.template get<OvipositionOrLarvalDelay>();
  age = age + 1.0f;
  in_state = in_state + 1.0f;
  if (c.temperature > 16.0f && a.template get<HumanBloodmealCount>() > 0u)
    a.template get<SporogonicDevelopment>() = a.template get<SporogonicDevelopment>() + c.sporogonic_increment;

  switch (state) {
    case EGG:
      if (in_state >= delay) {
        age = 24.0f;
        in_state = 0.0f;
        delay = larva_delay(byte_sum12(cfg.seed, hour, index, LARVA_DELAY));
        state = LARVA;
      }
      break;
    case LARVA: {
      const float development = as_float(slot) + c.larva_development;
      slot = as_bits(development);
      if (development >= delay && night(world_hour)) {
        in_state = 0.0f;
        delay = c.pupa_delay;
        state = PUPA;
      }
      break;
    }
    case PUPA:
      if (in_state >= delay && night(world_hour)) {
        age = 0.0f;
        in_state = 0.0f;
        delay = c.immature_delay;
        state = IMMATURE;
      }
      break;
    case IMMATURE:
      if (in_state >= delay) {
        delay = c.mate_seeking_delay;
        in_state = 0.0f;
        state = MATESEEKING;
      }
      break;
    case MATESEEKING:
      if (in_state >= delay && a.template get<IsFemale>() && world_hour == 18u) {
        in_state = 0.0f;
        delay = c.bloodmeal_seeking_delay;
        state = BMS;
      }
      break;
    case BMS:
      ++cycle;
      if (in_state >= delay && night(world_hour) &&
          random_u32(cfg.seed, hour, index, BLOODMEAL) < c.bloodmeal_success) {
        a.template get<HumanBloodmealCount>() += 1u;
        ev.bites = 1;
        in_state = 0.0f;
        delay = c.bloodmeal_digesting_delay;
        state = BMD;
        ev.infectious_bites = a.template get<SporogonicDevelopment>() >= 1.0f;
      }
      break;
    case BMD:
      ++cycle;
      if (in_state >= delay) {
        auto& available = a.template get<AvailableEggs>();
        if (available == 0 && a.template get<IsFemale>()) {
          auto& batches = a.template get<NumEggBatches>();
          available = egg_batch(byte_sum12(cfg.seed, hour, index, EGG_BATCH), batches);
          ++batches;
        }
        in_state = 0.0f;
        slot = 0u;  // oviposition attempts
        state = GRAVID;
      }
      break;
    default:  // GRAVID
      ++cycle;
      if (night(world_hour) && random_u32(cfg.seed, hour, index, LAY) < c.lay_probability) {
        auto& available = a.template get<AvailableEggs>();
        ev.eggs_laid = eggs_to_lay(available, slot, biomass, cfg.carrying_capacity);
        available -= ev.eggs_laid;
        ++slot;
        if (available == 0) {
          ev.cycles = 1;
          ev.cycle_hours = cycle;
          cycle = 0;
          in_state = 0.0f;
          delay = c.bloodmeal_seeking_delay;
          state = BMS;
        }
      }
      break;
  }
  return ev;
}

//! createEggs (the original's initAgents): the new egg at index j of the next population.
LB_HD inline AgentValue new_egg(const Constants& c, const Config& cfg, u32 hour, u32 j) {
  AgentValue e{};
  e.get<AvailableEggs>() = 0;
  e.get<CycleLength>() = 0;
  e.get<HumanBloodmealCount>() = 0;
  e.get<Delay>() = c.egg_incubation + float(hatching_hours(random_u32(cfg.seed, hour, j, HATCH)));
  e.get<NumEggBatches>() = 0;
  e.get<OvipositionOrLarvalDelay>() = as_bits(0.0f);
  e.get<Dead>() = 0;
  e.get<State>() = EGG;
  e.get<AgeInHours>() = 0.0f;
  e.get<HoursInState>() = 0.0f;
  e.get<IsFemale>() = random_u32(cfg.seed, hour, j, SEX) < 0x80000000u;
  e.get<SporogonicDevelopment>() = 0.0f;
  return e;
}

//! The hour used to key the initial eggs' random numbers (before hour 0).
inline constexpr u32 kInitialHour = 0xFFFFFFFFu;

}  // namespace lb::kofler::sampo

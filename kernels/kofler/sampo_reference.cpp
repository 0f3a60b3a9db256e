#include "lb/kofler/sampo_reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <string>

namespace lb::kofler::sampo {

namespace {
//! Threshold on a uniform 32-bit number for an hourly death probability from a daily one.
u32 hourly_threshold(double daily_mortality) {
  const double hourly = 1.0 - std::pow(1.0 - daily_mortality, 1.0 / 24.0);
  return u32(std::min(hourly * 4294967296.0, 4294967295.0));
}

constexpr const char* kStatNames[] = {"population", "eggs", "larvae", "pupae", "larvae_1day_equiv", "females",
                                      "potentially_infective", "bites", "infectious_bites", "cycles", "cycle_hours",
                                      "eggs_laid", "survivors", "eggs_dropped"};
static_assert(sizeof(StepStats) == sizeof(kStatNames) / sizeof(kStatNames[0]) * sizeof(u32));

//! Gives update_agent the references it needs into one host agent.
struct ValueRef {
  AgentValue& v;
  template <class Tag>
  auto& get() const {
    return v.template get<Tag>();
  }
};
}  // namespace

MortalityTable mortality_table() {
  MortalityTable t{};
  t.egg_pupa = hourly_threshold(0.1);
  for (u32 d = 0; d < MortalityTable::kAdultDays; ++d) {  // a = 0.1, B = 25, s = 0.1 (killAgents.cl)
    const double a = 0.1, B = 25.0, s = 0.1, e = std::exp(d / B);
    t.adult[d] = hourly_threshold((a * e) / (1.0 + a * B * s * (e - 1.0)));
  }
  for (u32 b = 0; b < MortalityTable::kLarvalBins; ++b) {  // bin b holds x in [b, b+1) / 256: its midpoint
    const double x = (b + 0.5) / MortalityTable::kLarvalStepsPerUnit;
    t.larval[b] = hourly_threshold(std::min(0.1 * std::exp(x), 0.8));
  }
  return t;
}

Population initial_population(const Config& cfg, const Constants& c) {
  Population pop(cfg.initial_eggs);
  for (u32 j = 0; j < cfg.initial_eggs; ++j) pop[j] = new_egg(c, cfg, kInitialHour, j);
  return pop;
}

StepStats step(Population& pop, const Config& cfg, const Constants& c, const MortalityTable& table, u32 hour) {
  StepStats s{};
  s.population = u32(pop.size());
  for (const auto& a : pop) {  // larval-density reduction
    const u32 state = a.get<State>();
    s.eggs += state == EGG;
    s.pupae += state == PUPA;
    if (state == LARVA) {
      ++s.larvae;
      s.larvae_1day_equiv += u32(a.get<AgeInHours>() / 24.0f);
    }
  }
  for (const auto& a : pop)  // female-count reduction over adults
    if (a.get<State>() >= IMMATURE && a.get<IsFemale>()) {
      ++s.females;
      s.potentially_infective += a.get<SporogonicDevelopment>() >= 1.0f;
    }
  const long long n = (long long)pop.size();
  // killAgents and updateAgents are per agent; their counters are integer sums, so running
  // them on all cores changes nothing
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < n; ++i)  // killAgents
    if (dies(pop[i].get<State>(), pop[i].get<AgeInHours>(), s.larvae_1day_equiv, cfg.carrying_capacity, table,
             random_u32(cfg.seed, hour, u32(i), KILL)))
      pop[i].get<Dead>() = 1;
  const u32 biomass = s.larvae_1day_equiv + s.eggs + s.pupae;
  u32 eggs_laid = 0, bites = 0, infectious_bites = 0, cycles = 0, cycle_hours = 0;
#pragma omp parallel for schedule(static) reduction(+ : eggs_laid, bites, infectious_bites, cycles, cycle_hours)
  for (long long i = 0; i < n; ++i) {  // updateAgents
    if (pop[i].get<Dead>()) continue;
    const UpdateEvents ev = update_agent(ValueRef{pop[i]}, c, cfg, hour, u32(i), biomass);
    eggs_laid += ev.eggs_laid;
    bites += ev.bites;
    infectious_bites += ev.infectious_bites;
    cycles += ev.cycles;
    cycle_hours += ev.cycle_hours;
  }
  s.eggs_laid = eggs_laid, s.bites = bites, s.infectious_bites = infectious_bites, s.cycles = cycles,
  s.cycle_hours = cycle_hours;
  Population next;  // compaction after createEggs: the new eggs, then the survivors in order
  for (const auto& a : pop) s.survivors += !a.get<Dead>();
  const u32 room = cfg.agent_capacity - std::min(cfg.agent_capacity, s.survivors);
  const u32 eggs = std::min(s.eggs_laid, room);
  s.eggs_dropped = s.eggs_laid - eggs;
  next.reserve(eggs + s.survivors);
  for (u32 j = 0; j < eggs; ++j) next.push_back(new_egg(c, cfg, hour, j));
  for (const auto& a : pop)
    if (!a.get<Dead>()) next.push_back(a);
  pop.swap(next);
  return s;
}

ReferenceRun reference_run(const Config& cfg) {
  const Constants c;
  const MortalityTable table = mortality_table();
  Population pop = initial_population(cfg, c);
  for (u32 h = 0; h < cfg.warmup_hours; ++h) step(pop, cfg, c, table, h);
  return reference_from(std::move(pop), cfg);
}

ReferenceRun reference_from(Population snapshot, const Config& cfg) {
  const Constants c;
  const MortalityTable table = mortality_table();
  ReferenceRun r;
  Population pop = snapshot;
  r.snapshot = std::move(snapshot);
  for (u32 s = 0; s < cfg.steps; ++s) r.stats.push_back(step(pop, cfg, c, table, cfg.warmup_hours + s));
  r.final_population = std::move(pop);
  return r;
}

std::string first_stat_difference(const std::vector<StepStats>& got, const ReferenceRun& expected, const Config& cfg) {
  for (u32 step = 0; step < cfg.steps; ++step)
    for (std::size_t k = 0; k < std::size(kStatNames); ++k) {
      const u32 value = reinterpret_cast<const u32*>(&got[step])[k];
      const u32 want = reinterpret_cast<const u32*>(&expected.stats[step])[k];
      if (value != want)
        return "hour " + std::to_string(cfg.warmup_hours + step) + ": " + kStatNames[k] + " is " +
               std::to_string(value) + ", the CPU reference says " + std::to_string(want);
    }
  return {};
}

std::string first_difference(const Population& got, const Population& want) {
  if (got.size() != want.size())
    return std::to_string(got.size()) + " agents after the run, the reference has " + std::to_string(want.size());
  // The fields fill the agent (no padding): equal bytes are equal fields, found in one pass
  // (the field by field search below costs ~10x more, per case at millions of agents).
  static_assert(sizeof(AgentValue) == Agent::field_count * sizeof(u32));
  if (got.empty() || std::memcmp(got.data(), want.data(), got.size() * sizeof(AgentValue)) == 0) return {};
  for (std::size_t i = 0; i < got.size(); ++i) {
    std::string diff;
    layout::for_each_field<Agent>([&](auto f) {
      constexpr std::size_t F = decltype(f)::value;
      if (diff.empty() && std::memcmp(&got[i].template at<F>(), &want[i].template at<F>(), 4) != 0)
        diff = "agent " + std::to_string(i) + ": " + kFieldNames[F] + " differs from the reference";
    });
    if (!diff.empty()) return diff;
  }
  return {};
}

std::vector<std::size_t> count_by_state(const Population& pop) {
  std::vector<std::size_t> n(8, 0);
  for (const auto& a : pop)
    for (u32 b = 0; b < 8; ++b)
      if (a.get<State>() == (1u << b)) ++n[b];
  return n;
}

}  // namespace lb::kofler::sampo

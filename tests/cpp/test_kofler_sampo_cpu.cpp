//! SAMPO's CPU reference (kernels/kofler/sampo_reference.cpp) and its planner: the model
//! grows a population from eggs under its capacity, reaches every life-cycle state, is
//! deterministic and sensitive to its seed; the integer property functions keep the
//! original's means; the quick preset plans every layout kind.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "lb/harness/preset.hpp"
#include "lb/harness/suite.hpp"
#include "lb/kofler/sampo_reference.hpp"

namespace lb::kofler::sampo {
namespace {

bool same_bytes(const Population& a, const Population& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(AgentValue)) == 0;
}

//! A small case: 1,000 eggs, 14 days of warm-up (the first eggs are laid), one day timed.
Config small() { return Config::for_eggs(1000, 336, 24); }

TEST(SampoReference, GrowsFromEggsUnderItsCapacityAndReachesEveryState) {
  const Config cfg = Config::for_eggs(1000, 0, 480);
  std::vector<std::size_t> seen(8, 0);
  u32 most = 0, laid = 0;
  const Constants c;
  Population pop = initial_population(cfg, c);
  ASSERT_EQ(pop.size(), 1000u);
  const MortalityTable t = mortality_table();
  for (u32 h = 0; h < cfg.steps; ++h) {
    const StepStats s = step(pop, cfg, c, t, h);
    EXPECT_LE(s.population, cfg.agent_capacity);
    EXPECT_EQ(pop.size(), s.survivors + s.eggs_laid - s.eggs_dropped);
    most = std::max(most, s.population);
    laid += s.eggs_laid;
    const auto n = count_by_state(pop);
    EXPECT_EQ(std::accumulate(n.begin(), n.end(), std::size_t{0}), pop.size()) << "an agent in no single state";
    for (std::size_t k = 0; k < 8; ++k) seen[k] += n[k];
  }
  EXPECT_GT(laid, 0u);
  EXPECT_GT(most, 4 * cfg.initial_eggs) << "the population should outgrow its initial eggs within 20 days";
  for (std::size_t k = 0; k < 8; ++k) EXPECT_GT(seen[k], 0u) << "state bit " << k << " never reached";
}

TEST(SampoReference, IsDeterministicAndDependsOnItsSeed) {
  const Config cfg = small();
  const ReferenceRun a = reference_run(cfg), b = reference_run(cfg);
  EXPECT_TRUE(same_bytes(a.final_population, b.final_population));
  EXPECT_EQ(a.stats.size(), b.stats.size());
  for (std::size_t i = 0; i < a.stats.size(); ++i) EXPECT_EQ(a.stats[i], b.stats[i]);
  Config other = cfg;
  other.seed += 1;
  EXPECT_FALSE(same_bytes(reference_run(other).final_population, a.final_population));
  // reference_from continues a snapshot exactly as the run from eggs does
  const ReferenceRun c = reference_from(a.snapshot, cfg);
  EXPECT_TRUE(same_bytes(c.final_population, a.final_population));
}

TEST(SampoReference, CompactionDropsTheDeadAndKeepsTheSurvivorsInOrder) {
  // old mate-seeking males (they never change state) numbered by cycleLength, which they keep
  const Config cfg = Config::for_eggs(2000, 0, 1);
  Population pop(5000);
  for (u32 i = 0; i < pop.size(); ++i) {
    pop[i].get<State>() = MATESEEKING;
    pop[i].get<AgeInHours>() = 24.0f * 60;
    pop[i].get<CycleLength>() = i;
  }
  const StepStats s = step(pop, cfg, Constants{}, mortality_table(), 3);
  EXPECT_EQ(s.eggs_laid, 0u);
  EXPECT_LT(s.survivors, 5000u) << "60-day-old adults die at several percent an hour";
  ASSERT_EQ(pop.size(), s.survivors);
  for (std::size_t k = 1; k < pop.size(); ++k) EXPECT_LT(pop[k - 1].get<CycleLength>(), pop[k].get<CycleLength>());
  for (const auto& a : pop) EXPECT_EQ(a.get<Dead>(), 0u);
}

TEST(SampoReference, FirstDifferenceNamesTheAgentAndTheField) {
  const ReferenceRun run = reference_run(small());
  Population got = run.final_population;
  ASSERT_GT(got.size(), 100u);
  EXPECT_EQ(first_difference(got, run.final_population), "");
  EXPECT_EQ(first_difference({}, {}), "");
  got[77].get<HoursInState>() += 1.0f;
  got[90].get<Dead>() = 1;
  EXPECT_EQ(first_difference(got, run.final_population), "agent 77: hoursInState differs from the reference");
  got.pop_back();
  EXPECT_NE(first_difference(got, run.final_population).find("agents after the run"), std::string::npos);
}

TEST(SampoModel, PropertyFunctionsKeepTheOriginalsMeans) {
  double hatch = 0, delay = 0, batch = 0;
  u32 lo = ~0u, hi = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    const u32 h = hatching_hours(random_u32(1, 2, u32(i), HATCH));
    lo = std::min(lo, h), hi = std::max(hi, h);
    hatch += h;
    delay += larva_delay(byte_sum12(1, 2, u32(i), LARVA_DELAY));
    batch += egg_batch(byte_sum12(1, 2, u32(i), EGG_BATCH), 0);
  }
  EXPECT_EQ(lo, 0u);
  EXPECT_EQ(hi, 240u);
  EXPECT_NEAR(delay / n, 1.0, 0.01);
  EXPECT_NEAR(batch / n, 170.0, 1.0);
  EXPECT_EQ(egg_batch(1530, 1), 136u);  // 170 * 0.8
  EXPECT_EQ(eggs_to_lay(100, 0, 0, 1000), 100u);
  EXPECT_EQ(eggs_to_lay(100, 0, 500, 1000), 50u);
  EXPECT_EQ(eggs_to_lay(100, 1, 1500, 1000), 25u);  // (2 * 1000 - 1500) / 2000 of 100
  EXPECT_EQ(eggs_to_lay(100, 0, 1000, 1000), 0u);
}

TEST(SampoModel, MortalityRisesWithAdultAgeAndLarvalDensity) {
  const MortalityTable t = mortality_table();
  for (u32 d = 1; d < MortalityTable::kAdultDays; ++d) EXPECT_GE(t.adult[d], t.adult[d - 1]);
  for (u32 b = 1; b < MortalityTable::kLarvalBins; ++b) EXPECT_GE(t.larval[b], t.larval[b - 1]);
  EXPECT_EQ(t.larval[MortalityTable::kLarvalBins - 1], t.larval[MortalityTable::kLarvalBins - 2]);  // clipped
  EXPECT_NEAR(t.egg_pupa / 4294967296.0, 1 - std::pow(0.9, 1 / 24.0), 1e-9);
}

}  // namespace
}  // namespace lb::kofler::sampo

namespace lb::harness {
namespace {

TEST(SampoPlan, QuickPlansEveryLayoutKindAndBadValuesNameTheirKey) {
  const Preset quick = load_preset("quick");
  std::vector<std::string> names;
  for (const auto& b : find_suite("kofler").plan(quick, {}))
    if (b.name.starts_with("kofler/sampo/")) names.push_back(b.name);
  for (const char* want :
       {"kofler/sampo/gpu/aos/mixed/size:32000", "kofler/sampo/gpu/soa/mixed/size:32000",
        "kofler/sampo/gpu/tiled/mixed/tile:32/size:32000", "kofler/sampo/gpu/tiled-ct/mixed/tile:32/size:32000",
        "kofler/sampo/gpu/split/mixed/partition:manual/size:32000",
        "kofler/sampo/gpu/split-ct/mixed/partition:manual/size:32000"})
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;

  Preset bad = quick;
  bad.suites["kofler"]["sampo"]["steps"] = 0;
  try {
    find_suite("kofler").plan(bad, {});
    ADD_FAILURE() << "steps 0 was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("steps"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace lb::harness

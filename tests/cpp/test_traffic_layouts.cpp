// The traffic simulation over the inner-array layouts on the host (kernels/traffic/
// host_layouts.hpp: the GPU version's template code over host views): every layout the GPU
// version instantiates (AoS, SoA, AoSoA32 x the swept field x none, partial, full, object, and
// both cell arrays at once in SoA: none, object) ends 50 steps
// of a small built city (with and without its controllers) in the reference's state (checksum, and the state itself), also
// from a snapshot restored before every run, a fault
// (one car skipping its move) does not, and the layouts' names and errors; the bench program's
// plan (names, errors) and its skip of a missing network file.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <tuple>

#include "inner/traffic_bench.hpp"
#include "lb/inner/strategies.hpp"
#include "lb/harness/suite.hpp"
#include "lb/traffic/layouts.hpp"
#include "temp_files.hpp"
#include "traffic_test_city.hpp"

namespace {

using namespace lb::traffic;

using test_city::every_layout;

//! 100 cars for 50 steps on a 5 x 5 grid city, with and without controllers.
const test_city::CityRun& reference(bool controllers = true) {
  static const test_city::CityRun with = test_city::city_run(true, 50), without = test_city::city_run(false, 50);
  return controllers ? with : without;
}

TEST(TrafficLayouts, TheCityExercisesEveryRule) {
  // What the layouts are compared on: cars move, leave at sinks, come back and meet.
  for (bool controllers : {true, false}) {
    const test_city::CityRun& r = reference(controllers);
    EXPECT_EQ(check_invariants(r.net, r.final_state), "");
    EXPECT_GT(r.final_state.left, 10u);
    EXPECT_GT(r.final_state.reactivated, 10u);
    EXPECT_GT(r.final_state.conflicts, controllers ? 0u : 20u);
  }
}

TEST(TrafficLayouts, EveryLayoutOnTheHostEndsInTheReferencesState) {
  for (bool controllers : {true, false}) test_city::expect_every_layout_matches(reference(controllers), Device::cpu);
}

// Issue 38's levers on the host: a controller's lanes one after another (each lane's share of
// the groups' searches, then each lane's signals given every lane's bits ORed) and plan and
// claim car by car end in the reference's state, on layouts whose accessors the controllers'
// searches (Cell::incoming in the arena) and the fused claims (Car::path partly inline) read
// (every layout's accessors: the tests above; every layout under every lever: the GPU's).
TEST(TrafficLayouts, EveryLeverOnTheHostEndsInTheReferencesState) {
  const std::vector<TrafficLayout> layouts{{InnerLayout::soa, SweptField::none, InnerStrategy::full, 0},
                                           {InnerLayout::aos, SweptField::incoming, InnerStrategy::none, 0},
                                           {InnerLayout::aos, SweptField::path, InnerStrategy::partial, 6}};
  for (const StepSchedule& s : test_city::every_lever()) {
    if (s.lanes == 1 && !s.fused) continue;  // block and graph alone: the host runs base
    for (bool controllers : {true, false})
      test_city::expect_every_layout_matches(reference(controllers), Device::cpu, s, layouts);
  }
}

TEST(TrafficLayouts, ScheduleNamesAndErrors) {
  EXPECT_EQ(to_string(StepSchedule{}), "base");
  EXPECT_EQ(parse_step_schedule("base"), StepSchedule{});
  const StepSchedule all{.lanes = 8, .split = true, .block = 64, .fused = true, .graph = true};
  EXPECT_EQ(to_string(all), "lanes8-split-block64-fused-graph");
  EXPECT_EQ(parse_step_schedule("lanes8-split-block64-fused-graph"), all);
  EXPECT_EQ(parse_step_schedule("block1024"), (StepSchedule{.block = 1024}));
  for (const StepSchedule& s : test_city::every_lever()) EXPECT_EQ(parse_step_schedule(to_string(s)), s);
  auto error = [](std::string_view text) {
    try {
      parse_step_schedule(text);
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      return what.substr(0, what.find(" (expected"));
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("graph-lanes4"), "traffic step schedule 'graph-lanes4': write it 'lanes4-graph'");
  EXPECT_EQ(error("graph-graph"), "traffic step schedule 'graph-graph': write it 'graph'");
  EXPECT_EQ(error("lanes3"), "traffic step schedule 'lanes3': 'lanes3': lanes are 2, 4 or 8 (1 is base)");
  EXPECT_EQ(error("lanes1"), "traffic step schedule 'lanes1': 'lanes1': lanes are 2, 4 or 8 (1 is base)");
  EXPECT_EQ(error("block100"),
            "traffic step schedule 'block100': 'block100': a block is a multiple of 32 up to 1024 other than 256 (base)");
  EXPECT_EQ(error("block256"),
            "traffic step schedule 'block256': 'block256': a block is a multiple of 32 up to 1024 other than 256 (base)");
  EXPECT_EQ(error("block2048"),
            "traffic step schedule 'block2048': 'block2048': a block is a multiple of 32 up to 1024 other than 256 (base)");
  EXPECT_EQ(error("split"), "traffic step schedule 'split': split shares lanes: give lanes2, lanes4 or lanes8 with it");
  EXPECT_EQ(error("fast"), "traffic step schedule 'fast': unknown part 'fast'");
  EXPECT_EQ(error("graph-"), "traffic step schedule 'graph-': unknown part ''");
  EXPECT_EQ(error(""), "traffic step schedule '': unknown part ''");
  const test_city::CityRun& r = reference();
  EXPECT_THROW(make_laid_out_traffic(r.net, r.initial, {}, Device::cpu, {}, StepSchedule{.lanes = 3}),
               std::invalid_argument);
}

// The bench's reset (benches/inner/traffic_bench.cpp): a copy of the laid-out initial state,
// copied back before every run; on the host the same parts (stepped_parts) as on the GPU.
TEST(TrafficLayouts, ASnapshotRestoresTheInitialStateOnEveryLayout) {
  for (bool controllers : {true, false}) test_city::expect_snapshot_restores_the_initial_state(reference(controllers), Device::cpu);
}

// Fig. 11's split: lights and yield controllers are the controllers' part, every car phase the
// cars'; the instrumented run on the host (a steady clock) steps as run() does.
static_assert(part_of(Phase::lights) == StepPart::controllers && part_of(Phase::yields) == StepPart::controllers);
static_assert(part_of(Phase::plan) == StepPart::cars && part_of(Phase::claim) == StepPart::cars &&
              part_of(Phase::resolve) == StepPart::cars && part_of(Phase::move) == StepPart::cars &&
              part_of(Phase::reactivate) == StepPart::cars);

TEST(TrafficLayouts, TheSplitRunOnTheHostStepsAsRunAndTimesBothParts) {
  test_city::expect_split_run_matches(test_city::city_run(true, 300), Device::cpu);
}

TEST(TrafficLayouts, ACarThatSkipsItsMoveFailsValidation) {
  const test_city::CityRun& r = reference();
  const auto sim = make_laid_out_traffic(r.net, r.initial, {InnerLayout::soa, SweptField::path, InnerStrategy::partial, 6},
                                         Device::cpu, TrafficFault{3});
  sim->run(50);
  const State s = sim->state();
  // Car 3 stays where it was while the others move on: the checksum sees it.
  EXPECT_NE(checksum(s), checksum(r.final_state));
  EXPECT_NE(s.cars[3].position, r.final_state.cars[3].position);
}

TEST(TrafficLayouts, FootprintsFollowTheSweptStrategy) {
  const test_city::CityRun& r = reference();
  auto footprint = [&](SweptField f, InnerStrategy s, std::size_t n) {
    return make_laid_out_traffic(r.net, r.initial, {InnerLayout::soa, f, s, n}, Device::cpu)->footprint();
  };
  const std::size_t cars = r.initial.cars.size(), cells = r.net.cells.size();
  // Car::path: full holds 30 slots inline; none reserves each car's max velocity in the arena
  // (the authors' partially inlined path); partial 6 holds 6 inline and the rest there.
  std::size_t reserved = 0, past_six = 0;
  for (const Car& c : r.initial.cars) {
    reserved += c.max_velocity;
    past_six += c.max_velocity - 6u;  // max velocities are 10..29
  }
  const TrafficFootprint full = footprint(SweptField::path, InnerStrategy::full, 0);
  EXPECT_EQ(full.path.inline_bytes, cars * (4 + 30 * 4));
  EXPECT_EQ(full.path.arena_bytes, 0u);
  const TrafficFootprint none = footprint(SweptField::path, InnerStrategy::none, 0);
  EXPECT_EQ(none.path.inline_bytes, cars * 8);
  EXPECT_EQ(none.path.arena_bytes, reserved * 4);
  const TrafficFootprint partial = footprint(SweptField::path, InnerStrategy::partial, 6);
  EXPECT_EQ(partial.path.inline_bytes, cars * (8 + 6 * 4));
  EXPECT_EQ(partial.path.arena_bytes, past_six * 4);
  EXPECT_EQ(partial.total.total() - partial.path.total(), full.total.total() - full.path.total());
  // Cell::incoming without inlining: the arena holds exactly the incoming cells.
  std::size_t incoming = 0;
  for (const auto& c : r.net.cells) incoming += c.incoming_count;
  const TrafficFootprint in_none = footprint(SweptField::incoming, InnerStrategy::none, 0);
  EXPECT_EQ(in_none.incoming.arena_bytes, incoming * 4);
  EXPECT_EQ(in_none.incoming.inline_bytes, cells * 8);
  EXPECT_EQ(in_none.outgoing.inline_bytes, cells * (4 + 8 * 4));
  // Both cell arrays apart at once: each laid out as when it alone is, the path full.
  const auto bytes = [](const InnerFootprint& f) { return std::tuple(f.inline_bytes, f.arena_bytes, f.wasted_bytes); };
  for (InnerStrategy s : {InnerStrategy::none, InnerStrategy::object}) {
    const TrafficFootprint both = footprint(SweptField::cells, s, 0);
    EXPECT_EQ(bytes(both.incoming), bytes(footprint(SweptField::incoming, s, 0).incoming));
    EXPECT_EQ(bytes(both.outgoing), bytes(footprint(SweptField::outgoing, s, 0).outgoing));
    EXPECT_EQ(bytes(both.path), bytes(full.path));
  }
}

TEST(TrafficLayouts, NamesAndErrors) {
  EXPECT_EQ(describe({InnerLayout::soa, SweptField::path, InnerStrategy::partial, 6}),
            "soa, Car::path partial N = 6, the other arrays full");
  EXPECT_EQ(describe({InnerLayout::aos, SweptField::none, InnerStrategy::full, 0}), "aos, every array full");
  EXPECT_EQ(describe({InnerLayout::aosoa32, SweptField::path, InnerStrategy::object, 0}),
            "aosoa32, Car::path object, the other arrays full");
  EXPECT_EQ(describe({InnerLayout::soa, SweptField::cells, InnerStrategy::object, 0}),
            "soa, Cell::incoming and Cell::outgoing object, the other arrays full");
  EXPECT_EQ(parse_swept_field("outgoing"), SweptField::outgoing);
  EXPECT_EQ(parse_swept_field("cells"), SweptField::cells);
  EXPECT_EQ(max_elements(SweptField::cells), 8u);
  auto error = [](auto&& f) {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error([] { parse_swept_field("cars"); }),
            "unknown traffic array field 'cars' (expected one of: incoming, outgoing, path, cells, none)");
  // Both cell arrays apart are built in SoA with object or none alone (the method's choice).
  for (const auto& [l, s] : {std::pair{InnerLayout::aos, InnerStrategy::none},
                             std::pair{InnerLayout::aosoa32, InnerStrategy::object},
                             std::pair{InnerLayout::soa, InnerStrategy::full}})
    EXPECT_EQ(error([&] { check_layout({l, SweptField::cells, s, 0}); }),
              fmt::format("--field cells ({} {}): both cell arrays apart run in soa with strategy object or none only "
                          "(the method's choice for the cell; the other layouts and strategies are not built)",
                          lb::inner::to_string(l), lb::inner::to_string(s)));
  EXPECT_NE(error([] { check_layout({InnerLayout::soa, SweptField::cells, InnerStrategy::partial, 2}); }).find(
                "--field cells (soa partial)"),
            std::string::npos);
  EXPECT_EQ(error([] { check_layout({InnerLayout::soa, SweptField::incoming, InnerStrategy::partial, 9}); }),
            "--inline 9: Cell::incoming holds at most 8 elements");
  EXPECT_EQ(error([] { check_layout({InnerLayout::soa, SweptField::path, InnerStrategy::full, 6}); }),
            "--inline: an inline count (6) is for the partial strategy only, not full");
  EXPECT_EQ(error([] { check_layout({InnerLayout::soa, SweptField::none, InnerStrategy::none, 0}); }),
            "--strategy none: give the array field it is for (--field incoming, outgoing, path or cells); without one "
            "every array is fully inlined");
  const test_city::CityRun& r = reference();
  EXPECT_EQ(error([&] {
              make_laid_out_traffic(r.net, r.initial, {InnerLayout::aos, SweptField::path, InnerStrategy::none, 3},
                                    Device::cpu);
            }),
            "--inline: an inline count (3) is for the partial strategy only, not none");
}

}  // namespace

// --- the bench program's plan ---------------------------------------------------------------

namespace lb::harness {
namespace {

class TrafficPlan : public TempFilesTest {
 protected:
  //! The inner suite's traffic cases for a traffic object, or the planner's error.
  std::vector<std::string> names_or_error(const std::string& traffic) {
    const std::string text = R"({"description": "t", "suites": {"inner": {"traffic": )" + traffic + "}}}";
    std::vector<std::string> names;
    try {
      for (const auto& b : find_suite("inner").plan(load_preset(write("traffic.json", text)), {})) names.push_back(b.name);
    } catch (const PresetError& e) {
      return {e.what()};
    }
    return names;
  }
  std::string error_of(const std::string& traffic) {
    const auto got = names_or_error(traffic);
    return got.size() == 1 && !got[0].starts_with("inner/") ? got[0] : "no error";
  }
};

constexpr const char* kBase = R"("network": "lowermanhattan.graphml", "cars": 100, "steps": 10, "layouts": ["soa"])";

TEST_F(TrafficPlan, OneFieldAtATimeWithInlineCountsUpToItsMax) {
  const auto names = names_or_error(std::string("{") + kBase +
                                    R"(, "fields": ["incoming", "path", "none"], "strategies": ["partial", "object"],
                                       "inline_sizes": [6, 15]})");
  EXPECT_EQ(names, (std::vector<std::string>{
                       "inner/traffic/partial/soa/int/inline:6/field:incoming/network:lowermanhattan/cars:100/steps:10",
                       "inner/traffic/object/soa/int/inline:8/field:incoming/network:lowermanhattan/cars:100/steps:10",
                       "inner/traffic/partial/soa/int/inline:6/field:path/network:lowermanhattan/cars:100/steps:10",
                       "inner/traffic/partial/soa/int/inline:15/field:path/network:lowermanhattan/cars:100/steps:10",
                       "inner/traffic/object/soa/int/inline:30/field:path/network:lowermanhattan/cars:100/steps:10",
                       "inner/traffic/full/soa/int/inline:0/field:none/network:lowermanhattan/cars:100/steps:10"}));
}

// Both cell arrays apart are planned where they are built: SoA, none and object.
TEST_F(TrafficPlan, CellsArePlannedInSoaWithNoneAndObjectOnly) {
  const auto names = names_or_error(R"({"network": "lowermanhattan.graphml", "cars": 100, "steps": 10,
                                        "layouts": ["aos", "soa", "aosoa32"], "fields": ["cells"],
                                        "strategies": ["none", "partial", "full", "object"], "inline_sizes": [6]})");
  EXPECT_EQ(names, (std::vector<std::string>{
                       "inner/traffic/none/soa/int/inline:0/field:cells/network:lowermanhattan/cars:100/steps:10",
                       "inner/traffic/object/soa/int/inline:8/field:cells/network:lowermanhattan/cars:100/steps:10"}));
}

TEST_F(TrafficPlan, ErrorsNameTheKey) {
  const std::string ok = std::string(kBase) + R"(, "fields": ["path"], "strategies": ["full"])";
  EXPECT_NE(error_of(std::string("{") + kBase + R"(, "fields": ["cars"], "strategies": ["full"]})")
                .find("unknown traffic array field 'cars'"),
            std::string::npos);
  EXPECT_NE(error_of("{" + ok + R"(, "inline_sizes": [31]})").find("inline sizes must lie in [0, 30]; got 31"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"network": "lowermanhattan.graphml", "steps": 10, "layouts": ["soa"], "fields": ["path"],
                        "strategies": ["full"]})")
                .find("'traffic' needs 'cars', an integer in [1, 4294967294]"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"network": "../x.graphml", "cars": 1, "steps": 1, "layouts": ["soa"], "fields": ["path"],
                        "strategies": ["full"]})")
                .find("'network' must be a GraphML file name"),
            std::string::npos);
  EXPECT_NE(error_of("{" + ok + R"(, "tile": [2]})").find("'tile' must be [K, L], K and L in [1, 1024]"),
            std::string::npos);
  EXPECT_EQ(error_of("{" + ok + R"(, "tile": [4, 5]})"), "no error");  // a city of 4 x 5 copies
  EXPECT_NE(error_of("{" + ok + R"(, "lanes": 2})").find("lanes"), std::string::npos);
  EXPECT_EQ(error_of("{" + ok + R"(, "tile": [1, 1]})"), "no error");
}

// Issue 38's levers side by side: the default schedule keeps the names measured before them.
TEST_F(TrafficPlan, SchedulesAddTheirNameAndBaseKeepsTheOldOne) {
  const std::string base = std::string("{") + kBase + R"(, "fields": ["none"], "strategies": ["full"])";
  EXPECT_EQ(names_or_error(base + R"(, "schedules": ["base", "lanes4-graph"]})"),
            (std::vector<std::string>{
                "inner/traffic/full/soa/int/inline:0/field:none/network:lowermanhattan/cars:100/steps:10",
                "inner/traffic/full/soa/int/inline:0/field:none/network:lowermanhattan/cars:100/steps:10/schedule:lanes4-graph"}));
  EXPECT_EQ(names_or_error(base + "}"), names_or_error(base + R"(, "schedules": ["base"]})"));
  EXPECT_NE(error_of(base + R"(, "schedules": ["graph-lanes4"]})").find("write it 'lanes4-graph'"), std::string::npos);
}

TEST_F(TrafficPlan, AMissingNetworkFileIsSkippedWithWhereItWasLookedFor) {
  const benches::inner::TrafficSource s = benches::inner::find_traffic_network("no-such-city.graphml");
  EXPECT_TRUE(s.path.empty());
  EXPECT_NE(s.missing.find("network no-such-city.graphml not found (looked in "), std::string::npos) << s.missing;
  EXPECT_NE(s.missing.find("shared/datasets/no-such-city.graphml"), std::string::npos) << s.missing;
  benches::inner::TrafficCase c;
  c.source = s;
  const auto variant = benches::inner::make_traffic_variant(c);
  variant->setup(nullptr);
  variant->run(nullptr);
  const Check check = variant->validate(nullptr);
  EXPECT_FALSE(check.ok);
  EXPECT_EQ(check.message, "skipped: " + s.missing);
}

}  // namespace
}  // namespace lb::harness

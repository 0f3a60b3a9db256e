// The inner suite on the CPU: the synthetic program's inputs (sizes 32..64 from a fixed seed,
// nonzero values), its kernel body over every layout x strategy against the canonical result,
// the strategy names and dispatch, and the planner (names, inline counts per strategy, preset
// errors naming the key).

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "inner/programs.hpp"
#include "lb/exec/cpu_launcher.hpp"
#include "lb/inner/synthetic.hpp"
#include "temp_files.hpp"

namespace {

using namespace lb::inner;
using lb::layout::ArrayLengths;
using lb::layout::InnerArrayMapping;

TEST(InnerSynthetic, InputsHaveThePapersSizesFromAFixedSeed) {
  const SyntheticInputs a = make_synthetic_inputs(5000), b = make_synthetic_inputs(5000);
  EXPECT_EQ(a.sizes, b.sizes);
  EXPECT_EQ(a.elements, b.elements);
  EXPECT_EQ(*std::min_element(a.sizes.begin(), a.sizes.end()), 32u);
  EXPECT_EQ(*std::max_element(a.sizes.begin(), a.sizes.end()), 64u);
  EXPECT_TRUE(std::none_of(a.values.begin(), a.values.end(), [](int v) { return v == 0; }));
  EXPECT_EQ(a.first[1], a.sizes[0]);
  EXPECT_NE(make_synthetic_inputs(5000, 32, 64, 1).sizes, a.sizes);
}

TEST(InnerSynthetic, TheBodyAddsTheValueToEveryElementInEveryLayoutAndStrategy) {
  const SyntheticInputs in = make_synthetic_inputs(300, 0, 64);  // 0 too: an empty array
  for (InnerLayout l : {InnerLayout::aos, InnerLayout::soa})
    for (InnerStrategy s : {InnerStrategy::none, InnerStrategy::partial, InnerStrategy::full, InnerStrategy::object})
      for (std::size_t n : {0, 8, 64}) {
        if (s != InnerStrategy::partial && n != 0) continue;
        SCOPED_TRACE(std::string(to_string(l)) + " " + std::string(to_string(s)) + " " + std::to_string(n));
        dispatch_inner(l, s, [&]<InnerLayout L, InnerStrategy S>() {
          using M = InnerArrayMapping<SyntheticObject, L, S>;
          auto storage = lb::layout::inner_host_storage<M>({in.sizes}, n);
          const auto view = storage.view();
          store_synthetic_inputs(view, in);
          lb::exec::run_serial(in.sizes.size(), AddValue<lb::layout::View<M>>{view});
          for (std::size_t i = 0; i < in.sizes.size(); ++i) {
            ASSERT_EQ(view.template length<Elements>(i), in.sizes[i]);
            for (std::uint32_t k = 0; k < in.sizes[i]; ++k)
              ASSERT_EQ(view.template get<Elements>(i, k), in.elements[in.first[i] + k] + in.values[i]) << i << " " << k;
          }
        });
      }
}

TEST(InnerStrategies, NamesRoundTripAndUnknownNamesListTheKnown) {
  for (InnerStrategy s : {InnerStrategy::none, InnerStrategy::partial, InnerStrategy::full, InnerStrategy::object})
    EXPECT_EQ(parse_inner_strategy(to_string(s)), s);
  EXPECT_EQ(parse_inner_layout("soa"), InnerLayout::soa);
  try {
    parse_inner_strategy("inline");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown inner-array strategy 'inline' (expected one of: none, partial, full, object)");
  }
  EXPECT_THROW(parse_inner_layout("aosoa"), std::invalid_argument);
}

}  // namespace

namespace lb::harness {
namespace {

std::vector<std::string> names_of(const std::vector<PlannedBenchmark>& plan) {
  std::vector<std::string> names;
  for (const auto& b : plan) names.push_back(b.name);
  return names;
}

TEST(InnerPlan, QuickPresetSweepsInliningAndObjectCountsWithOneNamePerCase) {
  auto names = names_of(find_suite("inner").plan(load_preset("quick"), {}));
  std::erase_if(names, [](const std::string& n) { return !n.starts_with("inner/synthetic/"); });
  const std::set<std::string> unique(names.begin(), names.end());
  EXPECT_EQ(unique.size(), names.size());
  // 262,144 objects: per layout none, partial 0/32/64, full, object; 16K and 1M: partial 32 only.
  EXPECT_EQ(names.size(), 2u * 6 + 2u * 2 * 4);
  for (const char* want : {"inner/synthetic/none/aos/int/inline:0/objects:262144",
                           "inner/synthetic/partial/soa/int/inline:32/objects:262144",
                           "inner/synthetic/full/soa/int/inline:64/objects:262144",
                           "inner/synthetic/object/aos/int/inline:64/objects:1048576",
                           "inner/synthetic/partial/aos/int/inline:32/objects:16384"})
    EXPECT_TRUE(unique.count(want)) << want;
  EXPECT_FALSE(unique.count("inner/synthetic/partial/aos/int/inline:64/objects:16384"));
  auto overridden = names_of(find_suite("inner").plan(load_preset("quick"), Overrides{{1000}, {}}));
  std::erase_if(overridden, [](const std::string& n) { return !n.starts_with("inner/synthetic/"); });
  EXPECT_EQ(overridden.size(), 2u * 6);
  EXPECT_TRUE(std::all_of(overridden.begin(), overridden.end(),
                          [](const std::string& n) { return n.ends_with("/objects:1000"); }));
}

TEST(InnerPlan, InlineCountsFollowTheStrategy) {
  using inner::inline_counts;
  EXPECT_EQ(inline_counts(InnerStrategy::none, {8, 16}, 64), std::vector<std::size_t>{0});
  EXPECT_EQ(inline_counts(InnerStrategy::full, {8, 16}, 64), std::vector<std::size_t>{64});
  EXPECT_EQ(inline_counts(InnerStrategy::object, {8}, 64), std::vector<std::size_t>{64});
  EXPECT_EQ(inline_counts(InnerStrategy::partial, {0, 8, 80}, 64), (std::vector<std::size_t>{0, 8}));
}

class InnerPlanErrors : public TempFilesTest {
 protected:
  std::string error_of(const std::string& synthetic) {
    const std::string text = R"({"description": "t", "suites": {"inner": {)" + synthetic + "}}}";
    try {
      find_suite("inner").plan(load_preset(write("inner.json", text)), {});
    } catch (const PresetError& e) {
      return e.what();
    }
    return "no error";
  }
};

TEST_F(InnerPlanErrors, NameTheKey) {
  const std::string ok = R"("objects": 100, "layouts": ["aos"], "strategies": ["full"])";
  EXPECT_NE(error_of(R"("bfs2": {})").find("unknown inner-array program 'bfs2' (expected one of: synthetic"),
            std::string::npos);
  EXPECT_NE(error_of(R"("synthetic": {)" + ok + R"(, "inline_sizes": [0, 65]})").find("inline sizes must lie in [0, 64]; got 65"),
            std::string::npos);
  EXPECT_NE(error_of(R"("synthetic": {"objects": 100, "inline_sizes": [0], "layouts": ["aos"], "strategies": ["most"]})")
                .find("unknown inner-array strategy 'most'"),
            std::string::npos);
  EXPECT_NE(error_of(R"("synthetic": {)" + ok + R"(, "inline_sizes": [0], "tile": 4})").find("tile"), std::string::npos);
  EXPECT_NE(error_of(R"("synthetic": {"inline_sizes": [0], "layouts": ["aos"], "strategies": ["full"]})").find("'objects'"),
            std::string::npos);
  EXPECT_EQ(error_of(R"("synthetic": {)" + ok + R"(, "inline_sizes": [0]})"), "no error");
}

}  // namespace
}  // namespace lb::harness

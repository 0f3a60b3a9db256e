// The inner suite on the CPU: the synthetic program's inputs (sizes 32..64 from a fixed seed,
// nonzero values), its kernel body over every layout x strategy against the canonical result,
// its input image and output check (the same verdicts and messages as a serial comparison
// with an expected image), the strategy names and dispatch, and the planner (names, inline
// counts per strategy, preset errors naming the key).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "inner/suite.hpp"
#include "lb/exec/cpu_launcher.hpp"
#include "lb/inner/synthetic.hpp"
#include "lb/inner/synthetic_image.hpp"
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

//! f.template operator()<M>(n) for every layout and strategy of the synthetic object, partial
//! inlining at N = 0, 8, 64 (n: the inlined N; 0 for the other strategies), each traced.
template <class F>
void for_each_synthetic_mapping(F&& f) {
  for (InnerLayout l : {InnerLayout::aos, InnerLayout::soa, InnerLayout::aosoa32})
    for (InnerStrategy s : {InnerStrategy::none, InnerStrategy::partial, InnerStrategy::full, InnerStrategy::object})
      for (std::size_t n : {0, 8, 64}) {
        if (s != InnerStrategy::partial && n != 0) continue;
        SCOPED_TRACE(std::string(to_string(l)) + " " + std::string(to_string(s)) + " " + std::to_string(n));
        dispatch_inner<SyntheticInnerLayouts>(l, s, [&]<InnerLayout L, InnerStrategy S>() {
          f.template operator()<InnerArrayMapping<SyntheticObject, L, S>>(n);
        });
      }
}

TEST(InnerSynthetic, TheBodyAddsTheValueToEveryElementInEveryLayoutAndStrategy) {
  const SyntheticInputs in = make_synthetic_inputs(300, 0, 64);  // 0 too: an empty array
  for_each_synthetic_mapping([&]<class M>(std::size_t n) {
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

//! The variant's image and check as they were before synthetic_image.hpp (serial, an expected
//! image): what the new ones must agree with.
template <class M>
std::unique_ptr<lb::layout::HostStorage<M>> serial_image(const SyntheticInputs& in, std::size_t n, bool plus_value) {
  const ArrayLengths lengths = {in.sizes};
  auto s = std::make_unique<lb::layout::HostStorage<M>>(M(lengths, n));
  for (std::size_t b = 0; b < M::blob_count; ++b) std::memset(s->blob(b), kSyntheticSentinel, s->mapping().blob_bytes(b));
  const auto v = s->view();
  s->mapping().write_headers(v.blobs, lengths);
  for (std::size_t i = 0; i < in.sizes.size(); ++i) {
    v.template get<Value>(i) = in.values[i];
    for (std::uint32_t k = 0; k < in.sizes[i]; ++k)
      v.template get<Elements>(i, k) = in.elements[in.first[i] + k] + (plus_value ? in.values[i] : 0);
  }
  return s;
}
template <class M>
std::string serial_check(const lb::layout::HostStorage<M>& got, const lb::layout::HostStorage<M>& expected,
                         const SyntheticInputs& in) {
  const auto g = got.view(), want = expected.view();
  for (std::size_t i = 0; i < in.sizes.size(); ++i)
    for (std::uint32_t k = 0; k < in.sizes[i]; ++k)
      if (g.template get<Elements>(i, k) != want.template get<Elements>(i, k))
        return "object " + std::to_string(i) + " element " + std::to_string(k) + ": got " +
               std::to_string(g.template get<Elements>(i, k)) + ", expected " +
               std::to_string(want.template get<Elements>(i, k)) + " (input " +
               std::to_string(in.elements[in.first[i] + k]) + " + value " + std::to_string(in.values[i]) + ")";
  for (std::size_t b = 0; b < M::blob_count; ++b) {
    const std::size_t bytes = got.mapping().blob_bytes(b);
    if (std::memcmp(got.blob(b), expected.blob(b), bytes) != 0) {
      std::size_t x = 0;
      while (got.blob(b)[x] == expected.blob(b)[x]) ++x;
      return "blob " + std::to_string(b) + " byte " + std::to_string(x) +
             " changed outside the arrays' elements (a value, header, padding or unused slot)";
    }
  }
  return "";
}
template <class M>
std::unique_ptr<lb::layout::HostStorage<M>> copy_of(const lb::layout::HostStorage<M>& s) {
  auto c = std::make_unique<lb::layout::HostStorage<M>>(s.mapping());
  for (std::size_t b = 0; b < M::blob_count; ++b) std::memcpy(c->blob(b), s.blob(b), s.mapping().blob_bytes(b));
  return c;
}
template <class M>
bool same_bytes(const lb::layout::HostStorage<M>& a, const lb::layout::HostStorage<M>& b) {
  for (std::size_t k = 0; k < M::blob_count; ++k)
    if (std::memcmp(a.blob(k), b.blob(k), a.mapping().blob_bytes(k)) != 0) return false;
  return true;
}

TEST(InnerSynthetic, TheImageAndTheCheckAgreeWithASerialExpectedImageInEveryLayoutAndStrategy) {
  // Sizes from 0 (an empty array too); with 2 OpenMP threads (ctest's) the two wrong elements
  // below fall to different threads.
  const SyntheticInputs in = make_synthetic_inputs(600, 0, 64);
  for_each_synthetic_mapping([&]<class M>(std::size_t n) {
    const auto input = synthetic_image<M>(in, n);
    ASSERT_TRUE(same_bytes(*input, *serial_image<M>(in, n, false)));
    const auto expected = serial_image<M>(in, n, true);
    // A correct run: ok, and the scratch copy's elements put back to the input's.
    auto got = copy_of(*input);
    lb::exec::run_serial(in.sizes.size(), AddValue<lb::layout::View<M>>{got->view()});
    ASSERT_EQ(serial_check(*got, *expected, in), "");
    SyntheticCheck c = check_synthetic_output(*got, *input, in);
    EXPECT_TRUE(c.ok) << c.message;
    EXPECT_TRUE(same_bytes(*got, *input));
    // Faults, each named as the serial check names it: a wrong element (two wrong ones: the
    // first in object order, whichever thread finds it), an object the run skipped, a changed
    // byte outside the elements (a value; the last byte of each blob unless it is a
    // length or arena offset, which the checks follow).
    auto run_with = [&](auto&& fault) {
      auto out = copy_of(*input);
      lb::exec::run_serial(in.sizes.size(), AddValue<lb::layout::View<M>>{out->view()});
      if (!fault(out->view(), *out)) return;
      const std::string want = serial_check(*out, *expected, in);
      EXPECT_NE(want, "");
      const SyntheticCheck got_check = check_synthetic_output(*out, *input, in);
      EXPECT_FALSE(got_check.ok);
      EXPECT_EQ(got_check.message, want);
    };
    const std::size_t early = 150, late = 450;
    ASSERT_GT(in.sizes[early], 1u);
    ASSERT_GT(in.sizes[late], 0u);
    run_with([&](const auto& v, auto&) {
      v.template get<Elements>(late, 0) += 7;
      v.template get<Elements>(early, in.sizes[early] - 1) -= 1;
      return true;
    });
    run_with([&](const auto& v, auto&) {
      for (std::uint32_t k = 0; k < in.sizes[late]; ++k) v.template get<Elements>(late, k) -= in.values[late];
      return true;
    });
    run_with([&](const auto& v, auto&) {
      v.template get<Value>(late) += 1;
      return true;
    });
    const auto view = input->view();
    auto headers_as_input = [&](const auto& v) {
      for (std::size_t i = 0; i < in.sizes.size(); ++i)
        if (v.template length<Elements>(i) != in.sizes[i] ||
            v.template capacity<Elements>(i) != view.template capacity<Elements>(i))
          return false;
      return true;
    };
    for (std::size_t b = 0; b < M::blob_count; ++b)
      run_with([&](const auto& v, auto& out) {
        const std::size_t bytes = out.mapping().blob_bytes(b);
        if (bytes == 0) return false;
        out.blob(b)[bytes - 1] ^= std::byte{1};
        return headers_as_input(v);
      });
  });
}

TEST(InnerSynthetic, TheFirstDifferenceIsFoundAcrossChunks) {
  std::vector<std::byte> a(1000, std::byte{7});
  for (std::size_t chunk : {1, 64, 100, 999, 1000, 4096})
    for (std::size_t at : {0, 63, 64, 65, 500, 999}) {
      std::vector<std::byte> b = a;
      b[at] = std::byte{8};
      if (at + 100 < b.size()) b[at + 100] = std::byte{9};  // a later difference, maybe in another chunk
      EXPECT_EQ(lb::inner::detail::first_difference(a.data(), b.data(), a.size(), chunk), at) << chunk;
      EXPECT_EQ(lb::inner::detail::first_difference(a.data(), a.data(), a.size(), chunk), a.size());
    }
}

TEST(InnerStrategies, NamesRoundTripAndUnknownNamesListTheKnown) {
  for (InnerStrategy s : {InnerStrategy::none, InnerStrategy::partial, InnerStrategy::full, InnerStrategy::object})
    EXPECT_EQ(parse_inner_strategy(to_string(s)), s);
  for (InnerLayout l : {InnerLayout::aos, InnerLayout::soa, InnerLayout::aosoa32}) EXPECT_EQ(parse_inner_layout(to_string(l)), l);
  try {
    parse_inner_strategy("inline");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown inner-array strategy 'inline' (expected one of: none, partial, full, object)");
  }
  EXPECT_THROW(parse_inner_layout("aosoa"), std::invalid_argument);
  // The paper's programs run AoS and SoA only; the synthetic program also aosoa32.
  const auto layout_name = []<InnerLayout L, InnerStrategy>() { return std::string(to_string(L)); };
  EXPECT_EQ((dispatch_inner<SyntheticInnerLayouts>(InnerLayout::aosoa32, InnerStrategy::none, layout_name)), "aosoa32");
  EXPECT_EQ(dispatch_inner(InnerLayout::soa, InnerStrategy::none, layout_name), "soa");
  try {
    dispatch_inner(InnerLayout::aosoa32, InnerStrategy::full, layout_name);
    FAIL() << "a paper program took aosoa32";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "inner-array layout 'aosoa32' is not one this program runs (expected one of: aos, soa)");
  }
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
  // 262,144 objects: per layout (aos, soa and the method's aosoa32) none, partial 0/32/64,
  // full, object; 16K and 1M: partial 32 only.
  EXPECT_EQ(names.size(), 3u * 6 + 2u * 3 * 4);
  for (const char* want : {"inner/synthetic/none/aos/int/inline:0/objects:262144",
                           "inner/synthetic/partial/soa/int/inline:32/objects:262144",
                           "inner/synthetic/full/soa/int/inline:64/objects:262144",
                           "inner/synthetic/object/aos/int/inline:64/objects:1048576",
                           "inner/synthetic/partial/aos/int/inline:32/objects:16384",
                           "inner/synthetic/object/aosoa32/int/inline:64/objects:262144"})
    EXPECT_TRUE(unique.count(want)) << want;
  EXPECT_FALSE(unique.count("inner/synthetic/partial/aos/int/inline:64/objects:16384"));
  // --sizes sets the objects: the inlining sweep at 1000, the object counts' sweep left out.
  const Preset quick = load_preset("quick");
  const auto overridden =
      names_of(plan_program("inner", benches::inner::synthetic_program(), quick, quick.suites["inner"]["synthetic"], "synthetic",
                            Overrides{{1000}, {}}));
  EXPECT_EQ(overridden.size(), 3u * 6);
  EXPECT_TRUE(std::all_of(overridden.begin(), overridden.end(),
                          [](const std::string& n) { return n.ends_with("/objects:1000"); }));
  // The suite's other programs have no axis --sizes sets: one error naming bfs's axes (they
  // once ignored --sizes).
  try {
    find_suite("inner").plan(quick, Overrides{{1000}, {}});
    ADD_FAILURE() << "planned";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "--sizes: bfs has no axis that --sizes sets (bfs has the axes strategy, layout, precision, "
                 "inline, graph, search; give --axis NAME=...)");
  }
}

TEST(InnerPlan, InlineCountsFollowTheStrategy) {
  using benches::inner::inline_counts;
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

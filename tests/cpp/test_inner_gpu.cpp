// GPU: the synthetic program (Fig. 10a) in every layout x strategy, inline counts 0, 8, 64,
// at a small object count (compute-sanitizer runs these): set-up, poison, run, validate as
// the harness does; a wrong element or a write outside the elements fails validation naming
// it. Without a GPU every test reports SKIPPED.

#include <gtest/gtest.h>

#include <string>

#include "gpu_available.hpp"
#include "inner/synthetic_bench.hpp"
#include "lb/common/cuda_check.hpp"

namespace lb::benches::inner {
namespace {

constexpr std::size_t kObjects = 1000;  // small, not a multiple of the block

std::unique_ptr<SyntheticVariant> validated_run(const SyntheticCase& c, Check& check) {
  auto v = make_synthetic_variant(c);
  v->setup(nullptr);
  v->poison(nullptr);
  v->prepare(nullptr);
  v->run(nullptr);
  lb::check(cudaStreamSynchronize(nullptr), "synthetic run");
  check = v->validate(nullptr);
  return v;
}

TEST(InnerSyntheticGpu, EveryLayoutAndStrategyValidates) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  for (InnerLayout l : {InnerLayout::aos, InnerLayout::soa, InnerLayout::aosoa32})
    for (InnerStrategy s : {InnerStrategy::none, InnerStrategy::partial, InnerStrategy::full, InnerStrategy::object})
      for (std::size_t n : {0, 8, 64}) {
        if (s != InnerStrategy::partial && n != 0) continue;
        SCOPED_TRACE(std::string(lb::inner::to_string(l)) + " " + std::string(lb::inner::to_string(s)) + " " +
                     std::to_string(n));
        Check check;
        const auto v = validated_run({l, s, n, kObjects, 128}, check);
        EXPECT_TRUE(check.ok) << check.message;
        EXPECT_GT(check.counters.at("checked"), 32.0 * kObjects - 1);
        const Work w = v->work();
        EXPECT_EQ(w.units, check.counters.at("checked"));
        EXPECT_EQ(v->footprint_bytes(), static_cast<double>(v->inner_footprint().total()));
      }
}

TEST(InnerSyntheticGpu, AWrongElementOrAStrayWriteFailsValidation) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  for (InnerLayout l : {InnerLayout::aos, InnerLayout::soa, InnerLayout::aosoa32}) {
    SCOPED_TRACE(std::string(lb::inner::to_string(l)));
    Check check;
    auto v = validated_run({l, InnerStrategy::partial, 8, kObjects, 128}, check);
    ASSERT_TRUE(check.ok) << check.message;
    v->inject_fault(SyntheticFault::wrong_element);
    check = v->validate(nullptr);
    EXPECT_FALSE(check.ok);
    EXPECT_NE(check.message.find("object 500 element"), std::string::npos) << check.message;
  }
  Check check;
  auto v = validated_run({InnerLayout::soa, InnerStrategy::full, 0, kObjects, 128}, check);
  ASSERT_TRUE(check.ok) << check.message;
  v->inject_fault(SyntheticFault::stray_write);  // SoA blob 0: the last object's value
  check = v->validate(nullptr);
  EXPECT_FALSE(check.ok);
  EXPECT_NE(check.message.find("changed outside the arrays' elements"), std::string::npos) << check.message;
}

}  // namespace
}  // namespace lb::benches::inner

//! Kofler's bitonic sort and the CUB sorts on the GPU: the input made on the device has the
//! bytes of the host-made one in every layout kind, every layout kind sorts a small case
//! exactly (sorted, a permutation, payload with its key), and each injected fault fails
//! validation, as does an output left poisoned.

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstring>

#include "gpu_available.hpp"
#include "kofler/bitonic_bench.hpp"
#include "lb/common/cuda_check.hpp"
#include "lb/layout/aosoa.hpp"
#include "lb/layout/device_storage.hpp"
#include "lb/layout/partition.hpp"
#include "gpu_test_scope.hpp"
#include "kofler_gpu_testing.hpp"

namespace lb::benches::kofler {
namespace {

using lb::kofler::SortFault;

Check sort_once(const LayoutChoice& choice, std::string_view version, std::size_t n, SortFault fault, bool run = true) {
  auto v = make_bitonic_variant(choice, version, n, fault);
  v->setup(nullptr);
  v->poison(nullptr);
  if (run) v->run(nullptr);
  check(cudaDeviceSynchronize(), "sort");
  return v->validate(nullptr);
}

//! Every kind the sort takes: the run-time split of a partition too (no compile-time split).
const std::vector<LayoutChoice>& bitonic_layouts() {
  using K = layout::ClusterLayout::Kind;
  static const std::vector<LayoutChoice> all = {
      {kind::Aos{}},       {kind::Soa{}},      {kind::Tiled{2}},    {kind::Tiled{8}},
      {kind::Tiled{8192}}, {kind::TiledCt{4}}, {kind::TiledCt{32}}, {kind::TiledCt{256}},
      {kind::Split{{"key|rest", {{0, 1, 1, 1}, {{K::aos, 1}, {K::tiled, 3}}}}}}};
  return all;
}

//! sort_fill_input over zeros against layout::fill on the host (a zeroed HostStorage).
template <class M>
void expect_input_as_on_the_host(const std::string& label, const M& m) {
  SCOPED_TRACE(label);
  layout::HostStorage<M> want(m), got(m);
  layout::fill(want.view(), [](std::size_t i) { return lb::kofler::to_value(lb::kofler::sort_input(i)); });
  layout::DeviceStorage<M> device(m);
  for (std::size_t b = 0; b < M::blob_count; ++b)
    check(cudaMemset(device.view().blobs[b], 0, m.blob_bytes(b)), "cudaMemset");
  lb::kofler::sort_fill_input(device.view(), nullptr);
  device.download(got);
  for (std::size_t b = 0; b < M::blob_count; ++b)
    EXPECT_EQ(std::memcmp(want.blob(b), got.blob(b), m.blob_bytes(b)), 0) << "blob " << b;
}

TEST(KoflerBitonicGpu, TheInputMadeOnTheDeviceHasTheHostsBytes) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  using K = layout::ClusterLayout::Kind;
  using lb::kofler::SortRecord;
  const std::size_t n = 3000;  // not a multiple of the tiles: their padding stays zero
  expect_input_as_on_the_host("aos", lb::kofler::SortAoS{n});
  expect_input_as_on_the_host("soa", lb::kofler::SortSoA{n});
  expect_input_as_on_the_host("tiled 7", layout::RuntimeAoSoAMapping<SortRecord>(n, 7));
  expect_input_as_on_the_host("tiled 64", layout::Pow2AoSoAMapping<SortRecord>(n, 64));
  expect_input_as_on_the_host("tiled-ct 256", layout::AoSoAMapping<SortRecord, 256>{n});
  expect_input_as_on_the_host("partition", layout::PartitionMapping<SortRecord>(n, {{0, 1, 1, 0}, {{K::tiled, 3}, {K::soa}}}));
}

TEST(KoflerBitonicGpu, EveryLayoutSortsExactlyAndASkippedPassFails) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  for (const auto& choice : testing::with_method_layouts(bitonic_layouts(), "bitonic", lb::kofler::kSortFieldNames,
                                                         record_field_bytes<lb::kofler::SortRecord>())) {
    SCOPED_TRACE(std::string(choice.name()) + " " + choice.param());
    for (std::size_t n : {std::size_t(1024), std::size_t(8192)}) {
      const Check ok = sort_once(choice, "bitonic", n, SortFault::none);
      EXPECT_TRUE(ok.ok) << n << ": " << ok.message;
      EXPECT_EQ(ok.counters.at("checked"), double(n));
    }
    const Check bad = sort_once(choice, "bitonic", 8192, SortFault::skip_pass);
    EXPECT_FALSE(bad.ok);
    EXPECT_NE(bad.message.find("not sorted"), std::string::npos) << bad.message;
  }
}

TEST(KoflerBitonicGpu, CubRadixSortsAndAPayloadLeftInPlaceFails) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  const LayoutChoice soa{kind::Soa{}};
  const Check ok = sort_once(soa, "cub-radix", 1u << 16, SortFault::none);
  EXPECT_TRUE(ok.ok) << ok.message;
  const Check bad = sort_once(soa, "cub-radix", 1u << 16, SortFault::skip_pass);
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.message.find("payload does not follow its key"), std::string::npos) << bad.message;
}

TEST(KoflerBitonicGpu, CubMergeSortsAndAHalfSortFails) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  const LayoutChoice aos{kind::Aos{}};
  const Check ok = sort_once(aos, "cub-merge", 1u << 16, SortFault::none);
  EXPECT_TRUE(ok.ok) << ok.message;
  EXPECT_FALSE(sort_once(aos, "cub-merge", 1u << 16, SortFault::skip_pass).ok);
}

TEST(KoflerBitonicGpu, AnOutputLeftPoisonedFails) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  EXPECT_FALSE(sort_once({kind::Soa{}}, "bitonic", 2048, SortFault::none, false).ok);
}

}  // namespace
}  // namespace lb::benches::kofler

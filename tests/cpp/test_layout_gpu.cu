// GPU: one kernel body, through whole-record loads and stores and through field references,
// over compile-time and run-time mappings (tile sizes, field partitions, a split holding a
// stateful cluster) of a record that mixes field sizes; the device's bytes must equal those
// of the same body run on the CPU. Without a GPU every test reports SKIPPED.

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "gpu_available.hpp"
#include "layout_testing.hpp"
#include "lb/exec/cpu_launcher.hpp"
#include "lb/exec/gpu_launcher.cuh"
#include "lb/layout/device_storage.hpp"

namespace {

using namespace layout_testing;

template <class V>
struct Bump {
  V view;
  LB_HD void operator()(std::size_t i) const {
    auto r = view.load(i);
    r.template get<A>() = static_cast<char>(r.template get<A>() + 1);
    r.template get<B>() = static_cast<short>(r.template get<B>() * 3);
    r.template get<C>() -= static_cast<int>(i);
    r.template get<D>() *= 0.5;
    r.template get<E>() += 2.0f;
    view.store(i, r);
    view.template get<D>(i) += 1.0;
  }
};

template <class M>
void expect_device_matches_host(const std::string& label, const M& m) {
  SCOPED_TRACE(label);
  HostStorage<M> host(m), back(m);
  fill(host.view(), [](std::size_t i) {
    RecordValue<Mixed> r;
    r.get<A>() = static_cast<char>(i);
    r.get<B>() = static_cast<short>(i * 7);
    r.get<C>() = static_cast<int>(i * 1000);
    r.get<D>() = static_cast<double>(i) / 3;
    r.get<E>() = static_cast<float>(i) * 1.5f;
    return r;
  });
  DeviceStorage<M> device(m);
  device.upload(host);
  lb::exec::launch_for_each(m.size(), 128, nullptr, Bump<View<M>>{device.view()});
  device.download(back);
  lb::exec::run_serial(m.size(), Bump<View<M>>{host.view()});
  for (std::size_t b = 0; b < M::blob_count; ++b) {
    const auto* want = reinterpret_cast<const unsigned char*>(host.blob(b));
    const auto* got = reinterpret_cast<const unsigned char*>(back.blob(b));
    std::size_t k = 0;
    while (k < m.blob_bytes(b) && want[k] == got[k]) ++k;
    EXPECT_EQ(k, m.blob_bytes(b)) << "blob " << b << ": first different byte at " << k << " (host "
                                  << int(want[k]) << ", device " << int(got[k]) << ")";
  }
}

TEST(LayoutGpu, RuntimeMappingsGiveTheHostBytes) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  using K = ClusterLayout::Kind;
  const std::size_t n = 1000;  // not a multiple of the block or of the tiles
  expect_device_matches_host("AoS", AoSMapping<Mixed>{n});
  expect_device_matches_host("SoA", SoAMapping<Mixed>{n});
  expect_device_matches_host("AoSoA<4>", AoSoAMapping<Mixed, 4>{n});
  expect_device_matches_host("RuntimeAoSoA 4", RuntimeAoSoAMapping<Mixed>(n, 4));
  expect_device_matches_host("RuntimeAoSoA 3", RuntimeAoSoAMapping<Mixed>(n, 3));
  expect_device_matches_host("partition tiled 8 + SoA",
                             PartitionMapping<Mixed>(n, {{0, 1, 0, 1, 0}, {{K::tiled, 8}, {K::soa}}}));
  expect_device_matches_host("partition AoS + tiled 3",
                             PartitionMapping<Mixed>(n, {{1, 0, 1, 0, 1}, {{K::aos}, {K::tiled, 3}}}));
  using Stateful = FirstAndRest<Mixed, SoA, RuntimeAoSoA>;
  expect_device_matches_host("Split SoA + RuntimeAoSoA 5",
                             Stateful(Stateful::sub_mapping<0>{n}, Stateful::sub_mapping<1>(n, 5)));
}

}  // namespace

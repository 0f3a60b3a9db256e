// GPU: one kernel body, through whole-record loads and stores and through field references,
// over compile-time and run-time mappings (tile sizes, field partitions, a split holding a
// stateful cluster) of a record that mixes field sizes, and over every inner-array strategy in
// AoS and SoA (views built on the host, arenas reached by offsets); the device's bytes must
// equal those of the same body run on the CPU. Records laid out and gathered on the device
// (device_records.hpp) give the bytes of a layout built on the host. Without a GPU every test
// reports SKIPPED.

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "gpu_available.hpp"
#include "layout_testing.hpp"
#include "lb/exec/cpu_launcher.hpp"
#include "lb/exec/gpu_launcher.cuh"
#include "lb/layout/device_records.cuh"
#include "lb/layout/device_storage.hpp"
#include "lb/layout/inner_array.hpp"

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
void expect_same_blobs(const HostStorage<M>& host, const HostStorage<M>& back) {
  const M& m = host.mapping();
  for (std::size_t b = 0; b < M::blob_count; ++b) {
    const auto* want = reinterpret_cast<const unsigned char*>(host.blob(b));
    const auto* got = reinterpret_cast<const unsigned char*>(back.blob(b));
    std::size_t k = 0;
    while (k < m.blob_bytes(b) && want[k] == got[k]) ++k;
    EXPECT_EQ(k, m.blob_bytes(b)) << "blob " << b << ": first different byte at " << k << " (host "
                                  << int(want[k]) << ", device " << int(got[k]) << ")";
  }
}

RecordValue<Mixed> mixed_value(std::size_t i) {
  RecordValue<Mixed> r;
  r.get<A>() = static_cast<char>(i);
  r.get<B>() = static_cast<short>(i * 7);
  r.get<C>() = static_cast<int>(i * 1000);
  r.get<D>() = static_cast<double>(i) / 3;
  r.get<E>() = static_cast<float>(i) * 1.5f;
  return r;
}

template <class M>
void expect_device_matches_host(const std::string& label, const M& m) {
  SCOPED_TRACE(label);
  HostStorage<M> host(m), back(m);
  fill(host.view(), mixed_value);
  DeviceStorage<M> device(m);
  device.upload(host);
  lb::exec::launch_for_each(m.size(), 128, nullptr, Bump<View<M>>{device.view()});
  device.download(back);
  lb::exec::run_serial(m.size(), Bump<View<M>>{host.view()});
  expect_same_blobs(host, back);
}

//! n of the mapping's records uploaded through a stage of 7 records (chunks and a remainder):
//! the bytes of a host layout holding them over zeros; downloaded again, the same records.
template <class M>
void expect_records_round_trip(const std::string& label, const M& m, std::size_t n) {
  SCOPED_TRACE(label);
  using Value = RecordValue<Mixed>;
  std::vector<Value> records(n);
  for (std::size_t i = 0; i < n; ++i) records[i] = mixed_value(i + 1);
  HostStorage<M> host(m), back(m);  // zeroed
  for (std::size_t i = 0; i < n; ++i) host.view().store(i, records[i]);
  DeviceStorage<M> device(m);
  const auto v = device.view();
  for (std::size_t b = 0; b < M::blob_count; ++b) lb::check(cudaMemset(v.blobs[b], 0, m.blob_bytes(b)), "cudaMemset");
  upload_records(v, records.data(), n, nullptr, 7 * sizeof(Value));
  device.download(back);
  expect_same_blobs(host, back);
  std::vector<Value> got(n);
  download_records(v, got.data(), n, nullptr, 7 * sizeof(Value));
  for (std::size_t i = 0; i < n; ++i) {
    bool same = true;
    for_each_field<Mixed>([&](auto f) {
      constexpr std::size_t F = decltype(f)::value;
      same = same && got[i].template at<F>() == records[i].template at<F>();
    });
    ASSERT_TRUE(same) << "record " << i << " came back different";
  }
  EXPECT_THROW(upload_records(v, records.data(), m.size() + 1, nullptr), std::invalid_argument);
}

// Inner arrays: a record {int A; char C; InnerArray<int, 6> B}; every element k < length
// gets A + k * C through the view's references (a read of the length header and, for none
// and partial, of the arena offset per element).
using ArrayRecord = Record<Field<A, int>, Field<C, char>, Field<B, InnerArray<int, 6>>>;

template <class V>
struct AddToElements {
  V view;
  LB_HD void operator()(std::size_t i) const {
    const int a = view.template get<A>(i), c = view.template get<C>(i);
    const std::uint32_t length = view.template length<B>(i);
    for (std::uint32_t k = 0; k < length; ++k) view.template get<B>(i, k) += a + static_cast<int>(k) * c;
  }
};

template <class M>
void expect_device_matches_host_inner(const std::string& label, std::size_t partial_inline) {
  SCOPED_TRACE(label);
  const std::size_t n = 300;  // small: compute-sanitizer runs this
  std::mt19937 rng(12);
  std::vector<std::uint32_t> lengths(n);
  for (auto& l : lengths) l = static_cast<std::uint32_t>(rng() % (M::has_arena ? 14 : 7));  // past Max = 6 where allowed
  auto host = inner_host_storage<M>({lengths}, partial_inline), back = inner_host_storage<M>({lengths}, partial_inline);
  const auto hv = host.view();
  for (std::size_t i = 0; i < n; ++i) {
    hv.template get<A>(i) = static_cast<int>(i);
    hv.template get<C>(i) = static_cast<char>(i % 7);
    for (std::size_t k = 0; k < lengths[i]; ++k) hv.template get<B>(i, k) = static_cast<int>(1000 * i + k);
  }
  DeviceStorage<M> device(host.mapping());
  device.upload(host);
  lb::exec::launch_for_each(n, 128, nullptr, AddToElements<View<M>>{device.view()});
  device.download(back);
  lb::exec::run_serial(n, AddToElements<View<M>>{hv});
  expect_same_blobs(host, back);
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

TEST(LayoutGpu, RecordsLaidOutAndGatheredOnTheDeviceGiveTheHostBytes) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  using K = ClusterLayout::Kind;
  const std::size_t size = 1000, n = 611;  // records beyond n stay zero
  expect_records_round_trip("AoS", AoSMapping<Mixed>{size}, n);
  expect_records_round_trip("SoA", SoAMapping<Mixed>{size}, n);
  expect_records_round_trip("AoSoA<4>", AoSoAMapping<Mixed, 4>{size}, n);
  expect_records_round_trip("RuntimeAoSoA 3", RuntimeAoSoAMapping<Mixed>(size, 3), n);
  expect_records_round_trip("partition tiled 8 + SoA",
                            PartitionMapping<Mixed>(size, {{0, 1, 0, 1, 0}, {{K::tiled, 8}, {K::soa}}}), n);
  expect_records_round_trip("AoS, every record", AoSMapping<Mixed>{size}, size);
}

TEST(LayoutGpu, InnerArraysEveryStrategyGivesTheHostBytes) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU visible";
  using S = InnerStrategy;
  using L = InnerLayout;
  expect_device_matches_host_inner<InnerArrayMapping<ArrayRecord, L::aos, S::none>>("aos none", 0);
  expect_device_matches_host_inner<InnerArrayMapping<ArrayRecord, L::soa, S::none>>("soa none", 0);
  for (std::size_t inline_count : {0, 3, 6}) {
    expect_device_matches_host_inner<InnerArrayMapping<ArrayRecord, L::aos, S::partial>>("aos partial", inline_count);
    expect_device_matches_host_inner<InnerArrayMapping<ArrayRecord, L::soa, S::partial>>("soa partial", inline_count);
  }
  expect_device_matches_host_inner<InnerArrayMapping<ArrayRecord, L::aos, S::full>>("aos full", 0);
  expect_device_matches_host_inner<InnerArrayMapping<ArrayRecord, L::soa, S::full>>("soa full", 0);
  expect_device_matches_host_inner<InnerArrayMapping<ArrayRecord, L::aos, S::object>>("aos object", 0);
  expect_device_matches_host_inner<InnerArrayMapping<ArrayRecord, L::soa, S::object>>("soa object", 0);
}

}  // namespace

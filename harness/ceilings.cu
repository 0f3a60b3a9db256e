#include "lb/harness/ceilings.hpp"

#include <algorithm>
#include <vector>

#include "lb/common/cuda_check.hpp"

namespace lb::harness {
namespace {

constexpr int kChains = 8;       // independent dependency chains per thread (hide latency)
constexpr int kThreads = 256;

template <class T>
__global__ void fma_kernel(T* sink, T a, T b, int iterations) {
  T acc[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) acc[c] = static_cast<T>(threadIdx.x + c);
  for (int k = 0; k < iterations; ++k) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) acc[c] = fma(acc[c], a, b);
  }
  T sum = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) sum += acc[c];
  if (sum == static_cast<T>(-1)) *sink = sum;  // keeps the work alive; never true
}

__global__ void rcp_kernel(float* sink, int iterations) {
  float v[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) v[c] = 1.5f + threadIdx.x + c;
  for (int k = 0; k < iterations; ++k) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) {
      // An FMA between reciprocals keeps the chain from simplifying; MUFU (16/clk/SM)
      // saturates long before the FMA pipe (128/clk/SM).
      asm volatile("rcp.approx.ftz.f32 %0, %0;" : "+f"(v[c]));
      v[c] = fmaf(v[c], 0.5f, 1.0f);
    }
  }
  float sum = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) sum += v[c];
  if (sum == -1.0f) *sink = sum;
}

//! Best (shortest) of a few timed runs of `launch`, in seconds.
template <class Launch>
double best_seconds(Launch launch, int runs = 5) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  launch();  // warm-up
  float best = 1e30f;
  for (int r = 0; r < runs; ++r) {
    check(cudaEventRecord(start), "cudaEventRecord");
    launch();
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    best = std::min(best, ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return best / 1e3;
}

//! The bus ceilings: kBusCopyBytes each way between a device buffer and pinned, then
//! pageable, host memory (touched first, so no page faults are timed). A pageable copy
//! returns once the driver has staged it, so the events around it span the whole copy.
void measure_bus(Ceilings& c) {
  const std::size_t bytes = kBusCopyBytes;
  void* device = nullptr;
  void* pinned = nullptr;
  check(cudaMalloc(&device, bytes), "cudaMalloc (bus ceiling)");
  check(cudaMallocHost(&pinned, bytes), "cudaMallocHost (bus ceiling)");
  std::vector<unsigned char> pageable(bytes, 1);
  auto rate = [&](void* dst, const void* src, cudaMemcpyKind kind) {
    return double(bytes) / best_seconds([&] { check(cudaMemcpyAsync(dst, src, bytes, kind), "cudaMemcpy (bus ceiling)"); }) /
           1e9;
  };
  check(cudaMemset(device, 1, bytes), "cudaMemset");
  std::fill_n(static_cast<unsigned char*>(pinned), bytes, 1);
  c.h2d_pinned_gbs = rate(device, pinned, cudaMemcpyHostToDevice);
  c.d2h_pinned_gbs = rate(pinned, device, cudaMemcpyDeviceToHost);
  c.h2d_pageable_gbs = rate(device, pageable.data(), cudaMemcpyHostToDevice);
  c.d2h_pageable_gbs = rate(pageable.data(), device, cudaMemcpyDeviceToHost);
  check(cudaFreeHost(pinned), "cudaFreeHost");
  check(cudaFree(device), "cudaFree");
}

}  // namespace

nlohmann::json Ceilings::to_json() const {
  return {{"copy_bandwidth_gbs", copy_bandwidth_gbs},
          {"fp32_fma_per_s", fp32_fma_per_s},
          {"fp64_fma_per_s", fp64_fma_per_s},
          {"fp32_rcp_per_s", fp32_rcp_per_s},
          {"h2d_pinned_gbs", h2d_pinned_gbs},
          {"d2h_pinned_gbs", d2h_pinned_gbs},
          {"h2d_pageable_gbs", h2d_pageable_gbs},
          {"d2h_pageable_gbs", d2h_pageable_gbs}};
}

Ceilings measure_ceilings() {
  int device = 0, sms = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  const int blocks = sms * 8;
  const double threads = static_cast<double>(blocks) * kThreads;
  Ceilings c;

  void* sink = nullptr;
  check(cudaMalloc(&sink, 64), "cudaMalloc");
  constexpr int kIter = 4096;
  c.fp32_fma_per_s = threads * kChains * kIter / best_seconds([&] {
    fma_kernel<float><<<blocks, kThreads>>>(static_cast<float*>(sink), 0.999f, 0.001f, kIter);
    check_launch("fma_kernel<float>");
  });
  c.fp64_fma_per_s = threads * kChains * (kIter / 4) / best_seconds([&] {
    fma_kernel<double><<<blocks, kThreads>>>(static_cast<double*>(sink), 0.999, 0.001, kIter / 4);
    check_launch("fma_kernel<double>");
  });
  c.fp32_rcp_per_s = threads * kChains * (kIter / 4) / best_seconds([&] {
    rcp_kernel<<<blocks, kThreads>>>(static_cast<float*>(sink), kIter / 4);
    check_launch("rcp_kernel");
  });
  check(cudaFree(sink), "cudaFree");

  const std::size_t bytes = std::size_t{512} << 20;
  void *src = nullptr, *dst = nullptr;
  check(cudaMalloc(&src, bytes), "cudaMalloc (copy ceiling)");
  check(cudaMalloc(&dst, bytes), "cudaMalloc (copy ceiling)");
  check(cudaMemset(src, 1, bytes), "cudaMemset");
  c.copy_bandwidth_gbs = 2.0 * bytes / best_seconds([&] {
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy (copy ceiling)");
  }) / 1e9;
  check(cudaFree(src), "cudaFree");
  check(cudaFree(dst), "cudaFree");
  measure_bus(c);
  return c;
}

}  // namespace lb::harness

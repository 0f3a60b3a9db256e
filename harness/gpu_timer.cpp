#include "lb/harness/gpu_timer.hpp"

#include <algorithm>
#include <cstdint>

#include <nvtx3/nvToolsExt.h>

#include "lb/common/cuda_check.hpp"
#include "lb/harness/nvml.hpp"

namespace lb::harness {

GpuTimer::GpuTimer(const std::string& device_uuid) : uuid_(device_uuid) {
  check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  check(cudaEventCreate(&start_), "cudaEventCreate");
  check(cudaEventCreate(&stop_), "cudaEventCreate");
  int device = 0, l2 = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "cudaDeviceGetAttribute");
  flush_bytes_ = std::max<std::size_t>(2 * static_cast<std::size_t>(l2), 1 << 20);
  check(cudaMalloc(&flush_buffer_, flush_bytes_), "cudaMalloc (L2 flush buffer)");
}

GpuTimer::~GpuTimer() {
  cudaFree(flush_buffer_);
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
  cudaStreamDestroy(stream_);
}

void GpuTimer::flush_l2() {
  check(cudaMemsetAsync(flush_buffer_, 0, flush_bytes_, stream_), "cudaMemset (L2 flush)");
}

double GpuTimer::time(const std::function<void(cudaStream_t)>& launch) {
  check(cudaEventRecord(start_, stream_), "cudaEventRecord");
  launch(stream_);
  check(cudaEventRecord(stop_, stream_), "cudaEventRecord");
  check(cudaEventSynchronize(stop_), "cudaEventSynchronize (benchmark run)");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
  return ms / 1e3;
}

double GpuTimer::run(benchmark::State& state, const std::string& name,
                     const std::function<void(cudaStream_t)>& launch, bool flush_l2,
                     const std::function<void(cudaStream_t)>& before) {
  return run_self_timed(state, name, [&](cudaStream_t) { return time(launch); }, flush_l2, before);
}

double GpuTimer::run_self_timed(benchmark::State& state, const std::string& name,
                                const std::function<double(cudaStream_t)>& timed_run, bool flush_l2,
                                const std::function<void(cudaStream_t)>& before) {
  const Nvml& nvml = Nvml::for_device(uuid_);
  unsigned clock_min = ~0u, clock_max = 0;
  std::uint64_t reasons = 0;
  bool sampled = false;
  double total_s = 0;
  nvtxRangePushA(name.c_str());
  for (auto _ : state) {
    if (before) before(stream_);
    if (flush_l2) this->flush_l2();
    const double seconds = timed_run(stream_);
    state.SetIterationTime(seconds);
    total_s += seconds;
    if (const auto clock = nvml.sm_clock_mhz()) {
      clock_min = std::min(clock_min, *clock);
      clock_max = std::max(clock_max, *clock);
      sampled = true;
    }
    if (const auto r = nvml.throttle_reasons()) reasons |= *r;
  }
  nvtxRangePop();
  if (sampled) {
    state.counters["sm_clock_mhz_min"] = clock_min;
    state.counters["sm_clock_mhz_max"] = clock_max;
  }
  state.counters["throttle_reasons"] = static_cast<double>(reasons);
  state.counters["throttled"] = (reasons & Nvml::kSlowdownMask) != 0 ? 1 : 0;
  return state.iterations() > 0 ? total_s / static_cast<double>(state.iterations()) : 0.0;
}

}  // namespace lb::harness

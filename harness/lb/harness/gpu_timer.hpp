#pragma once
//! Times GPU work inside a Google Benchmark loop with CUDA events (reported as manual
//! time). Before each timed launch the L2 cache is flushed (a memset of twice its size, as
//! nvbench does) so no iteration starts with the previous one's data in cache. SM clock and
//! throttle reasons are sampled from NVML after each iteration and become counters. The
//! timed loop is one NVTX range named as the benchmark, so ncu/nsys can pick a variant.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <string>

#include <benchmark/benchmark.h>

namespace lb::harness {

class GpuTimer {
 public:
  explicit GpuTimer(const std::string& device_uuid);
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;
  ~GpuTimer();

  cudaStream_t stream() const { return stream_; }

  //! The benchmark loop: per iteration, flush L2 (if asked), time `launch(stream)`.
  //! Adds counters sm_clock_mhz_min/max, throttle_reasons and throttled. Returns the mean
  //! time of one iteration in seconds.
  //! `before(stream)`, when given, runs before each flush and is not timed (e.g. restoring a
  //! sort's input).
  double run(benchmark::State& state, const std::string& name, const std::function<void(cudaStream_t)>& launch,
             bool flush_l2 = true, const std::function<void(cudaStream_t)>& before = {});

  //! The same loop for work that times itself (e.g. a program whose timed region
  //! includes host work and transfers, measured by its own CUDA events): `timed_run(stream)`
  //! runs one iteration, waits for it and returns its seconds.
  double run_self_timed(benchmark::State& state, const std::string& name,
                        const std::function<double(cudaStream_t)>& timed_run, bool flush_l2 = true,
                        const std::function<void(cudaStream_t)>& before = {});

  //! One iteration's parts outside a benchmark loop (a trial's runs, lb/harness/trial.hpp):
  //! flush L2 on the stream, and time `launch(stream)` with CUDA events (waits for it).
  void flush_l2();
  double time(const std::function<void(cudaStream_t)>& launch);

 private:
  std::string uuid_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  void* flush_buffer_ = nullptr;
  std::size_t flush_bytes_ = 0;
};

}  // namespace lb::harness

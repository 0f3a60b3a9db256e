#pragma once
//! Definitions of device_records.hpp (nvcc only): chunks of at most the stage's bytes through
//! one device stage, each copied and then stored (or loaded and then copied) by a kernel, all in
//! stream order.

#include <algorithm>
#include <stdexcept>
#include <string>

#include "lb/common/cuda_check.hpp"
#include "lb/exec/gpu_launcher.cuh"
#include "lb/layout/device_records.hpp"

namespace lb::layout {
namespace device_records_detail {

template <class M>
struct StoreRecords {
  View<M> view;
  const RecordValue<typename M::record>* stage;
  std::size_t first;
  LB_HD void operator()(std::size_t k) const { view.store(first + k, stage[k]); }
};

template <class M>
struct LoadRecords {
  View<M> view;
  RecordValue<typename M::record>* stage;
  std::size_t first;
  LB_HD void operator()(std::size_t k) const { stage[k] = view.load(first + k); }
};

//! The stage: at most `bytes` of records (at least one, at most n), freed after `stream` drains.
template <class Value>
class Stage {
 public:
  Stage(std::size_t n, std::size_t bytes, cudaStream_t stream)
      : records_(std::clamp<std::size_t>(bytes / sizeof(Value), 1, n)), stream_(stream) {
    void* p = nullptr;
    check(cudaMalloc(&p, records_ * sizeof(Value)), "cudaMalloc (record stage)");
    p_ = static_cast<Value*>(p);
    // A record's padding is never stored by the kernels: zeroed, the copy back reads defined
    // bytes (compute-sanitizer's initcheck flagged the download's copy) and hands out zeros.
    check(cudaMemsetAsync(p_, 0, records_ * sizeof(Value), stream_), "cudaMemset (record stage)");
  }
  ~Stage() {
    cudaStreamSynchronize(stream_);  // the last chunk's copy or kernel may still use it
    cudaFree(p_);
  }
  Stage(const Stage&) = delete;
  Stage& operator=(const Stage&) = delete;
  Value* get() const { return p_; }
  std::size_t records() const { return records_; }

 private:
  std::size_t records_;
  cudaStream_t stream_;
  Value* p_ = nullptr;
};

inline void check_count(std::size_t n, std::size_t size, const char* what) {
  if (n > size)
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(n) + " records for a view of " +
                                std::to_string(size));
}

}  // namespace device_records_detail

template <class M>
void upload_records(const View<M>& view, const RecordValue<typename M::record>* records, std::size_t n,
                    cudaStream_t stream, std::size_t stage_bytes) {
  using Value = RecordValue<typename M::record>;
  device_records_detail::check_count(n, view.size(), "upload_records");
  if (n == 0) return;
  device_records_detail::Stage<Value> stage(n, stage_bytes, stream);
  for (std::size_t first = 0; first < n; first += stage.records()) {
    const std::size_t count = std::min(stage.records(), n - first);
    // in stream order after the previous chunk's kernel, which read the stage
    check(cudaMemcpyAsync(stage.get(), records + first, count * sizeof(Value), cudaMemcpyHostToDevice, stream),
          "cudaMemcpy (records to the stage)");
    exec::launch_for_each(count, 256, stream, device_records_detail::StoreRecords<M>{view, stage.get(), first});
  }
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (upload_records)");
}

template <class M>
void download_records(const View<M>& view, RecordValue<typename M::record>* records, std::size_t n,
                      cudaStream_t stream, std::size_t stage_bytes) {
  using Value = RecordValue<typename M::record>;
  device_records_detail::check_count(n, view.size(), "download_records");
  if (n == 0) return;
  device_records_detail::Stage<Value> stage(n, stage_bytes, stream);
  for (std::size_t first = 0; first < n; first += stage.records()) {
    const std::size_t count = std::min(stage.records(), n - first);
    exec::launch_for_each(count, 256, stream, device_records_detail::LoadRecords<M>{view, stage.get(), first});
    check(cudaMemcpyAsync(records + first, stage.get(), count * sizeof(Value), cudaMemcpyDeviceToHost, stream),
          "cudaMemcpy (records from the stage)");
  }
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (download_records)");
}

}  // namespace lb::layout

#pragma once
// Pinned (page-locked) host memory for the CUDA experiments' transfers (internal to
// lb_kriging): copies from and to it run at the bus's rate and asynchronously with the host,
// where pageable memory is staged by the driver through its own pinned buffers (about a
// sixth of the rate on the H100 machine) and holds the host until each copy is done.
// Allocated outside the timed regions (cudaMallocHost pins and maps every page: slow).

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "lb/common/cuda_check.hpp"
#include "lb/kriging/cpu.hpp"

namespace lb::kriging {

template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t count) : count_(count) {
    if (count)
      check(cudaMallocHost(reinterpret_cast<void**>(&ptr_), count * sizeof(T)), "kriging: cudaMallocHost (pinned host buffer)");
  }
  ~PinnedBuffer() {
    if (ptr_) cudaFreeHost(ptr_);
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  PinnedBuffer(PinnedBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    return *this;
  }
  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

//! A run's input arrays in one pinned buffer, copied once (not timed): the uploads' source.
template <class T>
struct PinnedInput {
  PinnedBuffer<T> buffer;
  const T *well_x = nullptr, *well_y = nullptr, *grid_x = nullptr, *grid_y = nullptr, *values = nullptr;

  explicit PinnedInput(const KrigingInput<T>& in)
      : buffer(in.well_x.size() + in.well_y.size() + in.grid_x.size() + in.grid_y.size() + in.values.size()) {
    T* next = buffer.get();
    auto put = [&next](const std::vector<T>& v) {
      const T* at = next;
      next = std::copy(v.begin(), v.end(), next);
      return at;
    };
    well_x = put(in.well_x);
    well_y = put(in.well_y);
    grid_x = put(in.grid_x);
    grid_y = put(in.grid_y);
    values = put(in.values);
  }
};

}  // namespace lb::kriging

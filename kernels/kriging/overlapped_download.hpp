#pragma once
// The download of a surface-major output (surface h's grid point p at h P + p, on the device
// and on the host alike) chunk of grid points by chunk, each on a copy stream as soon as the
// work stream has written it: the download of one chunk runs while the next is computed
// (experiments 7 and 8; internal to lb_kriging). Into pinned host memory the copies run
// asynchronously; into pageable memory they are still correct, only not overlapped.

#include <cuda_runtime_api.h>

#include <cstddef>

#include "lb/common/cuda_check.hpp"

namespace lb::kriging {

class OverlappedDownload {
 public:
  OverlappedDownload() {
    check(cudaStreamCreateWithFlags(&copy_, cudaStreamNonBlocking), "kriging: create the download stream");
    check(cudaEventCreateWithFlags(&written_, cudaEventDisableTiming), "kriging: cudaEventCreate");
    check(cudaEventCreateWithFlags(&copied_, cudaEventDisableTiming), "kriging: cudaEventCreate");
  }
  ~OverlappedDownload() {
    cudaEventDestroy(written_);
    cudaEventDestroy(copied_);
    cudaStreamDestroy(copy_);
  }
  OverlappedDownload(const OverlappedDownload&) = delete;
  OverlappedDownload& operator=(const OverlappedDownload&) = delete;

  //! Once the work enqueued on s so far is done: grid points [first, first + count) of every
  //! one of `surfaces` surfaces of `points`, device -> host, on the copy stream. (A wait
  //! takes the event's latest record at the time of the call, so one event serves all.)
  template <class T>
  void chunk(cudaStream_t s, T* host, const T* device, std::size_t points, std::size_t surfaces, std::size_t first,
             std::size_t count) {
    if (count == 0) return;
    check(cudaEventRecord(written_, s), "kriging: record a chunk written");
    check(cudaStreamWaitEvent(copy_, written_, 0), "kriging: download waits for its chunk");
    const std::size_t pitch = points * sizeof(T);
    check(cudaMemcpy2DAsync(host + first, pitch, device + first, pitch, count * sizeof(T), surfaces,
                            cudaMemcpyDeviceToHost, copy_),
          "kriging: download a chunk of estimates");
  }

  //! s waits for every chunk enqueued so far (its next event then marks them downloaded).
  void join(cudaStream_t s) {
    check(cudaEventRecord(copied_, copy_), "kriging: record the downloads");
    check(cudaStreamWaitEvent(s, copied_, 0), "kriging: wait for the downloads");
  }

 private:
  cudaStream_t copy_ = nullptr;
  cudaEvent_t written_ = nullptr, copied_ = nullptr;
};

//! How many chunks a mesh of `points` grid points is downloaded in: as many as hold at least
//! `min_points` each (a launch that still fills the GPU), at most kMaxOverlapChunks.
inline constexpr std::size_t kMaxOverlapChunks = 4;
inline std::size_t overlap_chunks(std::size_t points, std::size_t min_points) {
  const std::size_t n = min_points > 0 ? points / min_points : 1;
  return n < 1 ? 1 : (n > kMaxOverlapChunks ? kMaxOverlapChunks : n);
}

}  // namespace lb::kriging

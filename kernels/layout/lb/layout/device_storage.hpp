#pragma once
//! Device-side owner of a layout's blobs (cudaMalloc), filled from and read back into a
//! HostStorage of the same mapping byte for byte.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <stdexcept>

#include "lb/common/cuda_check.hpp"
#include "lb/layout/host_storage.hpp"

namespace lb::layout {

//! Sets every byte of every blob of a device view to `byte` (0: zeros, as a host layout's
//! padding; 0xFF: a poison no correct run leaves), in stream order.
template <StorageMapping M>
void fill_blobs(const View<M>& v, int byte, cudaStream_t stream = nullptr) {
  for (std::size_t b = 0; b < M::blob_count; ++b)
    if (v.mapping.blob_bytes(b) > 0)
      check(cudaMemsetAsync(v.blobs[b], byte, v.mapping.blob_bytes(b), stream), "cudaMemsetAsync (layout blobs)");
}

template <StorageMapping M>
class DeviceStorage {
 public:
  explicit DeviceStorage(const M& m) : mapping_(m) {
    for (std::size_t b = 0; b < M::blob_count; ++b) {
      void* p = nullptr;
      check(cudaMalloc(&p, bytes(b)), "cudaMalloc (layout blob)");
      blobs_[b] = static_cast<std::byte*>(p);
    }
  }
  DeviceStorage(const DeviceStorage&) = delete;
  DeviceStorage& operator=(const DeviceStorage&) = delete;
  ~DeviceStorage() {
    for (std::byte* p : blobs_) cudaFree(p);
  }

  void upload(const HostStorage<M>& host, cudaStream_t stream = nullptr) {
    for (std::size_t b = 0; b < M::blob_count; ++b)
      check(cudaMemcpyAsync(blobs_[b], host.blob(b), mapping_.blob_bytes(b), cudaMemcpyHostToDevice, stream),
            "cudaMemcpy (upload layout blob)");
  }
  void download(HostStorage<M>& host, cudaStream_t stream = nullptr) const {
    for (std::size_t b = 0; b < M::blob_count; ++b)
      check(cudaMemcpyAsync(host.blob(b), blobs_[b], mapping_.blob_bytes(b), cudaMemcpyDeviceToHost, stream),
            "cudaMemcpy (download layout blob)");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (download)");
  }

  //! Every blob of `other` (a storage of the same mapping) copied in on the device, enqueued
  //! on `stream`: a snapshot taken or restored without the host.
  void copy_from(const DeviceStorage& other, cudaStream_t stream = nullptr) {
    for (std::size_t b = 0; b < M::blob_count; ++b) {
      if (other.mapping_.blob_bytes(b) != mapping_.blob_bytes(b))
        throw std::invalid_argument("DeviceStorage::copy_from: the blobs' sizes differ (another mapping)");
      check(cudaMemcpyAsync(blobs_[b], other.blobs_[b], mapping_.blob_bytes(b), cudaMemcpyDeviceToDevice, stream),
            "cudaMemcpy (copy layout blob on the device)");
    }
  }

  View<M> view() const {
    View<M> v{mapping_, {}};
    for (std::size_t b = 0; b < M::blob_count; ++b) v.blobs[b] = blobs_[b];
    return v;
  }
  const M& mapping() const { return mapping_; }

 private:
  std::size_t bytes(std::size_t b) const { return mapping_.blob_bytes(b) ? mapping_.blob_bytes(b) : 1; }
  M mapping_;
  std::byte* blobs_[M::blob_count] = {};
};

}  // namespace lb::layout

#pragma once
//! Host-side owner of a layout's blobs, and conversion to and from a canonical form (a
//! function giving record i's value). Used to build inputs, read outputs and in tests.

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>

#include "lb/layout/view.hpp"

namespace lb::layout {

template <StorageMapping M>
class HostStorage {
 public:
  explicit HostStorage(const M& mapping) : mapping_(mapping) {
    for (std::size_t b = 0; b < M::blob_count; ++b) {
      const std::size_t align = mapping_.blob_alignment(b) < 64 ? 64 : mapping_.blob_alignment(b);
      const std::size_t bytes = detail::round_up(mapping_.blob_bytes(b) ? mapping_.blob_bytes(b) : 1, align);
      void* p = std::aligned_alloc(align, bytes);
      if (p == nullptr) throw std::bad_alloc();
      blobs_[b].reset(static_cast<std::byte*>(p));
      __builtin_memset(p, 0, bytes);
    }
  }

  View<M> view() const {
    View<M> v{mapping_, {}};
    for (std::size_t b = 0; b < M::blob_count; ++b) v.blobs[b] = blobs_[b].get();
    return v;
  }
  const M& mapping() const { return mapping_; }
  //! Every blob of `other` (a storage of the same mapping) copied in.
  void copy_from(const HostStorage& other) {
    for (std::size_t b = 0; b < M::blob_count; ++b) {
      if (other.mapping_.blob_bytes(b) != mapping_.blob_bytes(b))
        throw std::invalid_argument("HostStorage::copy_from: the blobs' sizes differ (another mapping)");
      std::memcpy(blob(b), other.blob(b), mapping_.blob_bytes(b));
    }
  }
  std::size_t size() const { return mapping_.size(); }
  const std::byte* blob(std::size_t b) const { return blobs_[b].get(); }
  std::byte* blob(std::size_t b) { return blobs_[b].get(); }

 private:
  struct Free {
    void operator()(std::byte* p) const { std::free(p); }
  };
  M mapping_;
  std::unique_ptr<std::byte, Free> blobs_[M::blob_count];
};

//! Stores value_of(i) into every record of the view.
template <class M, class ValueOf>
void fill(const View<M>& view, ValueOf&& value_of) {
  for (std::size_t i = 0; i < view.size(); ++i) view.store(i, value_of(i));
}

}  // namespace lb::layout

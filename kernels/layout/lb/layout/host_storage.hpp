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

//! Tag of a HostStorage whose every blob byte the caller writes before reading any (a download,
//! a fill on several threads): no zero fill first, the pages are first touched by the writer.
struct Uninitialized {};
inline constexpr Uninitialized uninitialized{};

template <StorageMapping M>
class HostStorage {
 public:
  //! Every byte zero.
  explicit HostStorage(const M& mapping) : HostStorage(mapping, uninitialized) {
    for (std::size_t b = 0; b < M::blob_count; ++b) __builtin_memset(blobs_[b].get(), 0, allocated_bytes(b));
  }
  HostStorage(const M& mapping, Uninitialized) : mapping_(mapping) {
    for (std::size_t b = 0; b < M::blob_count; ++b) {
      void* p = std::aligned_alloc(alignment(b), allocated_bytes(b));
      if (p == nullptr) throw std::bad_alloc();
      blobs_[b].reset(static_cast<std::byte*>(p));
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
  std::size_t alignment(std::size_t b) const { return mapping_.blob_alignment(b) < 64 ? 64 : mapping_.blob_alignment(b); }
  std::size_t allocated_bytes(std::size_t b) const {
    return detail::round_up(mapping_.blob_bytes(b) ? mapping_.blob_bytes(b) : 1, alignment(b));
  }
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

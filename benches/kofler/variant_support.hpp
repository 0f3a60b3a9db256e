#pragma once
//! What the Kofler programs' variants share: poison an output, read it back in record order,
//! keep the host reference of the size being run, a check from an agreement.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "kofler/layout_choice.hpp"
#include "lb/common/cuda_check.hpp"
#include "lb/harness/program.hpp"
#include "lb/harness/suite.hpp"
#include "lb/layout/device_storage.hpp"
#include "lb/kofler/agreement.hpp"
#include "lb/layout/device_storage.hpp"
#include "lb/layout/view.hpp"

namespace lb::benches::kofler {

//! Fills every blob of a device view with 0xFF bytes: NaN in every float and double, 2^32 - 1
//! in every unsigned: values no correct run leaves.
template <class M>
void poison_blobs(const layout::View<M>& v, cudaStream_t stream) {
  layout::fill_blobs(v, 0xFF, stream);
}

//! The harness's check from an agreement: its verdict (message prefixed with `context`) and
//! its counters.
inline Check check_of(const lb::kofler::Agreement& a, const std::string& context) {
  return {a.ok, a.ok ? "" : context + ": " + a.message, false,
          {{"max_abs_err", a.max_abs_err},
           {"max_rel_err", a.max_rel_err},
           {"tolerance", a.tolerance},
           {"err_over_tolerance", a.worst_ratio},
           {"checked", double(a.checked)}}};
}

//! The records in index order, each converted by to_plain (the program's plain struct).
template <class M, class ToPlain>
auto download_records(const layout::DeviceStorage<M>& storage, const M& mapping, cudaStream_t stream,
                      ToPlain&& to_plain) {
  layout::HostStorage<M> host(mapping);
  storage.download(host, stream);
  const auto v = host.view();
  std::vector<decltype(to_plain(v.load(0)))> out(mapping.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = to_plain(v.load(i));
  return out;
}

//! The value for the last key asked for, made again only when the key changes: benchmarks are
//! planned size by size, so one entry spares every layout of a size its host reference.
template <class Key, class Value>
class LastOne {
 public:
  template <class Make>
  std::shared_ptr<const Value> get(const Key& key, Make&& make) {
    std::lock_guard lock(mutex_);
    if (key_ != key) {
      value_.reset();  // free the old one before making the new
      value_ = std::make_shared<const Value>(make(key));
      key_ = key;
    }
    return value_;
  }

 private:
  std::mutex mutex_;
  std::optional<Key> key_;
  std::shared_ptr<const Value> value_;
};

}  // namespace lb::benches::kofler

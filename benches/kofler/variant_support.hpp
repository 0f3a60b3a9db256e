#pragma once
//! Small pieces the Kofler programs' variants share.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

#include "layout_choice.hpp"
#include "lb/harness/program.hpp"
#include "lb/harness/suite.hpp"
#include "lb/kofler/agreement.hpp"
#include "lb/common/cuda_check.hpp"
#include "lb/layout/view.hpp"

namespace lb::harness::kofler {

//! A program's compile-time tiles as values, for layout_choices.
template <std::size_t... T>
std::vector<std::size_t> tile_values(Tiles<T...>) {
  return {T...};
}

//! Fills every blob of a device view with 0xFF bytes: a float NaN in every field.
template <class M>
void poison_blobs(const layout::View<M>& v, cudaStream_t stream) {
  for (std::size_t b = 0; b < M::blob_count; ++b)
    if (v.mapping.blob_bytes(b) > 0)
      check(cudaMemsetAsync(v.blobs[b], 0xFF, v.mapping.blob_bytes(b), stream), "cudaMemsetAsync (poison)");
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

//! The program's size list: the command line's --sizes where given, else the preset's "sizes".
inline std::vector<std::size_t> program_sizes(const Preset& preset, const nlohmann::json& j, std::string_view where,
                                              const Overrides& overrides) {
  return overrides.sizes.empty() ? preset.list_at<std::size_t>(j, "sizes", where) : overrides.sizes;
}

//! Whether the command line's --precisions (empty: all) admits `precision`.
inline bool admits_precision(const Overrides& overrides, std::string_view precision) {
  if (overrides.precisions.empty()) return true;
  for (const auto& p : overrides.precisions)
    if (p == precision) return true;
  return false;
}

}  // namespace lb::harness::kofler

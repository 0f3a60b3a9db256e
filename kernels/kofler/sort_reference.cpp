//! The sort program's input, its host reference and the check every sort variant passes.

#include <algorithm>
#include <bit>
#include <cstdint>

#include <fmt/format.h>

#include "lb/kofler/hash.hpp"
#include "lb/kofler/sort.hpp"

namespace lb::kofler {

namespace {
std::string show(const SortPlain& r) { return fmt::format("(key {}, id {}, weight {}, value {})", r.key, r.id, r.weight, r.value); }
}  // namespace

std::vector<SortPlain> sorted_reference(std::size_t n) {
  std::vector<SortPlain> r(n);
  for (std::size_t i = 0; i < n; ++i) r[i] = sort_input(i);
  std::sort(r.begin(), r.end(), [](const SortPlain& a, const SortPlain& b) { return a.key < b.key; });
  return r;
}

std::string check_sorted(const std::vector<SortPlain>& out, const std::vector<SortPlain>& ref) {
  if (out.size() != ref.size()) return fmt::format("{} records out, {} in", out.size(), ref.size());
  for (std::size_t i = 0; i + 1 < out.size(); ++i)
    if (out[i].key > out[i + 1].key)
      return fmt::format("not sorted: record {} has key {} > key {} of record {}", i, out[i].key, out[i + 1].key, i + 1);
  // The keys are distinct, so the sorted input is the only right answer.
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] == ref[i]) continue;
    if (out[i].key != ref[i].key)
      return fmt::format("not a permutation of the input: record {} is {}, expected {}", i, show(out[i]), show(ref[i]));
    return fmt::format("payload does not follow its key: record {} is {}, expected {}", i, show(out[i]), show(ref[i]));
  }
  return {};
}

bool bitonic_size_ok(std::size_t n) { return n >= kSortChunk && std::has_single_bit(n); }

std::vector<BitonicPass> bitonic_schedule(std::size_t n, SortFault fault) {
  std::vector<BitonicPass> passes = {{BitonicPass::sort_chunks, kSortChunk, kSortChunk / 2}};
  bool skip = fault == SortFault::skip_pass;
  for (std::size_t size = 2 * kSortChunk; size <= n; size <<= 1) {
    for (std::size_t stride = size / 2; stride >= kSortChunk; stride >>= 1) {
      if (skip) {
        skip = false;
        continue;
      }
      passes.push_back({BitonicPass::merge_global, size, stride});
    }
    passes.push_back({BitonicPass::merge_shared, size, kSortChunk / 2});
  }
  return passes;
}

}  // namespace lb::kofler

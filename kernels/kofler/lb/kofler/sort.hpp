#pragma once
//! Kofler's bitonic sort program (a CUDA port of the CUDA samples' sortingNetworks, whole
//! records instead of key + value) and the two CUB sorts a user would run instead, on one
//! record of 4 × 4-byte fields whose first field is the key. Every comparison moves the whole
//! record through the layout. All sorts are out of place (input -> output, as the samples'
//! first kernel reads the source and writes the destination), so the input stays unsorted.

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "lb/kofler/hash.hpp"
#include "lb/layout/aos.hpp"
#include "lb/layout/config.hpp"
#include "lb/layout/program_layouts.hpp"
#include "lb/layout/record.hpp"
#include "lb/layout/soa.hpp"
#include "lb/layout/view.hpp"

namespace lb::kofler {

struct SortKey {};
struct SortId {};
struct SortWeight {};
struct SortValue {};
using SortRecord = layout::Record<layout::Field<SortKey, unsigned>, layout::Field<SortId, unsigned>,
                                  layout::Field<SortWeight, float>, layout::Field<SortValue, float>>;
//! Field names in record order, for partitions given as data.
inline const std::vector<std::string> kSortFieldNames = {"key", "id", "weight", "value"};

//! One record as plain C struct: the AoS layout's bytes (CUB's merge sort sorts these).
struct SortPlain {
  unsigned key, id;
  float weight, value;
  bool operator==(const SortPlain&) const = default;
};
static_assert(sizeof(SortPlain) == 16);

//! The same record as a layout's value and back (filling and reading).
LB_HD inline layout::RecordValue<SortRecord> to_value(const SortPlain& p) {
  layout::RecordValue<SortRecord> v;
  v.get<SortKey>() = p.key;
  v.get<SortId>() = p.id;
  v.get<SortWeight>() = p.weight;
  v.get<SortValue>() = p.value;
  return v;
}
inline SortPlain to_plain(const layout::RecordValue<SortRecord>& v) {
  return {v.get<SortKey>(), v.get<SortId>(), v.get<SortWeight>(), v.get<SortValue>()};
}

//! A deliberate fault for the tests: a wrong sort must fail validation.
enum class SortFault {
  none,
  skip_pass,  //!< bitonic: skips the first global merge pass; cub-radix: the payload is not
              //!< gathered (stays in input order); cub-merge: sorts only the first half
};

//! Records one block sorts in shared memory (the samples' SHARED_SIZE_LIMIT); strides of
//! at least this much are merged by global-memory passes.
inline constexpr std::size_t kSortChunk = 1024;
//! The compile-time tiles sort.cu instantiates (tiled-ct); a preset naming another is refused.
inline constexpr std::array<std::size_t, 3> kSortCompileTimeTiles = {4, 32, 256};
//! What the bitonic sort compiles for SortRecord: its tiles besides every run-time mapping (no
//! compile-time split). sort.cu instantiates bitonic_sort and sort_fill_input for these.
using SortLayouts =
    layout::ProgramLayouts<SortRecord, decltype(layout::tiles_of<kSortCompileTimeTiles>()), layout::LayoutList<>>;

//! Input record i: keys are a bijection of the index (all distinct, so the sorted order is
//! unique and a check can compare exactly), id = i, weight and value derived from i (exact in
//! float: the same bytes on host and device).
LB_HD inline SortPlain sort_input(std::size_t i) {
  const auto u = static_cast<std::uint32_t>(i);
  const std::uint32_t key = mix32(u);
  return {key, u, static_cast<float>(u % 1000) * 0.25f, static_cast<float>(key >> 8) * 0x1p-24f};
}
//! Stores sort_input(i) into every record of `in` on the device (the input, made where it is
//! sorted: nothing crosses the bus). sort.cu instantiates the mappings bitonic_sort has.
template <class M>
void sort_fill_input(const layout::View<M>& in, cudaStream_t stream);
//! The input of n records sorted by key on the host.
std::vector<SortPlain> sorted_reference(std::size_t n);
//! Empty if `out` equals the sorted input `ref`, else the first problem found: keys out of
//! order, a key that is not the input's, or a payload that does not follow its key.
std::string check_sorted(const std::vector<SortPlain>& out, const std::vector<SortPlain>& ref);

//! Sizes the bitonic network handles: powers of two, at least one chunk.
bool bitonic_size_ok(std::size_t n);

//! One pass of the bitonic network over the whole array (each reads and writes every record):
//! the chunk sort (every stage up to kSortChunk, in shared memory), a global pass (one stride
//! >= kSortChunk of stage `size`) or a shared pass (the strides < kSortChunk of stage `size`).
struct BitonicPass {
  enum Kind { sort_chunks, merge_global, merge_shared } kind;
  std::size_t size = 0, stride = 0;
};
//! The passes bitonic_sort launches for n records, in order (the fault leaves one out).
std::vector<BitonicPass> bitonic_schedule(std::size_t n, SortFault fault = SortFault::none);
//! Global-memory passes of one sort: its declared traffic is this many reads and writes of the array.
inline std::size_t bitonic_global_passes(std::size_t n) { return bitonic_schedule(n).size(); }

//! Comparator c of a step with stride `stride` orders records low and low + stride.
LB_HD inline std::size_t comparator_low(std::size_t c, std::size_t stride) { return 2 * c - (c & (stride - 1)); }
//! Stage `size` sorts runs of `size` records, ascending where bit `size` of the global index is
//! clear, so the last stage (size = n) sorts everything ascending.
LB_HD inline bool ascending_at(std::size_t i, std::size_t size) { return (i & size) == 0; }

//! Distinct kernels of the bitonic program (chunk sort, global merge, shared merge).
inline constexpr int kBitonicKernels = 3;

//! Sorts in -> out (both n = bitonic_size_ok records, the same mapping M). sort.cu
//! instantiates AoS, SoA, run-time tiled and the compile-time tiles above.
template <class M>
void bitonic_sort(const layout::View<M>& in, const layout::View<M>& out, cudaStream_t stream,
                  SortFault fault = SortFault::none);

using SortSoA = layout::SoAMapping<SortRecord>;
using SortAoS = layout::AoSMapping<SortRecord>;

//! cub::DeviceRadixSort::SortPairs on (key, index), then a gather kernel moving each payload
//! field into the sorted SoA output. Buffers and CUB's temporary storage are allocated here.
class CubRadixSort {
 public:
  explicit CubRadixSort(std::size_t n);
  ~CubRadixSort();
  CubRadixSort(const CubRadixSort&) = delete;
  CubRadixSort& operator=(const CubRadixSort&) = delete;
  void run(const layout::View<SortSoA>& in, const layout::View<SortSoA>& out, cudaStream_t stream,
           SortFault fault = SortFault::none);
  std::size_t device_bytes() const { return bytes_; }

 private:
  std::size_t n_;
  unsigned* index_in_ = nullptr;   // 0 .. n-1
  unsigned* index_out_ = nullptr;  // the input position of each sorted record
  void* temp_ = nullptr;
  std::size_t temp_bytes_ = 0;
  std::size_t bytes_ = 0;
};

//! cub::DeviceMergeSort::SortKeysCopy on the whole 16-byte AoS record with a key comparator.
class CubMergeSort {
 public:
  explicit CubMergeSort(std::size_t n);
  ~CubMergeSort();
  CubMergeSort(const CubMergeSort&) = delete;
  CubMergeSort& operator=(const CubMergeSort&) = delete;
  void run(const layout::View<SortAoS>& in, const layout::View<SortAoS>& out, cudaStream_t stream,
           SortFault fault = SortFault::none);
  std::size_t device_bytes() const { return temp_bytes_; }

 private:
  std::size_t n_;
  void* temp_ = nullptr;
  std::size_t temp_bytes_ = 0;
};

}  // namespace lb::kofler

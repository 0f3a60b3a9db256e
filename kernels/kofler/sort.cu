//! Bitonic sort over any record layout (the CUDA samples' sortingNetworks structure: a
//! shared-memory sort of each chunk, then per merge stage global passes for the large strides
//! and one shared-memory pass for the small ones) and the two CUB sorts beside it. The
//! bitonic kernels' per-thread phases are lb/kofler/sort_body.hpp's, which the host replays
//! under access recording.

#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_radix_sort.cuh>

#include <cstring>
#include <stdexcept>
#include <string>
#include <tuple>

#include "lb/common/cuda_check.hpp"
#include "lb/exec/gpu_launcher.cuh"
#include "lb/kofler/sort_body.hpp"
#include "lb/layout/aosoa.hpp"
#include "lb/layout/partition.hpp"

namespace lb::kofler {

namespace {

using Value = SortRecordValue;
constexpr unsigned kChunkThreads = kSortChunkThreads;
constexpr unsigned kGlobalThreads = kSortGlobalThreads;

//! Strides first_stride .. 1 of stage `size` on the block's chunk in shared memory.
__device__ LB_FORCEINLINE void shared_strides(Value* s, std::size_t base, std::size_t size, unsigned first_stride) {
  for (unsigned stride = first_stride; stride > 0; stride >>= 1) {
    __syncthreads();
    bitonic_shared_step(s, base, size, stride, threadIdx.x);
  }
  __syncthreads();
}

//! Sorts each chunk of kSortChunk records (in -> out) through every stage up to the chunk.
template <class M>
__global__ void __launch_bounds__(kChunkThreads) sort_chunks(layout::View<M> in, layout::View<M> out) {
  __shared__ Value s[kSortChunk];
  const std::size_t base = std::size_t(blockIdx.x) * kSortChunk;
  bitonic_stage(in, s, base, threadIdx.x);
  for (std::size_t size = 2; size <= kSortChunk; size <<= 1) shared_strides(s, base, size, unsigned(size / 2));
  bitonic_unstage(out, s, base, threadIdx.x);
}

//! One global pass: stride `stride` (>= kSortChunk) of stage `size`, one comparator per thread.
template <class M>
__global__ void __launch_bounds__(kGlobalThreads) merge_global(layout::View<M> a, std::size_t size, std::size_t stride) {
  const std::size_t c = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  bitonic_global_step(a, size, stride, c);
}

//! The strides below kSortChunk of stage `size`, one chunk per block in shared memory.
template <class M>
__global__ void __launch_bounds__(kChunkThreads) merge_shared(layout::View<M> a, std::size_t size) {
  __shared__ Value s[kSortChunk];
  const std::size_t base = std::size_t(blockIdx.x) * kSortChunk;
  bitonic_stage(a, s, base, threadIdx.x);
  shared_strides(s, base, size, kChunkThreads);
  bitonic_unstage(a, s, base, threadIdx.x);
}

//! Moves the payload fields of input record index[i] to output record i (the sorted keys are
//! already in the output's key column).
__global__ void gather_payload(layout::View<SortSoA> in, layout::View<SortSoA> out, const unsigned* index,
                               bool skip_permutation) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= out.size()) return;
  const std::size_t from = skip_permutation ? i : index[i];
  out.get<SortId>(i) = in.get<SortId>(from);
  out.get<SortWeight>(i) = in.get<SortWeight>(from);
  out.get<SortValue>(i) = in.get<SortValue>(from);
}

__global__ void iota(unsigned* a, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) a[i] = unsigned(i);
}

template <class M>
struct FillInput {
  layout::View<M> in;
  __device__ void operator()(std::size_t i) const { in.store(i, to_value(sort_input(i))); }
};

struct KeyLess {
  __device__ bool operator()(const SortPlain& a, const SortPlain& b) const { return a.key < b.key; }
};

unsigned blocks_for(std::size_t n, unsigned threads) { return unsigned((n + threads - 1) / threads); }

}  // namespace

template <class M>
void bitonic_sort(const layout::View<M>& in, const layout::View<M>& out, cudaStream_t stream, SortFault fault) {
  const std::size_t n = in.size();
  if (!bitonic_size_ok(n) || out.size() != n)
    throw std::invalid_argument("bitonic sort: " + std::to_string(n) + " records is not a power of two >= " +
                                std::to_string(kSortChunk));
  const unsigned chunks = unsigned(n / kSortChunk);
  for (const BitonicPass& p : bitonic_schedule(n, fault)) {
    switch (p.kind) {
      case BitonicPass::sort_chunks:
        sort_chunks<<<chunks, kChunkThreads, 0, stream>>>(in, out);
        break;
      case BitonicPass::merge_global:
        merge_global<<<blocks_for(n / 2, kGlobalThreads), kGlobalThreads, 0, stream>>>(out, p.size, p.stride);
        break;
      case BitonicPass::merge_shared:
        merge_shared<<<chunks, kChunkThreads, 0, stream>>>(out, p.size);
        break;
    }
    check_launch("bitonic sort pass");
  }
}

template <class M>
void sort_fill_input(const layout::View<M>& in, cudaStream_t stream) {
  exec::launch_for_each(in.size(), 256, stream, FillInput<M>{in});
}

//! What the benchmarks call for mapping M (instantiated for every mapping of SortLayouts).
template <class M>
struct SortEntries {
  static constexpr auto functions = std::tuple{&bitonic_sort<M>, &sort_fill_input<M>};
};

// --- CUB -----------------------------------------------------------------------------------

CubRadixSort::CubRadixSort(std::size_t n) : n_(n) {
  check(cudaMalloc(&index_in_, n * sizeof(unsigned)), "cudaMalloc (radix index)");
  check(cudaMalloc(&index_out_, n * sizeof(unsigned)), "cudaMalloc (radix sorted index)");
  check(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes_, static_cast<const unsigned*>(nullptr),
                                        static_cast<unsigned*>(nullptr), index_in_, index_out_, n),
        "cub::DeviceRadixSort::SortPairs (temporary storage size)");
  check(cudaMalloc(&temp_, temp_bytes_ ? temp_bytes_ : 1), "cudaMalloc (radix temporary storage)");
  iota<<<blocks_for(n, 256), 256>>>(index_in_, n);
  check_launch("iota");
  check(cudaDeviceSynchronize(), "iota");
  bytes_ = 2 * n * sizeof(unsigned) + temp_bytes_;
}

CubRadixSort::~CubRadixSort() {
  cudaFree(index_in_);
  cudaFree(index_out_);
  cudaFree(temp_);
}

void CubRadixSort::run(const layout::View<SortSoA>& in, const layout::View<SortSoA>& out, cudaStream_t stream,
                       SortFault fault) {
  // The SoA key column is a plain array of keys: CUB sorts it straight into the output's.
  check(cub::DeviceRadixSort::SortPairs(temp_, temp_bytes_, &in.get<SortKey>(0), &out.get<SortKey>(0), index_in_,
                                        index_out_, n_, 0, int(8 * sizeof(unsigned)), stream),
        "cub::DeviceRadixSort::SortPairs");
  gather_payload<<<blocks_for(n_, 256), 256, 0, stream>>>(in, out, index_out_, fault == SortFault::skip_pass);
  check_launch("gather_payload");
}

CubMergeSort::CubMergeSort(std::size_t n) : n_(n) {
  check(cub::DeviceMergeSort::SortKeysCopy(nullptr, temp_bytes_, static_cast<const SortPlain*>(nullptr),
                                           static_cast<SortPlain*>(nullptr), n, KeyLess{}),
        "cub::DeviceMergeSort::SortKeysCopy (temporary storage size)");
  check(cudaMalloc(&temp_, temp_bytes_ ? temp_bytes_ : 1), "cudaMalloc (merge sort temporary storage)");
}

CubMergeSort::~CubMergeSort() { cudaFree(temp_); }

void CubMergeSort::run(const layout::View<SortAoS>& in, const layout::View<SortAoS>& out, cudaStream_t stream,
                       SortFault fault) {
  static_assert(SortAoS::stride == sizeof(SortPlain) && SortAoS::field_offset<1> == offsetof(SortPlain, id) &&
                    SortAoS::field_offset<2> == offsetof(SortPlain, weight) &&
                    SortAoS::field_offset<3> == offsetof(SortPlain, value),
                "the AoS record must have SortPlain's bytes");
  const std::size_t count = fault == SortFault::skip_pass ? n_ / 2 : n_;
  check(cub::DeviceMergeSort::SortKeysCopy(temp_, temp_bytes_, reinterpret_cast<const SortPlain*>(in.blobs[0]),
                                           reinterpret_cast<SortPlain*>(out.blobs[0]), count, KeyLess{}, stream),
        "cub::DeviceMergeSort::SortKeysCopy");
}

}  // namespace lb::kofler

template struct lb::layout::InstantiateEach<lb::kofler::SortEntries, lb::kofler::SortLayouts::mappings>;

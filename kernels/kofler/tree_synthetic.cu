//! The decision tree's synthetic kernels (lb/kofler/tree_synthetic.hpp) and their
//! instantiations: m = 1 .. 16 fields x {AoS, SoA, Pow2AoSoA with the tile at run time}.

#include <utility>

#include "lb/common/cuda_check.hpp"
#include "lb/kofler/tree_synthetic_device.hpp"

namespace lb::kofler::tree {

namespace {

constexpr unsigned kInitBlock = 256;

template <class Mapping>
__global__ void init_kernel(layout::View<Mapping> v, bool values) {
  const std::size_t r = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r < v.size()) init_record<Mapping::record::field_count>(v, r, values);
}

template <class Mapping>
__global__ void run_kernel(layout::View<Mapping> v, std::size_t threads, std::uint32_t iterations, std::size_t records) {
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t < threads) thread_body<Mapping::record::field_count>(v, t, iterations, threads, records);
}

__global__ void checksum_kernel(const float* data, std::size_t words, Checksum* out) {
  unsigned long long sum = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < words;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    sum += checksum_term(data[i]);
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (threadIdx.x % 32 == 0) atomicAdd(&out->sum, sum);
  if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(&out->words, static_cast<unsigned long long>(words));
}

}  // namespace

template <class Mapping>
void synthetic_init(const layout::View<Mapping>& v, bool values, cudaStream_t stream) {
  const auto grid = static_cast<unsigned>((v.size() + kInitBlock - 1) / kInitBlock);
  init_kernel<Mapping><<<grid, kInitBlock, 0, stream>>>(v, values);
  check_launch("kofler-tree init_kernel");
}

template <class Mapping>
void synthetic_run(const layout::View<Mapping>& v, const Geometry& g, int block, cudaStream_t stream) {
  const std::size_t threads = g.threads();
  const auto grid = static_cast<unsigned>((threads + block - 1) / block);
  run_kernel<Mapping><<<grid, block, 0, stream>>>(v, threads, g.iterations, g.records);
  check_launch("kofler-tree run_kernel");
}

void synthetic_checksum(const float* data, std::size_t words, Checksum* out, cudaStream_t stream) {
  checksum_kernel<<<1024, 256, 0, stream>>>(data, words, out);
  check_launch("kofler-tree checksum_kernel");
}

#define LB_TREE_INSTANTIATE(Mapping)                                                        \
  template void synthetic_init<Mapping>(const layout::View<Mapping>&, bool, cudaStream_t); \
  template void synthetic_run<Mapping>(const layout::View<Mapping>&, const Geometry&, int, cudaStream_t);
#define LB_TREE_INSTANTIATE_FIELDS(M) \
  LB_TREE_INSTANTIATE(AoS<M>)         \
  LB_TREE_INSTANTIATE(SoA<M>)         \
  LB_TREE_INSTANTIATE(Tiled<M>)
LB_TREE_INSTANTIATE_FIELDS(1)
LB_TREE_INSTANTIATE_FIELDS(2)
LB_TREE_INSTANTIATE_FIELDS(3)
LB_TREE_INSTANTIATE_FIELDS(4)
LB_TREE_INSTANTIATE_FIELDS(5)
LB_TREE_INSTANTIATE_FIELDS(6)
LB_TREE_INSTANTIATE_FIELDS(7)
LB_TREE_INSTANTIATE_FIELDS(8)
LB_TREE_INSTANTIATE_FIELDS(9)
LB_TREE_INSTANTIATE_FIELDS(10)
LB_TREE_INSTANTIATE_FIELDS(11)
LB_TREE_INSTANTIATE_FIELDS(12)
LB_TREE_INSTANTIATE_FIELDS(13)
LB_TREE_INSTANTIATE_FIELDS(14)
LB_TREE_INSTANTIATE_FIELDS(15)
LB_TREE_INSTANTIATE_FIELDS(16)
static_assert(kMaxFields == 16, "instantiate every m up to kMaxFields");

}  // namespace lb::kofler::tree

//! The frontier search on the GPU: one thread per vertex, one launch per level. Whether a
//! level changed anything is read back once per batch of levels (a flag per level), so the
//! host waits every kBatch launches instead of every one; the levels launched past the last
//! change find no vertex at their distance and change nothing.

#include <cuda_runtime_api.h>

#include <algorithm>

#include "lb/bfs/laid_out.hpp"
#include "lb/common/cuda_check.hpp"
#include "lb/layout/device_storage.hpp"

namespace lb::bfs {
namespace {

constexpr int kBlock = 256;
constexpr int kBatch = 8;

template <class View>
__global__ void set_distance_kernel(View v, std::size_t n, int value, std::size_t source) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) set_distance(v, i, value, source);
}

template <class View>
__global__ void relax_kernel(View v, std::size_t n, int level, int* changed) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n && relax_neighbours(v, i, level)) *changed = 1;
}

struct CudaFree {
  void operator()(int* p) const { cudaFree(p); }
};
struct CudaFreeHost {
  void operator()(int* p) const { cudaFreeHost(p); }
};

template <class M>
class GpuSearch final : public FrontierBfs {
 public:
  GpuSearch(const datasets::Graph& g, std::size_t inline_count) : GpuSearch(lay_out<M>(g, inline_count)) {}

  void poison() override {
    set_distance_kernel<<<grid(), kBlock>>>(device_.view(), mapping_.size(), kPoison, kNoSource);
    check_launch("set_distance_kernel (poison)");
    check(cudaDeviceSynchronize(), "poison (BFS distances)");
  }
  int run(std::uint32_t source, cudaStream_t stream) override {
    const auto view = device_.view();
    const std::size_t n = mapping_.size();
    int* const changed = changed_.get();
    int* const changed_host = changed_host_.get();
    set_distance_kernel<<<grid(), kBlock, 0, stream>>>(view, n, kInfinity, source);
    check_launch("set_distance_kernel");
    for (int base = 0;; base += kBatch) {
      check(cudaMemsetAsync(changed, 0, kBatch * sizeof(int), stream), "cudaMemset (BFS flags)");
      for (int j = 0; j < kBatch; ++j) relax_kernel<<<grid(), kBlock, 0, stream>>>(view, n, base + j, changed + j);
      check_launch("relax_kernel");
      check(cudaMemcpyAsync(changed_host, changed, kBatch * sizeof(int), cudaMemcpyDeviceToHost, stream),
            "cudaMemcpy (BFS flags)");
      check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (BFS flags)");
      const auto quiet = std::find(changed_host, changed_host + kBatch, 0);
      if (quiet != changed_host + kBatch) return base + static_cast<int>(quiet - changed_host) + 1;
    }
  }
  std::vector<int> levels() const override {
    layout::HostStorage<M> out(mapping_);
    device_.download(out);
    return levels_of(out);
  }
  const layout::InnerFootprint& footprint() const override { return mapping_.footprint(); }

 private:
  //! The host copy is dropped once uploaded.
  explicit GpuSearch(const layout::HostStorage<M>& host) : mapping_(host.mapping()), device_(mapping_) {
    device_.upload(host);
    check(cudaDeviceSynchronize(), "upload (BFS graph)");
    int* p = nullptr;
    check(cudaMalloc(&p, kBatch * sizeof(int)), "cudaMalloc (BFS flags)");
    changed_.reset(p);
    check(cudaMallocHost(&p, kBatch * sizeof(int)), "cudaMallocHost (BFS flags)");
    changed_host_.reset(p);
  }
  unsigned grid() const { return static_cast<unsigned>((mapping_.size() + kBlock - 1) / kBlock); }

  M mapping_;
  layout::DeviceStorage<M> device_;
  std::unique_ptr<int, CudaFree> changed_;           // a flag per level of a batch, on the device
  std::unique_ptr<int, CudaFreeHost> changed_host_;  // and their pinned copy
};

}  // namespace

std::unique_ptr<FrontierBfs> make_gpu_search(const datasets::Graph& g, const Variant& v) {
  return make_search<GpuSearch>(g, v);
}

}  // namespace lb::bfs

//! The frontier search on the GPU, two ways over the same kernel body (frontier.hpp) and the
//! same laid-out graph:
//! - per level (the paper's): one thread per vertex, one launch per level. Whether a level
//!   changed anything is read back once per batch of levels (a flag per level), so the host
//!   waits every kBatch launches instead of every one; the levels launched past the last
//!   change find no vertex at their distance and change nothing.
//! - persistent (beyond the paper): the whole loop in one cooperative launch, the levels
//!   separated by grid-wide barriers (persistent_kernel).

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <utility>

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

//! Every level in one launch: each thread takes every gridDim-th vertex (grid-stride) and runs
//! the paper's body on it; a grid-wide barrier ends a level, after which every thread reads the
//! level's flag and stops together with the others when it is unset. Writes the levels
//! searched (the run's return value) to `searched`.
//!
//! Why no frontier queue: the scan is the paper's body unchanged, so the layouts still differ
//! where Fig. 10b measures them (the distance reads of every vertex), and it needs no atomics
//! and no second body. The per-level search's 9 µs a level (H200) went to the launch and the
//! host's wait; the scan itself reads 4 MB a level in SoA (the 1 M distances, from L2). A queue is
//! the next step only if a level still costs more than its barrier and that read.
//!
//! The flags are triple-buffered: level L sets flags[L % 3] and resets flags[(L + 1) % 3]
//! for the next level. The last reads of that flag (level L - 2's) came right after barrier
//! L - 2, before barrier L - 1 that level L starts from; with two flags the reset would race
//! the reads of level L - 1's flag that follow barrier L - 1.
template <class View>
__global__ void __launch_bounds__(kBlock) persistent_kernel(View v, std::size_t n, std::size_t source, int* flags,
                                                            int* searched) {
  const cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = first; i < n; i += stride) set_distance(v, i, kInfinity, source);
  if (first == 0) flags[0] = 0;
  grid.sync();
  for (int level = 0;; ++level) {
    if (first == 0) flags[(level + 1) % 3] = 0;
    bool changed = false;
    for (std::size_t i = first; i < n; i += stride) changed |= relax_neighbours(v, i, level);
    if (changed) flags[level % 3] = 1;
    grid.sync();  // orders this level's writes (distances, flag) before every thread's reads
    if (flags[level % 3] == 0) {
      if (first == 0) *searched = level + 1;
      return;
    }
  }
}

struct CudaFree {
  void operator()(int* p) const { cudaFree(p); }
};
struct CudaFreeHost {
  void operator()(int* p) const { cudaFreeHost(p); }
};

//! The graph laid out in mapping M on the device, and what both searches do alike: its
//! distances poisoned and read back, its footprint, `count` device ints and their pinned
//! host copy (a search's flags; the persistent one's also the levels it searched).
template <class M>
class GpuLaidOut : public FrontierBfs {
 public:
  void poison() override {
    set_distance_kernel<<<blocks(), kBlock>>>(device_.view(), mapping_.size(), kPoison, kNoSource);
    check_launch("set_distance_kernel (poison)");
    check(cudaDeviceSynchronize(), "poison (BFS distances)");
  }
  std::vector<int> levels() const override {
    layout::HostStorage<M> out(mapping_);
    device_.download(out);
    return levels_of(out);
  }
  const layout::InnerFootprint& footprint() const override { return mapping_.footprint(); }

 protected:
  GpuLaidOut(const datasets::Graph& g, std::size_t inline_count, int count)
      : GpuLaidOut(lay_out<M>(g, inline_count), count) {}
  unsigned blocks() const { return static_cast<unsigned>((mapping_.size() + kBlock - 1) / kBlock); }

  M mapping_;
  layout::DeviceStorage<M> device_;
  std::unique_ptr<int, CudaFree> flags_;           // on the device
  std::unique_ptr<int, CudaFreeHost> flags_host_;  // and their pinned copy

 private:
  //! The host copy is dropped once uploaded.
  GpuLaidOut(const layout::HostStorage<M>& host, int count) : mapping_(host.mapping()), device_(mapping_) {
    device_.upload(host);
    check(cudaDeviceSynchronize(), "upload (BFS graph)");
    int* p = nullptr;
    check(cudaMalloc(&p, count * sizeof(int)), "cudaMalloc (BFS flags)");
    flags_.reset(p);
    check(cudaMallocHost(&p, count * sizeof(int)), "cudaMallocHost (BFS flags)");
    flags_host_.reset(p);
  }
};

//! The paper's: a launch per level, a flag per level of a batch.
template <class M>
class PerLevelSearch final : public GpuLaidOut<M> {
 public:
  PerLevelSearch(const datasets::Graph& g, std::size_t inline_count) : GpuLaidOut<M>(g, inline_count, kBatch) {}

  int run(std::uint32_t source, cudaStream_t stream) override {
    const auto view = this->device_.view();
    const std::size_t n = this->mapping_.size();
    int* const changed = this->flags_.get();
    int* const changed_host = this->flags_host_.get();
    set_distance_kernel<<<this->blocks(), kBlock, 0, stream>>>(view, n, kInfinity, source);
    check_launch("set_distance_kernel");
    for (int base = 0;; base += kBatch) {
      check(cudaMemsetAsync(changed, 0, kBatch * sizeof(int), stream), "cudaMemset (BFS flags)");
      for (int j = 0; j < kBatch; ++j)
        relax_kernel<<<this->blocks(), kBlock, 0, stream>>>(view, n, base + j, changed + j);
      check_launch("relax_kernel");
      check(cudaMemcpyAsync(changed_host, changed, kBatch * sizeof(int), cudaMemcpyDeviceToHost, stream),
            "cudaMemcpy (BFS flags)");
      check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (BFS flags)");
      const auto quiet = std::find(changed_host, changed_host + kBatch, 0);
      if (quiet != changed_host + kBatch) return base + static_cast<int>(quiet - changed_host) + 1;
    }
  }
};

//! Beyond the paper: persistent_kernel in one cooperative launch; flags_ holds its three flags
//! and the levels it searched. The constructor checks that the launch can hold its grid.
template <class M>
class PersistentSearch final : public GpuLaidOut<M> {
  using View = decltype(std::declval<layout::DeviceStorage<M>&>().view());

 public:
  PersistentSearch(const datasets::Graph& g, std::size_t inline_count) : GpuLaidOut<M>(g, inline_count, 4) {
    int device = 0, cooperative = 0, sms = 0, per_sm = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device), "cudaDeviceGetAttribute");
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, persistent_kernel<View>, kBlock, 0),
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor (persistent BFS)");
    grid_ = persistent_grid(cooperative != 0, per_sm, sms, this->mapping_.size(), kBlock);
  }

  int run(std::uint32_t source, cudaStream_t stream) override {
    View view = this->device_.view();
    std::size_t n = this->mapping_.size(), from = source;
    int* flags = this->flags_.get();
    int* searched = flags + 3;
    void* args[] = {&view, &n, &from, &flags, &searched};
    check(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(&persistent_kernel<View>), dim3(grid_),
                                      dim3(kBlock), args, 0, stream),
          "cudaLaunchCooperativeKernel (persistent BFS)");
    check(cudaMemcpyAsync(this->flags_host_.get(), searched, sizeof(int), cudaMemcpyDeviceToHost, stream),
          "cudaMemcpy (BFS levels)");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (persistent BFS)");
    return *this->flags_host_;
  }

 private:
  unsigned grid_ = 0;
};

}  // namespace

std::unique_ptr<FrontierBfs> make_gpu_search(const datasets::Graph& g, const Variant& v, Search search) {
  return search == Search::persistent ? make_search<PersistentSearch>(g, v) : make_search<PerLevelSearch>(g, v);
}

}  // namespace lb::bfs

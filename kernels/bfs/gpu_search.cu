//! The frontier search on the GPU, two ways over the same kernel body (frontier.hpp) and the
//! same laid-out graph:
//! - per level (the paper's): one thread per vertex, one launch per level. Whether a level
//!   changed anything is read back once per batch of levels (a flag per level), so the host
//!   waits every kBatch launches instead of every one; the levels launched past the last
//!   change find no vertex at their distance and change nothing.
//! - persistent (beyond the paper): the whole loop in one cooperative launch, the levels
//!   separated by grid-wide barriers (persistent_kernel), each thread's distances loaded
//!   before any is relaxed (relax_strided).
//! - queue (beyond the paper): one cooperative launch too, an explicit frontier queue; a level
//!   touches only its frontier's vertices (queue_kernel).

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

//! The device-loop searches' blocks: kBlocksPerSm blocks of kSearchBlock threads an SM at
//! most (fewer where the kernel's occupancy allows fewer). Fewer, fuller blocks: grid.sync()
//! costs an arrival (an atomic on one counter) per block, so 2 x 512 threads an SM (264 blocks
//! on an H200) instead of up to 8 x 256 (1056); the memory parallelism comes from the
//! kLoadsAhead loads each thread issues at once, not from the threads (on an H200 the
//! 1,088,092-vertex graph is 8-9 vertices a thread, one chunk).
constexpr int kSearchBlock = 512;
constexpr int kBlocksPerSm = 2;
//! Distances a thread of the persistent search loads before relaxing any (relax_strided's K).
constexpr int kLoadsAhead = 16;

//! Every level in one launch: each thread takes every gridDim-th vertex (grid-stride) and runs
//! the paper's body on them (relax_strided: relax_neighbours with the distances read first); a
//! grid-wide barrier ends a level, after which every thread reads the level's flag and stops
//! together with the others when it is unset. Writes the levels searched (the run's return
//! value) to `searched`.
//!
//! The scan keeps the paper's body, so the layouts still differ where Fig. 10b measures them
//! (every vertex's distance read each level), and it needs no atomics; queue_kernel is the
//! other way.
//!
//! The flags are triple-buffered: level L sets flags[L % 3] and resets flags[(L + 1) % 3]
//! for the next level. The last reads of that flag (level L - 2's) came right after barrier
//! L - 2, before barrier L - 1 that level L starts from; with two flags the reset would race
//! the reads of level L - 1's flag that follow barrier L - 1.
template <class View>
__global__ void __launch_bounds__(kSearchBlock, kBlocksPerSm)
    persistent_kernel(View v, std::size_t n, std::size_t source, int* flags, int* searched) {
  const cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = first; i < n; i += stride) set_distance(v, i, kInfinity, source);
  if (first == 0) flags[0] = 0;
  grid.sync();
  for (int level = 0;; ++level) {
    if (first == 0) flags[(level + 1) % 3] = 0;
    if (relax_strided<kLoadsAhead>(v, first, stride, n, level)) flags[level % 3] = 1;
    grid.sync();  // orders this level's writes (distances, flag) before every thread's reads
    if (flags[level % 3] == 0) {
      if (first == 0) *searched = level + 1;
      return;
    }
  }
}

//! Appends u to a queue whose length is *tail: one atomic per group of the warp's threads
//! appending at once (not one per vertex on the one counter).
__device__ __forceinline__ void append_to_queue(int* queue, int* tail, int u) {
  const cooperative_groups::coalesced_group group = cooperative_groups::coalesced_threads();
  int at = 0;
  if (group.thread_rank() == 0) at = atomicAdd(tail, static_cast<int>(group.size()));
  queue[group.shfl(at, 0) + static_cast<int>(group.thread_rank())] = u;
}

//! Beyond the paper: every level in one launch over an explicit frontier queue. Level L's
//! frontier (the vertices at distance L) is queues[L % 2], its length counts[L % 3]; each
//! thread takes every gridDim-th of its vertices and claims their neighbours still at
//! kInfinity for L + 1 (atomicCAS: each vertex queued once, so a queue holds at most n),
//! appending them to the other queue and its count. A grid-wide barrier ends a level; the
//! search stops after a level that queued nothing, having searched as many levels as the
//! paper's (the last, over the farthest vertices, finds nothing). Writes them to `searched`.
//!
//! What the layouts still change here: only the frontier vertices' degree and neighbours and
//! those neighbours' distances are read (no scan of every distance), so the layout decides the
//! neighbour reads (inlined or in the arena, and the arena offset) and the record stride of
//! the scattered distance reads, not a per-level scan.
//!
//! The counts are triple-buffered as the persistent search's flags: level L reads
//! counts[L % 3], appends to counts[(L + 1) % 3] and resets counts[(L + 2) % 3] for level
//! L + 1, whose last reads (level L - 1's length) came before barrier L - 1. A queue is
//! rewritten two levels after it was read, across a barrier.
template <class View>
__global__ void __launch_bounds__(kSearchBlock, kBlocksPerSm)
    queue_kernel(View v, std::size_t n, std::size_t source, int* queues, int* counts, int* searched) {
  const cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = first; i < n; i += stride) set_distance(v, i, kInfinity, source);
  if (first == 0) {
    queues[0] = static_cast<int>(source);
    counts[0] = 1;
    counts[1] = 0;
  }
  grid.sync();
  for (int level = 0;; ++level) {
    const int* frontier = queues + (level % 2) * n;
    int* next = queues + ((level + 1) % 2) * n;
    int* tail = counts + (level + 1) % 3;
    if (first == 0) counts[(level + 2) % 3] = 0;
    const auto length = static_cast<std::size_t>(counts[level % 3]);
    // K = kMaxDegree: a road graph's vertex has all its neighbours read in one round.
    for (std::size_t q = first; q < length; q += stride)
      discover_neighbours<kMaxDegree>(v, static_cast<std::size_t>(frontier[q]), [&](int& d, std::size_t u) {
        if (atomicCAS(&d, kInfinity, level + 1) == kInfinity) append_to_queue(next, tail, static_cast<int>(u));
      });
    grid.sync();  // orders this level's claims and appends before every thread's reads
    if (*tail == 0) {
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
//! host copy (a search's flags; a device loop's also the levels it searched).
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

//! What both device-loop searches do alike: their kernel in one cooperative launch, on the
//! grid that stays resident (persistent_grid; the constructor checks the launch can hold it),
//! and the levels it searched read back. `count` device ints: the kernel's flags or counts,
//! then (the last) the levels searched.
template <class M>
class DeviceLoopSearch : public GpuLaidOut<M> {
 protected:
  using View = decltype(std::declval<layout::DeviceStorage<M>&>().view());

  DeviceLoopSearch(const datasets::Graph& g, std::size_t inline_count, int count, Search search, const void* kernel)
      : GpuLaidOut<M>(g, inline_count, count), kernel_(kernel), searched_(count - 1) {
    int device = 0, cooperative = 0, sms = 0, per_sm = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device), "cudaDeviceGetAttribute");
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kSearchBlock, 0),
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor (BFS device loop)");
    grid_ = persistent_grid(search, cooperative != 0, std::min(per_sm, kBlocksPerSm), sms, this->mapping_.size(),
                            kSearchBlock);
  }

  //! Launches the kernel with `args` (its parameters' addresses, `searched` the last) and
  //! waits for the levels it searched.
  int launch(void** args, cudaStream_t stream) {
    check(cudaLaunchCooperativeKernel(kernel_, dim3(grid_), dim3(kSearchBlock), args, 0, stream),
          "cudaLaunchCooperativeKernel (BFS device loop)");
    check(cudaMemcpyAsync(this->flags_host_.get(), this->flags_.get() + searched_, sizeof(int),
                          cudaMemcpyDeviceToHost, stream),
          "cudaMemcpy (BFS levels)");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (BFS device loop)");
    return *this->flags_host_;
  }
  int* searched() const { return this->flags_.get() + searched_; }

 private:
  const void* kernel_;
  int searched_;
  unsigned grid_ = 0;
};

//! Beyond the paper: persistent_kernel; flags_ holds its three flags and the levels searched.
template <class M>
class PersistentSearch final : public DeviceLoopSearch<M> {
  using View = typename DeviceLoopSearch<M>::View;

 public:
  PersistentSearch(const datasets::Graph& g, std::size_t inline_count)
      : DeviceLoopSearch<M>(g, inline_count, 4, Search::persistent,
                              reinterpret_cast<const void*>(&persistent_kernel<View>)) {}

  int run(std::uint32_t source, cudaStream_t stream) override {
    View view = this->device_.view();
    std::size_t n = this->mapping_.size(), from = source;
    int* flags = this->flags_.get();
    int* searched = this->searched();
    void* args[] = {&view, &n, &from, &flags, &searched};
    return this->launch(args, stream);
  }
};

//! Beyond the paper: queue_kernel; flags_ holds its three counts and the levels searched,
//! queues_ its two queues of n vertices.
template <class M>
class QueueSearch final : public DeviceLoopSearch<M> {
  using View = typename DeviceLoopSearch<M>::View;

 public:
  QueueSearch(const datasets::Graph& g, std::size_t inline_count)
      : DeviceLoopSearch<M>(g, inline_count, 4, Search::queue, reinterpret_cast<const void*>(&queue_kernel<View>)) {
    int* p = nullptr;
    check(cudaMalloc(&p, 2 * std::max<std::size_t>(1, this->mapping_.size()) * sizeof(int)),
          "cudaMalloc (BFS queues)");
    queues_.reset(p);
  }

  int run(std::uint32_t source, cudaStream_t stream) override {
    View view = this->device_.view();
    std::size_t n = this->mapping_.size(), from = source;
    int* queues = queues_.get();
    int* counts = this->flags_.get();
    int* searched = this->searched();
    void* args[] = {&view, &n, &from, &queues, &counts, &searched};
    return this->launch(args, stream);
  }

 private:
  std::unique_ptr<int, CudaFree> queues_;
};

}  // namespace

std::unique_ptr<FrontierBfs> make_gpu_search(const datasets::Graph& g, const Variant& v, Search search) {
  switch (search) {
    case Search::persistent: return make_search<PersistentSearch>(g, v);
    case Search::queue: return make_search<QueueSearch>(g, v);
    case Search::per_level: break;
  }
  return make_search<PerLevelSearch>(g, v);
}

}  // namespace lb::bfs

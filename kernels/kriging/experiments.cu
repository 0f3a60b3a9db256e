// Li & Dong's CUDA programs, experiments 1-6, and experiment 8 (the dual form; see lb/kriging/device.hpp for what each run
// times). Whole-program compilation: the kernels, the __constant__ pool and the host code
// that launches them are all in this translation unit.
//
// Every kernel uses the shared per-point solver (lb/kriging/solver.hpp) with a per-thread
// PointSystem<T, kDeviceMaxWells> in local memory. A thread whose solve fails records it in
// a FailureRecord (count + the first failure's point and pivot) and writes NaN; the host
// reads the record after every run and throws SingularSystem.

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "lb/common/cuda_check.hpp"
#include "lb/kriging/device.hpp"
#include "lb/kriging/dual.hpp"
#include "lb/kriging/solver.hpp"
#include "lb/layout/view.hpp"
#include "device_messages.hpp"
#include "gemm_pipeline.hpp"
#include "overlapped_download.hpp"
#include "pinned_buffer.hpp"

namespace lb::kriging {
namespace {

template <class T>
using DeviceSystem = PointSystem<T, kDeviceMaxWells>;

//! Written by the first thread whose solve fails (the one that sees count 0), counted by all.
struct FailureRecord {
  unsigned int count;
  int point;  //!< grid point index p = iy * M + ix
  int column;
  double pivot, threshold;
};

__device__ void record_failure(FailureRecord* f, int point, const SolveStatus& s) {
  if (atomicAdd(&f->count, 1u) == 0u) {
    f->point = point;
    f->column = s.singular_column;
    f->pivot = s.pivot;
    f->threshold = s.threshold;
  }
}

template <class T>
__device__ LB_FORCEINLINE T quiet_nan() {
  return std::numeric_limits<T>::quiet_NaN();
}

//! Writes grid point p's estimates for `surfaces` consecutive surfaces (surface h's well
//! values at values + h n, its estimate at out[h * stride]) from the solved weights in
//! sys.b; after a failed solve it records the failure and writes NaN instead.
//! Grid points whose estimates are not written: empty except in fault-injection tests
//! (DeviceExperiment::skip_writes_for_testing); one uniform compare per thread.
struct SkippedPoints {
  int first = 0, end = 0;
  __device__ LB_FORCEINLINE bool contains(int p) const { return p >= first && p < end; }
};

template <class T, class System>
__device__ LB_FORCEINLINE void write_estimates(const SolveStatus& status, const System& sys, const T* values, int n, int surfaces,
                                T* out, std::size_t stride, int p, FailureRecord* failures, SkippedPoints skip) {
  if (skip.contains(p)) return;
  if (!status.ok()) record_failure(failures, p, status);
  for (int h = 0; h < surfaces; ++h)
    out[std::size_t(h) * stride] = status.ok() ? combine(sys.b, values + std::size_t(h) * n, n) : quiet_nan<T>();
}

//! The one user __constant__ symbol of this translation unit (64 KiB, the whole bank):
//! experiments 5 and 6 lay wells, A and values out in it as constant_layout() says. Kernels
//! read it through typed pointers derived from the symbol, which nvcc compiles to ld.const.
__constant__ double2 c_pool[kConstantPoolBytes / sizeof(double2)];

template <class T>
struct WellXY {
  T x, y;
};

// --- kernels ---------------------------------------------------------------------------

//! Exp 1: one thread per grid point of ONE surface; builds A and B, solves, combines.
template <class T>
__global__ void __launch_bounds__(kPointBlockX* kPointBlockY)
    exp1_kernel(const T* __restrict__ wx, const T* __restrict__ wy, const T* __restrict__ values, int n,
                Covariance<T> cov, const T* __restrict__ gx, const T* __restrict__ gy, int mx, int ny,
                T* __restrict__ out, FailureRecord* failures, SkippedPoints skip) {
  const int ix = blockIdx.x * blockDim.x + threadIdx.x;
  const int iy = blockIdx.y * blockDim.y + threadIdx.y;
  if (ix >= mx || iy >= ny) return;
  const int p = iy * mx + ix;
  DeviceSystem<T> sys;
  const SolveStatus status = solve_weights_rebuilding(wx, wy, n, cov, gx[ix], gy[iy], sys);
  write_estimates(status, sys, values, n, 1, out + p, 0, p, failures, skip);
}

//! Exp 2: as exp 1, but A is prebuilt (global memory) and copied into the thread's system.
template <class T>
__global__ void __launch_bounds__(kPointBlockX* kPointBlockY)
    exp2_kernel(const T* __restrict__ a, const T* __restrict__ wx, const T* __restrict__ wy,
                const T* __restrict__ values, int n, Covariance<T> cov, const T* __restrict__ gx,
                const T* __restrict__ gy, int mx, int ny, T* __restrict__ out, FailureRecord* failures, SkippedPoints skip) {
  const int ix = blockIdx.x * blockDim.x + threadIdx.x;
  const int iy = blockIdx.y * blockDim.y + threadIdx.y;
  if (ix >= mx || iy >= ny) return;
  const int p = iy * mx + ix;
  DeviceSystem<T> sys;
  const SolveStatus status = solve_weights(a, wx, wy, n, cov, gx[ix], gy[iy], sys);
  write_estimates(status, sys, values, n, 1, out + p, 0, p, failures, skip);
}

//! Exp 3: blocks (10, 9, H), one launch; thread (x, y, z) solves grid point (x, y) for
//! surface z (every surface re-solves the same weights, as in exp 2). 990 threads a block
//! at H = 11: __launch_bounds__(1024) caps registers at 64 so such a block can launch.
template <class T>
__global__ void __launch_bounds__(kMaxThreadsPerBlock)
    exp3_kernel(const T* __restrict__ a, const T* __restrict__ wx, const T* __restrict__ wy,
                const T* __restrict__ values, int n, int surfaces, Covariance<T> cov,
                const T* __restrict__ gx, const T* __restrict__ gy, int mx, int ny, T* __restrict__ out,
                FailureRecord* failures, SkippedPoints skip) {
  const int ix = blockIdx.x * blockDim.x + threadIdx.x;
  const int iy = blockIdx.y * blockDim.y + threadIdx.y;
  const int h = threadIdx.z;
  if (ix >= mx || iy >= ny || h >= surfaces) return;
  const int p = iy * mx + ix;
  const std::size_t o = std::size_t(h) * std::size_t(mx) * std::size_t(ny) + std::size_t(p);
  DeviceSystem<T> sys;
  const SolveStatus status = solve_weights(a, wx, wy, n, cov, gx[ix], gy[iy], sys);
  write_estimates(status, sys, values + std::size_t(h) * n, n, 1, out + o, 0, p, failures, skip);
}

//! Exp 4's thread (both entry points below): one grid point; the weights are solved once and
//! combined for all H surfaces. The wells through a view (solver.hpp's get<WellX>(j)).
template <class T, class Wells>
__device__ LB_FORCEINLINE void exp4_point(const T* __restrict__ a, const Wells& wells, const T* __restrict__ values,
                                          int n, int surfaces, Covariance<T> cov, const T* __restrict__ gx,
                                          const T* __restrict__ gy, int mx, int ny, T* __restrict__ out,
                                          FailureRecord* failures, SkippedPoints skip) {
  const int ix = blockIdx.x * blockDim.x + threadIdx.x;
  const int iy = blockIdx.y * blockDim.y + threadIdx.y;
  if (ix >= mx || iy >= ny) return;
  const int p = iy * mx + ix;
  const std::size_t points = std::size_t(mx) * std::size_t(ny);
  DeviceSystem<T> sys;
  const SolveStatus status = solve_weights(a, wells, n, cov, gx[ix], gy[iy], sys);
  write_estimates(status, sys, values, n, surfaces, out + p, points, p, failures, skip);
}

//! Exp 4: one thread per grid point, the wells as x[] and y[] (the paper's).
template <class T>
__global__ void __launch_bounds__(kPointBlockX* kPointBlockY)
    exp4_kernel(const T* __restrict__ a, const T* __restrict__ wx, const T* __restrict__ wy,
                const T* __restrict__ values, int n, int surfaces, Covariance<T> cov,
                const T* __restrict__ gx, const T* __restrict__ gy, int mx, int ny, T* __restrict__ out,
                FailureRecord* failures, SkippedPoints skip) {
  exp4_point(a, WellArrays<T>{wx, wy}, values, n, surfaces, cov, gx, gy, mx, ny, out, failures, skip);
}

//! Exp 4 with the wells laid out by a one-blob layout-library mapping M (beyond the paper:
//! aosoa32). The blob comes as a __restrict__ parameter, as x[] and y[] do above, so the view
//! built from it reads the wells through the same read-only path (LDG.CONSTANT).
template <class T, class M>
__global__ void __launch_bounds__(kPointBlockX* kPointBlockY)
    exp4_view_kernel(const T* __restrict__ a, M mapping, const std::byte* __restrict__ wells_blob,
                     const T* __restrict__ values, int n, int surfaces, Covariance<T> cov,
                     const T* __restrict__ gx, const T* __restrict__ gy, int mx, int ny, T* __restrict__ out,
                     FailureRecord* failures, SkippedPoints skip) {
  static_assert(M::blob_count == 1, "the wells' mapping has one blob");
  const layout::View<M> wells{mapping, {const_cast<std::byte*>(wells_blob)}};
  exp4_point(a, wells, values, n, surfaces, cov, gx, gy, mx, ny, out, failures, skip);
}

//! Covariance of exp 6: the variogram's C(h) with the fast-math intrinsics made explicit
//! (the project's flags stay IEEE): the distance as d2 * rsqrtf(d2) (MUFU approximate
//! reciprocal square root, ~2 ulp; d2 = 0 gives h = 0 exactly, so B's entry of a well on
//! the grid point is exactly C(0)) and __expf (ex2.approx: 2 + 1.173 |x| ulp for argument
//! x, |x| <= 6 on the base case, where the domain is two ranges across).
struct FastExp {
  __device__ LB_FORCEINLINE float operator()(float x) const { return __expf(x); }
};
struct FastFloatCovariance {
  Covariance<float> cov;
  __device__ LB_FORCEINLINE float operator()(float px, float py, float wx, float wy) const {
    const float dx = px - wx, dy = py - wy;
    const float d2 = __fmaf_rn(dx, dx, dy * dy);
    const float h = d2 > 0.0f ? d2 * rsqrtf(d2) : 0.0f;
    return cov.evaluate(h, FastExp{});
  }
};

//! The IEEE covariance of exp 5, with the same interface.
template <class T>
struct PreciseCovariance {
  Covariance<T> cov;
  __device__ LB_FORCEINLINE T operator()(T px, T py, T wx, T wy) const { return cov(planar_distance(px, py, wx, wy)); }
};

//! Exps 5 and 6: as exp 4, with the wells ({x, y} structs), A and all values in __constant__
//! memory (every thread of a warp reads the same address at the same time: the constant
//! cache's broadcast). The grid point, the covariance's parameters, n and H are held in
//! registers for the loops; each surface's sum is a register accumulator over lambda (in
//! the thread's local system) and the constant values.
template <class T, class Cov, int Capacity>
__global__ void __launch_bounds__(kPointBlockX* kPointBlockY)
    exp56_kernel(unsigned wells_offset, unsigned matrix_offset, unsigned values_offset, int n, int surfaces, Cov cov,
                 const T* __restrict__ gx, const T* __restrict__ gy, int mx, int ny, T* __restrict__ out,
                 FailureRecord* failures, SkippedPoints skip) {
  const int ix = blockIdx.x * blockDim.x + threadIdx.x;
  const int iy = blockIdx.y * blockDim.y + threadIdx.y;
  if (ix >= mx || iy >= ny) return;
  const unsigned char* pool = reinterpret_cast<const unsigned char*>(c_pool);
  const WellXY<T>* wells = reinterpret_cast<const WellXY<T>*>(pool + wells_offset);
  const T* a = reinterpret_cast<const T*>(pool + matrix_offset);
  const T* values = reinterpret_cast<const T*>(pool + values_offset);
  const int p = iy * mx + ix;
  const int m = n + 1;
  const std::size_t points = std::size_t(mx) * std::size_t(ny);
  const T px = gx[ix], py = gy[iy];  // registers for the loop below
  PointSystem<T, Capacity> sys;
  for (int k = 0; k < m * m; ++k) sys.a[k] = a[k];
  for (int j = 0; j < n; ++j) {
    const WellXY<T> w = wells[j];
    sys.b[j] = cov(px, py, w.x, w.y);
  }
  sys.b[n] = T(1);
  const SolveStatus status = solve_in_place(sys.a, sys.b, m);
  write_estimates(status, sys, values, n, surfaces, out + p, points, p, failures, skip);
}

//! Exp 8 (dual form, dual.hpp): Lanes threads per grid point, 1-D over the mesh (p = iy M +
//! ix). Lanes = 1: one thread per point (each surface's writes coalesce). Lanes = kDualSplitLanes:
//! for meshes too small to fill the GPU, a warp shares one point's wells (lane l takes wells
//! l, l + Lanes, ...), then a shuffle reduction sums the lanes and lane 0 writes. The block
//! stages kDualBlock wells (x, y and the pass's alpha, well-major as dual_coefficients lays
//! it out) in shared memory at a time, so any number of wells fits; a group of
//! kDualSurfaceGroup coefficients is read in 16-byte loads. Each well's row of alpha is
//! padded by 16 bytes (an odd number of 16-byte bank groups: the lanes of a warp reading
//! different wells' rows hit different banks; one thread per point reads one row, a
//! broadcast). Per pass of up to
//! kDualSurfacesPerPass surfaces, each covariance is computed once and feeds every
//! surface's register accumulator (dual.hpp's body).
//! One launch covers grid points [first, end) of the mesh's `points` (a chunk whose estimates
//! download while the next chunk is computed).
template <class T, int Lanes>
__global__ void __launch_bounds__(kDualBlock)
    exp8_kernel(const T* __restrict__ wx, const T* __restrict__ wy, const T* __restrict__ alpha, int n, int surfaces,
                Covariance<T> cov, const T* __restrict__ gx, const T* __restrict__ gy, int mx, int points, int first,
                int end, T* __restrict__ out, SkippedPoints skip) {
  static_assert(Lanes >= 1 && Lanes <= 32 && (Lanes & (Lanes - 1)) == 0, "lanes of one point: within a warp");
  __shared__ T tile_x[kDualBlock], tile_y[kDualBlock];
  constexpr int row = kDualSurfacesPerPass + 16 / int(sizeof(T));
  __shared__ __align__(16) T tile_alpha[kDualBlock * row];
  const int t = threadIdx.x, lane = t % Lanes;
  const int p = first + static_cast<int>(blockIdx.x) * (kDualBlock / Lanes) + t / Lanes;
  const bool active = p < end;  // inactive threads still stage wells and join the shuffles
  const T px = active ? gx[p % mx] : T(0), py = active ? gy[p / mx] : T(0);
  const std::size_t pass_size = std::size_t(n + 1) * kDualSurfacesPerPass;
  for (int h0 = 0, pass = 0; h0 < surfaces; h0 += kDualSurfacesPerPass, ++pass) {
    const int count = min(kDualSurfacesPerPass, surfaces - h0);
    const T* a = alpha + std::size_t(pass) * pass_size;
    T acc[kDualSurfacesPerPass];
    LB_UNROLL
    for (int h = 0; h < kDualSurfacesPerPass; ++h) acc[h] = lane == 0 ? a[std::size_t(n) * kDualSurfacesPerPass + h] : T(0);
    for (int w0 = 0; w0 < n; w0 += kDualBlock) {
      const int tile = min(kDualBlock, n - w0);
      __syncthreads();  // the previous tile is consumed
      if (t < tile) {
        tile_x[t] = wx[w0 + t];
        tile_y[t] = wy[w0 + t];
      }
      const T* source = a + std::size_t(w0) * kDualSurfacesPerPass;  // contiguous: coalesced
      for (int k = t; k < tile * kDualSurfacesPerPass; k += kDualBlock)
        tile_alpha[k / kDualSurfacesPerPass * row + k % kDualSurfacesPerPass] = source[k];
      __syncthreads();
      accumulate_dual<Lanes, row>(px, py, tile_x, tile_y, tile_alpha, tile, count, cov, acc, lane);
    }
    LB_UNROLL
    for (int offset = Lanes / 2; offset > 0; offset /= 2)
      LB_UNROLL
      for (int h = 0; h < kDualSurfacesPerPass; ++h)
        if (h < count) acc[h] += __shfl_down_sync(0xffffffffu, acc[h], offset, Lanes);
    if (active && lane == 0 && !skip.contains(p))
      LB_UNROLL
      for (int h = 0; h < kDualSurfacesPerPass; ++h)
        if (h < count) out[std::size_t(h0 + h) * std::size_t(points) + std::size_t(p)] = acc[h];
  }
}

unsigned ceil_div(std::size_t a, unsigned b) { return static_cast<unsigned>((a + b - 1) / b); }

//! A device buffer of T (freed on destruction).
template <class T>
class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(std::size_t count) : count_(count) {
    if (count) check(cudaMalloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T)), "kriging: cudaMalloc");
  }
  ~Buffer() {
    if (ptr_) cudaFree(ptr_);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept : ptr_(o.ptr_), count_(o.count_) { o.ptr_ = nullptr, o.count_ = 0; }
  Buffer& operator=(Buffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    return *this;
  }
  T* get() const { return ptr_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

//! The timed region's events (start, stop) and the device-only part's (compute_start,
//! compute_stop), owned for the duration of one run.
struct Events {
  cudaEvent_t start = nullptr, stop = nullptr, compute_start = nullptr, compute_stop = nullptr;
  cudaEvent_t solve_start = nullptr, solve_stop = nullptr;  //!< exp 8's device solve
  Events() {
    for (cudaEvent_t* e : {&start, &stop, &compute_start, &compute_stop, &solve_start, &solve_stop})
      check(cudaEventCreate(e), "kriging: cudaEventCreate");
  }
  ~Events() {
    for (cudaEvent_t e : {start, stop, compute_start, compute_stop, solve_start, solve_stop}) cudaEventDestroy(e);
  }
  double seconds(cudaEvent_t from, cudaEvent_t to) const {
    float ms = 0.0f;
    check(cudaEventElapsedTime(&ms, from, to), "kriging: event elapsed time");
    return double(ms) * 1e-3;
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
};

template <class T>
void upload(const Buffer<T>& dst, const T* src, std::size_t count, cudaStream_t s, const char* what) {
  check(cudaMemcpyAsync(dst.get(), src, count * sizeof(T), cudaMemcpyHostToDevice, s), what);
}

template <class T>
void download(T* dst, const T* src, std::size_t count, cudaStream_t s, const char* what) {
  check(cudaMemcpyAsync(dst, src, count * sizeof(T), cudaMemcpyDeviceToHost, s), what);
}

}  // namespace

template <class T>
struct DeviceExperiment<T>::Impl {
  int experiment;
  WellLayout well_layout = WellLayout::soa;
  KrigingInput<T> in;
  int n, surfaces, mx, ny;
  std::size_t points;
  Buffer<T> wx, wy, values, a, gx, gy, out;
  Buffer<T> raw_values;  //!< exp 8's device solve: the values it solves for (values holds alpha)
  Buffer<FailureRecord> failures;
  //! aosoa32 (exp 4): the wells' one blob on the device and its pinned host copy, laid out once.
  Buffer<unsigned char> tiled_wells;
  PinnedBuffer<unsigned char> tiled_wells_host;
  std::unique_ptr<GemmPipeline<T>> gemm;  //!< experiment 7
  SkippedPoints skip;                     //!< fault injection (tests only)
  DualPath dual_path = DualPath::automatic;
  std::size_t dual_split_below = 0;  //!< exp 8 automatic: fewer points than this split wells
  SolvePlace solve = SolvePlace::device;  //!< exp 8
  DualFactorisation dual_preference = DualFactorisation::cholesky;  //!< exp 8's device solve
  std::unique_ptr<DeviceDualSolve<T>> dual_solve;
  std::unique_ptr<OverlappedDownload> overlapped;  //!< exp 8's chunked download
  //! Host sides of the transfers, pinned: the input (filled once), what the host builds per
  //! run (A, the constant pool, alpha), the estimates.
  std::unique_ptr<PinnedInput<T>> host_in;
  PinnedBuffer<unsigned char> scratch;
  PinnedBuffer<T> pinned_out;
  double host_solve_seconds = std::numeric_limits<double>::quiet_NaN();  //!< exp 8: the last run's

  //! The wells' aosoa32 view of the blob at `blob` (device or pinned host memory).
  layout::View<TiledWellsMapping<T>> tiled_view(unsigned char* blob) const {
    return {TiledWellsMapping<T>{in.wells}, {reinterpret_cast<std::byte*>(blob)}};
  }
  //! Returns whether it recorded the compute events.
  bool run_region(T* host_out, cudaStream_t s, const Events& ev, Poison poison);
  //! One run into host_out (poisoned first with Poison::yes), its times; throws
  //! SingularSystem after it if a solve failed.
  DeviceTimes timed_run(cudaStream_t stream, Poison poison);
  void poison_output(cudaStream_t s) {
    check(cudaMemsetAsync(out.get(), kPoisonByte, out.bytes(), s), "kriging: poison the output");
  }
  //! `count` values of T from the host into pinned scratch, returned there (for an upload).
  const T* stage(const T* from, std::size_t count) {
    T* to = reinterpret_cast<T*>(scratch.get());
    std::copy_n(from, count, to);
    return to;
  }
  //! Exp 8: the host solve (dual_coefficients on the calling thread, staged in pinned memory)
  //! and its upload into `values`; returns its wall-clock seconds.
  double solve_on_host(cudaStream_t s) {
    const auto start = std::chrono::steady_clock::now();
    const std::vector<T> alpha = dual_coefficients(in, kHostThreadsInTimedRegion);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    upload(values, stage(alpha.data(), alpha.size()), alpha.size(), s, "kriging exp 8: upload alpha");
    return seconds;
  }
  //! Exp 8: the device solve's handle and buffers, made on first need and outside any timed
  //! region (cuSOLVER is loaded then: a host-solve-only use never loads it).
  DeviceDualSolve<T>& device_solver() {
    if (!dual_solve) dual_solve = std::make_unique<DeviceDualSolve<T>>(in, dual_preference);
    return *dual_solve;
  }
  //! Exp 8: the device solve's work on s (values uploaded, alpha into `values`).
  void solve_on_device(cudaStream_t s) {
    upload(raw_values, host_in->values, in.values.size(), s, "kriging exp 8: upload values");
    device_solver().run(wx.get(), wy.get(), raw_values.get(), values.get(), s);
  }
};

template <class T>
DeviceExperiment<T>::DeviceExperiment(int experiment, const KrigingInput<T>& in, WellLayout well_layout)
    : impl_(std::make_unique<Impl>()) {
  check_device_experiment(experiment, in.wells, in.surfaces, sizeof(T));
  check_device_mesh(experiment, in.points(), in.surfaces);
  check_well_layout(experiment, well_layout);
  Impl& d = *impl_;
  d.experiment = experiment;
  d.well_layout = well_layout;
  d.in = in;
  d.n = static_cast<int>(in.wells);
  d.surfaces = static_cast<int>(in.surfaces);
  d.mx = static_cast<int>(in.grid_x.size());
  d.ny = static_cast<int>(in.grid_y.size());
  d.points = in.points();
  d.pinned_out = PinnedBuffer<T>(d.points * in.surfaces);
  if (experiment == 7) {
    d.gemm = std::make_unique<GemmPipeline<T>>(in);
    d.failures = Buffer<FailureRecord>(1);
    return;
  }
  d.host_in = std::make_unique<PinnedInput<T>>(in);
  const std::size_t m = in.wells + 1;
  // What the host builds per run: A (exps 2-4), the constant pool (5-6), alpha (8).
  const std::size_t scratch_bytes =
      experiment >= 5 && experiment <= 6 ? constant_layout(in.wells, in.surfaces, sizeof(T)).bytes
      : experiment == 8                  ? dual_coefficient_count(in.wells, in.surfaces) * sizeof(T)
                                         : m * m * sizeof(T);
  d.scratch = PinnedBuffer<unsigned char>(scratch_bytes);
  if (experiment == 8) {  // values holds alpha (dual_coefficients' layout)
    d.wx = Buffer<T>(in.wells);
    d.wy = Buffer<T>(in.wells);
    d.values = Buffer<T>(dual_coefficient_count(in.wells, in.surfaces));
    d.raw_values = Buffer<T>(in.values.size());
    d.overlapped = std::make_unique<OverlappedDownload>();
    int device = 0, multiprocessors = 0;
    check(cudaGetDevice(&device), "kriging: cudaGetDevice");
    check(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device),
          "kriging: cudaDeviceGetAttribute");
    d.dual_split_below = std::size_t(kDualSplitBelowWaves) * std::size_t(multiprocessors) * kDualBlock;
  }
  if (well_layout == WellLayout::aosoa32) {
    const std::size_t bytes = TiledWellsMapping<T>{in.wells}.blob_bytes(0);
    d.tiled_wells = Buffer<unsigned char>(bytes);
    d.tiled_wells_host = PinnedBuffer<unsigned char>(bytes);
    std::memset(d.tiled_wells_host.get(), 0, bytes);  // the last tile's unused lanes
    const auto host = d.tiled_view(d.tiled_wells_host.get());
    for (std::size_t j = 0; j < in.wells; ++j) {
      host.template get<WellX>(j) = in.well_x[j];
      host.template get<WellY>(j) = in.well_y[j];
    }
  }
  if (experiment <= 4) {
    if (well_layout == WellLayout::soa) {
      d.wx = Buffer<T>(in.wells);
      d.wy = Buffer<T>(in.wells);
    }
    // Exps 1-2 hold one surface's values at a time; 3-4 all of them.
    d.values = Buffer<T>(experiment <= 2 ? in.wells : in.wells * in.surfaces);
  }
  if (experiment >= 2 && experiment <= 4) d.a = Buffer<T>(m * m);
  d.gx = Buffer<T>(in.grid_x.size());
  d.gy = Buffer<T>(in.grid_y.size());
  d.out = Buffer<T>(experiment <= 2 ? d.points : d.points * in.surfaces);  // 8 too
  d.failures = Buffer<FailureRecord>(1);
}

template <class T>
DeviceExperiment<T>::~DeviceExperiment() = default;

template <class T>
int DeviceExperiment<T>::experiment() const {
  return impl_->experiment;
}

//! The timed region (see device.hpp): everything between the two events.
template <class T>
bool DeviceExperiment<T>::Impl::run_region(T* host_out, cudaStream_t s, const Events& ev, Poison poison) {
  const KrigingInput<T>& d = in;
  const dim3 point_block(kPointBlockX, kPointBlockY, 1);
  const dim3 point_grid(ceil_div(d.grid_x.size(), kPointBlockX), ceil_div(d.grid_y.size(), kPointBlockY), 1);
  if (experiment == 7) {  // GemmPipeline has its own pinned input
    gemm->run(host_out, s, ev.compute_start, ev.compute_stop);
    return true;
  }
  const PinnedInput<T>& hin = *host_in;
  // A on the host (exps 2-6), on the calling thread, staged in pinned memory.
  auto host_matrix = [&] {
    const std::vector<T> host_a = kriging_matrix(d, kHostThreadsInTimedRegion);
    return stage(host_a.data(), host_a.size());
  };
  switch (experiment) {
    case 1:
    case 2: {
      upload(wx, hin.well_x, d.wells, s, "kriging: upload well x");
      upload(wy, hin.well_y, d.wells, s, "kriging: upload well y");
      upload(gx, hin.grid_x, d.grid_x.size(), s, "kriging: upload mesh x");
      upload(gy, hin.grid_y, d.grid_y.size(), s, "kriging: upload mesh y");
      if (experiment == 2)  // A once, on the host
        upload(a, host_matrix(), std::size_t(n + 1) * std::size_t(n + 1), s, "kriging exp 2: upload A");
      for (int h = 0; h < surfaces; ++h) {
        upload(values, hin.values + std::size_t(h) * d.wells, d.wells, s, "kriging: upload one surface's values");
        if (poison == Poison::yes) poison_output(s);  // one buffer for all surfaces
        if (experiment == 1)
          exp1_kernel<T><<<point_grid, point_block, 0, s>>>(wx.get(), wy.get(), values.get(), n, d.covariance, gx.get(),
                                                            gy.get(), mx, ny, out.get(), failures.get(), skip);
        else
          exp2_kernel<T><<<point_grid, point_block, 0, s>>>(a.get(), wx.get(), wy.get(), values.get(), n, d.covariance,
                                                            gx.get(), gy.get(), mx, ny, out.get(), failures.get(), skip);
        check_launch(experiment == 1 ? "kriging exp1_kernel" : "kriging exp2_kernel");
        download(host_out + std::size_t(h) * points, out.get(), points, s, "kriging: download one surface");
      }
      return false;
    }
    case 3:
    case 4: {
      upload(a, host_matrix(), std::size_t(n + 1) * std::size_t(n + 1), s, "kriging: upload A");
      if (well_layout == WellLayout::aosoa32) {
        upload(tiled_wells, tiled_wells_host.get(), tiled_wells_host.size(), s, "kriging: upload the tiled wells");
      } else {
        upload(wx, hin.well_x, d.wells, s, "kriging: upload well x");
        upload(wy, hin.well_y, d.wells, s, "kriging: upload well y");
      }
      upload(values, hin.values, d.values.size(), s, "kriging: upload values");
      upload(gx, hin.grid_x, d.grid_x.size(), s, "kriging: upload mesh x");
      upload(gy, hin.grid_y, d.grid_y.size(), s, "kriging: upload mesh y");
      check(cudaEventRecord(ev.compute_start, s), "kriging: record compute start");
      if (experiment == 3) {
        const dim3 block(kExp3BlockX, kExp3BlockY, static_cast<unsigned>(surfaces));
        const dim3 grid(ceil_div(d.grid_x.size(), kExp3BlockX), ceil_div(d.grid_y.size(), kExp3BlockY), 1);
        exp3_kernel<T><<<grid, block, 0, s>>>(a.get(), wx.get(), wy.get(), values.get(), n, surfaces, d.covariance,
                                              gx.get(), gy.get(), mx, ny, out.get(), failures.get(), skip);
        check_launch("kriging exp3_kernel");
      } else {
        if (well_layout == WellLayout::aosoa32) {
          const auto wells = tiled_view(tiled_wells.get());
          exp4_view_kernel<T><<<point_grid, point_block, 0, s>>>(a.get(), wells.mapping, wells.blobs[0], values.get(),
                                                                 n, surfaces, d.covariance, gx.get(), gy.get(), mx, ny,
                                                                 out.get(), failures.get(), skip);
        } else {
          exp4_kernel<T><<<point_grid, point_block, 0, s>>>(a.get(), wx.get(), wy.get(), values.get(), n, surfaces,
                                                            d.covariance, gx.get(), gy.get(), mx, ny, out.get(),
                                                            failures.get(), skip);
        }
        check_launch("kriging exp4_kernel");
      }
      check(cudaEventRecord(ev.compute_stop, s), "kriging: record compute stop");
      download(host_out, out.get(), points * d.surfaces, s, "kriging: download estimates");
      return true;
    }
    case 5:
    case 6: {
      const ConstantLayout layout = constant_layout(d.wells, d.surfaces, sizeof(T));
      const std::vector<T> host_a = kriging_matrix(d, kHostThreadsInTimedRegion);
      unsigned char* pool = scratch.get();  // pinned
      std::memset(pool, 0, layout.bytes);
      for (std::size_t i = 0; i < d.wells; ++i) {
        const WellXY<T> w{d.well_x[i], d.well_y[i]};
        std::memcpy(pool + layout.wells_offset + i * sizeof w, &w, sizeof w);
      }
      std::memcpy(pool + layout.matrix_offset, host_a.data(), host_a.size() * sizeof(T));
      std::memcpy(pool + layout.values_offset, d.values.data(), d.values.size() * sizeof(T));
      check(cudaMemcpyToSymbolAsync(c_pool, pool, layout.bytes, 0, cudaMemcpyHostToDevice, s),
            "kriging: upload constant memory");
      upload(gx, hin.grid_x, d.grid_x.size(), s, "kriging: upload mesh x");
      upload(gy, hin.grid_y, d.grid_y.size(), s, "kriging: upload mesh y");
      const auto wo = static_cast<unsigned>(layout.wells_offset), mo = static_cast<unsigned>(layout.matrix_offset),
                 vo = static_cast<unsigned>(layout.values_offset);
      // The paper's 10 wells use the small per-thread system; the well-count sweep the large.
      auto launch = [&]<int Capacity>(auto cov) {
        exp56_kernel<T, decltype(cov), Capacity><<<point_grid, point_block, 0, s>>>(
            wo, mo, vo, n, surfaces, cov, gx.get(), gy.get(), mx, ny, out.get(), failures.get(), skip);
      };
      check(cudaEventRecord(ev.compute_start, s), "kriging: record compute start");
      if constexpr (std::is_same_v<T, float>) {
        const FastFloatCovariance cov{d.covariance};
        n <= kDeviceMaxWells ? launch.template operator()<kDeviceMaxWells>(cov)
                             : launch.template operator()<kDeviceMaxWellsConstant>(cov);
      } else {
        const PreciseCovariance<T> cov{d.covariance};
        n <= kDeviceMaxWells ? launch.template operator()<kDeviceMaxWells>(cov)
                             : launch.template operator()<kDeviceMaxWellsConstant>(cov);
      }
      check_launch(experiment == 6 ? "kriging exp6_kernel" : "kriging exp5_kernel");
      check(cudaEventRecord(ev.compute_stop, s), "kriging: record compute stop");
      download(host_out, out.get(), points * d.surfaces, s, "kriging: download estimates");
      return true;
    }
    case 8: {
      // The uploads from pinned memory run while the host solves (host path).
      upload(wx, hin.well_x, d.wells, s, "kriging: upload well x");
      upload(wy, hin.well_y, d.wells, s, "kriging: upload well y");
      upload(gx, hin.grid_x, d.grid_x.size(), s, "kriging: upload mesh x");
      upload(gy, hin.grid_y, d.grid_y.size(), s, "kriging: upload mesh y");
      host_solve_seconds = std::numeric_limits<double>::quiet_NaN();
      if (solve == SolvePlace::host) {
        host_solve_seconds = solve_on_host(s);  // in double, on the calling thread: timed
      } else {
        check(cudaEventRecord(ev.solve_start, s), "kriging: record solve start");
        solve_on_device(s);
        check(cudaEventRecord(ev.solve_stop, s), "kriging: record solve stop");
      }
      check(cudaEventRecord(ev.compute_start, s), "kriging: record compute start");
      const bool split = dual_path == DualPath::lanes_per_point ||
                         (dual_path == DualPath::automatic && points < dual_split_below);
      const std::size_t chunks = overlap_chunks(points, dual_split_below);
      for (std::size_t c = 0; c < chunks; ++c) {
        const std::size_t first = points * c / chunks, end = points * (c + 1) / chunks;
        auto launch = [&]<int Lanes>() {
          exp8_kernel<T, Lanes><<<ceil_div(end - first, kDualBlock / Lanes), kDualBlock, 0, s>>>(
              wx.get(), wy.get(), values.get(), n, surfaces, d.covariance, gx.get(), gy.get(), mx,
              static_cast<int>(points), static_cast<int>(first), static_cast<int>(end), out.get(), skip);
        };
        split ? launch.template operator()<kDualSplitLanes>() : launch.template operator()<1>();
        check_launch("kriging exp8_kernel");
        overlapped->chunk(s, host_out, out.get(), points, d.surfaces, first, end - first);
      }
      check(cudaEventRecord(ev.compute_stop, s), "kriging: record compute stop");
      overlapped->join(s);
      return true;
    }
  }
  return false;
}

template <class T>
void DeviceExperiment<T>::force_dual_path_for_testing(DualPath path) {
  impl_->dual_path = path;
}

template <class T>
void DeviceExperiment<T>::skip_writes_for_testing(std::size_t first, std::size_t end) {
  Impl& d = *impl_;
  d.skip = {static_cast<int>(std::min(first, d.points)), static_cast<int>(std::min(end, d.points))};
  if (d.gemm) d.gemm->skip_writes_for_testing(first, end);
}

template <class T>
DeviceTimes DeviceExperiment<T>::Impl::timed_run(cudaStream_t stream, Poison poison) {
  T* const host = pinned_out.get();
  if (poison == Poison::yes) {
    std::memset(host, kPoisonByte, pinned_out.bytes());
    if (gemm)
      gemm->poison_output(stream);
    else if (experiment >= 3)  // 1-2 poison before each surface's launch
      poison_output(stream);
  }
  check(cudaMemsetAsync(failures.get(), 0, sizeof(FailureRecord), stream), "kriging: clear failure record");
  const SolvePlace solved = solve;
  if (experiment == 8 && solved == SolvePlace::device) device_solver();  // not timed
  Events ev;
  check(cudaEventRecord(ev.start, stream), "kriging: record start");
  const bool compute_timed = run_region(host, stream, ev, poison);
  check(cudaEventRecord(ev.stop, stream), "kriging: record stop");
  check(cudaEventSynchronize(ev.stop), "kriging: CUDA experiment run");
  DeviceTimes times;
  times.seconds = ev.seconds(ev.start, ev.stop);
  if (compute_timed) times.device_seconds = ev.seconds(ev.compute_start, ev.compute_stop);
  if (experiment == 8) {
    if (solved == SolvePlace::host)
      times.host_solve_seconds = host_solve_seconds;
    else
      times.device_solve_seconds = ev.seconds(ev.solve_start, ev.solve_stop);
  }

  if (gemm) gemm->check_factorisation();
  if (experiment == 8 && solved == SolvePlace::device) device_solver().check_factorisation();
  FailureRecord failure{};
  check(cudaMemcpyAsync(&failure, failures.get(), sizeof failure, cudaMemcpyDeviceToHost, stream),
        "kriging: read failure record");
  check(cudaStreamSynchronize(stream), "kriging: read failure record");
  if (failure.count > 0) {
    const std::size_t mx = in.grid_x.size();
    const std::size_t p = static_cast<std::size_t>(failure.point);
    const double px = double(in.grid_x[p % mx]), py = double(in.grid_y[p / mx]);
    SolveStatus status;
    status.singular_column = failure.column;
    status.pivot = failure.pivot;
    status.threshold = failure.threshold;
    throw_singular_system(in, status, device_failure_where(experiment, px, py, failure.count));
  }
  return times;
}

template <class T>
DeviceRun<T> DeviceExperiment<T>::run(cudaStream_t stream, Poison poison) {
  Impl& d = *impl_;
  DeviceRun<T> result;
  static_cast<DeviceTimes&>(result) = d.timed_run(stream, poison);
  const T* host = d.pinned_out.get();
  result.estimates.assign(host, host + d.pinned_out.size());
  if (poison == Poison::yes)
    for (std::size_t k = 0; k < result.estimates.size(); ++k)
      if (is_poison(result.estimates[k]) && result.unwritten++ == 0) result.first_unwritten = k;
  return result;
}

template <class T>
DeviceTimes DeviceExperiment<T>::run_in_place(cudaStream_t stream) {
  return impl_->timed_run(stream, Poison::no);
}

template <class T>
const T* DeviceExperiment<T>::host_estimates() const {
  return impl_->pinned_out.get();
}

template <class T>
void DeviceExperiment<T>::set_solve(SolvePlace place) {
  impl_->solve = place;
  if (impl_->experiment == 8 && place == SolvePlace::device) impl_->device_solver();  // set up now
}

template <class T>
SolvePlace DeviceExperiment<T>::solve() const {
  return impl_->solve;
}

template <class T>
DualFactorisation DeviceExperiment<T>::dual_factorisation() {
  if (impl_->experiment != 8)
    throw std::logic_error("kriging: dual_factorisation is experiment 8's, not experiment " +
                           std::to_string(impl_->experiment) + "'s");
  return impl_->device_solver().factorisation();
}

template <class T>
void DeviceExperiment<T>::prefer_dual_factorisation_for_testing(DualFactorisation f) {
  impl_->dual_preference = f;
  impl_->dual_solve.reset();
}

template <class T>
SolveChoice DeviceExperiment<T>::choose_solve(int trials, cudaStream_t stream) {
  Impl& d = *impl_;
  if (d.experiment != 8)
    throw std::logic_error("kriging: choose_solve is experiment 8's (where it solves alpha), not experiment " +
                           std::to_string(d.experiment) + "'s");
  const PinnedInput<T>& hin = *d.host_in;
  upload(d.wx, hin.well_x, d.in.wells, stream, "kriging: upload well x");  // the device solve's input
  upload(d.wy, hin.well_y, d.in.wells, stream, "kriging: upload well y");
  auto seconds_of = [&](auto solve) {
    check(cudaStreamSynchronize(stream), "kriging exp 8: before a solve trial");
    const auto start = std::chrono::steady_clock::now();
    solve();
    check(cudaStreamSynchronize(stream), "kriging exp 8: solve trial");
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  d.device_solver();  // its set-up (loading cuSOLVER) is not a trial's
  auto on_host = [&] { d.solve_on_host(stream); };
  auto on_device = [&] { d.solve_on_device(stream); };
  seconds_of(on_host);  // warm-ups, not counted; a singular A is refused by the host solve
  seconds_of(on_device);
  d.device_solver().check_factorisation();
  std::vector<double> host, device;
  for (int k = 0; k < trials; ++k) {  // interleaved: a drift of the machine touches both alike
    host.push_back(seconds_of(on_host));
    device.push_back(seconds_of(on_device));
  }
  SolveChoice choice;
  choice.host_seconds = median_of(host);
  choice.device_seconds = median_of(device);
  choice.trials = trials;
  choice.place = faster_solve(choice.host_seconds, choice.device_seconds);
  d.solve = choice.place;
  return choice;
}

template class DeviceExperiment<float>;
template class DeviceExperiment<double>;

DeviceRun<double> run_device_experiment(int experiment, const KrigingInput<double>& in, cudaStream_t stream) {
  DeviceExperiment<double> e(experiment, in);
  return e.run(stream);
}

DeviceRun<float> run_device_experiment(int experiment, const KrigingInput<float>& in, cudaStream_t stream) {
  DeviceExperiment<float> e(experiment, in);
  return e.run(stream);
}

}  // namespace lb::kriging

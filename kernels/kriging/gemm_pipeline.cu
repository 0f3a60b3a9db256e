// Experiment 7: A inverted once, all weights and all surfaces as two cuBLAS GEMMs (see
// gemm_pipeline.hpp). Column-major throughout, as cuBLAS: B and Lambda are m x chunk with
// one grid point per column; the output is P x H (ld P), i.e. surface-major with the grid
// point fastest, exactly the layout every other experiment writes. (No fmt here: fmt 9's
// headers do not compile under nvcc, as in experiments.cu.)

#include "gemm_pipeline.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "lb/common/cuda_check.hpp"
#include "lb/kriging/device.hpp"
#include "lb/kriging/solver.hpp"

namespace lb::kriging {
namespace {

//! The cuBLAS and cuSOLVER functions experiment 7 calls, loaded with dlopen on its first use
//! rather than linked: linked, both libraries (and cuBLASLt, cuSPARSE, nvJitLink behind them)
//! were loaded by every start of the binary, even `--help` and `--device cpu` runs: 0.09 s
//! and 266 MB before any work. LB_CUBLAS_LIBRARY / LB_CUSOLVER_LIBRARY are the toolkit's
//! libraries CMake found.
struct MathLibraries {
  decltype(&cublasCreate_v2) blas_create;
  decltype(&cublasDestroy_v2) blas_destroy;
  decltype(&cublasSetStream_v2) blas_set_stream;
  decltype(&cublasSgemm_v2) sgemm;
  decltype(&cublasDgemm_v2) dgemm;
  decltype(&cublasGetStatusString) blas_status_string;
  decltype(&cusolverDnCreate) solver_create;
  decltype(&cusolverDnDestroy) solver_destroy;
  decltype(&cusolverDnSetStream) solver_set_stream;
  decltype(&cusolverDnDgetrf_bufferSize) getrf_buffer_size;
  decltype(&cusolverDnDgetrf) getrf;
  decltype(&cusolverDnDgetrs) getrs;
};

void* open_library(const char* path) {
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    throw std::runtime_error(std::string("kriging experiment 7 needs cuBLAS and cuSOLVER: cannot load ") + path + ": " +
                             dlerror());
  return handle;
}

template <class F>
void bind(void* library, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(library, name));
  if (!f)
    throw std::runtime_error(std::string("kriging experiment 7: no symbol ") + name + " in cuBLAS/cuSOLVER: " +
                             dlerror());
}

MathLibraries load_math_libraries() {
  void* blas = open_library(LB_CUBLAS_LIBRARY);
  void* solver = open_library(LB_CUSOLVER_LIBRARY);
  MathLibraries l{};
  bind(blas, "cublasCreate_v2", l.blas_create);
  bind(blas, "cublasDestroy_v2", l.blas_destroy);
  bind(blas, "cublasSetStream_v2", l.blas_set_stream);
  bind(blas, "cublasSgemm_v2", l.sgemm);
  bind(blas, "cublasDgemm_v2", l.dgemm);
  bind(blas, "cublasGetStatusString", l.blas_status_string);
  bind(solver, "cusolverDnCreate", l.solver_create);
  bind(solver, "cusolverDnDestroy", l.solver_destroy);
  bind(solver, "cusolverDnSetStream", l.solver_set_stream);
  bind(solver, "cusolverDnDgetrf_bufferSize", l.getrf_buffer_size);
  bind(solver, "cusolverDnDgetrf", l.getrf);
  bind(solver, "cusolverDnDgetrs", l.getrs);
  return l;  // the libraries stay loaded for the process's lifetime
}

//! Loaded once, on first use (a failed load is retried by the next call).
const MathLibraries& math() {
  static const MathLibraries libraries = load_math_libraries();
  return libraries;
}

//! A library failure: a CUDA error behind it is raised as CudaError (sticky or not), the
//! library's own status otherwise.
void check_cublas(cublasStatus_t s, const char* what) {
  if (s == CUBLAS_STATUS_SUCCESS) return;
  check(cudaGetLastError(), what);
  throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(int(s)) + " (" +
                           math().blas_status_string(s) + ")");
}

void check_cusolver(cusolverStatus_t s, const char* what) {
  if (s == CUSOLVER_STATUS_SUCCESS) return;
  check(cudaGetLastError(), what);
  throw std::runtime_error(std::string(what) + ": cuSOLVER status " + std::to_string(int(s)));
}

template <class T>
T* device_alloc(std::size_t count, const char* what) {
  void* p = nullptr;
  check(cudaMalloc(&p, std::max<std::size_t>(count, 1) * sizeof(T)), what);
  return static_cast<T*>(p);
}

__global__ void identity_kernel(double* x, int m) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < std::size_t(m) * m) x[i] = (i % (std::size_t(m) + 1) == 0) ? 1.0 : 0.0;
}

template <class T>
__global__ void round_kernel(const double* from, T* to, std::size_t count) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) to[i] = static_cast<T>(from[i]);
}

//! B for grid points first .. first + count - 1: column k holds C(x_p - w_j) for the n wells
//! and a 1. One thread per entry, so consecutive threads write consecutive addresses.
template <class T>
__global__ void rhs_kernel(const T* __restrict__ wx, const T* __restrict__ wy, int n, Covariance<T> cov,
                           const T* __restrict__ gx, const T* __restrict__ gy, int mx, std::size_t first,
                           std::size_t count, T* __restrict__ b) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t m = std::size_t(n) + 1;
  if (i >= m * count) return;
  const std::size_t p = first + i / m;
  const int j = static_cast<int>(i % m);
  b[i] = j < n ? cov(planar_distance(gx[p % mx], gy[p / mx], wx[j], wy[j])) : T(1);
}

unsigned blocks_for(std::size_t count, unsigned block) { return static_cast<unsigned>((count + block - 1) / block); }

cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                    const float* a, int lda, const float* b, int ldb, float* c, int ldc) {
  const float one = 1.0f, zero = 0.0f;
  return math().sgemm(h, ta, tb, m, n, k, &one, a, lda, b, ldb, &zero, c, ldc);
}
cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                    const double* a, int lda, const double* b, int ldb, double* c, int ldc) {
  const double one = 1.0, zero = 0.0;
  return math().dgemm(h, ta, tb, m, n, k, &one, a, lda, b, ldb, &zero, c, ldc);
}

}  // namespace

template <class T>
struct GemmPipeline<T>::Impl {
  KrigingInput<T> in;
  int n = 0, m = 0, mx = 0;
  std::size_t points = 0, chunk = 0;
  cublasHandle_t blas = nullptr;
  cusolverDnHandle_t solver = nullptr;
  double *a64 = nullptr, *inv64 = nullptr, *solver_work = nullptr;
  int *pivots = nullptr, *info = nullptr;
  T *inv = nullptr, *wx = nullptr, *wy = nullptr, *gx = nullptr, *gy = nullptr, *values = nullptr;
  T *rhs = nullptr, *lambda = nullptr, *out = nullptr;
  double* diagonal = nullptr;  //!< U's diagonal, pinned host memory: read back without a sync
  int* info_host = nullptr;
  double a_max = 0;
  std::size_t skip_first = 0, skip_end = 0;  //!< fault injection (tests only)

  ~Impl() {
    if (diagonal) cudaFreeHost(diagonal);
    if (info_host) cudaFreeHost(info_host);
    if constexpr (std::is_same_v<T, double>) inv = nullptr;  // the same buffer as inv64
    for (void* p : {(void*)a64, (void*)inv64, (void*)solver_work, (void*)pivots, (void*)info, (void*)inv, (void*)wx,
                    (void*)wy, (void*)gx, (void*)gy, (void*)values, (void*)rhs, (void*)lambda, (void*)out})
      if (p) cudaFree(p);
    if (blas) math().blas_destroy(blas);
    if (solver) math().solver_destroy(solver);
  }
};

template <class T>
GemmPipeline<T>::GemmPipeline(const KrigingInput<T>& in, std::size_t workspace_bytes) : impl_(std::make_unique<Impl>()) {
  Impl& d = *impl_;
  d.in = in;
  d.n = static_cast<int>(in.wells);
  d.m = d.n + 1;
  d.mx = static_cast<int>(in.grid_x.size());
  d.points = in.points();
  const std::size_t m = std::size_t(d.m);
  d.chunk = std::min(d.points, std::max<std::size_t>(1, workspace_bytes / (2 * m * sizeof(T))));
  check_cublas(math().blas_create(&d.blas), "kriging exp 7: cublasCreate");
  check_cusolver(math().solver_create(&d.solver), "kriging exp 7: cusolverDnCreate");
  d.a64 = device_alloc<double>(m * m, "kriging exp 7: A");
  d.inv64 = device_alloc<double>(m * m, "kriging exp 7: A^-1 (double)");
  // In double the rounded inverse is the double one itself.
  if constexpr (std::is_same_v<T, double>)
    d.inv = d.inv64;
  else
    d.inv = device_alloc<T>(m * m, "kriging exp 7: A^-1");
  int work = 0;
  check_cusolver(math().getrf_buffer_size(d.solver, d.m, d.m, d.a64, d.m, &work), "kriging exp 7: getrf buffer size");
  d.solver_work = device_alloc<double>(std::size_t(work), "kriging exp 7: cuSOLVER workspace");
  d.pivots = device_alloc<int>(m, "kriging exp 7: pivots");
  d.info = device_alloc<int>(1, "kriging exp 7: info");
  d.wx = device_alloc<T>(in.wells, "kriging exp 7: wells x");
  d.wy = device_alloc<T>(in.wells, "kriging exp 7: wells y");
  d.gx = device_alloc<T>(in.grid_x.size(), "kriging exp 7: mesh x");
  d.gy = device_alloc<T>(in.grid_y.size(), "kriging exp 7: mesh y");
  d.values = device_alloc<T>(in.values.size(), "kriging exp 7: values");
  d.rhs = device_alloc<T>(m * d.chunk, "kriging exp 7: B (one chunk)");
  d.lambda = device_alloc<T>(m * d.chunk, "kriging exp 7: Lambda (one chunk)");
  d.out = device_alloc<T>(d.points * in.surfaces, "kriging exp 7: estimates");
  check(cudaMallocHost(reinterpret_cast<void**>(&d.diagonal), m * sizeof(double)), "kriging exp 7: pinned diagonal");
  check(cudaMallocHost(reinterpret_cast<void**>(&d.info_host), sizeof(int)), "kriging exp 7: pinned info");
}

template <class T>
GemmPipeline<T>::~GemmPipeline() = default;

template <class T>
std::size_t GemmPipeline<T>::chunk_points() const {
  return impl_->chunk;
}

template <class T>
void GemmPipeline<T>::run(T* host_out, cudaStream_t s, cudaEvent_t compute_start, cudaEvent_t compute_stop) {
  Impl& d = *impl_;
  const KrigingInput<T>& in = d.in;
  const std::size_t m = std::size_t(d.m);
  // A in double from the input's numbers (symmetric: row- and column-major agree).
  std::vector<double> wx(in.well_x.begin(), in.well_x.end()), wy(in.well_y.begin(), in.well_y.end());
  std::vector<double> a(m * m);
  const Covariance<double> cov64 = in.covariance.template as<double>();
  build_matrix(wx.data(), wy.data(), d.n, cov64, a.data());
  d.a_max = 0.0;
  for (double v : a) d.a_max = std::max(d.a_max, std::abs(v));

  auto up = [&](void* dst, const void* src, std::size_t bytes, const char* what) {
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s), what);
  };
  up(d.a64, a.data(), a.size() * sizeof(double), "kriging exp 7: upload A");
  up(d.wx, in.well_x.data(), in.wells * sizeof(T), "kriging exp 7: upload wells x");
  up(d.wy, in.well_y.data(), in.wells * sizeof(T), "kriging exp 7: upload wells y");
  up(d.gx, in.grid_x.data(), in.grid_x.size() * sizeof(T), "kriging exp 7: upload mesh x");
  up(d.gy, in.grid_y.data(), in.grid_y.size() * sizeof(T), "kriging exp 7: upload mesh y");
  up(d.values, in.values.data(), in.values.size() * sizeof(T), "kriging exp 7: upload values");
  check(cudaEventRecord(compute_start, s), "kriging exp 7: record compute start");

  // A = P L U in place; check U's diagonal against the per-point solver's tolerance.
  check_cusolver(math().solver_set_stream(d.solver, s), "kriging exp 7: cuSOLVER stream");
  check_cusolver(math().getrf(d.solver, d.m, d.m, d.a64, d.m, d.solver_work, d.pivots, d.info),
                 "kriging exp 7: getrf");
  // U's diagonal and getrf's info go to pinned memory without stopping the stream; a
  // singular A is reported by check_factorisation() once the run has finished (its NaN
  // estimates are never returned).
  check(cudaMemcpy2DAsync(d.diagonal, sizeof(double), d.a64, (m + 1) * sizeof(double), sizeof(double), m,
                          cudaMemcpyDeviceToHost, s),
        "kriging exp 7: read U's diagonal");
  check(cudaMemcpyAsync(d.info_host, d.info, sizeof(int), cudaMemcpyDeviceToHost, s), "kriging exp 7: read getrf info");
  identity_kernel<<<blocks_for(m * m, 256), 256, 0, s>>>(d.inv64, d.m);
  check_launch("kriging exp 7: identity");
  check_cusolver(math().getrs(d.solver, CUBLAS_OP_N, d.m, d.m, d.a64, d.m, d.pivots, d.inv64, d.m, d.info),
                 "kriging exp 7: getrs (A^-1)");
  if constexpr (!std::is_same_v<T, double>) {
    round_kernel<T><<<blocks_for(m * m, 256), 256, 0, s>>>(d.inv64, d.inv, m * m);
    check_launch("kriging exp 7: round A^-1");
  }

  check_cublas(math().blas_set_stream(d.blas, s), "kriging exp 7: cuBLAS stream");
  for (std::size_t first = 0; first < d.points; first += d.chunk) {
    const std::size_t count = std::min(d.chunk, d.points - first);
    if (first >= d.skip_first && first + count <= d.skip_end) continue;  // fault injection
    rhs_kernel<T><<<blocks_for(m * count, 256), 256, 0, s>>>(d.wx, d.wy, d.n, in.covariance, d.gx, d.gy, d.mx, first,
                                                             count, d.rhs);
    check_launch("kriging exp 7: build B");
    const int c = static_cast<int>(count);
    check_cublas(gemm(d.blas, CUBLAS_OP_N, CUBLAS_OP_N, d.m, c, d.m, d.inv, d.m, d.rhs, d.m, d.lambda, d.m),
                 "kriging exp 7: GEMM Lambda = A^-1 B");
    check_cublas(gemm(d.blas, CUBLAS_OP_T, CUBLAS_OP_N, c, static_cast<int>(in.surfaces), d.n, d.lambda, d.m, d.values,
                      d.n, d.out + first, static_cast<int>(d.points)),
                 "kriging exp 7: GEMM Z^T = Lambda^T S^T");
  }
  check(cudaEventRecord(compute_stop, s), "kriging exp 7: record compute stop");
  check(cudaMemcpyAsync(host_out, d.out, d.points * in.surfaces * sizeof(T), cudaMemcpyDeviceToHost, s),
        "kriging exp 7: download estimates");
}

template <class T>
void GemmPipeline<T>::poison_output(cudaStream_t s) {
  const Impl& d = *impl_;
  check(cudaMemsetAsync(d.out, kPoisonByte, d.points * d.in.surfaces * sizeof(T), s), "kriging exp 7: poison the output");
}

template <class T>
void GemmPipeline<T>::skip_writes_for_testing(std::size_t first, std::size_t end) {
  impl_->skip_first = first;
  impl_->skip_end = end;
}

template <class T>
void GemmPipeline<T>::check_factorisation() const {
  const Impl& d = *impl_;
  const double threshold = pivot_tolerance<double>(d.m) * d.a_max;
  const int info = *d.info_host;
  for (int k = 0; k < d.m; ++k)
    if (info > 0 || !(std::abs(d.diagonal[k]) > threshold)) {
      SolveStatus status;
      status.singular_column = info > 0 ? info - 1 : k;
      status.pivot = std::abs(d.diagonal[status.singular_column]);
      status.threshold = threshold;
      throw_singular_system(d.in, status, "in CUDA experiment 7 (factoring A)");
    }
}

template class GemmPipeline<float>;
template class GemmPipeline<double>;

}  // namespace lb::kriging

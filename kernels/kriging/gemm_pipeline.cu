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
#include "lb/kriging/dual.hpp"
#include "lb/kriging/solver.hpp"
#include "overlapped_download.hpp"
#include "pinned_buffer.hpp"

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
  decltype(&cusolverDnDpotrf_bufferSize) potrf_buffer_size;
  decltype(&cusolverDnDpotrf) potrf;
  decltype(&cusolverDnDpotrs) potrs;
};

void* open_library(const char* path) {
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    throw std::runtime_error(std::string("kriging experiment 7 and experiment 8's device solve need cuBLAS and "
                                         "cuSOLVER: cannot load ") +
                             path + ": " + dlerror());
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
  bind(solver, "cusolverDnDpotrf_bufferSize", l.potrf_buffer_size);
  bind(solver, "cusolverDnDpotrf", l.potrf);
  bind(solver, "cusolverDnDpotrs", l.potrs);
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

//! The kriging matrix A (m x m, double, column-major; symmetric, so row-major alike) and its
//! factorisation on the device (cuSOLVER, in double) for experiments 7 and 8: A is tiny next
//! to the mesh and its factors bound the accuracy of everything after them, so no one would
//! factor it in float. Either A = P L U (getrf: experiment 7, and experiment 8's fallback)
//! or C = L L^T for A's leading n x n block C, the covariances of the wells (potrf, lower:
//! experiment 8's dual solve, DeviceDualSolve). The factorisation's diagonal (all m entries
//! of the buffer's) and info go to pinned memory without stopping the stream; status()
//! reads them once the stream has finished: a pivot not above the per-point solver's
//! tolerance (pivot_tolerance * max|.|, as every other solve) fails. A pivot is U's diagonal
//! entry for LU and L's squared for Cholesky (both the Schur complement's diagonal entry
//! that the step divides by); max|.| is max|A| for LU, max|C| = C(0) for Cholesky.
class DeviceFactors {
 public:
  enum class Kind { lu, cholesky };

  explicit DeviceFactors(int m) : m_(m) {
    const std::size_t mm = std::size_t(m) * std::size_t(m);
    check_cusolver(math().solver_create(&solver_), "kriging: cusolverDnCreate");
    a_ = device_alloc<double>(mm, "kriging: A (double)");
    int lu_work = 0, cholesky_work = 0;
    check_cusolver(math().getrf_buffer_size(solver_, m, m, a_, m, &lu_work), "kriging: getrf buffer size");
    if (m > 1)
      check_cusolver(math().potrf_buffer_size(solver_, CUBLAS_FILL_MODE_LOWER, m - 1, a_, m, &cholesky_work),
                     "kriging: potrf buffer size");
    work_size_ = std::max(lu_work, cholesky_work);
    work_ = device_alloc<double>(std::size_t(work_size_), "kriging: cuSOLVER workspace");
    pivots_ = device_alloc<int>(std::size_t(m), "kriging: pivots");
    info_ = device_alloc<int>(1, "kriging: factorisation info");
    check(cudaMallocHost(reinterpret_cast<void**>(&diagonal_), std::size_t(m) * sizeof(double)),
          "kriging: pinned diagonal");
    check(cudaMallocHost(reinterpret_cast<void**>(&info_host_), sizeof(int)), "kriging: pinned info");
  }
  ~DeviceFactors() {
    if (diagonal_) cudaFreeHost(diagonal_);
    if (info_host_) cudaFreeHost(info_host_);
    for (void* p : {(void*)a_, (void*)work_, (void*)pivots_, (void*)info_})
      if (p) cudaFree(p);
    if (solver_) math().solver_destroy(solver_);
  }
  DeviceFactors(const DeviceFactors&) = delete;
  DeviceFactors& operator=(const DeviceFactors&) = delete;

  //! A, m x m, column-major (the kriging matrix is symmetric: row-major alike); factored in place.
  double* matrix() const { return a_; }

  //! A = P L U on s; a_max = max|A| (for the pivot test).
  void factor_lu(cudaStream_t s, double a_max, const char* what) {
    begin(Kind::lu, a_max, s, what);
    check_cusolver(math().getrf(solver_, m_, m_, a_, m_, work_, pivots_, info_), what);
    read_back(s);
  }
  //! C = L L^T on s for C the leading (m - 1) x (m - 1) block of A (lda m; the Lagrange row
  //! and column are not touched); c_max = max|C|.
  void factor_cholesky(cudaStream_t s, double c_max, const char* what) {
    begin(Kind::cholesky, c_max, s, what);
    check_cusolver(math().potrf(solver_, CUBLAS_FILL_MODE_LOWER, m_ - 1, a_, m_, work_, work_size_, info_), what);
    read_back(s);
  }

  //! After factor_lu: A X = B on s for `count` right-hand sides, column-major m x count (ld
  //! m), in place.
  void solve_lu(cudaStream_t s, double* b, int count, const char* what) const {
    check_cusolver(math().getrs(solver_, CUBLAS_OP_N, m_, count, a_, m_, pivots_, b, m_, info_), what);
  }
  //! After factor_cholesky: C X = B on s for `count` right-hand sides, the first m - 1 rows of
  //! column-major m x count (ld m; row m - 1 is not touched), in place.
  void solve_cholesky(cudaStream_t s, double* b, int count, const char* what) const {
    check_cusolver(math().potrs(solver_, CUBLAS_FILL_MODE_LOWER, m_ - 1, count, a_, m_, b, m_, info_), what);
  }

  //! After the stream has finished the last factorisation: singular_column >= 0 if a pivot
  //! failed (info > 0 included: getrf's exact zero pivot, potrf's minor that is not
  //! positive definite).
  SolveStatus status() const {
    SolveStatus status;
    const int order = kind_ == Kind::lu ? m_ : m_ - 1;
    const double threshold = pivot_tolerance<double>(order) * scale_;
    auto pivot = [&](int k) { return kind_ == Kind::lu ? std::abs(diagonal_[k]) : diagonal_[k] * diagonal_[k]; };
    const int info = *info_host_;
    for (int k = 0; k < order; ++k)
      if (info > 0 || !(pivot(k) > threshold)) {
        status.singular_column = info > 0 ? info - 1 : k;
        status.pivot = pivot(status.singular_column);
        status.threshold = threshold;
        break;
      }
    return status;
  }

 private:
  void begin(Kind kind, double scale, cudaStream_t s, const char* what) {
    kind_ = kind;
    scale_ = scale;
    check_cusolver(math().solver_set_stream(solver_, s), what);
  }
  //! The diagonal of the whole m x m buffer (for Cholesky its last entry is A's corner, not
  //! looked at: one read-back of the same size either way) and info, into pinned memory.
  void read_back(cudaStream_t s) {
    const std::size_t m = std::size_t(m_);
    check(cudaMemcpy2DAsync(diagonal_, sizeof(double), a_, (m + 1) * sizeof(double), sizeof(double), m,
                            cudaMemcpyDeviceToHost, s),
          "kriging: read the factorisation's diagonal");
    check(cudaMemcpyAsync(info_host_, info_, sizeof(int), cudaMemcpyDeviceToHost, s),
          "kriging: read the factorisation's info");
  }

  int m_;
  cusolverDnHandle_t solver_ = nullptr;
  double *a_ = nullptr, *work_ = nullptr;
  int work_size_ = 0;
  int *pivots_ = nullptr, *info_ = nullptr;
  double* diagonal_ = nullptr;  //!< the factors' diagonal, pinned host memory: read back without a sync
  int* info_host_ = nullptr;
  Kind kind_ = Kind::lu;
  double scale_ = 0;
};

//! A (double) from the wells in T (widened exactly, as the host's widen()): one thread per
//! entry, column-major (symmetric); the same entries as build_matrix (C(0) on the diagonal
//! and for coincident wells, the ones of the Lagrange row and column, 0 in the corner).
template <class T>
__global__ void matrix_kernel(const T* __restrict__ wx, const T* __restrict__ wy, int n, Covariance<double> cov,
                              double* __restrict__ a) {
  const std::size_t m = std::size_t(n) + 1;
  const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= m * m) return;
  const int i = static_cast<int>(k % m), j = static_cast<int>(k / m);
  double v = 1.0;
  if (i < n && j < n)
    v = cov(planar_distance(double(wx[i]), double(wy[i]), double(wx[j]), double(wy[j])));
  else if (i == n && j == n)
    v = 0.0;
  a[k] = v;
}

//! The right-hand sides, m x (H + 1) (ld m), from the values (H x n, surface-major) in T:
//! column h < H is [z_h; 0], column H is [1; 0] (the ones the Cholesky path solves for; the
//! LU path solves the first H columns only).
template <class T>
__global__ void dual_rhs_kernel(const T* __restrict__ values, int n, int surfaces, double* __restrict__ rhs) {
  const std::size_t m = std::size_t(n) + 1;
  const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= m * (std::size_t(surfaces) + 1)) return;
  const std::size_t h = k / m, i = k % m;
  rhs[k] = i >= std::size_t(n) ? 0.0 : h < std::size_t(surfaces) ? double(values[h * std::size_t(n) + i]) : 1.0;
}

//! LU path: alpha in dual_coefficients' layout (dual.hpp) from the solved columns [b_h; b0_h]
//! (ld m), rounded once to T, 0 in the `slots` - H padding slots beyond the last surface.
template <class T>
__global__ void dual_layout_kernel(const double* __restrict__ rhs, int n, int surfaces, int slots,
                                   T* __restrict__ alpha) {
  const std::size_t m = std::size_t(n) + 1;
  const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= m * std::size_t(slots)) return;
  const std::size_t h = k / m, i = k % m;
  alpha[dual_coefficient_index(std::size_t(n), h, i)] = h < std::size_t(surfaces) ? static_cast<T>(rhs[k]) : T(0);
}

inline constexpr int kEliminationBlock = 256;

//! Cholesky path: the Lagrange row eliminated (dual.hpp: b0 = 1^T y / 1^T u, b = y - b0 u),
//! alpha in dual_coefficients' layout rounded once to T. One block per slot of the layout:
//! block h < H reads y = column h and u = column H of x (n rows, ld m), sums both (in
//! double, a fixed order), and writes surface h's n + 1 coefficients; a padding slot
//! (h >= H) writes zeros.
template <class T>
__global__ void __launch_bounds__(kEliminationBlock)
    lagrange_elimination_kernel(const double* __restrict__ x, int n, int surfaces, T* __restrict__ alpha) {
  const int h = blockIdx.x;
  const std::size_t m = std::size_t(n) + 1;
  if (h >= surfaces) {  // uniform over the block
    for (std::size_t i = threadIdx.x; i < m; i += kEliminationBlock) alpha[dual_coefficient_index(n, h, i)] = T(0);
    return;
  }
  const double* y = x + std::size_t(h) * m;
  const double* u = x + std::size_t(surfaces) * m;
  double sum_y = 0, sum_u = 0;
  for (int i = threadIdx.x; i < n; i += kEliminationBlock) sum_y += y[i], sum_u += u[i];
  for (int offset = 16; offset > 0; offset /= 2) {
    sum_y += __shfl_down_sync(0xffffffffu, sum_y, offset);
    sum_u += __shfl_down_sync(0xffffffffu, sum_u, offset);
  }
  constexpr int kWarps = kEliminationBlock / 32;
  __shared__ double warp_y[kWarps], warp_u[kWarps];
  __shared__ double constant;
  if (threadIdx.x % 32 == 0) warp_y[threadIdx.x / 32] = sum_y, warp_u[threadIdx.x / 32] = sum_u;
  __syncthreads();
  if (threadIdx.x == 0) {
    double total_y = 0, total_u = 0;
    for (int w = 0; w < kWarps; ++w) total_y += warp_y[w], total_u += warp_u[w];
    constant = lagrange_constant(total_y, total_u);
    alpha[dual_coefficient_index(n, h, n)] = static_cast<T>(constant);
  }
  __syncthreads();
  const double b0 = constant;
  for (int i = threadIdx.x; i < n; i += kEliminationBlock)
    alpha[dual_coefficient_index(n, h, i)] = static_cast<T>(eliminated_coefficient(y[i], u[i], b0));
}

//! max|A| of the kriging matrix without forming it: C(0) (the diagonal; every model's
//! |C(h)| <= C(0)) or the Lagrange row's 1.
double matrix_max(const Covariance<double>& cov) { return std::max(std::abs(cov(0.0)), 1.0); }
//! max|C| of the covariance block: C(0).
double covariance_max(const Covariance<double>& cov) { return std::abs(cov(0.0)); }

template <class T>
using DeviceArray = std::unique_ptr<T, cudaError_t (*)(void*)>;

}  // namespace

template <class T>
struct DeviceDualSolve<T>::Impl {
  int n, surfaces;
  Covariance<double> cov;
  KrigingInput<T> in;  //!< for the error message (the closest wells) and the set-up's trial
  DeviceFactors factors;
  double* rhs = nullptr;  //!< m x (H + 1), ld m (dual_rhs_kernel), solved in place
  DualFactorisation method;

  Impl(const KrigingInput<T>& input, DualFactorisation preferred)
      : n(static_cast<int>(input.wells)), surfaces(static_cast<int>(input.surfaces)),
        cov(input.covariance.template as<double>()), in(input), factors(n + 1), method(preferred) {
    if (method == DualFactorisation::cholesky && !cholesky_holds()) method = DualFactorisation::lu;
    rhs = device_alloc<double>((std::size_t(n) + 1) * (input.surfaces + 1), "kriging exp 8: right-hand sides");
  }
  ~Impl() {
    if (rhs) cudaFree(rhs);
  }
  //! A (double) from the device's wells, into the factors' buffer, on s.
  void build_matrix(const T* wx, const T* wy, cudaStream_t s) {
    const std::size_t m = std::size_t(n) + 1;
    matrix_kernel<T><<<blocks_for(m * m, 256), 256, 0, s>>>(wx, wy, n, cov, factors.matrix());
    check_launch("kriging exp 8: build A");
  }
  //! Set-up (synchronised, not timed): whether C of the input's wells has a Cholesky
  //! factorisation whose pivots pass the solver's test.
  bool cholesky_holds() {
    const DeviceArray<T> wx(device_alloc<T>(in.wells, "kriging exp 8: wells x (set-up)"), cudaFree);
    const DeviceArray<T> wy(device_alloc<T>(in.wells, "kriging exp 8: wells y (set-up)"), cudaFree);
    check(cudaMemcpy(wx.get(), in.well_x.data(), in.wells * sizeof(T), cudaMemcpyHostToDevice),
          "kriging exp 8: upload wells x (set-up)");
    check(cudaMemcpy(wy.get(), in.well_y.data(), in.wells * sizeof(T), cudaMemcpyHostToDevice),
          "kriging exp 8: upload wells y (set-up)");
    build_matrix(wx.get(), wy.get(), nullptr);
    factors.factor_cholesky(nullptr, covariance_max(cov), "kriging exp 8: potrf (set-up)");
    check(cudaStreamSynchronize(nullptr), "kriging exp 8: the Cholesky factorisation at set-up");
    return factors.status().ok();
  }
};

template <class T>
DeviceDualSolve<T>::DeviceDualSolve(const KrigingInput<T>& in, DualFactorisation preferred)
    : impl_(std::make_unique<Impl>(in, preferred)) {}

template <class T>
DeviceDualSolve<T>::~DeviceDualSolve() = default;

template <class T>
DualFactorisation DeviceDualSolve<T>::factorisation() const {
  return impl_->method;
}

template <class T>
void DeviceDualSolve<T>::run(const T* wx, const T* wy, const T* values, T* alpha, cudaStream_t s) {
  Impl& d = *impl_;
  const std::size_t m = std::size_t(d.n) + 1;
  d.build_matrix(wx, wy, s);
  dual_rhs_kernel<T><<<blocks_for(m * (std::size_t(d.surfaces) + 1), 256), 256, 0, s>>>(values, d.n, d.surfaces,
                                                                                        d.rhs);
  check_launch("kriging exp 8: right-hand sides");
  const int slots = static_cast<int>(dual_coefficient_count(std::size_t(d.n), std::size_t(d.surfaces)) / m);
  if (d.method == DualFactorisation::cholesky) {
    d.factors.factor_cholesky(s, covariance_max(d.cov), "kriging exp 8: potrf (C)");
    d.factors.solve_cholesky(s, d.rhs, d.surfaces + 1, "kriging exp 8: potrs (C^-1 z and C^-1 1)");
    lagrange_elimination_kernel<T><<<slots, kEliminationBlock, 0, s>>>(d.rhs, d.n, d.surfaces, alpha);
    check_launch("kriging exp 8: the Lagrange row eliminated (alpha)");
  } else {
    d.factors.factor_lu(s, matrix_max(d.cov), "kriging exp 8: getrf");
    d.factors.solve_lu(s, d.rhs, d.surfaces, "kriging exp 8: getrs (alpha)");
    dual_layout_kernel<T><<<blocks_for(m * std::size_t(slots), 256), 256, 0, s>>>(d.rhs, d.n, d.surfaces, slots, alpha);
    check_launch("kriging exp 8: alpha's layout");
  }
}

template <class T>
void DeviceDualSolve<T>::check_factorisation() const {
  const Impl& d = *impl_;
  const SolveStatus status = d.factors.status();
  if (status.ok()) return;
  if (d.method == DualFactorisation::lu) throw_singular_system(d.in, status, "factoring A (the dual form's device solve)");
  throw std::logic_error(
      "kriging exp 8: the device solve's Cholesky factorisation failed on wells it factored at set-up (run() was "
      "given other wells than its input's)");
}

template <class T>
struct GemmPipeline<T>::Impl {
  KrigingInput<T> in;
  int n = 0, m = 0, mx = 0;
  std::size_t points = 0, chunk = 0;
  cublasHandle_t blas = nullptr;
  std::unique_ptr<DeviceFactors> lu;
  double* inv64 = nullptr;
  T *inv = nullptr, *wx = nullptr, *wy = nullptr, *gx = nullptr, *gy = nullptr, *values = nullptr;
  T *rhs = nullptr, *lambda = nullptr, *out = nullptr;
  //! The uploads' host side, pinned: A (double, built per run), then the input (filled once).
  PinnedBuffer<double> host_a;
  std::unique_ptr<PinnedInput<T>> host_in;
  std::unique_ptr<OverlappedDownload> download;
  std::size_t skip_first = 0, skip_end = 0;  //!< fault injection (tests only)

  ~Impl() {
    if constexpr (std::is_same_v<T, double>) inv = nullptr;  // the same buffer as inv64
    for (void* p : {(void*)inv64, (void*)inv, (void*)wx, (void*)wy, (void*)gx, (void*)gy, (void*)values, (void*)rhs,
                    (void*)lambda, (void*)out})
      if (p) cudaFree(p);
    if (blas) math().blas_destroy(blas);
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
  d.lu = std::make_unique<DeviceFactors>(d.m);
  d.inv64 = device_alloc<double>(m * m, "kriging exp 7: A^-1 (double)");
  // In double the rounded inverse is the double one itself.
  if constexpr (std::is_same_v<T, double>)
    d.inv = d.inv64;
  else
    d.inv = device_alloc<T>(m * m, "kriging exp 7: A^-1");
  d.wx = device_alloc<T>(in.wells, "kriging exp 7: wells x");
  d.wy = device_alloc<T>(in.wells, "kriging exp 7: wells y");
  d.gx = device_alloc<T>(in.grid_x.size(), "kriging exp 7: mesh x");
  d.gy = device_alloc<T>(in.grid_y.size(), "kriging exp 7: mesh y");
  d.values = device_alloc<T>(in.values.size(), "kriging exp 7: values");
  d.rhs = device_alloc<T>(m * d.chunk, "kriging exp 7: B (one chunk)");
  d.lambda = device_alloc<T>(m * d.chunk, "kriging exp 7: Lambda (one chunk)");
  d.out = device_alloc<T>(d.points * in.surfaces, "kriging exp 7: estimates");
  d.host_a = PinnedBuffer<double>(m * m);
  d.host_in = std::make_unique<PinnedInput<T>>(in);
  d.download = std::make_unique<OverlappedDownload>();
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
  // A in double from the input's numbers (symmetric: row- and column-major agree), built on
  // the host into pinned memory (the host copy of the wells widened exactly).
  std::vector<double> wx(in.well_x.begin(), in.well_x.end()), wy(in.well_y.begin(), in.well_y.end());
  double* a = d.host_a.get();
  const Covariance<double> cov64 = in.covariance.template as<double>();
  build_matrix(wx.data(), wy.data(), d.n, cov64, a);
  double a_max = 0.0;
  for (std::size_t k = 0; k < m * m; ++k) a_max = std::max(a_max, std::abs(a[k]));

  auto up = [&](void* dst, const void* src, std::size_t bytes, const char* what) {
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s), what);
  };
  up(d.lu->matrix(), a, m * m * sizeof(double), "kriging exp 7: upload A");
  const PinnedInput<T>& h = *d.host_in;
  up(d.wx, h.well_x, in.wells * sizeof(T), "kriging exp 7: upload wells x");
  up(d.wy, h.well_y, in.wells * sizeof(T), "kriging exp 7: upload wells y");
  up(d.gx, h.grid_x, in.grid_x.size() * sizeof(T), "kriging exp 7: upload mesh x");
  up(d.gy, h.grid_y, in.grid_y.size() * sizeof(T), "kriging exp 7: upload mesh y");
  up(d.values, h.values, in.values.size() * sizeof(T), "kriging exp 7: upload values");
  check(cudaEventRecord(compute_start, s), "kriging exp 7: record compute start");

  // A = P L U in place; a singular A is reported by check_factorisation() once the run has
  // finished (its NaN estimates are never returned).
  d.lu->factor_lu(s, a_max, "kriging exp 7: getrf");
  identity_kernel<<<blocks_for(m * m, 256), 256, 0, s>>>(d.inv64, d.m);
  check_launch("kriging exp 7: identity");
  d.lu->solve_lu(s, d.inv64, d.m, "kriging exp 7: getrs (A^-1)");
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
    // This chunk's estimates download while the next chunk is computed.
    d.download->chunk(s, host_out, d.out, d.points, in.surfaces, first, count);
  }
  check(cudaEventRecord(compute_stop, s), "kriging exp 7: record compute stop");
  d.download->join(s);
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
  const SolveStatus status = d.lu->status();
  if (!status.ok()) throw_singular_system(d.in, status, "in CUDA experiment 7 (factoring A)");
}

template class GemmPipeline<float>;
template class GemmPipeline<double>;
template class DeviceDualSolve<float>;
template class DeviceDualSolve<double>;

}  // namespace lb::kriging

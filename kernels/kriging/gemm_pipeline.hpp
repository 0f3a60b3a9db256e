#pragma once
//! Experiment 7 (beyond the paper), used by DeviceExperiment for experiment 7: since A is
//! fixed, factor it once and turn the per-point solves into two dense products,
//!     Lambda = A^-1 [B_1 ... B_P]          (m x m times m x P: all weights, cuBLAS GEMM 1)
//!     Z^T    = Lambda[0..n)^T S^T          (P x n times n x H: all surfaces, cuBLAS GEMM 2)
//! with B_p the right-hand side of grid point p and S the H x n well values. A is factored
//! and inverted in double on the device (cuSOLVER getrf + getrs against the identity, then
//! rounded to T once): A is tiny and the inverse's accuracy bounds everything after it, so a
//! user would not do this step in float. A pivot not above the per-point solver's tolerance
//! is the same SingularSystem error as in the other experiments.
//!
//! The points are processed in chunks so B and Lambda (m x chunk each) fit a fixed device
//! workspace (kGemmWorkspaceBytes): at 10 wells one chunk covers scale 10; at 1000 wells a
//! chunk is ~134K points in float. Each chunk's estimates download (into the caller's host
//! buffer: pinned, from DeviceExperiment) while the next chunk is computed; the uploads come
//! from pinned copies of the input made once. Host code only (no CUDA syntax): the kernels,
//! cuBLAS and cuSOLVER calls are in gemm_pipeline.cu.
//!
//! DeviceDualSolve: experiment 8's solve on the device (dual.hpp has the host one): A built
//! from the wells in double; by default its covariance block C factored by Cholesky (potrf)
//! and solved (potrs) for every surface's values and a vector of ones, then the Lagrange row
//! eliminated by a kernel (dual.hpp's derivation: b0 = 1^T y / 1^T u, b = y - b0 u); where C
//! is not positive definite in double, A factored by LU (getrf, getrs for [z_h; 0]) as
//! experiment 7. alpha rounded to T in dual_coefficients' layout either way.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>

#include "lb/kriging/cpu.hpp"
#include "lb/kriging/device.hpp"

namespace lb::kriging {

inline constexpr std::size_t kGemmWorkspaceBytes = std::size_t(1) << 30;

template <class T>
class GemmPipeline {
 public:
  //! Allocates everything (not timed): A^-1, a chunk's B and Lambda, the output, the
  //! cuBLAS and cuSOLVER handles and cuSOLVER's workspace.
  GemmPipeline(const KrigingInput<T>& in, std::size_t workspace_bytes = kGemmWorkspaceBytes);
  ~GemmPipeline();
  GemmPipeline(const GemmPipeline&) = delete;
  GemmPipeline& operator=(const GemmPipeline&) = delete;

  //! The timed region's work on stream s: build A (host), upload A, the wells, the mesh
  //! axes and the values; factor and invert A; per chunk build B and run the two GEMMs;
  //! download all H x P estimates into host_out. `compute_start` is recorded after the
  //! uploads, `compute_stop` before the download. Nothing in it waits for the device.
  void run(T* host_out, cudaStream_t s, cudaEvent_t compute_start, cudaEvent_t compute_stop);

  //! After the stream has finished a run: throws SingularSystem if a pivot of A was not
  //! above the per-point solver's tolerance (the run's estimates are then meaningless).
  void check_factorisation() const;

  std::size_t chunk_points() const;

  //! Fills the device output with kPoisonByte (device.hpp), enqueued on s.
  void poison_output(cudaStream_t s);
  //! Fault injection for tests: the chunks that lie inside grid points [first, end) skip
  //! their GEMMs (their estimates are not written).
  void skip_writes_for_testing(std::size_t first, std::size_t end);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

template <class T>
class DeviceDualSolve {
 public:
  //! Allocates A, the right-hand sides and cuSOLVER's handle and workspace (not timed).
  //! Preferring Cholesky, it factors C of the input's wells once here (synchronised: set-up)
  //! and keeps LU for every run if that fails (info > 0 or a pivot not above the tolerance:
  //! C not positive definite in double, e.g. coincident wells, whose LU then refuses A).
  explicit DeviceDualSolve(const KrigingInput<T>& in, DualFactorisation preferred = DualFactorisation::cholesky);
  ~DeviceDualSolve();
  DeviceDualSolve(const DeviceDualSolve&) = delete;
  DeviceDualSolve& operator=(const DeviceDualSolve&) = delete;

  //! Enqueues on s: A from the device's wells (wx, wy: n each; the input's), the right-hand
  //! sides from its values (H x n, surface-major), the factorisation and solves, and alpha
  //! (dual_coefficient_count entries) in T. Nothing in it waits for the device.
  void run(const T* wx, const T* wy, const T* values, T* alpha, cudaStream_t s);
  //! After the stream has finished a run: LU: SingularSystem if a pivot of A was not above
  //! the per-point solver's tolerance (as the host solve's; the run's estimates are then
  //! NaN). Cholesky: std::logic_error if it failed on wells it factored at set-up (run()
  //! given other wells than the input's).
  void check_factorisation() const;
  DualFactorisation factorisation() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace lb::kriging

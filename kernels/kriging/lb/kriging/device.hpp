#pragma once
//! Li & Dong's CUDA programs (experiments 1-6) and experiment 7 (beyond the paper: the
//! cuBLAS GEMM pair, gemm_pipeline.hpp), seen from host code. No CUDA syntax here: the
//! kernels live in experiments.cu and gemm_pipeline.cu (whole-program compilation, no -rdc).
//!
//! Precision is the spec's: experiments 1-5 run in double, experiment 6 in float (with
//! fast-math intrinsics in its covariance path). A DeviceExperiment<double> for experiment
//! 6, or <float> for 1-5, is refused with an InputError. Experiment 7 runs in either.
//!
//! The timed region ("computing time" as the paper uses it: each design includes the
//! transfers it implies). For every experiment it starts with a CUDA event recorded on the
//! stream before anything below and ends with an event after the last download; host work
//! inside it (building A, packing constant memory) is on the critical path, so the event
//! pair measures it as GPU idle time. NOT timed: device and pinned host allocation, zeroing
//! the failure record, reading it back, and copying the estimates out of pinned memory
//! (run(); run_in_place() leaves them there). Every transfer is from or to pinned host
//! memory (allocated once per DeviceExperiment: a pinned copy of the input, a pinned
//! scratch buffer for what the host builds per run, the pinned output), so copies run at the
//! bus's rate: the paper does not say what host memory its programs use, and its designs
//! are the order of the transfers and launches, which experiments 1-6 keep (nothing
//! overlaps in them). Experiments 7 and 8, beyond the paper, download the estimates chunk of
//! grid points by chunk on a second stream while the next chunk is computed
//! (OverlappedDownload). No host work in a timed region uses a thread pool: what the host
//! builds or solves there runs on the calling thread (kHostThreadsInTimedRegion).
//!   exp 1  upload the well coordinates (x, y) and the mesh axes (M + N values) once; then
//!          per surface h = 0..H-1: upload that surface's n well values, launch the kernel
//!          (one thread per grid point, blocks (25, 5, 1), grid (ceil(M/25), ceil(N/5), 1);
//!          each thread builds A and B, solves, combines), download that surface's M*N
//!          estimates. H uploads, H launches, H downloads.
//!   exp 2  build A on the host (once), upload A, the well coordinates and the mesh axes;
//!          then per surface as in exp 1 (upload values, launch, download); each thread
//!          copies A into its own system, builds B, solves, combines.
//!   exp 3  build A on the host; upload A, coordinates, axes and all H x n values; ONE
//!          launch of blocks (10, 9, H), grid (ceil(M/10), ceil(N/9), 1): M*N*H threads,
//!          thread z = surface; download all H*M*N estimates.
//!   exp 4  as 3 in its transfers, but the launch has one thread per grid point (blocks
//!          (25, 5, 1) as exp 1-2; the spec gives no shape): the weights are solved once
//!          and combined for all H surfaces.
//!   exp 5  build A on the host and pack wells (array of {x, y}), A and all values into one
//!          host buffer; upload it to __constant__ memory (cudaMemcpyToSymbolAsync); upload
//!          the mesh axes; one launch as exp 4; download all estimates.
//!   exp 6  as 5, everything in float; the device covariance uses __expf and an
//!          approximate square root (rsqrtf) explicitly.
//!   exp 7  build A on the host in double; upload A, wells, mesh axes and values; factor
//!          and invert A (cuSOLVER, double), round A^-1 to T; per chunk of grid points a
//!          kernel builds B and two cuBLAS GEMMs give the weights and the estimates;
//!          download all estimates. U's diagonal is copied to pinned memory on the way
//!          (no synchronisation) and its pivots checked after the run.
//!   exp 8  (dual.hpp) upload the wells and the mesh axes; solve alpha = A^-1 [z; 0] for
//!          every surface, rounded to T, where solve() says: on the host (double blocked LU
//!          on the calling thread, while the uploads run; then upload alpha) or on the device
//!          (upload the values; A built, factored and solved by cuSOLVER in double:
//!          DeviceDualSolve, Cholesky of the covariance block with the Lagrange row
//!          eliminated, LU of A where that block is not positive definite); then exp8_kernel (blocks of kDualBlock threads, one per grid
//!          point; the wells staged in shared memory kDualBlock at a time) launched per
//!          chunk of grid points (overlap_chunks), each chunk's estimates downloaded while
//!          the next is computed. A singular A is refused with SingularSystem: by the host
//!          solve before any launch, or after the run from the device factorisation's pivots.
//! DeviceRun::device_seconds is the device-only part (no host work, no transfers): from the
//! first kernel to the last, for experiments 3-8 (1-2 interleave transfers and launches;
//! experiment 8's device solve is not in it: device_solve_seconds).
//!
//! Failed solves (a pivot below the solver's tolerance: coincident wells, NaN input) are
//! counted on the device; run() then throws SingularSystem naming the experiment and the
//! first grid point recorded, instead of returning NaNs (the failed points hold NaN).

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstring>
#include <limits>
#include <memory>
#include <string_view>
#include <vector>

#include "lb/kriging/cpu.hpp"

namespace lb::kriging {

//! Wells the device solver holds per thread: each thread's PointSystem<T, 16> is
//! 17 x 17 + 17 values (2.4 KB of local memory in double). The CPU programs hold kMaxWells.
inline constexpr int kDeviceMaxWells = 16;
//! Experiments 5 and 6 also come in a 128-well build (PointSystem<T, 128>: 67 KB of local
//! memory per thread in float) for the well-count sweep; the 64 KiB constant pool is then
//! the limit (float: about 110 wells).
inline constexpr int kDeviceMaxWellsConstant = 128;
//! Threads per block of experiment 8, and wells per shared-memory tile.
inline constexpr int kDualBlock = 256;
//! How experiment 8 maps threads to grid points: one thread per point, or a warp of
//! kDualSplitLanes threads sharing each point's wells (meshes too small to fill the GPU).
//! automatic splits below kDualSplitBelowWaves x (multiprocessors x kDualBlock) points.
enum class DualPath { automatic, thread_per_point, lanes_per_point };
inline constexpr int kDualSplitLanes = 32;
inline constexpr int kDualSplitBelowWaves = 4;
//! The most wells experiment e's solver holds (experiments 7 and 8: no compile-time limit).
int device_max_wells(int experiment);

//! OpenMP threads of host work inside a timed region (kriging_matrix, dual_coefficients):
//! the calling thread alone. A thread pool there competes with the CUDA calls it feeds
//! and, with one process per GPU, with the other processes' pools for the same cores.
inline constexpr int kHostThreadsInTimedRegion = 1;

//! Where experiment 8 solves alpha: on the host (its CPU path) or on the device (cuSOLVER).
enum class SolvePlace { host, device };
const char* to_string(SolvePlace place);

//! How experiment 8's device solve factors (DeviceDualSolve, gemm_pipeline.hpp): Cholesky of
//! the wells' covariance block C with the Lagrange row eliminated (dual.hpp; the default),
//! or LU of the whole (n + 1) x (n + 1) A (cuSOLVER getrf, as experiment 7): the fallback
//! where C is not positive definite in double (potrf fails or a pivot is not above the
//! solver's tolerance), which also refuses a singular A.
enum class DualFactorisation { cholesky, lu };
const char* to_string(DualFactorisation f);

//! Experiment 8's default solve at one size, by the rule written before any measurement
//! (docs/performance.md): the device solve when its median time over the trials is lower
//! than the host solve's, measured in the same process on the same input; a tie, or a
//! median that is not a positive number, keeps the host solve.
SolvePlace faster_solve(double host_median_s, double device_median_s);

//! How experiment 4 lays out the wells in global memory: x[] and y[] (soa, the paper's), or,
//! beyond the paper, AoSoA of 32 wells (aosoa32: TiledWellsMapping, Kofler's method's choice
//! for the well record, docs/advisor.md §6). Only experiment 4 takes aosoa32.
enum class WellLayout { soa, aosoa32 };
const char* to_string(WellLayout l);
//! "soa" or "aosoa32"; throws std::invalid_argument naming the accepted names otherwise.
WellLayout parse_well_layout(std::string_view name);
//! Throws InputError unless experiment e runs wells in layout l (aosoa32: experiment 4 only).
void check_well_layout(int experiment, WellLayout l);

//! The median of a sample (the mean of the middle two for an even count); NaN when empty.
double median_of(std::vector<double> seconds);

//! What DeviceExperiment::choose_solve measured and kept.
struct SolveChoice {
  double host_seconds = 0, device_seconds = 0;  //!< the medians of the trials
  int trials = 0;
  SolvePlace place = SolvePlace::host;
};

//! __constant__ memory of experiments 5 and 6: one pool of 64 KiB (the whole user constant
//! bank of the translation unit; experiments.cu declares nothing else __constant__).
inline constexpr std::size_t kConstantPoolBytes = 64 * 1024;

//! Experiment 3 puts the H surfaces in the block's z: 10 x 9 x H threads in one block.
inline constexpr int kExp3BlockX = 10, kExp3BlockY = 9;
inline constexpr int kMaxThreadsPerBlock = 1024;
//! Blocks of experiments 1, 2, 4, 5, 6.
inline constexpr int kPointBlockX = 25, kPointBlockY = 5;

//! Where experiments 5 and 6 put each array in the constant pool (byte offsets, each
//! aligned to 16 bytes): wells as {x, y} structs, then A ((n+1)^2, row-major), then the
//! values (H x n, surface-major).
struct ConstantLayout {
  std::size_t wells_offset = 0, matrix_offset = 0, values_offset = 0, bytes = 0;
  bool fits() const { return bytes <= kConstantPoolBytes; }
};
ConstantLayout constant_layout(std::size_t wells, std::size_t surfaces, std::size_t value_bytes);

//! True for experiment 6 (float), false for 1-5 (double) and 7-8 (double by default, float
//! allowed); throws InputError for any other number.
bool experiment_uses_float(int experiment);

//! Every host-side check a CUDA experiment makes before touching the device (also usable
//! without a GPU): the experiment number and its precision, no wells/surfaces, more wells
//! than kDeviceMaxWells, experiment 3's block of 10 x 9 x H threads above 1024, and
//! experiments 5/6's constant pool overflowing 64 KiB. Throws InputError naming the
//! experiment and the limit.
void check_device_experiment(int experiment, std::size_t wells, std::size_t surfaces, std::size_t value_bytes);

//! Peak bytes of one kriging run on a mesh_x x mesh_y mesh, estimated before anything is
//! allocated (doubles: a huge mesh must not wrap around): on the host the mesh axes and the
//! estimates returned; on the device (on_device) the experiment's buffers, else 0.
struct RunBytes {
  double host = 0, device = 0;
};
RunBytes run_bytes(int experiment, std::size_t mesh_x, std::size_t mesh_y, std::size_t surfaces, std::size_t wells,
                   std::size_t value_bytes, bool on_device);

//! An empty mesh, or more estimates (M N H) than the kernels' int indices reach: InputError.
void check_device_mesh(int experiment, std::size_t points, std::size_t surfaces);

//! A validated run first fills every output (device buffers and the host vector) with this
//! byte: all-ones is a NaN whose payload no arithmetic produces (GPUs return the canonical
//! 0x7fff..., x86 0xffc0... or an input's payload, and the inputs are finite), so an
//! estimate still holding it was never written: a kernel that skips points cannot show an
//! earlier run's values left in a reused buffer.
inline constexpr unsigned char kPoisonByte = 0xFF;

template <class T>
bool is_poison(T v) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof v);
  for (unsigned char b : bytes)
    if (b != kPoisonByte) return false;
  return true;
}

//! Whether run() poisons the outputs first (validation) or not (timed runs: the poisoning
//! of experiments 1-2, once per surface, would be inside the timed region).
enum class Poison { no, yes };

//! The times of one run (all inside `seconds`).
struct DeviceTimes {
  double seconds = 0.0;  //!< the timed region above, from CUDA events
  double device_seconds = std::numeric_limits<double>::quiet_NaN();  //!< see above (exps 3-8)
  //! Exp 8: the solve of alpha, on the host (wall clock) or on the device (CUDA events, from
  //! the values' upload to alpha in place); the other one NaN. Outside device_seconds.
  double host_solve_seconds = std::numeric_limits<double>::quiet_NaN();
  double device_solve_seconds = std::numeric_limits<double>::quiet_NaN();
};

template <class T>
struct DeviceRun : DeviceTimes {
  std::vector<T> estimates;  //!< H x (M N), surface-major, mesh x fastest (as the CPU programs)
  std::size_t unwritten = 0;        //!< Poison::yes: estimates still holding the poison
  std::size_t first_unwritten = 0;  //!< the first such estimate's index
};

//! Bytes one run of an experiment moves over the bus inside its timed region (uploads of the
//! input and what the host builds, the downloads of the estimates and of experiments 7 and
//! 8's device factorisation checks), as the programs in experiments.cu and gemm_pipeline.cu
//! do it: the benchmarks declare them (the bus bound, lb/harness/program.hpp).
struct BusBytes {
  double h2d = 0, d2h = 0;
};
BusBytes bus_bytes(int experiment, std::size_t mesh_x, std::size_t mesh_y, std::size_t surfaces, std::size_t wells,
                   std::size_t value_bytes, SolvePlace solve = SolvePlace::device,
                   WellLayout well_layout = WellLayout::soa);

//! One experiment on one input, its device buffers allocated once (in the constructor, not
//! timed); run() may be called repeatedly (a benchmark's iterations). Experiments 5 and 6
//! share one __constant__ pool per process, filled by each run: runs of different objects
//! must not overlap in time (same stream, or synchronised).
template <class T>
class DeviceExperiment {
 public:
  //! Checks (check_device_experiment, check_well_layout) and allocates; throws InputError or
  //! CudaError.
  DeviceExperiment(int experiment, const KrigingInput<T>& in, WellLayout well_layout = WellLayout::soa);
  ~DeviceExperiment();
  DeviceExperiment(const DeviceExperiment&) = delete;
  DeviceExperiment& operator=(const DeviceExperiment&) = delete;

  //! One run, timed with CUDA events around exactly the region described above; waits for
  //! it to finish. Throws SingularSystem if any grid point's solve failed. With Poison::yes
  //! the outputs are poisoned first and DeviceRun::unwritten counts what was not written.
  //! The estimates are copied out of the pinned output afterwards (not timed).
  DeviceRun<T> run(cudaStream_t stream = nullptr, Poison poison = Poison::no);
  //! The same run, its estimates left in pinned memory (host_estimates()): the benchmarks'
  //! timed runs and `krige`, which need no copy.
  DeviceTimes run_in_place(cudaStream_t stream = nullptr);
  //! The last run's estimates (H x M N, as DeviceRun::estimates), in pinned host memory
  //! owned by this object: valid until its next run.
  const T* host_estimates() const;

  //! Experiment 8: where the next runs solve alpha (default: the device). The device solve's
  //! cuSOLVER handle and buffers are made here (set_solve(device)) or before the first run
  //! that needs them, outside its timed region (a host-solve-only use never loads cuSOLVER).
  void set_solve(SolvePlace place);
  SolvePlace solve() const;
  //! Experiment 8: times `trials` solves each way on this input (after an untimed one of
  //! each: cuSOLVER's first call loads its kernels), each from the start of the solve until
  //! alpha is on the device (host: dual_coefficients on the calling thread, its pinned copy
  //! and upload; device: the values' upload and DeviceDualSolve), synchronised, on the host
  //! clock; keeps faster_solve's choice for the next runs and returns what it measured.
  SolveChoice choose_solve(int trials, cudaStream_t stream = nullptr);
  //! Experiment 8: how the device solve factors (made if not yet: set-up, not timed; the
  //! Cholesky factorisation is tried there once on this input's wells, and LU kept if it fails).
  DualFactorisation dual_factorisation();
  //! Experiment 8: the device solve prefers `f` (cholesky: the default, with its fallback; lu:
  //! LU always), for tests of both; its next use makes it anew.
  void prefer_dual_factorisation_for_testing(DualFactorisation f);

  //! Fault injection for tests (off unless called): the kernels do not write grid points
  //! [first, end) of any surface; experiment 7 skips the GEMMs of the chunks inside it.
  void skip_writes_for_testing(std::size_t first, std::size_t end);
  //! Experiment 8: take this path instead of the automatic choice (tests of both paths).
  void force_dual_path_for_testing(DualPath path);

  int experiment() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

//! Convenience: construct, run once, return {estimates, seconds}.
DeviceRun<double> run_device_experiment(int experiment, const KrigingInput<double>& in, cudaStream_t stream = nullptr);
DeviceRun<float> run_device_experiment(int experiment, const KrigingInput<float>& in, cudaStream_t stream = nullptr);

}  // namespace lb::kriging

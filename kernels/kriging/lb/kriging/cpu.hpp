#pragma once
//! The CPU programs of Li & Dong's experiments over a whole mesh x H surfaces, single
//! threaded as in the paper, in double (the reference every CUDA program is checked
//! against) and float:
//!   exp. 1   every grid point of every surface builds A and B, solves, combines;
//!   exp. 2   A built once; every point of every surface copies it, builds B, solves, combines;
//!   exp. 4   A built once; the weights are solved once per grid point and combined for all
//!            H surfaces.
//! Exps. 3, 5 and 6 change only the CUDA program: their CPU programs are 2, 4 and 4 (6 in
//! float). Estimates are H x (M N), surface-major, each surface's mesh x fastest.

#include <cstddef>
#include <string>
#include <vector>

#include "lb/datasets/wells.hpp"
#include "lb/kriging/solver.hpp"
#include "lb/kriging/variogram.hpp"

namespace lb::kriging {

//! A kriging system the solver cannot trust (a pivot at rounding level): the message names
//! the grid point, the pivot and the closest pair of wells, the usual cause.
class SingularSystem : public datasets::InputError {
 public:
  using datasets::InputError::InputError;
};

template <class T>
struct KrigingInput;

//! Throws SingularSystem for `status` (a failed solve) `where` (e.g. "at grid point (x, y)"),
//! naming the pivot and the closest pair of wells. Used by the CPU and the CUDA programs.
template <class T>
[[noreturn]] void throw_singular_system(const KrigingInput<T>& in, const SolveStatus& status, const std::string& where);

//! Everything a program reads, converted to precision T once: flat arrays as the device
//! will hold them.
template <class T>
struct KrigingInput {
  std::size_t wells = 0, surfaces = 0;
  std::vector<T> well_x, well_y;
  std::vector<T> values;          //!< surfaces x wells, surface-major (as WellSet)
  std::vector<T> grid_x, grid_y;  //!< M and N mesh coordinates; point p = iy * M + ix
  Variogram variogram;
  Covariance<T> covariance;

  std::size_t points() const { return grid_x.size() * grid_y.size(); }
};

//! Throws InputError for a variogram that is not positive definite (range <= 0, nugget < 0,
//! sill <= nugget, or non-finite), naming the parameter.
void check_variogram(const Variogram& v);

//! Throws InputError for no wells, no surfaces, an inconsistent set or a bad variogram. (The per-point
//! solvers' capacities are checked where they are used: the CPU programs hold kMaxWells.)
template <class T>
KrigingInput<T> make_input(const datasets::WellSet& wells, const datasets::GridSpec& grid, const Variogram& variogram);

//! The float input's numbers exactly, in double: a double program on it sees the same
//! inputs as the float program, so comparing the two measures only the arithmetic.
KrigingInput<double> widen(const KrigingInput<float>& in);

enum class CpuProgram { rebuild_every_point = 1, reuse_matrix = 2, shared_weights = 4, dual = 8 };

//! The CPU program of paper experiment 1..6 (1 -> 1, 2 and 3 -> 2, 4 to 6 -> 4) and of
//! experiment 8 (dual.hpp: OpenMP, any number of wells). Experiment 7 has none.
CpuProgram cpu_program_of(int experiment);

template <class T>
std::vector<T> krige_rebuild_every_point(const KrigingInput<T>& in);  //!< exp. 1
template <class T>
std::vector<T> krige_reuse_matrix(const KrigingInput<T>& in);  //!< exp. 2 (and 3)
template <class T>
std::vector<T> krige_shared_weights(const KrigingInput<T>& in);  //!< exp. 4 (and 5, 6)
template <class T>
std::vector<T> run_cpu_program(CpuProgram program, const KrigingInput<T>& in);

//! A built by the same code the programs use: (n+1) x (n+1), row-major. threads: OpenMP
//! threads for its rows (0: OpenMP's default; 1: the calling thread only, no thread pool).
template <class T>
std::vector<T> kriging_matrix(const KrigingInput<T>& in, int threads = 0);

//! The n weights (mu dropped) and the H estimates at one point, by the per-point solver.
template <class T>
std::vector<T> weights_at(const KrigingInput<T>& in, T px, T py);
template <class T>
std::vector<T> estimates_at(const KrigingInput<T>& in, T px, T py);

//! ||A||_inf ||A^-1||_inf of the wells' A (A^-1 from the reference's LU factors, any number
//! of wells): how much the solve can amplify rounding (it bounds the programs' errors).
double condition_number_inf(const KrigingInput<double>& in);

}  // namespace lb::kriging

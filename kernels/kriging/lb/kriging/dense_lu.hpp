#pragma once
//! Experiment 8's host solve: A = P L U of the wells' (n + 1) x (n + 1) ordinary-kriging
//! matrix, in double, factored once and shared by every surface's right-hand side. A is
//! symmetric but indefinite (the Lagrange row), so partial pivoting, with the per-point
//! solver's pivot test (pivot_tolerance * max|A|: two wells at one position fail it).
//!
//! Blocked right-looking LU (LAPACK's dgetrf scheme): a panel of kLuPanel columns is
//! factored unblocked, its rows of U solved, and the trailing matrix updated by one
//! matrix product, 4 x 8 register tiles over rows shared out by OpenMP. The product is
//! nearly all of the m^3 / 3 multiply-adds and runs out of cache; the naive row-by-row
//! elimination streamed the whole trailing matrix from memory once per column.
//!
//! The double reference (reference.hpp) keeps its own unblocked LU, so it checks this one.

#include <vector>

#include "lb/common/host_threads.hpp"
#include "lb/kriging/solver.hpp"

namespace lb::kriging {

inline constexpr int kLuPanel = 32;

//! The OpenMP team size for a `threads` argument: 0 means OpenMP's default (every core), 1 the
//! calling thread alone (no thread pool: the CUDA experiments' timed regions use this).
int omp_threads(int threads);

//! release_host_threads: lb/common/host_threads.hpp.
using lb::release_host_threads;

class DenseLu {
 public:
  //! Factors `a` (row-major m x m, taken over) with `threads` (omp_threads) threads, which
  //! solve() uses too. status() says whether it succeeded.
  DenseLu(std::vector<double> a, int m, int threads = 0);

  const SolveStatus& status() const { return status_; }
  int size() const { return m_; }

  //! A X = B in place for `count` right-hand sides, each contiguous: x[j * m + i] is entry
  //! i of right-hand side j. Only after a successful factorisation.
  void solve(double* x, int count) const;

 private:
  int m_;
  int threads_;  //!< the OpenMP team (omp_threads), >= 1
  std::vector<double> lu_;  //!< L (unit, below the diagonal) and U, row-major
  std::vector<int> pivots_;  //!< row swapped with row k at step k
  SolveStatus status_;
};

}  // namespace lb::kriging

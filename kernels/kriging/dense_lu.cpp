#include "lb/kriging/dense_lu.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include <omp.h>

namespace lb::kriging {

namespace {

constexpr int kTileRows = 4, kTileCols = 8;  // the product's register tile: 32 accumulators

//! Unblocked LU of columns k0..k1-1 (rows k0..m-1), swapping whole rows; the rows of U to
//! the right of the panel are left to solve_panel_rows.
SolveStatus factor_panel(double* a, int m, int k0, int k1, double threshold, int* pivots) {
  for (int k = k0; k < k1; ++k) {
    int p = k;
    double best = std::abs(a[std::size_t(k) * m + k]);
    for (int r = k + 1; r < m; ++r)
      if (std::abs(a[std::size_t(r) * m + k]) > best) best = std::abs(a[std::size_t(r) * m + k]), p = r;
    if (!(best > threshold)) return {k, best, threshold};
    pivots[k] = p;
    double* pivot_row = a + std::size_t(k) * m;
    if (p != k) std::swap_ranges(pivot_row, pivot_row + m, a + std::size_t(p) * m);
    const double inv = 1.0 / pivot_row[k];
    for (int r = k + 1; r < m; ++r) {
      double* row = a + std::size_t(r) * m;
      const double f = row[k] *= inv;
      if (f == 0.0) continue;
      for (int c = k + 1; c < k1; ++c) row[c] -= f * pivot_row[c];
    }
  }
  return {};
}

//! U12 = L11^-1 A12: rows k0..k1-1 of the columns right of the panel, columns [c0, c1).
void solve_panel_rows(double* a, int m, int k0, int k1, int c0, int c1) {
  for (int k = k0; k < k1; ++k) {
    const double* source = a + std::size_t(k) * m;
    for (int r = k + 1; r < k1; ++r) {
      double* row = a + std::size_t(r) * m;
      const double f = row[k];
      for (int c = c0; c < c1; ++c) row[c] -= f * source[c];
    }
  }
}

//! C -= L U for one tile: L (rows x kb) packed as l[k * kTileRows + r], U (kb x cols)
//! packed as u[k * kTileCols + c], C row-major with stride m. Full tiles keep all
//! accumulators in registers (fixed trip counts).
template <bool Full>
inline __attribute__((always_inline)) void update_tile(double* c, const double* l, const double* u, int kb, int m,
                                                       int rows, int cols) {
  double acc[kTileRows][kTileCols] = {};
  for (int k = 0; k < kb; ++k)
    for (int r = 0; r < kTileRows; ++r)
      for (int j = 0; j < kTileCols; ++j) acc[r][j] += l[k * kTileRows + r] * u[k * kTileCols + j];
  const int row_count = Full ? kTileRows : rows, col_count = Full ? kTileCols : cols;
  for (int r = 0; r < row_count; ++r)
    for (int j = 0; j < col_count; ++j) c[std::size_t(r) * m + j] -= acc[r][j];
}

//! Rows i0..i0+3 of A22 -= L21 U12 (U12 packed); inlined into each ISA version below.
inline __attribute__((always_inline)) void update_row_tile_body(double* a, int m, int k0, int k1, int i0,
                                                                const double* packed_u, int col_tiles) {
  const int kb = k1 - k0, rows = std::min(kTileRows, m - i0);
  double packed_l[kLuPanel * kTileRows] = {};
  for (int r = 0; r < rows; ++r)
    for (int k = 0; k < kb; ++k) packed_l[k * kTileRows + r] = a[std::size_t(i0 + r) * m + k0 + k];
  for (int ct = 0; ct < col_tiles; ++ct) {
    const int j0 = k1 + ct * kTileCols, cols = std::min(kTileCols, m - j0);
    double* c = a + std::size_t(i0) * m + j0;
    const double* u = packed_u + std::size_t(ct) * kb * kTileCols;
    if (rows == kTileRows && cols == kTileCols)
      update_tile<true>(c, packed_l, u, kb, m, rows, cols);
    else
      update_tile<false>(c, packed_l, u, kb, m, rows, cols);
  }
}

using UpdateRowTile = void (*)(double*, int, int, int, int, const double*, int);

void update_row_tile_baseline(double* a, int m, int k0, int k1, int i0, const double* packed_u, int col_tiles) {
  update_row_tile_body(a, m, k0, k1, i0, packed_u, col_tiles);
}

// The product is nearly all of the solve's arithmetic and the baseline x86-64 build has
// neither AVX2 nor FMA: a second version for CPUs that have both, picked once at start-up
// (by feature, not by CPU model: GCC's target_clones("arch=haswell") is not picked on AMD).
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2,fma"))) void update_row_tile_avx2(double* a, int m, int k0, int k1, int i0,
                                                              const double* packed_u, int col_tiles) {
  update_row_tile_body(a, m, k0, k1, i0, packed_u, col_tiles);
}
#endif

UpdateRowTile pick_update_row_tile() {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return update_row_tile_avx2;
#endif
  return update_row_tile_baseline;
}

const UpdateRowTile update_row_tile = pick_update_row_tile();

//! After the panel k0..k1-1: U12 = L11^-1 A12 and A22 -= L21 U12, in one parallel region
//! (two barriers per panel). Each thread solves and packs whole column tiles of U12
//! (contiguous for the tile loop, no cache-set conflicts at power-of-two m), then updates
//! whole row tiles of A22.
void update_right_of_panel(double* a, int m, int k0, int k1, std::vector<double>& packed_u, int threads) {
  const int kb = k1 - k0, span = m - k1;
  if (span <= 0) return;
  const int col_tiles = (span + kTileCols - 1) / kTileCols, row_tiles = (span + kTileRows - 1) / kTileRows;
  packed_u.assign(std::size_t(col_tiles) * kb * kTileCols, 0.0);
#pragma omp parallel if (span >= 128 && threads > 1) num_threads(threads)
  {
#pragma omp for schedule(static)
    for (int t = 0; t < col_tiles; ++t) {
      const int j0 = k1 + t * kTileCols, cols = std::min(kTileCols, m - j0);
      solve_panel_rows(a, m, k0, k1, j0, j0 + cols);
      double* dst = packed_u.data() + std::size_t(t) * kb * kTileCols;
      for (int k = 0; k < kb; ++k)
        for (int j = 0; j < cols; ++j) dst[k * kTileCols + j] = a[std::size_t(k0 + k) * m + j0 + j];
    }
#pragma omp for schedule(static)
    for (int t = 0; t < row_tiles; ++t) update_row_tile(a, m, k0, k1, k1 + t * kTileRows, packed_u.data(), col_tiles);
  }
}

}  // namespace

int omp_threads(int threads) { return threads > 0 ? threads : std::max(1, omp_get_max_threads()); }

DenseLu::DenseLu(std::vector<double> a, int m, int threads)
    : m_(m), threads_(omp_threads(threads)), lu_(std::move(a)), pivots_(m) {
  double scale = 0.0;
  for (double v : lu_) scale = std::max(scale, std::abs(v));
  const double threshold = pivot_tolerance<double>(m) * scale;
  double* const lu = lu_.data();
  std::vector<double> packed_u;
  for (int k0 = 0; k0 < m; k0 += kLuPanel) {
    const int k1 = std::min(m, k0 + kLuPanel);
    status_ = factor_panel(lu, m, k0, k1, threshold, pivots_.data());
    if (!status_.ok()) return;
    update_right_of_panel(lu, m, k0, k1, packed_u, threads_);
  }
}

void DenseLu::solve(double* x, int count) const {
  // Right-hand sides shared out among the threads; each thread substitutes its own row by
  // row, all of them at once, so the factors (8 MB at 1000 wells) stream from memory once
  // per thread, not once per right-hand side.
  const int m = m_;
  const double* lu = lu_.data();
  const int chunks = std::max(1, std::min(count, threads_));
#pragma omp parallel for schedule(static) if (m >= 128 && chunks > 1) num_threads(chunks)
  for (int chunk = 0; chunk < chunks; ++chunk) {
    const int first = chunk * count / chunks, last = (chunk + 1) * count / chunks;
    for (int j = first; j < last; ++j) {
      double* b = x + std::size_t(j) * m;
      for (int k = 0; k < m; ++k) std::swap(b[k], b[pivots_[k]]);
    }
    for (int r = 1; r < m; ++r) {
      const double* row = lu + std::size_t(r) * m;
      for (int j = first; j < last; ++j) {
        double* b = x + std::size_t(j) * m;
        double s = 0.0;
#pragma omp simd reduction(+ : s)
        for (int c = 0; c < r; ++c) s += row[c] * b[c];
        b[r] -= s;
      }
    }
    for (int r = m - 1; r >= 0; --r) {
      const double* row = lu + std::size_t(r) * m;
      for (int j = first; j < last; ++j) {
        double* b = x + std::size_t(j) * m;
        double s = 0.0;
#pragma omp simd reduction(+ : s)
        for (int c = r + 1; c < m; ++c) s += row[c] * b[c];
        b[r] = (b[r] - s) / row[r];
      }
    }
  }
}

}  // namespace lb::kriging

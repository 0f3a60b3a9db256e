#pragma once
//! Runs a kernel body `body(i)` for i in [0, n) on the CPU: serially (the papers' single-core
//! baseline) or with OpenMP. The same `__host__ __device__` body runs on the GPU, so CPU
//! tests cover every layout's code path.

#include <cstddef>
#include <cstdint>

namespace lb::exec {

template <class Body>
void run_serial(std::size_t n, const Body& body) {
  for (std::size_t i = 0; i < n; ++i) body(i);
}

//! Runs body on the indices given by index_of(k), k in [0, count) (a sample of the range).
template <class Body, class IndexOf>
void run_serial_on(std::size_t count, IndexOf index_of, const Body& body) {
  for (std::size_t k = 0; k < count; ++k) body(index_of(k));
}

template <class Body>
void run_openmp(std::size_t n, const Body& body) {
#pragma omp parallel for schedule(dynamic, 64)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i) body(static_cast<std::size_t>(i));
}

template <class Body, class IndexOf>
void run_openmp_on(std::size_t count, IndexOf index_of, const Body& body) {
#pragma omp parallel for schedule(dynamic, 16)
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(count); ++k) body(index_of(static_cast<std::size_t>(k)));
}

}  // namespace lb::exec

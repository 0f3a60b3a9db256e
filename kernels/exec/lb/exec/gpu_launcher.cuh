#pragma once
//! Runs a kernel body `body(i)` for i in [0, n) on the GPU, one thread per index.

#include <cstddef>

#include "lb/common/cuda_check.hpp"

namespace lb::exec {

template <class Body>
__global__ void for_each_index_kernel(Body body, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) body(i);
}

template <class Body>
void launch_for_each(std::size_t n, int block, cudaStream_t stream, const Body& body) {
  const auto grid = static_cast<unsigned>((n + block - 1) / block);
  for_each_index_kernel<<<grid, block, 0, stream>>>(body, n);
  check_launch("for_each_index_kernel");
}

}  // namespace lb::exec

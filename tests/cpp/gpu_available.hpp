#pragma once
// Whether a CUDA device is visible; GPU tests GTEST_SKIP (visibly) when it is not.

#include <cuda_runtime_api.h>

inline bool have_gpu() {
  int n = 0;
  const bool ok = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
  cudaGetLastError();  // clear the "no device" error so later calls start clean
  return ok;
}

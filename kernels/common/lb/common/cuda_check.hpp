#pragma once
//! CUDA error checking: every runtime call goes through check(), which throws CudaError
//! naming the call. Host-only (compiles without nvcc).

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace lb {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& what)
      : std::runtime_error(what + ": " + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")"),
        code_(code) {}
  cudaError_t code() const { return code_; }
  //! A sticky error leaves the context unusable: the process must restart to go on.
  bool sticky() const {
    return code_ == cudaErrorIllegalAddress || code_ == cudaErrorLaunchFailure ||
           code_ == cudaErrorIllegalInstruction || code_ == cudaErrorMisalignedAddress ||
           code_ == cudaErrorInvalidAddressSpace || code_ == cudaErrorInvalidPc ||
           code_ == cudaErrorHardwareStackError || code_ == cudaErrorAssert ||
           code_ == cudaErrorUnknown || code_ == cudaErrorECCUncorrectable;
  }

 private:
  cudaError_t code_;
};

inline void check(cudaError_t code, const char* what) {
  if (code != cudaSuccess) throw CudaError(code, what);
}

//! Checks the launch just made (configuration errors) without synchronising.
inline void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

//! For a command's `--device gpu`: throws std::runtime_error "no CUDA GPU visible: --device gpu
//! needs one (--device cpu runs <cpu_alternative>)" when the runtime sees no device (no
//! driver, none installed, none visible), instead of the first CUDA call's error code.
inline void require_gpu_for_device_option(const std::string& cpu_alternative) {
  int n = 0;
  const bool visible = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
  cudaGetLastError();  // clear a "no device" error
  if (!visible)
    throw std::runtime_error("no CUDA GPU visible: --device gpu needs one (--device cpu runs " + cpu_alternative + ")");
}

}  // namespace lb

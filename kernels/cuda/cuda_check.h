// Internal to kernels/: turning CUDA runtime and cuBLAS failures into exceptions. Every CUDA call
// in kernels/cuda/ goes through these, so a failure (out of memory included) is a CudaError that
// names the call and CUDA's own description, never a crash or a silently wrong result.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace pstwin::cuda {

/// A CUDA runtime or cuBLAS call failed. what() reads "<call>: <CUDA's description>
/// (<error name>)", e.g. "cudaMalloc(4.0 GiB): out of memory (cudaErrorMemoryAllocation)".
/// A sticky error (an illegal address in a kernel) leaves the CUDA context unusable: the message
/// then says so, and every later call on that device fails the same way.
class CudaError : public std::runtime_error {
 public:
  CudaError(const std::string& message, cudaError_t code)
      : std::runtime_error(message), code_(code) {}
  /// The CUDA error code (cudaSuccess for a cuBLAS failure).
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

/// Throws CudaError for `call` failing with `error`.
[[noreturn]] void throw_cuda_error(const std::string& call, cudaError_t error);
/// Throws CudaError for the cuBLAS `call` failing with `status`.
[[noreturn]] void throw_cublas_error(const std::string& call, cublasStatus_t status);

/// Throws CudaError naming `call` unless `error` is cudaSuccess.
inline void check(cudaError_t error, const char* call) {
  if (error != cudaSuccess) throw_cuda_error(call, error);
}
/// Throws CudaError naming `call` unless `status` is CUBLAS_STATUS_SUCCESS.
inline void check(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS) throw_cublas_error(call, status);
}

/// After launching `kernel`: throws CudaError when the launch failed (bad configuration, no
/// kernel image for this GPU, an earlier sticky error).
inline void check_launch(const char* kernel) {
  const cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess) throw_cuda_error(std::string("launching ") + kernel, error);
}

/// "1.5 GiB", "12 KiB": a byte count for messages.
std::string format_bytes(double bytes);

}  // namespace pstwin::cuda

/// Checks a CUDA runtime or cuBLAS call, naming it in the exception.
#define PSTWIN_CUDA_CHECK(call) ::pstwin::cuda::check((call), #call)

#include "kernels/cuda/cuda_check.h"

#include <cstdio>

namespace pstwin::cuda {

void throw_cuda_error(const std::string& call, cudaError_t error) {
  std::string message = call + ": " + cudaGetErrorString(error) + " (" + cudaGetErrorName(error) + ")";
  if (error == cudaErrorMemoryAllocation) {
    std::size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess)
      message += "; the GPU has " + format_bytes(static_cast<double>(free_b)) + " free of " +
                 format_bytes(static_cast<double>(total_b));
    (void)cudaGetLastError();  // out of memory is not sticky; clear it
  } else if (error == cudaErrorIllegalAddress || error == cudaErrorLaunchFailure ||
             error == cudaErrorHardwareStackError || error == cudaErrorIllegalInstruction ||
             error == cudaErrorMisalignedAddress || error == cudaErrorInvalidAddressSpace ||
             error == cudaErrorInvalidPc || error == cudaErrorAssert) {
    message += "; the CUDA context is now unusable (restart the process)";
  }
  throw CudaError(message, error);
}

void throw_cublas_error(const std::string& call, cublasStatus_t status) {
  std::string message = call + ": " + cublasGetStatusString(status) + " (" +
                        cublasGetStatusName(status) + ")";
  throw CudaError(message, cudaSuccess);
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 4) {
    bytes /= 1024.0;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return buf;
}

}  // namespace pstwin::cuda

// Finding out whether a GPU can run this build's kernels, and saying why not in words a user can
// act on (kernels/cuda_backend.h).
#include <cstdio>
#include <string>

#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/device_info.h"
#include "kernels/cuda_backend.h"

#ifndef PSTWIN_CUDA_ARCHITECTURES
#define PSTWIN_CUDA_ARCHITECTURES "unknown"
#endif

namespace pstwin {

namespace {

__global__ void probe_kernel() {}

std::string cuda_message(const char* call, cudaError_t e) {
  return std::string(call) + ": " + cudaGetErrorString(e) + " (" + cudaGetErrorName(e) + ")";
}

}  // namespace

namespace cuda {

std::string device_problem(int device) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    int driver = 0;
    if ((e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice) &&
        (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0))
      return "no NVIDIA driver was found (libcuda.so.1 could not be loaded; cudaGetDeviceCount "
             "failed with " + std::string(cudaGetErrorName(e)) + ")";
    if (e == cudaErrorInsufficientDriver) {
      int runtime = 0;
      (void)cudaRuntimeGetVersion(&runtime);
      return "the NVIDIA driver (CUDA " + std::to_string(driver / 1000) + "." +
             std::to_string(driver % 1000 / 10) + ") is older than this build's CUDA runtime (" +
             std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10) +
             "): " + cuda_message("cudaGetDeviceCount", e);
    }
    return "no usable GPU: " + cuda_message("cudaGetDeviceCount", e);
  }
  if (count == 0) return "no CUDA GPU was found (cudaGetDeviceCount found 0 devices)";
  if (device < 0 || device >= count)
    return "there is no GPU " + std::to_string(device) + " (this machine has " +
           std::to_string(count) + ")";
  cudaDeviceProp prop{};
  cudaError_t pe = cudaGetDeviceProperties(&prop, device);
  if (pe != cudaSuccess) return "GPU " + std::to_string(device) + ": " + cuda_message("cudaGetDeviceProperties", pe);
  int previous = 0;
  (void)cudaGetDevice(&previous);
  pe = cudaSetDevice(device);
  cudaFuncAttributes attr{};
  if (pe == cudaSuccess) pe = cudaFuncGetAttributes(&attr, probe_kernel);
  (void)cudaSetDevice(previous);
  if (pe == cudaErrorInvalidDeviceFunction || pe == cudaErrorNoKernelImageForDevice) {
    (void)cudaGetLastError();
    return "GPU " + std::to_string(device) + " (" + prop.name + ", compute capability " +
           std::to_string(prop.major) + "." + std::to_string(prop.minor) +
           ") cannot run this build's kernels, built for CUDA architectures " +
           PSTWIN_CUDA_ARCHITECTURES + ": configure a build with -DCMAKE_CUDA_ARCHITECTURES=" +
           std::to_string(prop.major * 10 + prop.minor);
  }
  if (pe != cudaSuccess) {
    (void)cudaGetLastError();
    return "GPU " + std::to_string(device) + " (" + prop.name + ") cannot be used: " +
           cuda_message("cudaFuncGetAttributes", pe);
  }
  return "";
}

std::string device_description(int device) {
  cudaDeviceProp prop{};
  PSTWIN_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  char mem[32];
  std::snprintf(mem, sizeof mem, "%.1f GiB", static_cast<double>(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0));
  return "GPU " + std::to_string(device) + ": " + prop.name + " (compute capability " +
         std::to_string(prop.major) + "." + std::to_string(prop.minor) + ", " + mem + ", " +
         std::to_string(prop.multiProcessorCount) + " multiprocessors)";
}

}  // namespace cuda

bool cuda_backend_compiled() { return true; }

bool cuda_device_available(std::string* description) {
  try {
    const std::string problem = cuda::device_problem(0);
    if (description != nullptr) *description = problem.empty() ? cuda::device_description(0) : problem;
    return problem.empty();
  } catch (const std::exception& e) {
    if (description != nullptr) *description = e.what();
    return false;
  }
}

}  // namespace pstwin

// The CUDA KernelBackend: declared here for every build, so the choice point (select_backend.cc)
// and the tests compile with or without CUDA. In a build without nvcc these report that there is
// no CUDA support instead of failing to link (DESIGN.md, rule 3).
#pragma once

#include <memory>
#include <string>

#include "kernels/backend.h"

namespace pstwin {

/// True when this build includes the CUDA kernels (nvcc was found when it was configured).
bool cuda_backend_compiled();

/// Whether GPU 0 can run this build's CUDA kernels. Never throws. On true, *description (if
/// non-null) names the GPU: "GPU 0: NVIDIA H200 (compute capability 9.0, 139.8 GiB, 132
/// multiprocessors)". On false it says why, in words a user can act on: the build has no CUDA
/// support; no NVIDIA driver; no GPU; or a GPU this build has no kernels for (with the
/// CMAKE_CUDA_ARCHITECTURES to rebuild with).
bool cuda_device_available(std::string* description);

/// A KernelBackend running every operation on GPU `device` (host pointers in and out, staged
/// through device buffers that grow and are reused; see kernels/cuda/cuda_backend.cc). Returns
/// null in a build without CUDA (cuda_device_available says why). Throws std::runtime_error
/// naming the CUDA call and error when the device cannot be used (no driver, no such device,
/// out of memory). Each call of the backend may throw the same kind of error (CudaError, from
/// kernels/cuda/cuda_check.h) besides the exceptions its CPU twin throws for bad arguments.
/// Numerical differences from the CPU twin are documented in kernels/cuda/device_kernels.h.
/// One instance per thread (not thread-safe); several may share a GPU.
std::unique_ptr<KernelBackend> make_cuda_backend(int device = 0);

}  // namespace pstwin

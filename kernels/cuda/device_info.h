// Internal to kernels/cuda/: what is wrong with a GPU, and how to name it.
#pragma once

#include <string>

namespace pstwin::cuda {

/// Empty when GPU `device` exists and can run this build's kernels; otherwise why not (no
/// driver, no GPU, no such index, no kernel image for its architecture). Never throws.
std::string device_problem(int device);

/// "GPU 0: NVIDIA H200 (compute capability 9.0, 139.8 GiB, 132 multiprocessors)". Throws
/// CudaError when the properties cannot be read.
std::string device_description(int device);

}  // namespace pstwin::cuda

// The CUDA entry points of a build without nvcc (kernels/cuda_backend.h): no CUDA backend, and
// a reason that says so.
#include "kernels/cuda_backend.h"

namespace pstwin {

bool cuda_backend_compiled() { return false; }

bool cuda_device_available(std::string* description) {
  if (description != nullptr)
    *description =
        "this pstwin was built without CUDA support (no nvcc was found when it was configured; "
        "install the CUDA toolkit and configure a new build folder to add it)";
  return false;
}

std::unique_ptr<KernelBackend> make_cuda_backend(int /*device*/) { return nullptr; }

}  // namespace pstwin

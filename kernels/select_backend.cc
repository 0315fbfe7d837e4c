#include "kernels/select_backend.h"

#include "kernels/cuda_backend.h"

namespace pstwin {

bool is_device_name(const std::string& device) {
  return device == "auto" || device == "cpu" || device == "cuda";
}

std::unique_ptr<KernelBackend> make_backend(const std::string& device, std::string* chosen) {
  if (!is_device_name(device))
    throw DeviceError("unknown device '" + device + "' (expected " + kDeviceChoices + ")");
  if (device == "cpu") {
    if (chosen != nullptr) *chosen = "cpu";
    return make_cpu_backend();
  }
  std::string description;
  std::string problem;
  if (cuda_device_available(&description)) {
    try {
      auto backend = make_cuda_backend(0);
      if (backend) {
        if (chosen != nullptr) *chosen = "cuda (" + description + ")";
        return backend;
      }
      problem = "this build has no CUDA backend";
    } catch (const std::exception& e) {
      problem = e.what();
    }
  } else {
    problem = description;
  }
  if (device == "cuda") throw DeviceError("device cuda was requested, but no GPU can be used: " + problem);
  if (chosen != nullptr) *chosen = "cpu; auto: " + problem;  // problem may hold parentheses of its own
  return make_cpu_backend();
}

}  // namespace pstwin

// The choice point between the CPU and CUDA backends (DESIGN.md, rule 3): the one place outside
// kernels/cuda/ that knows CUDA may be there. Roles never call this; the environments that run
// them (net/real_job.cc, sim/simulation.cc) do, with the user's --device.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "kernels/backend.h"

namespace pstwin {

/// The requested device cannot be used: `cuda` without a usable GPU, or an unknown device
/// name. what() says why in words a user can act on; the CLI exits with status 2.
class DeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The names make_backend accepts, for messages: "auto, cpu or cuda".
inline constexpr const char* kDeviceChoices = "auto, cpu or cuda";

/// True for "auto", "cpu" and "cuda".
bool is_device_name(const std::string& device);

/// The kernels for `device`:
///   "cpu"  the CPU backend;
///   "cuda" the CUDA backend on GPU 0, or DeviceError naming why not (a build without CUDA, no
///          driver, no GPU, a GPU this build has no kernels for, out of memory);
///   "auto" the CUDA backend when a GPU can run it, else the CPU backend.
/// *chosen (if non-null) receives one line saying what was chosen and, for auto, why:
/// "cuda (GPU 0: NVIDIA H200 (compute capability 9.0, ...))" or
/// "cpu; auto: no CUDA GPU was found (...)". Throws DeviceError for any other name.
std::unique_ptr<KernelBackend> make_backend(const std::string& device, std::string* chosen);

}  // namespace pstwin

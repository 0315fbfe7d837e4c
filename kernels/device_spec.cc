#include "kernels/device_spec.h"

#include <algorithm>
#include <array>

namespace pstwin {

double DeviceSpec::seconds(const Cost& cost) const {
  if (cost.flops <= 0.0 && cost.bytes <= 0.0) return 0.0;
  return overhead_s + std::max(cost.flops / peak_flops, cost.bytes / mem_bandwidth_Bps);
}

namespace {
// FP32 vector peak and memory bandwidth from the vendors' datasheets:
//   H100 SXM5: 67 TFLOP/s FP32, 3.35 TB/s HBM3 (NVIDIA H100 datasheet, 2023)
//   H200 SXM:  67 TFLOP/s FP32, 4.8 TB/s HBM3e (NVIDIA H200 datasheet, 2024)
//   A100 SXM4: 19.5 TFLOP/s FP32, 2.039 TB/s HBM2e (NVIDIA A100 80GB datasheet)
//   V100 SXM2: 15.7 TFLOP/s FP32, 900 GB/s HBM2 (NVIDIA V100 datasheet)
//   cpu: a 32-core AVX2 server socket, ~1 TFLOP/s FP32, 8-channel DDR4-3200 ~200 GB/s
const std::array<DeviceSpec, 5> kPresets = {{
    {"h100", 67e12, 3.35e12, 0.0, true},
    {"h200", 67e12, 4.8e12, 0.0, true},
    {"a100", 19.5e12, 2.039e12, 0.0, true},
    {"v100", 15.7e12, 0.9e12, 0.0, true},
    {"cpu", 1.0e12, 0.2e12, 0.0, false},
}};
}  // namespace

std::optional<DeviceSpec> device_preset(std::string_view name) {
  for (const auto& p : kPresets)
    if (p.name == name) return p;
  return std::nullopt;
}

std::string device_preset_names() {
  std::string out;
  for (const auto& p : kPresets) {
    if (!out.empty()) out += ", ";
    out += p.name;
  }
  return out;
}

}  // namespace pstwin

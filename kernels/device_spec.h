// DeviceSpec: a compute device described by two numbers, and the roofline rule that prices a Cost.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "kernels/cost.h"

namespace pstwin {

/// A device as the roofline model sees it (Williams, Waterman & Patterson, "Roofline", CACM 2009).
struct DeviceSpec {
  std::string name;          ///< preset name or "custom"
  double peak_flops = 0.0;   ///< sustained flop/s, > 0
  double mem_bandwidth_Bps = 0.0;  ///< bytes/s, > 0
  /// Fixed seconds added to every priced step (kernel launches, framework and input-pipeline
  /// overhead that does not scale with the work), >= 0.
  double overhead_s = 0.0;
  /// A GPU: its kernels run on the device, not on the host's CPU cores, so under a scenario's
  /// "cpu" they do not share cores (its node's messaging and server work still do). True for
  /// the GPU presets; a custom device says so with "kind": "gpu".
  bool gpu = false;

  /// Seconds the device needs for `cost`:
  /// overhead_s + max(flops / peak_flops, bytes / mem_bandwidth_Bps); 0 for an empty cost.
  double seconds(const Cost& cost) const;
};

/// The preset named `name` ("h100", "h200", "a100", "v100", "cpu"), or nullopt if there is none.
/// Figures are FP32 (non-tensor-core) peak and HBM/DRAM bandwidth from vendor datasheets.
std::optional<DeviceSpec> device_preset(std::string_view name);

/// Comma-separated list of preset names, for error messages.
std::string device_preset_names();

}  // namespace pstwin

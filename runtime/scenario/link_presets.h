// Named links inside one machine (NVLink, PCIe) for cluster.intra_host, with their sources.
#pragma once

#include <optional>
#include <string>

#include "runtime/scenario/scenario.h"

namespace pstwin {

/// The intra-host link called `name`: "nvlink2", "nvlink3", "nvlink4", "pcie3", "pcie4" or
/// "pcie5". Bandwidth is per direction (bytes/s), the datasheet's bidirectional figure halved:
///   nvlink2 150 GB/s (V100 SXM2, 300 GB/s), nvlink3 300 GB/s (A100 SXM, 600 GB/s),
///   nvlink4 450 GB/s (H100/H200 SXM, 900 GB/s) -- NVIDIA V100, A100 and H100 datasheets;
///   pcie3 15.75 GB/s, pcie4 31.5 GB/s, pcie5 63 GB/s -- x16 links at 8, 16 and 32 GT/s with
///   128b/130b encoding (PCI-SIG base specifications 3.0, 4.0, 5.0).
/// Latency: 1 us for NVLink and 2 us for PCIe, our estimate of a small GPU-to-GPU transfer (no
/// datasheet gives one). Returns nullopt for an unknown name.
std::optional<LinkSpec> intra_host_link_preset(const std::string& name);

/// The preset names, comma-separated, for error messages.
std::string intra_host_link_preset_names();

}  // namespace pstwin

#include "runtime/scenario/link_presets.h"

#include <array>
#include <utility>

namespace pstwin {
namespace {

struct NamedLink {
  const char* name;
  double bandwidth_Bps;  // per direction
  double latency_s;
};

constexpr std::array<NamedLink, 6> kPresets = {{
    {"nvlink2", 150e9, 1e-6},
    {"nvlink3", 300e9, 1e-6},
    {"nvlink4", 450e9, 1e-6},
    {"pcie3", 15.75e9, 2e-6},
    {"pcie4", 31.5e9, 2e-6},
    {"pcie5", 63e9, 2e-6},
}};

}  // namespace

std::optional<LinkSpec> intra_host_link_preset(const std::string& name) {
  for (const auto& p : kPresets)
    if (name == p.name) return LinkSpec{p.bandwidth_Bps, p.latency_s};
  return std::nullopt;
}

std::string intra_host_link_preset_names() {
  std::string names;
  for (const auto& p : kPresets) names += (names.empty() ? "" : ", ") + std::string(p.name);
  return names;
}

}  // namespace pstwin

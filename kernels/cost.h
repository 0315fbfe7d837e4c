// Cost: what a kernel call did, in units a device model can price.
#pragma once

#include <cstdint>

namespace pstwin {

/// The work one kernel call performed. `flops` counts floating-point operations
/// (a fused multiply-add counts 2); `bytes` counts bytes read plus bytes written
/// to main memory, assuming no cache reuse across calls. Costs add.
struct Cost {
  double flops = 0.0;
  double bytes = 0.0;

  Cost& operator+=(const Cost& o) {
    flops += o.flops;
    bytes += o.bytes;
    return *this;
  }
  friend Cost operator+(Cost a, const Cost& b) { return a += b; }
};

}  // namespace pstwin

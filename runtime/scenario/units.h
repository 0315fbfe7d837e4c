// Parsing quantities written with units in scenarios: "10Gbps", "50us", "1MiB", "15TFlops".
#pragma once

#include <string>

namespace pstwin {

/// Each parser accepts a number (integer, decimal or exponent form) followed by a unit, with
/// optional spaces between, and throws std::invalid_argument with a message listing the accepted
/// units when the text does not parse, the unit is unknown, or the value is negative or not finite.

/// Bandwidth in bytes per second. Units: bps, Kbps, Mbps, Gbps, Tbps (bits, decimal prefixes);
/// Bps, KBps, MBps, GBps, TBps (bytes, decimal); KiBps, MiBps, GiBps (bytes, binary).
double parse_bandwidth_Bps(const std::string& text);

/// Duration in seconds. Units: ns, us, ms, s, min, h.
double parse_duration_s(const std::string& text);

/// Size in bytes. Units: B, KB, MB, GB, TB (decimal); KiB, MiB, GiB, TiB (binary).
double parse_bytes(const std::string& text);

/// Compute rate in flop/s. Units: flops, Kflops, Mflops, Gflops, Tflops, Pflops (case-insensitive
/// "flops"; also "f", "Gf", "Tf" as SimGrid writes them).
double parse_flops(const std::string& text);

}  // namespace pstwin

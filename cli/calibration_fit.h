// The least-squares fits of `pstwin calibrate` (README, "Calibrating to your machine"): a line
// through message times (latency + bytes / bandwidth; CPU per message + per byte), and the
// roofline device spec (overhead + max(flops / peak, bytes / bandwidth)) through kernel times.
#pragma once

#include <vector>

#include "kernels/device_spec.h"

namespace pstwin::cli {

/// y = intercept + slope * x, fitted to points by least squares on the relative error (each
/// point weighted 1 / y^2), so a 100 B message and a 100 MB one count alike although their times
/// differ by a million. Both coefficients are kept >= 0: a negative fit (noise at one end) is
/// refitted with that coefficient fixed at 0.
struct LineFit {
  double intercept = 0.0;
  double slope = 0.0;
};

/// REQUIRES xs.size() == ys.size() >= 1, every y > 0 and every x >= 0.
LineFit fit_line(const std::vector<double>& xs, const std::vector<double>& ys);

/// y = intercept + slope * x over points that span decades of x (message sizes), fitted in two
/// ranges: the slope by ordinary least squares over the points with x >= large_from (messages
/// past the caches, which set a transfer's rate), the intercept as the median over the points
/// with x <= small_to of y - slope * x (what a message costs whatever its size). A range with no
/// point falls back to every point; a slope below 0 is 0, an intercept below 0 is 0.
/// REQUIRES xs.size() == ys.size() >= 1.
LineFit fit_ends(const std::vector<double>& xs, const std::vector<double>& ys, double small_to, double large_from);

/// One timed kernel call: what it did and how long it took.
struct KernelSample {
  double flops = 0.0;
  double bytes = 0.0;
  double seconds = 0.0;  ///< > 0
};

/// The DeviceSpec whose DeviceSpec::seconds is nearest to the samples' times by least squares on
/// the relative error. The max() makes the fit non-linear; for a fixed machine balance
/// r = peak_flops / mem_bandwidth_Bps the model is linear (overhead + max(flops, r * bytes) /
/// peak_flops), so it is solved for each r of a log grid from 1e-3 to 1e4 flop/byte and the best
/// kept. Kernels that are all compute-bound (or all memory-bound) leave the other rate
/// undetermined: every balance past a point fits as well. Among the balances whose error is within
/// 1% of the best, the one whose memory bandwidth is nearest (in ratio) to `memory_Bps` (what
/// the host's memcpy moves) is kept. name = "custom". REQUIRES samples non-empty, each with
/// flops > 0 or bytes > 0, and memory_Bps > 0.
DeviceSpec fit_roofline(const std::vector<KernelSample>& samples, double memory_Bps);

/// The median of `xs` (REQUIRES non-empty; mean of the middle two for an even count).
double median(std::vector<double> xs);

}  // namespace pstwin::cli

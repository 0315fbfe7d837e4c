// The least-squares fits of `pstwin calibrate` (README, "Calibrating to your machine"): a line
// through message times (latency + bytes / bandwidth; CPU per message + per byte), and the
// roofline device spec (overhead + max(flops / peak, bytes / bandwidth)) through kernel times.
#pragma once

#include <optional>
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
/// the host's memcpy moves) is kept. name = "custom". With `overhead_s` the overhead is that,
/// and only the rates are fitted (samples too large to tell a per-call time from noise).
/// REQUIRES samples non-empty, each with flops > 0 or bytes > 0, memory_Bps > 0, and
/// overhead_s >= 0 when given.
DeviceSpec fit_roofline(const std::vector<KernelSample>& samples, double memory_Bps,
                        std::optional<double> overhead_s = std::nullopt);

/// Which of a fitted roofline's two rates its samples determine. At the fit's machine balance
/// each sample is compute-bound (flops / peak >= bytes / bandwidth) or memory-bound. Samples
/// that are all compute-bound fit alike for every bandwidth from `bandwidth_at_least` up (the
/// lowest that keeps them so), which fit_roofline then chooses by memcpy's rate, not by them;
/// all memory-bound, the same holds for the peak and `flops_at_least`. One model's kernels at
/// several batch sizes share about one arithmetic intensity, so they determine one rate only.
struct RooflineSides {
  std::size_t compute_bound = 0;
  std::size_t memory_bound = 0;
  double bandwidth_at_least = 0;  ///< B/s; set when no sample is memory-bound
  double flops_at_least = 0;      ///< flop/s; set when no sample is compute-bound
  bool bandwidth_determined() const { return memory_bound > 0; }
  bool flops_determined() const { return compute_bound > 0; }
};

/// The sides of `d` (a fit_roofline result, peak and bandwidth > 0) for `samples`.
RooflineSides roofline_sides(const std::vector<KernelSample>& samples, const DeviceSpec& d);

/// The median of `xs` (REQUIRES non-empty; mean of the middle two for an even count).
double median(std::vector<double> xs);

}  // namespace pstwin::cli

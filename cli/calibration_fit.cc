// Least squares for calibrate: weighted lines with non-negative coefficients, and the roofline.
#include "cli/calibration_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pstwin::cli {

namespace {

/// Weighted least squares of y = a + b x with weights w, a and b >= 0; and its weighted
/// squared error.
LineFit solve_line(const std::vector<double>& xs, const std::vector<double>& ys,
                   const std::vector<double>& ws, double* error) {
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    sw += ws[i];
    sx += ws[i] * xs[i];
    sy += ws[i] * ys[i];
    sxx += ws[i] * xs[i] * xs[i];
    sxy += ws[i] * xs[i] * ys[i];
  }
  LineFit f;
  const double det = sw * sxx - sx * sx;
  if (det > 0) {
    f.slope = (sw * sxy - sx * sy) / det;
    f.intercept = (sy - f.slope * sx) / sw;
  }
  // A coefficient below zero has no physical meaning (negative latency or bandwidth): fix it at
  // 0 and fit the other alone.
  if (det <= 0 || f.intercept < 0) {
    f.intercept = 0;
    f.slope = sxx > 0 ? std::max(0.0, sxy / sxx) : 0.0;
  }
  if (f.slope < 0) {
    f.slope = 0;
    f.intercept = std::max(0.0, sy / sw);
  }
  double e = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double r = f.intercept + f.slope * xs[i] - ys[i];
    e += ws[i] * r * r;
  }
  if (error) *error = e;
  return f;
}

}  // namespace

LineFit fit_line(const std::vector<double>& xs, const std::vector<double>& ys) {
  std::vector<double> ws(ys.size());
  for (std::size_t i = 0; i < ys.size(); ++i) ws[i] = 1.0 / (ys[i] * ys[i]);
  return solve_line(xs, ys, ws, nullptr);
}

LineFit fit_ends(const std::vector<double>& xs, const std::vector<double>& ys, double small_to, double large_from) {
  std::vector<double> lx, ly;
  for (std::size_t i = 0; i < xs.size(); ++i)
    if (xs[i] >= large_from) {
      lx.push_back(xs[i]);
      ly.push_back(ys[i]);
    }
  if (lx.empty()) {
    lx = xs;
    ly = ys;
  }
  const std::vector<double> ones(lx.size(), 1.0);
  double error = 0;
  LineFit f;
  f.slope = lx.size() > 1 ? solve_line(lx, ly, ones, &error).slope : ly[0] / std::max(lx[0], 1.0);
  std::vector<double> rest;
  for (std::size_t i = 0; i < xs.size(); ++i)
    if (xs[i] <= small_to) rest.push_back(ys[i] - f.slope * xs[i]);
  if (rest.empty())
    for (std::size_t i = 0; i < xs.size(); ++i) rest.push_back(ys[i] - f.slope * xs[i]);
  f.intercept = std::max(0.0, median(rest));
  return f;
}

/// Weighted least squares of y = overhead + slope * x with the overhead given: the slope alone
/// (>= 0), and the error as solve_line reports it.
LineFit solve_slope(const std::vector<double>& xs, const std::vector<double>& ys, const std::vector<double>& ws,
                    double overhead, double* error) {
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    sxx += ws[i] * xs[i] * xs[i];
    sxy += ws[i] * xs[i] * (ys[i] - overhead);
  }
  LineFit f{overhead, sxx > 0 ? std::max(0.0, sxy / sxx) : 0.0};
  double e = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double r = f.intercept + f.slope * xs[i] - ys[i];
    e += ws[i] * r * r;
  }
  *error = e;
  return f;
}

DeviceSpec fit_roofline(const std::vector<KernelSample>& samples, double memory_Bps,
                        std::optional<double> overhead_s) {
  std::vector<double> ys, ws;
  for (const KernelSample& s : samples) {
    ys.push_back(s.seconds);
    ws.push_back(1.0 / (s.seconds * s.seconds));
  }
  struct Candidate {
    DeviceSpec spec;
    double error;
  };
  std::vector<Candidate> candidates;
  double best_error = std::numeric_limits<double>::infinity();
  std::vector<double> xs(samples.size());
  for (double log_r = -3.0; log_r <= 4.0 + 1e-9; log_r += 0.02) {
    const double r = std::pow(10.0, log_r);
    for (std::size_t i = 0; i < samples.size(); ++i) xs[i] = std::max(samples[i].flops, r * samples[i].bytes);
    double error = 0;
    const LineFit f = overhead_s ? solve_slope(xs, ys, ws, *overhead_s, &error) : solve_line(xs, ys, ws, &error);
    if (f.slope <= 0) continue;
    DeviceSpec d;
    d.name = "custom";
    d.overhead_s = f.intercept;
    d.peak_flops = 1.0 / f.slope;
    d.mem_bandwidth_Bps = d.peak_flops / r;
    candidates.push_back({d, error});
    best_error = std::min(best_error, error);
  }
  DeviceSpec best;
  double best_distance = std::numeric_limits<double>::infinity();
  for (const Candidate& c : candidates) {
    if (c.error > best_error * 1.01 + 1e-300) continue;
    const double distance = std::abs(std::log(c.spec.mem_bandwidth_Bps / memory_Bps));
    if (distance < best_distance) {
      best_distance = distance;
      best = c.spec;
    }
  }
  return best;
}

RooflineSides roofline_sides(const std::vector<KernelSample>& samples, const DeviceSpec& d) {
  RooflineSides sides;
  for (const KernelSample& s : samples) {
    const bool compute = s.flops / d.peak_flops >= s.bytes / d.mem_bandwidth_Bps;
    if (compute) {
      ++sides.compute_bound;
      // The bandwidth below which this sample's bytes would take longer than its flops.
      sides.bandwidth_at_least = std::max(sides.bandwidth_at_least, s.bytes * d.peak_flops / s.flops);
    } else {
      ++sides.memory_bound;
      if (s.bytes > 0) sides.flops_at_least = std::max(sides.flops_at_least, s.flops * d.mem_bandwidth_Bps / s.bytes);
    }
  }
  if (sides.memory_bound > 0) sides.bandwidth_at_least = 0;
  if (sides.compute_bound > 0) sides.flops_at_least = 0;
  return sides;
}

double median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  const std::size_t n = xs.size();
  return n % 2 ? xs[n / 2] : 0.5 * (xs[n / 2 - 1] + xs[n / 2]);
}

}  // namespace pstwin::cli

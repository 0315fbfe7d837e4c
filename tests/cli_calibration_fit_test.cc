// The fits of `pstwin calibrate` against figures made from known models.
#include <gtest/gtest.h>

#include <cmath>

#include "cli/calibration_file.h"
#include "cli/calibration_fit.h"
#include "runtime/scenario/units.h"

namespace pstwin::cli {
namespace {

TEST(CalibrationFit, LineThroughMessageTimesGivesLatencyAndBandwidth) {
  // 20 us + B / 1 GB/s, except that the cache-sized messages go twice as fast: the rate comes
  // from the large messages, the latency from the small ones.
  std::vector<double> bytes, seconds;
  for (double b = 100; b <= 1e8; b *= 10) {
    bytes.push_back(b);
    const bool cached = b > 1e4 && b < 1e6;
    seconds.push_back(20e-6 + b / (cached ? 2e9 : 1e9));
  }
  const LineFit f = fit_ends(bytes, seconds, 1e4, 1e6);
  EXPECT_NEAR(f.slope, 1e-9, 1e-12);
  EXPECT_NEAR(f.intercept, 20e-6, 1e-9);
}

TEST(CalibrationFit, NegativeCoefficientsBecomeZero) {
  // Time that falls with size (noise) has no bandwidth term; a latency below 0 is 0.
  const LineFit falling = fit_ends({1e6, 1e7}, {2e-3, 1e-3}, 1e4, 1e6);
  EXPECT_EQ(falling.slope, 0.0);
  const LineFit line = fit_line({0, 10}, {1, 21});
  EXPECT_NEAR(line.intercept, 1.0, 1e-12);
  EXPECT_NEAR(line.slope, 2.0, 1e-12);
  const LineFit through = fit_line({1, 2}, {0.5, 2.5});  // intercept -1.5: refitted through 0
  EXPECT_EQ(through.intercept, 0.0);
  EXPECT_GT(through.slope, 0.0);
}

TEST(CalibrationFit, RooflineRecoversTheDeviceThatMadeTheTimes) {
  DeviceSpec truth;
  truth.peak_flops = 2e10;
  truth.mem_bandwidth_Bps = 1e10;  // balance 2 flop/B: on the fit's grid (10^0.30 = 1.995)
  truth.overhead_s = 5e-6;
  std::vector<KernelSample> samples;
  for (double n = 1; n <= 64; n *= 2) {
    samples.push_back({1e6 * n, 1e5 * n, 0});  // 10 flop/B: compute-bound
    samples.push_back({1e5 * n, 1e6 * n, 0});  // 0.1 flop/B: memory-bound
  }
  for (KernelSample& s : samples) s.seconds = truth.seconds(Cost{s.flops, s.bytes});
  const DeviceSpec fit = fit_roofline(samples, 1e9);
  EXPECT_NEAR(fit.peak_flops / truth.peak_flops, 1.0, 0.01);
  EXPECT_NEAR(fit.mem_bandwidth_Bps / truth.mem_bandwidth_Bps, 1.0, 0.01);
  EXPECT_NEAR(fit.overhead_s, truth.overhead_s, 0.2e-6);
}

TEST(CalibrationFit, KernelsThatAreAllComputeBoundTakeTheHostsMemoryRate) {
  std::vector<KernelSample> samples;
  for (double n = 1; n <= 64; n *= 2) samples.push_back({1e7 * n, 1e4 * n, 1e7 * n / 1e10});
  // Any bandwidth above 1e4 * n / (1e7 * n / 1e10) = 1e7 B/s fits; the host's 8 GB/s is one of them.
  const DeviceSpec fit = fit_roofline(samples, 8e9);
  EXPECT_NEAR(fit.peak_flops / 1e10, 1.0, 0.01);
  EXPECT_NEAR(fit.mem_bandwidth_Bps / 8e9, 1.0, 0.03);
}

// A trial's calibrate printed 21-22 GB/s for each model and wrote 3.3 GB/s for all of them:
// each model's kernels were all compute-bound, so its GB/s was memcpy's, not a measurement.
// roofline_sides says which rate the kernels determine, and the floor of the one they leave open.
TEST(CalibrationFit, SidesSayWhichRateTheKernelsDetermine) {
  DeviceSpec truth;
  truth.peak_flops = 2e10;
  truth.mem_bandwidth_Bps = 1e10;
  std::vector<KernelSample> dense, sparse, both;
  for (double n = 1; n <= 64; n *= 2) {
    dense.push_back({1e6 * n, 1e5 * n, 0});   // 10 flop/B: compute-bound
    sparse.push_back({1e5 * n, 1e6 * n, 0});  // 0.1 flop/B: memory-bound
  }
  for (auto* v : {&dense, &sparse})
    for (KernelSample& s : *v) {
      s.seconds = truth.seconds(Cost{s.flops, s.bytes});
      both.push_back(s);
    }
  // Alone, the dense kernels fix the peak only: any bandwidth from 2e9 B/s (their bytes in the
  // time of their flops at 2e10 flop/s) up fits them, and the fit took the host's 8e9.
  const DeviceSpec d = fit_roofline(dense, 8e9);
  const RooflineSides ds = roofline_sides(dense, d);
  EXPECT_TRUE(ds.flops_determined());
  EXPECT_FALSE(ds.bandwidth_determined());
  EXPECT_EQ(ds.compute_bound, dense.size());
  EXPECT_NEAR(ds.bandwidth_at_least / 2e9, 1.0, 0.01);
  // The sparse ones alone fix the bandwidth only: any peak from 1e9 flop/s up.
  const DeviceSpec s = fit_roofline(sparse, 8e9);
  const RooflineSides ss = roofline_sides(sparse, s);
  EXPECT_TRUE(ss.bandwidth_determined());
  EXPECT_FALSE(ss.flops_determined());
  EXPECT_NEAR(ss.flops_at_least / 1e9, 1.0, 0.01);
  // Together they fix both, and the fit is the truth.
  const DeviceSpec b = fit_roofline(both, 8e9);
  const RooflineSides bs = roofline_sides(both, b);
  EXPECT_TRUE(bs.flops_determined() && bs.bandwidth_determined());
  EXPECT_EQ(bs.compute_bound, dense.size());
  EXPECT_EQ(bs.memory_bound, sparse.size());
  EXPECT_NEAR(b.mem_bandwidth_Bps / truth.mem_bandwidth_Bps, 1.0, 0.01);
}

TEST(CalibrationFit, TheLinkIsWhatTheCpuTermsLeaveOfTheTime) {
  // Each side spends 5 us + 1 ns/B; the wire adds 20 us + B / 1 GB/s.
  std::vector<TransportSample> samples;
  for (double b = 100; b <= 1e8; b *= 10) {
    const double cpu = 5e-6 + b * 1e-9;
    samples.push_back({"zmq", b, 2 * cpu + 20e-6 + b / 1e9, cpu, cpu, 3});
  }
  const TransportFit f = fit_transport(samples, 5e9);
  EXPECT_NEAR(f.latency_s, 20e-6, 1e-9);
  EXPECT_NEAR(f.bandwidth_Bps / 1e9, 1.0, 1e-6);
  EXPECT_NEAR(f.send_cpu.intercept, 5e-6, 1e-9);
  EXPECT_NEAR(f.receive_cpu.slope, 1e-9, 1e-14);
  EXPECT_NEAR(f.whole_latency_s, 30e-6, 1e-9);
  EXPECT_NEAR(f.whole_bandwidth_Bps * 3e-9, 1.0, 1e-6);
  // CPU that explains the whole time leaves a link at memcpy's rate.
  for (TransportSample& s : samples) s.seconds = s.send_cpu_s + s.receive_cpu_s;
  const TransportFit cpu_only = fit_transport(samples, 5e9);
  EXPECT_EQ(cpu_only.bandwidth_Bps, 5e9);
  EXPECT_NEAR(cpu_only.latency_s, 0, 1e-12);
}

TEST(CalibrationFit, Median) {
  EXPECT_EQ(median({3, 1, 2}), 2);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
}

TEST(CalibrationFit, AGivenOverheadLeavesOnlyTheRatesToFit) {
  // 5 us + flops / 1 Gflop/s: with the overhead given as 5 us, the peak is 1 Gflop/s exactly;
  // given as 0, the line through the origin must take a higher slope (a lower peak).
  std::vector<KernelSample> samples;
  for (double f : {1e6, 2e6, 4e6}) samples.push_back({f, 0, 5e-6 + f / 1e9});
  const DeviceSpec given = fit_roofline(samples, 1e9, 5e-6);
  EXPECT_DOUBLE_EQ(given.overhead_s, 5e-6);
  EXPECT_NEAR(given.peak_flops, 1e9, 1e9 * 1e-9);
  const DeviceSpec none = fit_roofline(samples, 1e9, 0.0);
  EXPECT_EQ(none.overhead_s, 0.0);
  EXPECT_LT(none.peak_flops, 0.999e9);
}

TEST(CalibrationFit, WorkersAreFittedToTheirStepsServersToTheEvaluations) {
  // The gradient steps run at 1 Gflop/s after 2 us per call; the evaluations, whose forward
  // passes hold the exps and logs, at 0.25 Gflop/s. One roofline through all seven would price
  // both wrong; each group gets its own. No server step is timed: the server's device charges
  // no per-call overhead (its rate is fitted through the evaluations' times as they are).
  std::vector<KernelTiming> steps, evaluations;
  for (double f : {1e4, 2e4, 4e4, 8e4}) steps.push_back({"logistic (a9a)", 0, false, f, 0, 2e-6 + f / 1e9, 3});
  for (double f : {1e6, 2e6, 4e6}) evaluations.push_back({"logistic (a9a)", 0, true, f, 0, f / 0.25e9, 3});
  const GroupDevices d = fit_group_devices(steps, evaluations, 1e10);
  EXPECT_NEAR(d.worker.peak_flops, 1e9, 1e9 * 1e-6);
  EXPECT_NEAR(d.worker.overhead_s, 2e-6, 1e-12);
  EXPECT_NEAR(d.server.peak_flops, 0.25e9, 0.25e9 * 1e-6);
  EXPECT_EQ(d.server.overhead_s, 0.0);
  // Without evaluations (none timed) the server's device is the worker's.
  const GroupDevices same = fit_group_devices(steps, {}, 1e10);
  EXPECT_DOUBLE_EQ(same.server.peak_flops, same.worker.peak_flops);
  // The file gives each group its own device.
  const nlohmann::json file = cluster_section(CalibrationRecord{}, d, TransportFit{});
  EXPECT_NEAR(parse_flops(file["server"]["device"]["flops"].get<std::string>()), 0.25e9, 0.25e9 * 1e-5);
  EXPECT_NEAR(parse_flops(file["worker"]["device"]["flops"].get<std::string>()), 1e9, 1e9 * 1e-5);
}

}  // namespace
}  // namespace pstwin::cli

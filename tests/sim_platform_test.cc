// Simulated time responds to the platform as it should (timing-only model, so the figures are
// exact consequences of the cost and network models).
#include <gtest/gtest.h>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

double sim_time(const nlohmann::json& scenario) {
  std::string tag("-");
  tag.append(std::to_string(std::hash<std::string>{}(scenario.dump())));
  const std::string dir = fresh_dir(tag);
  const auto out = simulate(dir, scenario);
  return read_json(out + "/bsp/summary.json")["sim_time_s"].get<double>();
}

TEST(Platform, ComputeBoundRunTakesIterationsTimesFlopsOverPeak) {
  // 1e12 flops per iteration on a 10 Tflop/s device: 0.1 s per iteration, 10 iterations; the
  // network (8 KB messages on 10 Gbit/s) adds well under 1%.
  const double t = sim_time(synthetic_scenario(1000, 1e12));
  EXPECT_NEAR(t, 1.0, 0.01);
}

TEST(Platform, DoublingDeviceSpeedHalvesAComputeBoundRun) {
  auto slow = synthetic_scenario(1000, 1e12);
  auto fast = slow;
  fast["cluster"]["worker"]["device"]["flops"] = "20Tf";
  const double ratio = sim_time(fast) / sim_time(slow);
  EXPECT_NEAR(ratio, 0.5, 0.02);
}

TEST(Platform, DoublingBandwidthShortensACommunicationBoundRun) {
  // 50M parameters (200 MB per full push) and no compute: the run is all network.
  auto slow = synthetic_scenario(5e7, 0);
  auto fast = slow;
  for (const char* group : {"worker", "server"})
    fast["cluster"][group]["link"]["bandwidth"] = "20Gbps";
  const double ratio = sim_time(fast) / sim_time(slow);
  EXPECT_NEAR(ratio, 0.5, 0.05);
}

TEST(Platform, BandwidthDoesNotMatterToAComputeBoundRun) {
  auto base = synthetic_scenario(1000, 1e12);
  auto fast = base;
  for (const char* group : {"worker", "server"})
    fast["cluster"][group]["link"]["bandwidth"] = "20Gbps";
  EXPECT_NEAR(sim_time(fast) / sim_time(base), 1.0, 0.01);
}

TEST(Platform, PersistentStragglerPacesBsp) {
  auto base = synthetic_scenario(1000, 1e12);
  auto slowed = base;
  slowed["stragglers"] = nlohmann::json::parse(R"([{"type": "slow", "workers": [2], "factor": 3}])");
  EXPECT_NEAR(sim_time(slowed) / sim_time(base), 3.0, 0.05);
}

TEST(Platform, SlowWindowOnlyActsInsideIt) {
  // Iterations take 0.1 s; a 3x slowdown between 0.5 s and 0.8 s: iteration 5 starts at 0.5 s
  // and takes 0.3 s, then iteration 6 starts at 0.8 s at full speed: 1.2 s in all.
  auto s = synthetic_scenario(1000, 1e12);
  s["stragglers"] = nlohmann::json::parse(
      R"([{"type": "slow", "workers": [0], "factor": 3, "start": "500ms", "end": "800ms"}])");
  EXPECT_NEAR(sim_time(s), 1.2, 0.02);
}

}  // namespace
}  // namespace pstwin

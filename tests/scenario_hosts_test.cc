// cluster.workers_per_host and cluster.intra_host: workers sharing a machine, the link between
// them (presets with their datasheet figures), and strict errors at the JSON pointer.
#include <gtest/gtest.h>

#include <string>

#include "runtime/errors.h"
#include "runtime/scenario/link_presets.h"
#include "runtime/scenario/scenario.h"
#include "tests/cluster_test_support.h"

namespace pstwin {
namespace {

using nlohmann::json;
using testing_support::scenario_with_cluster;

void expect_error_at(const json& extra, const std::string& pointer, const std::string& words) {
  testing_support::expect_error_at(scenario_with_cluster(extra), pointer, words);
}

TEST(ScenarioHosts, OneWorkerPerHostByDefault) {
  const Scenario s = parse_scenario(scenario_with_cluster(json::object()));
  EXPECT_EQ(s.cluster.workers_per_host, 1u);
  EXPECT_FALSE(s.cluster.intra_host.has_value());
  EXPECT_EQ(s.cluster.worker_hosts(), 8u);
  EXPECT_EQ(s.cluster.host_of_worker(7), 7u);
}

TEST(ScenarioHosts, FourWorkersPerHostOverNvlink4) {
  const Scenario s = parse_scenario(scenario_with_cluster({{"workers_per_host", 4}, {"intra_host", "nvlink4"}}));
  EXPECT_EQ(s.cluster.worker_hosts(), 2u);
  EXPECT_EQ(s.cluster.host_of_worker(3), 0u);
  EXPECT_EQ(s.cluster.host_of_worker(4), 1u);
  ASSERT_TRUE(s.cluster.intra_host.has_value());
  EXPECT_DOUBLE_EQ(s.cluster.intra_host->bandwidth_Bps, 450e9);  // 900 GB/s both ways, halved
  EXPECT_DOUBLE_EQ(s.cluster.intra_host->latency_s, 1e-6);
}

TEST(ScenarioHosts, PresetsAreThePerDirectionFigures) {
  EXPECT_DOUBLE_EQ(intra_host_link_preset("nvlink3")->bandwidth_Bps, 300e9);
  EXPECT_DOUBLE_EQ(intra_host_link_preset("pcie4")->bandwidth_Bps, 31.5e9);
  EXPECT_DOUBLE_EQ(intra_host_link_preset("pcie5")->bandwidth_Bps, 63e9);
  EXPECT_FALSE(intra_host_link_preset("nvlink5").has_value());
}

TEST(ScenarioHosts, AnIntraHostLinkMayBeGivenAsBandwidthAndLatency) {
  const Scenario s = parse_scenario(scenario_with_cluster(
      {{"workers_per_host", 2}, {"intra_host", {{"bandwidth", "100GBps"}, {"latency", "3us"}}}}));
  EXPECT_DOUBLE_EQ(s.cluster.intra_host->bandwidth_Bps, 100e9);
  EXPECT_DOUBLE_EQ(s.cluster.intra_host->latency_s, 3e-6);
}

TEST(ScenarioHosts, BadHostLayoutsAreRefusedAtTheirPointer) {
  expect_error_at({{"workers_per_host", 3}, {"intra_host", "pcie4"}}, "/cluster/workers_per_host",
                  "do not divide the 8 workers");
  expect_error_at({{"workers_per_host", 0}}, "/cluster/workers_per_host", "");
  expect_error_at({{"workers_per_host", 2}}, "/cluster/intra_host", "required when workers_per_host > 1");
  expect_error_at({{"workers_per_host", 2}, {"intra_host", "nvlink9"}}, "/cluster/intra_host",
                  "unknown intra-host link preset \"nvlink9\"");
  expect_error_at({{"intra_host", "nvlink4"}}, "/cluster/intra_host", "only meaningful when workers_per_host > 1");
  expect_error_at({{"workers_per_host", 2}, {"intra_host", {{"bandwidth", "fast"}, {"latency", "1us"}}}},
                  "/cluster/intra_host/bandwidth", "");
}

}  // namespace
}  // namespace pstwin

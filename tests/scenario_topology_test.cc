// cluster.topology, cluster.server_placement, host groups and per-node overrides: what they
// parse to, and the errors (at their JSON pointer) for what does not fit.
#include <gtest/gtest.h>

#include <string>

#include "runtime/errors.h"
#include "runtime/scenario/scenario.h"
#include "tests/cluster_test_support.h"

namespace pstwin {
namespace {

using nlohmann::json;

json with_cluster(const json& extra) { return testing_support::scenario_with_cluster(extra, 2); }

void expect_error_at(const json& extra, const std::string& pointer, const std::string& words) {
  testing_support::expect_error_at(with_cluster(extra), pointer, words);
}

const json kLink = {{"bandwidth", "100Gbps"}, {"latency", "1us"}};

TEST(ScenarioTopology, StarByDefaultAndByName) {
  EXPECT_EQ(parse_scenario(with_cluster(json::object())).cluster.topology.kind, TopologySpec::Kind::kStar);
  EXPECT_EQ(parse_scenario(with_cluster({{"topology", "star"}})).cluster.topology.kind, TopologySpec::Kind::kStar);
  EXPECT_EQ(parse_scenario(with_cluster(json::object())).cluster.server_placement, ServerPlacement::kSeparate);
}

TEST(ScenarioTopology, RacksWithTheirUplink) {
  const Scenario s = parse_scenario(with_cluster(
      {{"topology", {{"type", "racks"}, {"hosts_per_rack", 4}, {"uplink", kLink}}}, {"server_placement", "spread"}}));
  EXPECT_EQ(s.cluster.topology.kind, TopologySpec::Kind::kRacks);
  EXPECT_EQ(s.cluster.topology.hosts_per_rack, 4u);
  EXPECT_DOUBLE_EQ(s.cluster.topology.uplink.bandwidth_Bps, 12.5e9);
  EXPECT_EQ(s.cluster.server_placement, ServerPlacement::kSpread);
}

TEST(ScenarioTopology, FabricsCountTheirLeaves) {
  const Scenario fat = parse_scenario(with_cluster(
      {{"topology",
        {{"type", "fat_tree"}, {"down", {4, 4}}, {"up", {1, 2}}, {"link_count", {1, 1}}, {"link", kLink}}}}));
  EXPECT_EQ(fat.cluster.topology.leaves(), 16u);
  const Scenario torus =
      parse_scenario(with_cluster({{"topology", {{"type", "torus"}, {"dimensions", {3, 2, 2}}, {"link", kLink}}}}));
  EXPECT_EQ(torus.cluster.topology.leaves(), 12u);
  const Scenario df = parse_scenario(with_cluster({{"topology",
                                                    {{"type", "dragonfly"},
                                                     {"groups", {2, 1}},
                                                     {"chassis", {1, 1}},
                                                     {"routers", {2, 1}},
                                                     {"nodes", 3},
                                                     {"link", kLink}}}}));
  EXPECT_EQ(df.cluster.topology.leaves(), 12u);
}

TEST(ScenarioTopology, ATopologyTooSmallForTheJobNamesItsSizes) {
  // 8 worker machines, 2 servers' and the scheduler's: 11 machines, 8 leaves.
  expect_error_at(
      {{"topology", {{"type", "fat_tree"}, {"down", {2, 4}}, {"up", {1, 2}}, {"link_count", {1, 1}}, {"link", kLink}}}},
      "/cluster/topology/down", "8 leaves, too few for the job's 11 machines");
  expect_error_at({{"topology", {{"type", "torus"}, {"dimensions", {2, 2}}, {"link", kLink}}}},
                  "/cluster/topology/dimensions", "4 leaves");
  // Co-located servers need no machines of their own: 8 + 1 fit in 9.
  EXPECT_NO_THROW(
      parse_scenario(with_cluster({{"topology", {{"type", "torus"}, {"dimensions", {3, 3}}, {"link", kLink}}},
                                   {"server_placement", "colocated"}})));
}

TEST(ScenarioTopology, BadTopologyParameters) {
  expect_error_at({{"topology", {{"type", "racks"}, {"hosts_per_rack", 4}, {"uplink", kLink}, {"spine", 2}}}},
                  "/cluster/topology/spine", "unknown key");
  expect_error_at({{"topology", "racks"}}, "/cluster/topology", "needs its parameters");
  expect_error_at({{"topology", "ring"}}, "/cluster/topology", "ring");
  expect_error_at(
      {{"topology", {{"type", "fat_tree"}, {"down", {4, 4}}, {"up", {1}}, {"link_count", {1, 1}}, {"link", kLink}}}},
      "/cluster/topology/up", "one entry per level");
  expect_error_at({{"topology",
                    {{"type", "dragonfly"},
                     {"groups", {3, 1}},
                     {"chassis", {1, 1}},
                     {"routers", {2, 1}},
                     {"nodes", 4},
                     {"link", kLink}}}},
                  "/cluster/topology/groups", "at least as many routers");
  expect_error_at({{"topology", {{"type", "torus"}, {"dimensions", {4, 4}}}}}, "/cluster/topology/link", "missing");
}

TEST(ScenarioTopology, ServerPlacementChecks) {
  expect_error_at({{"server_placement", "spread"}}, "/cluster/server_placement", "star");
  expect_error_at(
      {{"server_placement", "colocated"}, {"servers", 3}, {"workers_per_host", 4}, {"intra_host", "nvlink4"}},
      "/cluster/server_placement", "3 servers need that many worker machines, the cluster has 2");
}

TEST(ScenarioTopology, HostGroupsGiveEachNodeItsHardware) {
  const json groups =
      json::array({{{"count", 6}, {"device", "h100"}, {"link", {{"bandwidth", "25Gbps"}, {"latency", "5us"}}}},
                   {{"count", 2}, {"device", "a100"}, {"link", {{"bandwidth", "10Gbps"}, {"latency", "5us"}}}}});
  const Scenario s = parse_scenario(with_cluster({{"worker", groups}}));
  ASSERT_EQ(s.cluster.worker_nodes.size(), 8u);
  EXPECT_EQ(s.cluster.worker_spec(5).device.name, "h100");
  EXPECT_EQ(s.cluster.worker_spec(6).device.name, "a100");
  EXPECT_DOUBLE_EQ(s.cluster.worker_spec(7).link.bandwidth_Bps, 1.25e9);
  EXPECT_EQ(s.cluster.worker.device.name, "h100");  // the first group's
}

TEST(ScenarioTopology, HostGroupCountsMustAddUp) {
  json groups = json::array(
      {{{"count", 6}, {"device", "h100"}, {"link", kLink}}, {{"count", 1}, {"device", "a100"}, {"link", kLink}}});
  expect_error_at({{"worker", groups}}, "/cluster/worker", "add up to 7, not the 8");
  groups[1]["count"] = 3;
  expect_error_at({{"worker", groups}}, "/cluster/worker/1/count", "more than the 8");
  groups[0]["count"] = 5;
  expect_error_at({{"worker", groups}, {"workers_per_host", 2}, {"intra_host", "pcie4"}}, "/cluster/worker/0/count",
                  "whole machines of 2");
}

TEST(ScenarioTopology, OverridesChangeOneNode) {
  const Scenario s =
      parse_scenario(with_cluster({{"overrides",
                                    {{"worker:3", {{"link", {{"bandwidth", "1Gbps"}, {"latency", "1ms"}}}}},
                                     {"server:1", {{"device", "a100"}}}}}}));
  EXPECT_DOUBLE_EQ(s.cluster.worker_spec(3).link.bandwidth_Bps, 1.25e8);
  EXPECT_DOUBLE_EQ(s.cluster.worker_spec(2).link.bandwidth_Bps, 1.25e9);
  EXPECT_EQ(s.cluster.server_spec(1).device.name, "a100");
  EXPECT_EQ(s.cluster.server_spec(0).device.name, "cpu");
}

TEST(ScenarioTopology, BadOverrides) {
  expect_error_at({{"overrides", {{"worker:9", {{"device", "a100"}}}}}}, "/cluster/overrides/worker:9",
                  "does not exist");
  expect_error_at({{"overrides", {{"worker:1", {{"gpu", "a100"}}}}}}, "/cluster/overrides/worker:1/gpu", "unknown key");
  expect_error_at({{"overrides", {{"scheduler", {{"device", "a100"}}}}}}, "/cluster/overrides/scheduler",
                  "equipped like a server");
  // A machine's workers share its NIC: only its first worker names it.
  expect_error_at(
      {{"workers_per_host", 4}, {"intra_host", "nvlink4"}, {"overrides", {{"worker:5", {{"link", kLink}}}}}},
      "/cluster/overrides/worker:5/link", "override it at the machine's first worker, worker:4");
}

}  // namespace
}  // namespace pstwin

namespace pstwin {
namespace {

// An override must change something: a co-located server has no link of its own, and
// "worker:03" would be a second key for worker 3 (the last one silently won).
TEST(ScenarioTopology, OverridesThatWouldBeIgnoredAreRefused) {
  expect_error_at({{"workers_per_host", 4}, {"intra_host", "pcie4"}, {"server_placement", "colocated"},
                   {"overrides", {{"server:0", {{"link", kLink}}}}}},
                  "/cluster/overrides/server:0/link", "co-located: it uses the NIC of its machine, worker:0's link");
  expect_error_at({{"overrides", {{"worker:3", {{"device", "a100"}}}, {"worker:03", {{"device", "h100"}}}}}},
                  "/cluster/overrides/worker:03", "without leading zeros (\"worker:3\")");
  // A co-located server's device may still differ.
  EXPECT_NO_THROW(parse_scenario(with_cluster({{"workers_per_host", 4}, {"intra_host", "pcie4"},
                                               {"server_placement", "colocated"},
                                               {"overrides", {{"server:0", {{"device", "a100"}}}}}})));
}

}  // namespace
}  // namespace pstwin

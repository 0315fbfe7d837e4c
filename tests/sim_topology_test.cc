// Each topology: a message between two nodes takes the route, and the time, that README's
// "Topologies" formulas give: under CM02 (no latency or bandwidth factors) a lone message of B
// bytes takes the sum of its links' latencies plus B over the slowest link's bandwidth; under
// LV08 (the default) 13.01 x the latencies plus B over 0.97 x that bandwidth.
#include <gtest/gtest.h>

#include "tests/sim_route_probe.h"

namespace pstwin {
namespace {

using nlohmann::json;
using testing_support::Probe;
using testing_support::probe_route;

// 4 workers, 1 server: NodeId 0 is the scheduler, 1 the server, 2..5 workers 0..3.
// Worker NICs 10 Gbit/s (1.25e9 B/s) and 10 us; the server's 20 Gbit/s and 20 us.
constexpr NodeId kServer = 1;
constexpr NodeId worker(int i) { return 2 + i; }
constexpr double kBytes = 1e6;
constexpr double kWorkerBw = 1.25e9, kWorkerLat = 10e-6, kServerBw = 2.5e9, kServerLat = 20e-6;

json cluster(const json& extra) {
  json doc = json::parse(R"({
    "name": "topology", "seed": 1,
    "model": {"type": "synthetic", "parameters": 1000, "flops_per_iteration": 1e6},
    "training": {"iterations": 1},
    "consistency": [{"mode": "bsp"}],
    "cluster": {"workers": 4, "servers": 1,
                "worker": {"device": "h100", "link": {"bandwidth": "10Gbps", "latency": "10us"}},
                "server": {"device": "cpu", "link": {"bandwidth": "20Gbps", "latency": "20us"}}}
  })");
  doc["cluster"].update(extra);
  return doc;
}

/// A fabric link of 8 Gbit/s (1e9 B/s) and 2 us.
json fabric(json topology) {
  topology["link"] = {{"bandwidth", "8Gbps"}, {"latency", "2us"}};
  return topology;
}

void expect_time(const Probe& p, double latency_s, double bandwidth_Bps) {
  ASSERT_TRUE(p.ok);
  EXPECT_NEAR(p.latency_s, latency_s, 1e-12);
  EXPECT_NEAR(p.time_s, latency_s + kBytes / bandwidth_Bps, 1e-9);
}

using Links = std::vector<std::string>;

TEST(Topology, StarIsTwoNicsAndTheSlowerOne) {
  const Probe p = probe_route(cluster(json::object()), worker(0), kServer, kBytes);
  EXPECT_EQ(p.links, (Links{"link-worker-0_UP", "link-server-0_DOWN"}));
  expect_time(p, kWorkerLat + kServerLat, kWorkerBw);
}

TEST(Topology, Lv08MultipliesLatencyBy13_01AndBandwidthBy0_97) {
  const Probe p = probe_route(cluster(json::object()), worker(0), kServer, kBytes, {});
  ASSERT_TRUE(p.ok);
  EXPECT_NEAR(p.time_s, 13.01 * (kWorkerLat + kServerLat) + kBytes / (0.97 * kWorkerBw), 1e-9);
}

TEST(Topology, RacksCrossBothUplinksBetweenRacksAndNoneInside) {
  // 2 worker machines per rack (racks 0 and 1), the server in rack 2; uplinks 4 Gbit/s, 5 us.
  const json racks = {
      {"topology",
       {{"type", "racks"}, {"hosts_per_rack", 2}, {"uplink", {{"bandwidth", "4Gbps"}, {"latency", "5us"}}}}}};
  const Probe across = probe_route(cluster(racks), worker(1), kServer, kBytes);
  EXPECT_EQ(across.links, (Links{"link-worker-1_UP", "uplink-rack-0_UP", "uplink-rack-2_DOWN", "link-server-0_DOWN"}));
  expect_time(across, kWorkerLat + 5e-6 + 5e-6 + kServerLat, 5e8);
  const Probe inside = probe_route(cluster(racks), worker(0), worker(1), kBytes);
  EXPECT_EQ(inside.links, (Links{"link-worker-0_UP", "link-worker-1_DOWN"}));
  expect_time(inside, 2 * kWorkerLat, kWorkerBw);
  // The scheduler sits in the servers' rack.
  const Probe scheduler = probe_route(cluster(racks), JobLayout::scheduler(), worker(3), kBytes);
  EXPECT_EQ(scheduler.links,
            (Links{"link-scheduler_UP", "uplink-rack-2_UP", "uplink-rack-1_DOWN", "link-worker-3_DOWN"}));
  expect_time(scheduler, kServerLat + 5e-6 + 5e-6 + kWorkerLat, 5e8);
}

TEST(Topology, FatTreeClimbsToTheNearestCommonSwitch) {
  // Leaves 0..3 are workers 0..3, leaf 4 the server; level-1 switches join leaves in pairs.
  const json fat = {
      {"topology", fabric({{"type", "fat_tree"}, {"down", {2, 4}}, {"up", {1, 2}}, {"link_count", {1, 1}}})}};
  const Probe pair = probe_route(cluster(fat), worker(0), worker(1), kBytes);
  ASSERT_EQ(pair.links.size(), 4u);  // NIC, up to the level-1 switch, down, NIC
  expect_time(pair, 2 * kWorkerLat + 2 * 2e-6, 1e9);
  const Probe top = probe_route(cluster(fat), worker(0), kServer, kBytes);
  ASSERT_EQ(top.links.size(), 6u);  // NIC, two levels up, two down, NIC
  EXPECT_EQ(top.links.front(), "link-worker-0_UP");
  EXPECT_EQ(top.links.back(), "link-server-0_DOWN");
  expect_time(top, kWorkerLat + 4 * 2e-6 + kServerLat, 1e9);
}

TEST(Topology, DragonflyTakesGreenAndBlueLinksBetweenGroups) {
  // 2 groups of 1 chassis of 2 routers of 2 machines: workers 0, 1 on router 0 of group 0,
  // the server on router 0 of group 1.
  const json df = {
      {"topology",
       fabric({{"type", "dragonfly"}, {"groups", {2, 1}}, {"chassis", {1, 1}}, {"routers", {2, 1}}, {"nodes", 2}})}};
  const Probe same_router = probe_route(cluster(df), worker(0), worker(1), kBytes);
  ASSERT_EQ(same_router.links.size(), 4u);
  expect_time(same_router, 2 * kWorkerLat + 2 * 2e-6, 1e9);
  // Router 0 of group 0 -> router 1 (green) -> group 1 (blue) -> the server's router.
  const Probe groups = probe_route(cluster(df), worker(0), kServer, kBytes);
  ASSERT_EQ(groups.links.size(), 6u);
  EXPECT_EQ(groups.links[2].rfind("green_link", 0), 0u) << groups.links[2];
  EXPECT_EQ(groups.links[3].rfind("blue_link", 0), 0u) << groups.links[3];
  expect_time(groups, kWorkerLat + 4 * 2e-6 + kServerLat, 1e9);
}

TEST(Topology, TorusGoesRoundTheShorterWay) {
  // A 3 x 2 torus: worker 0 at (0,0), worker 2 at (2,0) one step back round the ring, the
  // server (leaf 4) at (1,1).
  const json torus = {{"topology", fabric({{"type", "torus"}, {"dimensions", {3, 2}}})}};
  const Probe ring = probe_route(cluster(torus), worker(0), worker(2), kBytes);
  ASSERT_EQ(ring.links.size(), 3u);
  expect_time(ring, 2 * kWorkerLat + 2e-6, 1e9);
  const Probe diagonal = probe_route(cluster(torus), worker(0), kServer, kBytes);
  ASSERT_EQ(diagonal.links.size(), 4u);
  expect_time(diagonal, kWorkerLat + 2 * 2e-6 + kServerLat, 1e9);
}

TEST(Topology, WorkersOfAMachineShareItsNicAndTalkOverTheIntraHostLink) {
  const json shared = {{"workers_per_host", 2}, {"intra_host", {{"bandwidth", "400Gbps"}, {"latency", "1us"}}}};
  const Probe peers = probe_route(cluster(shared), worker(0), worker(1), kBytes);
  EXPECT_EQ(peers.links, (Links{"link-worker-0_UP", "link-worker-1_DOWN"}));
  expect_time(peers, 2e-6, 5e10);
  const Probe out = probe_route(cluster(shared), worker(1), kServer, kBytes);
  EXPECT_EQ(out.links, (Links{"link-worker-1_UP", "link-machine-0_UP", "link-server-0_DOWN"}));
  expect_time(out, 1e-6 + kWorkerLat + kServerLat, kWorkerBw);
}

TEST(Topology, ColocatedServerSharesItsMachinesNic) {
  const json colocated = {{"server_placement", "colocated"}};
  // On the same machine: the loopback both ways (SimGrid's 10 GB/s, 0 latency).
  const Probe local = probe_route(cluster(colocated), worker(0), kServer, kBytes);
  EXPECT_EQ(local.links, (Links{"link-worker-0_UP", "link-server-0_DOWN"}));
  expect_time(local, 0.0, 1e10);
  // From another machine: through machine 0's NIC (the worker's link), not the server's own.
  const Probe remote = probe_route(cluster(colocated), worker(1), kServer, kBytes);
  EXPECT_EQ(remote.links, (Links{"link-worker-1_UP", "link-machine-0_DOWN", "link-server-0_DOWN"}));
  expect_time(remote, 2 * kWorkerLat, kWorkerBw);
}

TEST(Topology, OneSlowLinkOverride) {
  const json slow = {{"overrides", {{"worker:3", {{"link", {{"bandwidth", "1Gbps"}, {"latency", "100us"}}}}}}}};
  expect_time(probe_route(cluster(slow), worker(3), kServer, kBytes), 100e-6 + kServerLat, 1.25e8);
  expect_time(probe_route(cluster(slow), worker(2), kServer, kBytes), kWorkerLat + kServerLat, kWorkerBw);
}

}  // namespace
}  // namespace pstwin

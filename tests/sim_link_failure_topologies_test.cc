// A link failure on any platform, not only the flat star: the messages held while the link is
// down leave from their sender's host once it is back. They had left from the failure
// injector's host (the scheduler's), which SimGrid cannot route to itself inside a zone: the
// simulation aborted ("no connecting path between scheduler and scheduler").
#include <gtest/gtest.h>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;
using nlohmann::json;

/// 8 workers, 2 servers, BSP with heartbeats every 2 ms, worker 1's link down from 5 ms to
/// 15 ms (several heartbeats and a push are held), on a cluster changed by `cluster`. Every
/// run lasts past 15 ms.
json with_link_failure(const json& cluster) {
  json s = synthetic_scenario(1e5, 1e9);
  s["cluster"]["workers"] = 8;
  s["cluster"].update(cluster);
  s["training"]["iterations"] = 20;
  s["fault_tolerance"] = {{"heartbeat_interval", "2ms"}, {"heartbeat_timeout", "1s"}};
  s["failures"] = json::parse(R"([{"link": "worker:1", "at": "5ms", "recover_at": "15ms"}])");
  return s;
}

TEST(LinkFailureTopologies, HeldMessagesAreDeliveredOnEveryPlatform) {
  const json clusters[] = {
      {{"topology", {{"type", "racks"}, {"hosts_per_rack", 4},
                     {"uplink", {{"bandwidth", "10Gbps"}, {"latency", "10us"}}}}}},
      {{"workers_per_host", 2}, {"intra_host", "pcie4"}},
      {{"workers_per_host", 4}, {"intra_host", "pcie4"}, {"server_placement", "colocated"}},
  };
  for (const auto& cluster : clusters) {
    const std::string out = simulate(fresh_dir(), with_link_failure(cluster));
    const json summary = read_json(out + "/bsp/summary.json");
    EXPECT_TRUE(summary["completed"].get<bool>()) << cluster.dump() << "\n" << summary.dump();
    EXPECT_EQ(events_of(out + "/bsp", "link_restored").size(), 1u) << cluster.dump();
    EXPECT_EQ(events_of(out + "/bsp", "node_dead").size(), 0u) << cluster.dump();  // held, not lost
  }
}

}  // namespace
}  // namespace pstwin

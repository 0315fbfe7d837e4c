// Oversubscribed racks slow BSP by the factor their uplinks' traffic implies, and not at all
// when every machine shares one rack (timing-only model, no compute: the run is all network).
#include <gtest/gtest.h>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;
using nlohmann::json;

// 8 workers behind 10 Gbit/s NICs (B), one server behind an 80 Gbit/s one (8B), 25M
// parameters: each push and each pull moves P = 100 MB per worker. One server: one barrier, so
// the phases stay in step (with several servers each one's barrier drifts against the others',
// and the uplinks idle part of the time: see README, "Topologies").
json scenario() {
  return json::parse(R"({
    "name": "racks", "seed": 1,
    "model": {"type": "synthetic", "parameters": 25000000, "flops_per_iteration": 0},
    "training": {"iterations": 5, "eval_every": 1000},
    "consistency": [{"mode": "bsp"}],
    "cluster": {"workers": 8, "servers": 1,
                "worker": {"device": {"flops": "10Tf", "bandwidth": "1TBps"},
                           "link": {"bandwidth": "10Gbps", "latency": "10us"}},
                "server": {"device": {"flops": "10Tf", "bandwidth": "1TBps"},
                           "link": {"bandwidth": "80Gbps", "latency": "10us"}}}
  })");
}

json racks(int hosts_per_rack, const std::string& uplink) {
  json s = scenario();
  s["cluster"]["topology"] = {
      {"type", "racks"}, {"hosts_per_rack", hosts_per_rack}, {"uplink", {{"bandwidth", uplink}, {"latency", "10us"}}}};
  s["cluster"]["server_placement"] = "spread";
  return s;
}

double sim_time(const json& s, const std::string& tag) {
  const std::string out = simulate(fresh_dir(tag), s);
  return read_json(out + "/bsp/summary.json")["sim_time_s"].get<double>();
}

// Seconds per BSP iteration: the difference between 10 and 5 iterations, over 5. What every run
// does once (start-up, the final evaluation's snapshots to the scheduler) cancels out.
double per_iteration(json s, const std::string& tag) {
  const double five = sim_time(s, tag + "-5");
  s["training"]["iterations"] = 10;
  return (sim_time(s, tag + "-10") - five) / 5;
}

TEST(Racks, FourToOneUplinksMakeABspIterationFourTimesLonger) {
  // Two racks of 4 workers; the server (and the scheduler) in rack 0. In the star each phase
  // takes P/B: a worker's NIC carries its push P (then its pull P), and the server's NIC 8P at
  // 8B. Across racks, rack 1's 4 workers push 4P over the two uplinks, and pull 4P back. At 1:1
  // (40 Gbit/s = 4B) that is P/B, as in the star; at 4:1 (10 Gbit/s = B) 4P/B, the 4 flows
  // sharing the uplink the whole phase: 4 times the star's iteration.
  const double star = per_iteration(scenario(), "star");
  const double one_to_one = per_iteration(racks(4, "40Gbps"), "1to1");
  const double four_to_one = per_iteration(racks(4, "10Gbps"), "4to1");
  EXPECT_NEAR(one_to_one / star, 1.0, 0.02);
  EXPECT_NEAR(four_to_one / star, 4.0, 0.08);
}

TEST(Racks, OneRackIsTheStarWhateverItsUplink) {
  // All 8 workers, the server and the scheduler in rack 0: no message crosses its 4:1 uplink.
  EXPECT_NEAR(sim_time(racks(8, "20Gbps"), "one-rack") / sim_time(scenario(), "star"), 1.0, 1e-9);
}

}  // namespace
}  // namespace pstwin

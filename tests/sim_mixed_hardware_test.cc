// Mixed hardware: each worker computes at its own group's device speed, in the simulation's
// clock and in its host's speed; per-node overrides change one node only.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "runtime/scenario/scenario.h"
#include "sim/platform.h"
#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;
using nlohmann::json;

// 2 workers, 1 server; 1e12 flops per iteration: 0.05 s on a 20 Tflop/s worker, 0.1 s on a 10.
json mixed(const std::string& mode) {
  json s = json::parse(R"({
    "name": "mixed", "seed": 1,
    "model": {"type": "synthetic", "parameters": 1000, "flops_per_iteration": 1e12},
    "training": {"iterations": 10, "eval_every": 1},
    "cluster": {"workers": 2, "servers": 1,
                "worker": [{"count": 1, "device": {"flops": "20Tf", "bandwidth": "1TBps"},
                            "link": {"bandwidth": "10Gbps", "latency": "10us"}},
                           {"count": 1, "device": {"flops": "10Tf", "bandwidth": "1TBps"},
                            "link": {"bandwidth": "10Gbps", "latency": "10us"}}],
                "server": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "10us"}}}
  })");
  s["consistency"] = json::array({{{"mode", mode}}});
  return s;
}

TEST(MixedHardware, EachNodeGetsItsGroupsDeviceAndOverrides) {
  json doc = mixed("bsp");
  doc["cluster"]["workers"] = 4;
  doc["cluster"]["worker"][0]["count"] = 3;
  doc["cluster"]["overrides"] = {{"worker:1", {{"device", "a100"}}}};
  const Scenario s = parse_scenario(doc);
  const JobLayout layout{1, 4};
  EXPECT_DOUBLE_EQ(node_device(s.cluster, layout, layout.worker(0)).peak_flops, 20e12);
  EXPECT_DOUBLE_EQ(node_device(s.cluster, layout, layout.worker(1)).peak_flops, 19.5e12);  // a100
  EXPECT_DOUBLE_EQ(node_device(s.cluster, layout, layout.worker(2)).peak_flops, 20e12);
  EXPECT_DOUBLE_EQ(node_device(s.cluster, layout, layout.worker(3)).peak_flops, 10e12);
  EXPECT_EQ(node_device(s.cluster, layout, layout.server(0)).name, "cpu");
}

TEST(MixedHardware, BspIsPacedByTheSlowGroup) {
  // 10 iterations of the 10 Tflop/s worker's 0.1 s; the network adds well under 1%.
  const std::string out = simulate(fresh_dir(), mixed("bsp"));
  EXPECT_NEAR(read_json(out + "/bsp/summary.json")["sim_time_s"].get<double>(), 1.0, 0.01);
}

TEST(MixedHardware, UnderAspTheFastGroupRunsTwiceAsManyIterations) {
  // ASP: the clock follows the slow worker; updates count both. When the slow worker has done c
  // iterations (c x 0.1 s) the fast one has done 2c (each 0.05 s), less one for the round trips
  // it made meanwhile: updates = 3c or 3c - 1.
  const std::string out = simulate(fresh_dir(), mixed("asp"));
  std::ifstream csv(out + "/asp/metrics.csv");
  std::string line;
  std::getline(csv, line);  // header: time_s,clock,updates,...
  bool seen = false;
  while (std::getline(csv, line)) {
    std::stringstream row(line);
    std::string time, clock, updates;
    std::getline(row, time, ',');
    std::getline(row, clock, ',');
    std::getline(row, updates, ',');
    if (std::stoi(clock) != 4) continue;
    seen = true;
    EXPECT_GE(std::stoi(updates), 11) << line;
    EXPECT_LE(std::stoi(updates), 12) << line;
  }
  EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace pstwin

// The scenario key training.device (where a real run's roles compute): its values, its default,
// and its strict errors at the JSON pointer.
#include <gtest/gtest.h>

#include <string>

#include "runtime/errors.h"
#include "runtime/scenario/scenario.h"

namespace pstwin {
namespace {

using nlohmann::json;

json scenario_with_training(const json& training) {
  json doc = json::parse(R"({
    "name": "device", "seed": 1,
    "model": {"type": "synthetic", "parameters": 1000, "flops_per_iteration": 1e6,
              "bytes_per_iteration": 1e6},
    "consistency": [{"mode": "bsp"}],
    "cluster": {"workers": 2, "servers": 1,
                "worker": {"device": "h100", "link": {"bandwidth": "10Gbps", "latency": "50us"}},
                "server": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "50us"}}}
  })");
  doc["training"] = training;
  return doc;
}

TEST(ScenarioDevice, DefaultsToTheCpu) {
  EXPECT_EQ(parse_scenario(scenario_with_training({{"iterations", 3}})).training.device, "cpu");
}

TEST(ScenarioDevice, AcceptsAutoCpuAndCuda) {
  for (const char* device : {"auto", "cpu", "cuda"}) {
    const Scenario s = parse_scenario(scenario_with_training({{"iterations", 3}, {"device", device}}));
    EXPECT_EQ(s.training.device, device);
  }
}

TEST(ScenarioDevice, RejectsOtherValuesAtItsPointer) {
  for (const json& bad : {json("gpu"), json("CUDA"), json(""), json(1), json::object()}) {
    try {
      parse_scenario(scenario_with_training({{"iterations", 3}, {"device", bad}}));
      FAIL() << "accepted training.device = " << bad.dump();
    } catch (const ScenarioError& e) {
      EXPECT_EQ(e.pointer(), "/training/device");
      EXPECT_NE(std::string(e.what()).find("\"auto\""), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace pstwin

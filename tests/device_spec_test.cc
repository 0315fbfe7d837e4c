// The roofline rule and device presets (kernels/device_spec.h), and how scenarios choose them.
#include "kernels/device_spec.h"

#include <gtest/gtest.h>

#include "runtime/errors.h"
#include "runtime/scenario/scenario.h"

namespace pstwin {
namespace {

TEST(DeviceSpec, RooflineTakesTheSlowerOfComputeAndMemory) {
  const DeviceSpec d{"t", 1e12, 1e11, 0.0};
  EXPECT_DOUBLE_EQ(d.seconds(Cost{2e12, 1e9}), 2.0);    // compute-bound: 2e12 / 1e12
  EXPECT_DOUBLE_EQ(d.seconds(Cost{1e9, 5e11}), 5.0);    // memory-bound: 5e11 / 1e11
  EXPECT_DOUBLE_EQ(d.seconds(Cost{1e12, 1e11}), 1.0);   // on the ridge
}

TEST(DeviceSpec, OverheadIsAddedPerStepButNotToNothing) {
  const DeviceSpec d{"t", 1e12, 1e11, 0.002};
  EXPECT_DOUBLE_EQ(d.seconds(Cost{1e12, 0}), 1.002);
  EXPECT_DOUBLE_EQ(d.seconds(Cost{}), 0.0);
}

TEST(DeviceSpec, PresetsCarryDatasheetFigures) {
  const auto v100 = device_preset("v100");
  ASSERT_TRUE(v100);
  EXPECT_DOUBLE_EQ(v100->peak_flops, 15.7e12);
  EXPECT_DOUBLE_EQ(v100->mem_bandwidth_Bps, 0.9e12);
  EXPECT_TRUE(device_preset("h200"));
  EXPECT_FALSE(device_preset("tpu9"));
  EXPECT_NE(device_preset_names().find("a100"), std::string::npos);
}

nlohmann::json scenario_with_worker_device(const nlohmann::json& device) {
  auto doc = nlohmann::json::parse(R"({
    "name": "d", "seed": 1,
    "model": {"type": "synthetic", "parameters": 10},
    "training": {"iterations": 1},
    "consistency": [{"mode": "bsp"}],
    "cluster": {"workers": 1, "servers": 1,
                "worker": {"device": "cpu", "link": {"bandwidth": "1Gbps", "latency": "1us"}},
                "server": {"device": "cpu", "link": {"bandwidth": "1Gbps", "latency": "1us"}}}
  })");
  doc["cluster"]["worker"]["device"] = device;
  return doc;
}

TEST(DeviceSpec, ScenarioPresetObjectWithOverhead) {
  const auto s = parse_scenario(
      scenario_with_worker_device({{"preset", "a100"}, {"overhead", "2ms"}}));
  EXPECT_EQ(s.cluster.worker.device.name, "a100");
  EXPECT_DOUBLE_EQ(s.cluster.worker.device.peak_flops, 19.5e12);
  EXPECT_DOUBLE_EQ(s.cluster.worker.device.overhead_s, 0.002);
  EXPECT_DOUBLE_EQ(s.cluster.server.device.overhead_s, 0.0);
}

TEST(DeviceSpec, ScenarioDeviceErrorsNameThePointer) {
  auto pointer_of = [](const nlohmann::json& device) {
    try {
      parse_scenario(scenario_with_worker_device(device));
    } catch (const ScenarioError& e) {
      return e.pointer();
    }
    return std::string("<valid>");
  };
  EXPECT_EQ(pointer_of({{"preset", "tpu9"}}), "/cluster/worker/device/preset");
  EXPECT_EQ(pointer_of({{"preset", "v100"}, {"flops", "1Tf"}}), "/cluster/worker/device/flops");
  EXPECT_EQ(pointer_of({{"preset", "v100"}, {"overhead", "-1ms"}}),
            "/cluster/worker/device/overhead");
  EXPECT_EQ(pointer_of({{"flops", "1Tf"}}), "/cluster/worker/device/bandwidth");
  EXPECT_EQ(pointer_of({{"preset", "v100"}, {"speed", 3}}), "/cluster/worker/device/speed");
}

}  // namespace
}  // namespace pstwin

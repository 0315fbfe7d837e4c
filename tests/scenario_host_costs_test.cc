// The scenario keys of the host costs: a group's (and an override's) "messaging", the
// cluster's "cpu", a custom device's "kind"; their values, what absence means, their strict
// errors at the JSON pointer, and how validate describes them (host_cost_lines).
#include <gtest/gtest.h>

#include <string>

#include "runtime/errors.h"
#include "runtime/scenario/cluster_costs.h"
#include "runtime/scenario/scenario.h"

namespace pstwin {
namespace {

using nlohmann::json;

json base() {
  return json::parse(R"({
    "name": "hostcosts", "seed": 1,
    "model": {"type": "synthetic", "parameters": 1000, "flops_per_iteration": 1e6},
    "training": {"iterations": 3},
    "consistency": [{"mode": "bsp"}],
    "cluster": {"workers": 4, "servers": 2,
                "worker": {"device": "h100", "link": {"bandwidth": "10Gbps", "latency": "50us"}},
                "server": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "50us"}}}
  })");
}

void expect_error(const json& doc, const std::string& pointer, const std::string& words) {
  try {
    parse_scenario(doc);
    FAIL() << "accepted " << doc["cluster"].dump();
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.pointer(), pointer) << e.what();
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(ScenarioHostCosts, AbsentMeansNoHostCosts) {
  const Scenario s = parse_scenario(base());
  EXPECT_FALSE(s.cluster.cpu.has_value());
  EXPECT_TRUE(s.cluster.worker_spec(0).messaging.free());
  EXPECT_TRUE(s.cluster.server_spec(1).messaging.free());
  EXPECT_TRUE(host_cost_lines(s.cluster).empty());
  // The presets say whether they are GPUs; a custom device is a CPU unless it says otherwise.
  EXPECT_TRUE(s.cluster.worker.device.gpu);
  EXPECT_FALSE(s.cluster.server.device.gpu);
}

TEST(ScenarioHostCosts, MessagingReadsEachFigureInSeconds) {
  json doc = base();
  doc["cluster"]["worker"]["messaging"] = {{"send_per_message", "25us"}, {"send_per_byte", "0.4ns"},
                                           {"receive_per_message", "20us"}, {"receive_per_byte", "0.2ns"}};
  doc["cluster"]["server"]["messaging"] = {{"receive_per_message", "50us"}};
  const Scenario s = parse_scenario(doc);
  const MessagingSpec& w = s.cluster.worker_spec(3).messaging;
  EXPECT_DOUBLE_EQ(w.send_per_message_s, 25e-6);
  EXPECT_DOUBLE_EQ(w.send_per_byte_s, 0.4e-9);
  EXPECT_DOUBLE_EQ(w.receive_per_message_s, 20e-6);
  EXPECT_DOUBLE_EQ(w.receive_per_byte_s, 0.2e-9);
  EXPECT_DOUBLE_EQ(w.send_s(1000), 25e-6 + 1000 * 0.4e-9);
  EXPECT_DOUBLE_EQ(w.receive_s(1000), 20e-6 + 1000 * 0.2e-9);
  const MessagingSpec& server = s.cluster.server_spec(0).messaging;
  EXPECT_DOUBLE_EQ(server.receive_per_message_s, 50e-6);
  EXPECT_EQ(server.send_per_message_s, 0.0);  // left out: 0
  const auto lines = host_cost_lines(s.cluster);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "messaging: workers: send 2.5e-05 s + 4e-10 s/byte, receive 2e-05 s + 2e-10 s/byte");
  EXPECT_EQ(lines[1], "messaging: servers: send 0 s + 0 s/byte, receive 5e-05 s + 0 s/byte");
}

TEST(ScenarioHostCosts, IoShareSplitsEachCostBetweenTheRoleAndTheIoThread) {
  json doc = base();
  doc["cluster"]["worker"]["messaging"] = {{"send_per_message", "20us"}, {"io_share", 0.25}};
  const Scenario s = parse_scenario(doc);
  const MessagingSpec& w = s.cluster.worker_spec(0).messaging;
  EXPECT_DOUBLE_EQ(w.io_share, 0.25);
  EXPECT_DOUBLE_EQ(w.role_part(w.send_s(0)), 15e-6);
  EXPECT_DOUBLE_EQ(w.io_part(w.send_s(0)), 5e-6);
  EXPECT_EQ(s.cluster.server_spec(0).messaging.io_share, 0.0);  // absent: the role does it all
  EXPECT_EQ(host_cost_lines(s.cluster).at(0),
            "messaging: workers: send 2e-05 s + 0 s/byte, receive 0 s + 0 s/byte, 25% of it on the I/O thread");
  // A share, not a cost: outside [0, 1] is refused at its pointer.
  doc["cluster"]["worker"]["messaging"]["io_share"] = 1.5;
  expect_error(doc, "/cluster/worker/messaging/io_share", "");
  doc["cluster"]["worker"]["messaging"]["io_share"] = "half";
  expect_error(doc, "/cluster/worker/messaging/io_share", "");
  // Where the simulation cannot give a node an I/O thread, the scenario says so.
  doc["cluster"]["worker"]["messaging"]["io_share"] = 0.5;
  doc["simulation"] = {{"nic_window", 2}};
  expect_error(doc, "/simulation/nic_window", "io_share above 0 (worker 0)");
  doc.erase("simulation");
  doc["failures"] = json::array({{{"node", "worker:1"}, {"at", "1s"}}});
  expect_error(doc, "/cluster", "worker 0: messaging io_share above 0 is not modelled");
}

TEST(ScenarioHostCosts, GroupsAndOverridesCarryMessagingPerNode) {
  json doc = base();
  doc["cluster"]["worker"] = json::parse(R"([
    {"count": 2, "device": "h100", "link": {"bandwidth": "10Gbps", "latency": "50us"},
     "messaging": {"send_per_message": "1us"}},
    {"count": 2, "device": "h100", "link": {"bandwidth": "10Gbps", "latency": "50us"}}])");
  doc["cluster"]["overrides"] = {{"worker:3", {{"messaging", {{"receive_per_byte", "1ns"}}}}}};
  const Scenario s = parse_scenario(doc);
  EXPECT_DOUBLE_EQ(s.cluster.worker_spec(1).messaging.send_per_message_s, 1e-6);
  EXPECT_TRUE(s.cluster.worker_spec(2).messaging.free());
  EXPECT_DOUBLE_EQ(s.cluster.worker_spec(3).messaging.receive_per_byte_s, 1e-9);
  const auto lines = host_cost_lines(s.cluster);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].rfind("messaging: worker 0-1: send 1e-06 s", 0), 0u) << lines[0];
  EXPECT_EQ(lines[1].rfind("messaging: worker 3: send 0 s", 0), 0u) << lines[1];
}

TEST(ScenarioHostCosts, CpuReadsCoresAndMachines) {
  json doc = base();
  doc["cluster"]["cpu"] = {{"cores", 2}, {"machines", "one"}};
  Scenario s = parse_scenario(doc);
  ASSERT_TRUE(s.cluster.cpu.has_value());
  EXPECT_EQ(s.cluster.cpu->cores, 2u);
  EXPECT_EQ(s.cluster.cpu->machines, CpuSpec::Machines::kOne);
  EXPECT_EQ(host_cost_lines(s.cluster), std::vector<std::string>{"cpu: 2 cores on one machine, shared by every node's host work"});
  doc["cluster"]["cpu"] = {{"cores", 32}, {"machines", "per_host"}};
  s = parse_scenario(doc);
  EXPECT_EQ(s.cluster.cpu->machines, CpuSpec::Machines::kPerHost);
  EXPECT_EQ(host_cost_lines(s.cluster),
            std::vector<std::string>{"cpu: 32 cores per machine, shared by the nodes of each machine"});
}

TEST(ScenarioHostCosts, RefusesBadValuesAtTheirPointer) {
  auto with = [](const char* where, const json& value) {
    json doc = base();
    doc["/cluster"_json_pointer / json::json_pointer(where)] = value;
    return doc;
  };
  expect_error(with("/worker/messaging", {{"send_per_msg", "1us"}}), "/cluster/worker/messaging/send_per_msg",
               "send_per_message");
  expect_error(with("/worker/messaging", {{"send_per_byte", "0.4"}}), "/cluster/worker/messaging/send_per_byte",
               "a unit is required");
  expect_error(with("/server/messaging", {{"receive_per_message", "-1us"}}),
               "/cluster/server/messaging/receive_per_message", "negative");
  expect_error(with("/server/messaging", "25us"), "/cluster/server/messaging", "object");
  // Absurd figures would stall the run for hours instead (a trial's 1e300s): refused.
  expect_error(with("/worker/messaging", {{"send_per_message", "1e300s"}}),
               "/cluster/worker/messaging/send_per_message", "at most 1s");
  expect_error(with("/worker/messaging", {{"receive_per_byte", "2us"}}),
               "/cluster/worker/messaging/receive_per_byte", "at most 1us");
  expect_error(with("/cpu", {{"cores", 0}, {"machines", "one"}}), "/cluster/cpu/cores", "");
  expect_error(with("/cpu", {{"cores", 2}, {"machines", "two"}}), "/cluster/cpu/machines", "per_host");
  expect_error(with("/cpu", {{"cores", 2}}), "/cluster/cpu/machines", "missing");
  expect_error(with("/cpu", {{"cores", 2}, {"machines", "one"}, {"threads", 4}}), "/cluster/cpu/threads", "");
  expect_error(with("/worker/device", {{"flops", "1Tf"}, {"bandwidth", "1TBps"}, {"kind", "tpu"}}),
               "/cluster/worker/device/kind", "gpu");
  expect_error(with("/overrides", {{"server:1", json::object()}}), "/cluster/overrides/server:1", "messaging");
}

}  // namespace
}  // namespace pstwin
